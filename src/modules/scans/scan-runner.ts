/**
 * One run of one scan, from connecting to the last write: list the catalog (filters in the source's SQL), then in
 * batches of tables sample them (bounded reads, in memory only), tell new, changed and unchanged columns from the
 * catalog's fields, classify and embed the new and changed ones, and write the batch with the scan's progress in one
 * short transaction; at the end remove the fields whose columns are gone (audited with their last classification).
 *
 * A batch is written whole or not at all, with the progress that records it, so the catalog always holds whole
 * tables as the source had them, and a scan taken over by another instance resumes after the last written batch.
 * Samples never leave this process's memory: the database gets the format signature and a summary of kinds.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { ConnectionFailure, type CatalogTable, type Connector, type SampleValue } from '../../connectors/index.js';
import type { Database, Tx } from '../../db/database.js';
import type { ScanRow, ScansTable } from '../../db/schema.js';
import { formatSignature } from '../../embeddings/format-signature.js';
import type { AuditService } from '../audit/audit.service.js';
import { boundCatalogTable } from '../../connectors/bounds.js';
import type {
  FieldScanWriter,
  PreparedScan,
  ScanBaselineRow,
  ScannedColumn,
} from '../fields/field-scan-writer.service.js';
import { isAutomaticSource } from '../fields/fields.schemas.js';
import { ScanNotesBuilder } from './scan-notes.js';
import * as repo from './scans.repository.js';
import { scanActor } from './scans.service.js';
import type { Updateable } from 'kysely';

/** Tables per batch, and columns per batch at most (a very wide table is a batch of its own). */
const BATCH_TABLES = 50;
const BATCH_COLUMNS = 2000;
/** Fields removed per transaction. */
const REMOVE_BATCH = 500;
/** Source failures that end the scan: the source as a whole cannot be read. Others (a table's grant, a broken view) skip the table's samples. */
const FATAL_CAUSES = new Set(['authentication', 'unreachable', 'tls', 'unknown_database']);

/** Why a run stopped before the end: cancelled, its claim lost to another instance, or this instance stopping. */
export class ScanStopped extends Error {
  constructor(readonly reason: 'cancel' | 'lost' | 'shutdown') {
    super(`scan stopped: ${reason}`);
  }
}

export type FieldsForScans = Pick<
  FieldScanWriter,
  'scanBaseline' | 'prepareScanFields' | 'applyScan' | 'removeScannedFields'
>;

export interface ScanRunDeps {
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  audit: AuditService;
  fields: FieldsForScans;
}

interface Counts {
  count_new: number;
  count_changed: number;
  count_removed: number;
  count_unchanged: number;
  count_classified: number;
}

const key = (table: string, field: string): string => `${table}\u0000${field}`;

interface TableCounts {
  name: string;
  fields: number;
  count_new: number;
  count_changed: number;
  count_unchanged: number;
  count_classified: number;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code.slice(0, 40) : undefined;
}

/**
 * An error of the app's database that refuses the data written (PostgreSQL data exceptions, class 22, and program
 * limits, class 54, e.g. an index row too large; SQLite's too big or mismatch), as opposed to the database being
 * unavailable: only such an error is confined to the table that caused it.
 */
export function isRefusedData(error: unknown): boolean {
  const code = errorCode(error);
  if (code === undefined) return false;
  return /^(22|54)[0-9A-Z]{3}$/.test(code) || code === 'SQLITE_TOOBIG' || code === 'SQLITE_MISMATCH';
}

/** The field's table name: `schema.table` on servers with schemas, the bare name for a SQLite file (one schema). */
export function fieldTableName(
  connector: Pick<Connector, 'kind'>,
  table: Pick<CatalogTable, 'schema' | 'name'>,
): string {
  return connector.kind === 'sqlite' ? table.name : `${table.schema}.${table.name}`;
}

/** The leading format class of a signature ("email short_text" → "email"). */
function dominantFormat(signature: string | null): string | null {
  return signature === null ? null : (signature.split(' ')[0] ?? null);
}

/**
 * Whether a column differs from its field: type or comment, or the dominant format of its values (compared only when
 * both the field and this scan have samples: a column that yields none this time is not taken to have changed).
 */
export function columnChanged(
  field: Pick<ScanBaselineRow, 'data_type' | 'comment' | 'format_signature'>,
  column: { data_type: string | null; comment: string | null; signature: string | null },
): boolean {
  if ((field.data_type ?? null) !== column.data_type) return true;
  if ((field.comment ?? null) !== column.comment) return true;
  const before = dominantFormat(field.format_signature);
  const after = dominantFormat(column.signature);
  return before !== null && after !== null && before !== after;
}

/** A scan keeps the classification of a field a person decided or an import gave. */
function keepsClassification(field: ScanBaselineRow): boolean {
  return field.locked === 1 || field.review_status === 'confirmed' || !isAutomaticSource(field.classification_source);
}

export class ScanRun {
  private readonly counts: Counts;
  private tablesDone: number;
  private fieldsDone: number;
  private tablesNotSampled = 0;
  private readonly notes: ScanNotesBuilder;
  /** The notes' version last committed with the scan's progress (-1: none yet this run). */
  private notesWritten = -1;
  /** A cancel seen inside a write transaction: the batch commits, then the run stops. */
  private cancelSeen = false;

  constructor(
    private readonly deps: ScanRunDeps,
    private readonly scan: ScanRow,
    private readonly worker: string,
    private readonly connector: Connector,
    private readonly signal: AbortSignal,
  ) {
    this.counts = {
      count_new: scan.count_new,
      count_changed: scan.count_changed,
      count_removed: scan.count_removed,
      count_unchanged: scan.count_unchanged,
      count_classified: scan.count_classified,
    };
    this.tablesDone = scan.tables_done;
    this.fieldsDone = scan.fields_done;
    this.notes = new ScanNotesBuilder(scan.notes);
  }

  /** Tables whose samples could not be read (a missing grant, a broken view): catalogued from their metadata only. */
  get notSampled(): number {
    return this.tablesNotSampled;
  }

  /** The totals of the scan's notes (for its audit entry). */
  get noteTotals(): ScanNotesBuilder['totals'] {
    return this.notes.totals;
  }

  /** Runs the scan to its end; throws ScanStopped, ConnectionFailure, or an error of the app's database. */
  async run(): Promise<void> {
    await this.progress({ phase: 'connecting' });
    await this.connector.test();
    this.checkSignal();

    await this.progress({ phase: 'listing' });
    // Every listed table bounded as an import is (names, comments, types): what cannot be stored is skipped and noted.
    const tables: CatalogTable[] = [];
    for await (const listed of this.connector.listColumns()) {
      const bounded = boundCatalogTable(listed, fieldTableName(this.connector, listed));
      this.notes.addMetadata(bounded.notes);
      if (bounded.table) tables.push(bounded.table);
      this.checkSignal();
    }
    const fieldsTotal = tables.reduce((n, t) => n + t.columns.length, 0);

    const baseline = new Map<string, ScanBaselineRow>();
    for (const row of await this.deps.fields.scanBaseline(this.scan.datasource_id))
      baseline.set(key(row.table_name, row.field_name), row);
    const seen = new Set<string>();

    // A scan taken over resumes by table identity: the tables its earlier runs wrote are done (their columns still
    // count as seen); every other table of this listing is scanned, including one that appeared meanwhile.
    const written = await repo.writtenTables(this.deps.database.db, this.scan.id);
    const todo: CatalogTable[] = [];
    this.tablesDone = 0;
    this.fieldsDone = 0;
    for (const table of tables) {
      const name = fieldTableName(this.connector, table);
      if (!written.has(name)) {
        todo.push(table);
        continue;
      }
      this.tablesDone++;
      this.fieldsDone += table.columns.length;
      for (const c of table.columns) seen.add(key(name, c.name));
    }
    const notesVersion = this.notes.version;
    await this.progress({
      tables_total: tables.length,
      fields_total: fieldsTotal,
      tables_done: this.tablesDone,
      fields_done: this.fieldsDone,
      notes: this.notes.json(),
    });
    this.notesWritten = notesVersion;

    let batch: CatalogTable[] = [];
    let batchColumns = 0;
    for (const table of todo) {
      if (batch.length > 0 && (batch.length >= BATCH_TABLES || batchColumns + table.columns.length > BATCH_COLUMNS)) {
        await this.runBatch(batch, baseline, seen);
        batch = [];
        batchColumns = 0;
      }
      batch.push(table);
      batchColumns += table.columns.length;
    }
    if (batch.length > 0) await this.runBatch(batch, baseline, seen);

    const gone = [...baseline.entries()].filter(([k]) => !seen.has(k)).map(([, row]) => row.id);
    if (gone.length > 0) await this.removeFields(gone);
  }

  private checkSignal(): void {
    if (this.signal.aborted)
      throw new ScanStopped((this.signal.reason as ScanStopped['reason'] | undefined) ?? 'shutdown');
  }

  /**
   * A fenced write of the scan's phase and progress (also a heartbeat). A lost claim stops the run at once (inside a
   * transaction: rolling it back); a cancel stops it now, or, seen inside a write transaction, once that commits.
   */
  private async progress(change: Updateable<ScansTable>, trx?: Tx): Promise<void> {
    const result = await repo.updateClaimed(trx ?? this.deps.database.db, this.scan.id, this.worker, {
      ...change,
      heartbeat_at: this.deps.clock.now().toISOString(),
    });
    if (result === undefined) throw new ScanStopped('lost');
    if (result.cancel) {
      if (trx) this.cancelSeen = true;
      else throw new ScanStopped('cancel');
    }
  }

  private async write(fn: (trx: Tx) => Promise<void>): Promise<void> {
    await this.deps.database.db.transaction().execute(fn);
    if (this.cancelSeen) throw new ScanStopped('cancel');
  }

  private async runBatch(
    tables: readonly CatalogTable[],
    baseline: ReadonlyMap<string, ScanBaselineRow>,
    seen: Set<string>,
  ): Promise<void> {
    await this.progress({ phase: 'sampling' });
    const samples = await this.sampleTables(tables);

    await this.progress({ phase: 'classifying' });
    const toWrite: ScannedColumn[] = [];
    // Per table, so that a table the catalog refuses can be left out of the batch without the others.
    const perTable: TableCounts[] = [];
    tables.forEach((table, i) => {
      const tableName = fieldTableName(this.connector, table);
      const values = samples[i];
      const counts: TableCounts = {
        name: tableName,
        fields: 0,
        count_new: 0,
        count_changed: 0,
        count_unchanged: 0,
        count_classified: 0,
      };
      perTable.push(counts);
      // Every column of the table, one array for all of them: the classifier reads the others as context.
      const tableColumns = table.columns.map((c) => c.name);
      for (const column of table.columns) {
        counts.fields++;
        const k = key(tableName, column.name);
        seen.add(k);
        const sampled = (values?.get(column.name) ?? []).map(String);
        const comment = column.comment === '' ? null : column.comment;
        const existing = baseline.get(k);
        const scanned: ScannedColumn = {
          table_name: tableName,
          field_name: column.name,
          data_type: column.data_type,
          comment,
          sample_values: sampled,
          table_columns: tableColumns,
        };
        if (!existing) {
          counts.count_new++;
          counts.count_classified++;
          toWrite.push(scanned);
        } else if (
          columnChanged(existing, {
            data_type: column.data_type,
            comment,
            signature: sampled.length > 0 ? formatSignature(sampled) : null,
          })
        ) {
          counts.count_changed++;
          if (!keepsClassification(existing)) counts.count_classified++;
          toWrite.push(scanned);
        } else {
          counts.count_unchanged++;
        }
      }
    });
    // Embeddings and classification outside the transaction, so it stays short; the samples go out of scope here.
    const prepared =
      toWrite.length > 0 ? await this.deps.fields.prepareScanFields(toWrite, this.scan.datasource_id) : undefined;
    this.checkSignal();

    try {
      await this.writeTables(perTable, prepared?.rows ?? []);
    } catch (error) {
      if (perTable.length === 1 || !isRefusedData(error)) throw error;
      // One table's metadata the catalog refuses must not cost the batch: write table by table, noting the refused.
      for (const table of perTable) {
        const rows = (prepared?.rows ?? []).filter((r) => r.table_name === table.name);
        try {
          await this.writeTables([table], rows);
        } catch (tableError) {
          if (!isRefusedData(tableError)) throw tableError;
          this.deps.log.warn(
            { scan: this.scan.id, code: errorCode(tableError) },
            "scan: the catalog refused a table's fields; noted and skipped",
          );
          this.notes.notStored(
            table.name,
            `the catalog's database refused its fields (${errorCode(tableError) ?? 'error'})`,
          );
          await this.writeTables(
            [{ ...table, count_new: 0, count_changed: 0, count_unchanged: 0, count_classified: 0 }],
            [],
          );
        }
      }
    }
  }

  /** Writes tables' prepared fields, marks them written and records the progress, in one transaction. */
  private async writeTables(tables: readonly TableCounts[], rows: PreparedScan['rows']): Promise<void> {
    const sum = (k: keyof Omit<TableCounts, 'name'>): number => tables.reduce((n, t) => n + t[k], 0);
    const next = {
      count_new: this.counts.count_new + sum('count_new'),
      count_changed: this.counts.count_changed + sum('count_changed'),
      count_unchanged: this.counts.count_unchanged + sum('count_unchanged'),
      count_classified: this.counts.count_classified + sum('count_classified'),
      tables_done: this.tablesDone + tables.length,
      fields_done: this.fieldsDone + sum('fields'),
    };
    // The notes (up to a few hundred entries) are written again only when they changed since the last commit.
    const notesVersion = this.notes.version;
    const notes = notesVersion !== this.notesWritten ? { notes: this.notes.json() } : {};
    await this.write(async (trx) => {
      if (rows.length > 0) await this.deps.fields.applyScan(trx, this.scan.datasource_id, { rows }, this.scan.id);
      await repo.markTablesWritten(
        trx,
        this.scan.id,
        tables.map((t) => t.name),
      );
      await this.progress({ phase: 'writing', ...next, ...notes }, trx);
    });
    this.notesWritten = notesVersion;
    Object.assign(this.counts, {
      count_new: next.count_new,
      count_changed: next.count_changed,
      count_unchanged: next.count_unchanged,
      count_classified: next.count_classified,
    });
    this.tablesDone = next.tables_done;
    this.fieldsDone = next.fields_done;
  }

  /** Samples the tables over the connector's connections (it bounds them); a table whose sampling fails is catalogued without samples unless the source as a whole failed. */
  private async sampleTables(tables: readonly CatalogTable[]): Promise<Array<Map<string, SampleValue[]> | undefined>> {
    const out: Array<Map<string, SampleValue[]> | undefined> = new Array(tables.length);
    let next = 0;
    const lane = async (): Promise<void> => {
      for (;;) {
        this.checkSignal();
        const i = next++;
        if (i >= tables.length) return;
        const table = tables[i] as CatalogTable;
        try {
          out[i] = (await this.connector.sample(table, table.columns)).values;
        } catch (error) {
          // A read cut short by a cancel or shutdown (Connector.cancel) stops the run; it says nothing of the table.
          this.checkSignal();
          if (!(error instanceof ConnectionFailure) || FATAL_CAUSES.has(error.cause)) throw error;
          this.tablesNotSampled++;
          this.notes.notSampled(fieldTableName(this.connector, table), `${error.cause}: ${error.detail}`);
          this.deps.log.warn(
            { scan: this.scan.id, table: `${table.schema}.${table.name}`, cause: error.cause, code: error.code },
            'scan: a table could not be sampled; catalogued from its metadata only',
          );
        }
      }
    };
    await Promise.all([lane(), lane()]);
    return out;
  }

  /** Removes, in short transactions, the fields whose columns the scan did not find; one audit entry per field. */
  private async removeFields(ids: readonly string[]): Promise<void> {
    await this.progress({ phase: 'removing' });
    for (let i = 0; i < ids.length; i += REMOVE_BATCH) {
      this.checkSignal();
      const part = ids.slice(i, i + REMOVE_BATCH);
      await this.write(async (trx) => {
        const removed = await this.deps.fields.removeScannedFields(trx, this.scan.datasource_id, part);
        if (removed.length > 0) {
          await this.deps.audit.record(
            trx,
            scanActor(this.scan),
            removed.map((f) => ({
              action: 'field.removed',
              targetType: 'field',
              targetId: f.id,
              details: {
                scan_id: this.scan.id,
                datasource_id: this.scan.datasource_id,
                table_name: f.table_name,
                field_name: f.field_name,
                classification_tag_id: f.tag_id,
                classification_chain_path: f.classification_chain_path,
                level: f.level,
                locked: f.locked === 1,
                review_status: f.review_status,
              },
            })),
          );
        }
        await this.progress({ count_removed: this.counts.count_removed + removed.length }, trx);
        this.counts.count_removed += removed.length;
      });
    }
  }
}
