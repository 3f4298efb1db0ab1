/**
 * The SQLite reads themselves (`better-sqlite3`, synchronous). They run only inside the reader process
 * (sqlite-child.ts), never on the service's event loop: a view that never ends blocks that process alone, and the
 * service kills it on its deadline, on cancel and on shutdown (sqlite.ts). The file is opened read-only with
 * fileMustExist, `query_only` and `trusted_schema = OFF`. One schema, `main`.
 *
 * Columns are read by position, not by name (a CTE renames `SELECT *`'s columns to c0, c1, …), so a column whose
 * name is not valid UTF-8 (which no quoted identifier written from a JS string can name) is still sampled; and in
 * chunks of at most 500 columns, so a table wider than SQLite's 2,000 result columns is sampled too.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  newStats,
  rowBound,
  sampleSizeOf,
  type CatalogFilters,
  type CatalogTable,
  type ConnectionSpec,
  type ConnectorOptions,
  type SampleColumn,
  type SampleResult,
  type SampleTable,
  type SampleValue,
} from './connector.js';
import { FETCH_TYPE_LENGTH } from './bounds.js';
import { toConnectionFailure, type ConnectionFailure } from './errors.js';
import { filterConditions, type FilterDialect } from './patterns.js';
import { readPrimaryKeyRanges } from './ranges.js';
import { binaryDescriptor, SampleCollector } from './values.js';

/** Columns per sample query: two result columns each, well under SQLite's limit of 2,000. */
export const SQLITE_COLUMN_CHUNK = 500;

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

type Raw = unknown[];

export type ReaderOptions = Pick<ConnectorOptions, 'connectTimeoutMs' | 'maxTextLength' | 'maxRowsPerTable'>;

export class SqliteReader {
  readonly stats = newStats();
  private db: Database.Database | undefined;

  constructor(
    private readonly file: string,
    private readonly spec: Pick<ConnectionSpec, 'sample_size'>,
    private readonly options: ReaderOptions,
  ) {}

  private fail(err: unknown, during: string): ConnectionFailure {
    return toConnectionFailure(err, { database: path.basename(this.file), during });
  }

  private open(): Database.Database {
    if (this.db) return this.db;
    try {
      const db = new Database(this.file, {
        readonly: true,
        fileMustExist: true,
        timeout: this.options.connectTimeoutMs ?? 5000,
      });
      db.pragma('query_only = ON');
      // A scanned file is untrusted: its schema may not call functions with side effects.
      db.pragma('trusted_schema = OFF');
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
      this.db = db;
      return db;
    } catch (err) {
      throw this.fail(err, 'opening the file');
    }
  }

  /** A deferred read transaction, so every read of one call sees one snapshot. */
  private async readOnly<T>(during: string, fn: (db: Database.Database) => T | Promise<T>): Promise<T> {
    const db = this.open();
    try {
      db.exec('BEGIN');
      try {
        return await fn(db);
      } finally {
        db.exec('COMMIT');
      }
    } catch (err) {
      throw this.fail(err, during);
    }
  }

  test(): Promise<{ server_version: string }> {
    return this.readOnly('reading the version', (db) => {
      const row = db.prepare('SELECT sqlite_version() AS v').get() as { v: string };
      return { server_version: `SQLite ${row.v}` };
    });
  }

  catalogPage(f: Required<CatalogFilters>, after: string | undefined, pageSize: number): Promise<CatalogTable[]> {
    return this.readOnly('listing the catalog', (db) => this.catalogPageIn(db, f, after, pageSize));
  }

  private catalogPageIn(
    db: Database.Database,
    f: Required<CatalogFilters>,
    after: string | undefined,
    pageSize: number,
  ): CatalogTable[] {
    const params: unknown[] = [];
    const d: FilterDialect = {
      param: (v) => {
        params.push(v);
        return '?';
      },
      lower: (e) => `lower(${e})`,
      qualified: (s, t) => `(${s} || '.' || ${t})`,
    };
    const hasStat =
      db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat1'`).get() !== undefined;
    // sqlite_stat1.stat starts with the row count (of the table for the idx-less row, else of the index).
    const estimate = hasStat
      ? `(SELECT CAST(s.stat AS INTEGER) FROM sqlite_stat1 s WHERE s.tbl = m.name ORDER BY s.idx IS NOT NULL LIMIT 1)`
      : 'NULL';
    const where = filterConditions(d, f, `'main'`, 'm.name');
    const keyset = after !== undefined ? `AND m.name > ${d.param(after)}` : '';
    const tables = db
      .prepare(
        `SELECT m.name AS name, m.type AS type, ${estimate} AS estimate FROM sqlite_schema m
          WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite!_%' ESCAPE '!' AND ${where} ${keyset}
          ORDER BY m.name LIMIT ${Math.trunc(pageSize)}`,
      )
      .all(...params) as { name: string; type: string; estimate: number | null }[];
    this.stats.catalog_queries++;
    this.stats.catalog_rows += tables.length;
    if (tables.length === 0) return [];
    const columns = db
      .prepare(
        `SELECT m.name AS tbl, p.cid AS cid, p.name AS name, substr(p.type, 1, ${FETCH_TYPE_LENGTH}) AS type, p."notnull" AS not_null, p.pk AS pk
           FROM sqlite_schema m, pragma_table_info(m.name) p
          WHERE m.name IN (${tables.map(() => '?').join(', ')}) ORDER BY m.name, p.cid`,
      )
      .all(...tables.map((t) => t.name)) as {
      tbl: string;
      cid: number;
      name: string;
      type: string;
      not_null: number;
      pk: number;
    }[];
    this.stats.catalog_queries++;
    this.stats.catalog_rows += columns.length;
    const byTable = new Map<string, typeof columns>();
    for (const c of columns) {
      let list = byTable.get(c.tbl);
      if (!list) byTable.set(c.tbl, (list = []));
      list.push(c);
    }
    return tables.map((t) => {
      const cols = byTable.get(t.name) ?? [];
      return {
        schema: 'main',
        name: t.name,
        kind: t.type === 'view' ? 'view' : 'table',
        comment: null,
        row_estimate: t.type === 'view' || t.estimate === null ? null : Number(t.estimate),
        primary_key: cols
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
        columns: cols.map((c) => ({
          name: c.name,
          ordinal: c.cid + 1,
          data_type: c.type,
          nullable: c.not_null === 0 && c.pk === 0,
          comment: null,
          is_primary_key: c.pk > 0,
        })),
      };
    });
  }

  sample(table: SampleTable, columns: readonly SampleColumn[], sampleSize?: number): Promise<SampleResult> {
    const size = sampleSizeOf(this.spec, sampleSize);
    const values = new Map<string, SampleValue[]>(columns.map((c) => [c.name, []]));
    if (size === 0 || columns.length === 0) return Promise.resolve({ rows_read: 0, values });
    return this.readOnly(`sampling ${table.name}`, async (db) => {
      const from = quoteIdent(table.name);
      // Every column by its position in `SELECT *`: names as the driver decodes them (a name that is not valid
      // UTF-8 decodes to U+FFFD here exactly as in the catalog) map to positions, and positions need no quoting.
      const positions = new Map<string, number[]>();
      db.prepare(`SELECT * FROM ${from}`)
        .columns()
        .forEach((c, i) => {
          const list = positions.get(c.name);
          if (list) list.push(i);
          else positions.set(c.name, [i]);
        });
      const width = [...positions.values()].reduce((n, l) => n + l.length, 0);
      const used = new Map<string, number>();
      const positionOf = (name: string): number | undefined => {
        const k = used.get(name) ?? 0;
        const p = positions.get(name)?.[k];
        if (p !== undefined) used.set(name, k + 1);
        return p;
      };
      const wanted = columns
        .map((c) => ({ name: c.name, pos: positionOf(c.name) }))
        .filter((c): c is { name: string; pos: number } => c.pos !== undefined);
      const pkName = table.primary_key.length === 1 ? table.primary_key[0] : undefined;
      const pkPos = pkName === undefined ? undefined : positions.get(pkName)?.[0];
      const source = `WITH s(${Array.from({ length: width }, (_, i) => `c${i}`).join(', ')}) AS (SELECT * FROM ${from})`;
      let rowsRead = 0;
      for (let at = 0; at < wanted.length; at += SQLITE_COLUMN_CHUNK) {
        const chunk = wanted.slice(at, at + SQLITE_COLUMN_CHUNK);
        const got = await this.sampleChunk(db, table, source, chunk, pkPos, size);
        rowsRead = Math.max(rowsRead, got.rowsRead);
        for (const [name, list] of got.values) values.get(name)?.push(...list);
      }
      this.stats.rows_read += rowsRead;
      return { rows_read: rowsRead, values };
    });
  }

  /** One chunk of columns, read as one table was before: random key ranges of a large analysed table, else the first rows. */
  private async sampleChunk(
    db: Database.Database,
    table: SampleTable,
    source: string,
    chunk: readonly { name: string; pos: number }[],
    pkPos: number | undefined,
    size: number,
  ): Promise<{ rowsRead: number; values: Map<string, SampleValue[]> }> {
    const bound = rowBound(size, this.options);
    const n = Math.trunc(this.options.maxTextLength ?? 256);
    // Names of one chunk are distinct keys of the collector even when two columns decode to the same name.
    const collector = new SampleCollector(
      chunk.map((c, i) => `${i}`),
      size,
    );
    // SQLite values carry their own type, whatever the declared one: ask for it next to each value.
    const select = chunk
      .map(({ pos }) => {
        const col = `c${pos}`;
        return `typeof(${col}), CASE typeof(${col}) WHEN 'blob' THEN length(${col}) WHEN 'text' THEN substr(${col}, 1, ${n}) ELSE ${col} END`;
      })
      .join(', ');
    const add = (rows: unknown[][]): void => {
      for (const row of rows) {
        const out: (string | number | undefined)[] = [];
        for (let i = 0; i < chunk.length; i++) {
          const type = row[2 * i];
          const v = row[2 * i + 1];
          if (type === 'null' || v === null || v === undefined) out.push(undefined);
          else if (type === 'blob') out.push(binaryDescriptor(Number(v)));
          else if (typeof v === 'bigint')
            out.push(
              v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString(),
            );
          else out.push(typeof v === 'number' ? v : String(v));
        }
        collector.add(out);
      }
    };
    const run = (sql: string): Raw[] => {
      this.stats.sample_queries++;
      // safeIntegers: 64-bit keys and values beyond 2^53 keep their digits.
      return db.prepare(sql).raw(true).safeIntegers(true).all() as Raw[];
    };
    if (
      pkPos !== undefined &&
      table.kind === 'table' &&
      table.row_estimate !== null &&
      table.row_estimate > bound * 4
    ) {
      const pk = `c${pkPos}`;
      await readPrimaryKeyRanges({
        bound,
        size,
        minMax: async () => run(`${source} SELECT MIN(${pk}), MAX(${pk}) FROM s`)[0] ?? [],
        // `start` is an integer we drew ourselves, written as a literal.
        range: async (start, limit) =>
          run(`${source} SELECT ${select} FROM s WHERE ${pk} >= ${start} ORDER BY ${pk} LIMIT ${limit}`),
        add,
        full: () => collector.full,
      });
    }
    if (!collector.full && collector.rowsRead < size)
      add(run(`${source} SELECT ${select} FROM s LIMIT ${bound - collector.rowsRead}`));
    const values = new Map<string, SampleValue[]>();
    chunk.forEach((c, i) =>
      values.set(c.name, [...(values.get(c.name) ?? []), ...(collector.values.get(`${i}`) ?? [])]),
    );
    return { rowsRead: collector.rowsRead, values };
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}
