/**
 * SQLite connector (`better-sqlite3`). The file must lie inside the operator's scan folder (realpath, so no
 * symlink or `..` escape) and is opened read-only with fileMustExist and `query_only`. One schema, `main`.
 * Row estimates from sqlite_stat1 when ANALYZE has run; samples are bounded reads (random rowid/integer-key
 * ranges for large analysed tables, else the first rows). SQLite has no statement timeout: every read is
 * bounded by LIMIT instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  effectiveFilters,
  newStats,
  option,
  pagedCatalog,
  rowBound,
  sampleSizeOf,
  type CatalogFilters,
  type CatalogTable,
  type ConnectionSpec,
  type Connector,
  type ConnectorOptions,
  type SampleColumn,
  type SampleResult,
  type SampleTable,
} from './connector.js';
import { FETCH_TYPE_LENGTH } from './bounds.js';
import { ConnectionFailure, ConnectionSpecError, toConnectionFailure } from './errors.js';
import { filterConditions, type FilterDialect } from './patterns.js';
import { readPrimaryKeyRanges } from './ranges.js';
import { binaryDescriptor, SampleCollector } from './values.js';

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Resolves a sqlite source's path inside `allowedDir` (relative paths are taken from it). Refuses (ConnectionSpecError)
 * when no folder is configured or the real path leaves it; a missing file is a ConnectionFailure (unknown_database).
 */
export function resolveSqlitePath(database: string, allowedDir: string | undefined): string {
  if (!allowedDir) throw new ConnectionSpecError('sqlite sources are disabled: no scan folder (FIELDLENS_SCAN_SQLITE_DIR) is configured');
  if (typeof database !== 'string' || database.length === 0 || database.includes('\0')) throw new ConnectionSpecError('the sqlite path is empty or invalid');
  let root: string;
  try {
    root = fs.realpathSync(allowedDir);
  } catch {
    throw new ConnectionSpecError('the sqlite scan folder does not exist');
  }
  const inside = (p: string): boolean => {
    const rel = path.relative(root, p);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  };
  const candidate = path.resolve(root, database);
  if (!inside(candidate)) throw new ConnectionSpecError('the sqlite path must lie inside the scan folder');
  let real: string;
  try {
    real = fs.realpathSync(candidate);
  } catch {
    throw new ConnectionFailure('unknown_database', 'the sqlite file does not exist in the scan folder', 'ENOENT');
  }
  // Checked again on the real path: a symlink inside the folder may point anywhere.
  if (!inside(real)) throw new ConnectionSpecError('the sqlite path must lie inside the scan folder');
  if (!fs.statSync(real).isFile()) throw new ConnectionSpecError('the sqlite path is not a file');
  return real;
}

type Raw = unknown[];

export class SqliteConnector implements Connector {
  readonly kind = 'sqlite' as const;
  readonly stats = newStats();
  private db: Database.Database | undefined;
  private readonly file: string;
  private readonly maxText: number;
  // One handle, synchronous driver: calls are run one after another so two samples never share a transaction.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly spec: ConnectionSpec,
    private readonly options: ConnectorOptions = {},
  ) {
    this.file = resolveSqlitePath(spec.database, options.sqliteDir);
    this.maxText = option(options, 'maxTextLength');
  }

  private fail(err: unknown, during: string): ConnectionFailure {
    return toConnectionFailure(err, { database: path.basename(this.file), during });
  }

  private open(): Database.Database {
    if (this.db) return this.db;
    try {
      const db = new Database(this.file, { readonly: true, fileMustExist: true, timeout: option(this.options, 'connectTimeoutMs') });
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
  private readOnly<T>(during: string, fn: (db: Database.Database) => T): T {
    const db = this.open();
    try {
      db.exec('BEGIN');
      try {
        return fn(db);
      } finally {
        db.exec('COMMIT');
      }
    } catch (err) {
      throw this.fail(err, during);
    }
  }

  test(): Promise<{ server_version: string }> {
    return this.exclusive(() =>
      this.readOnly('reading the version', (db) => {
        const row = db.prepare('SELECT sqlite_version() AS v').get() as { v: string };
        return { server_version: `SQLite ${row.v}` };
      }),
    );
  }

  async *listColumns(filters?: CatalogFilters): AsyncIterable<CatalogTable> {
    const f = effectiveFilters(this.spec, filters);
    const pageSize = option(this.options, 'catalogPageSize');
    yield* pagedCatalog(pageSize, (after) => this.exclusive(() => this.readOnly('listing the catalog', (db) => this.catalogPage(db, f, after?.[1], pageSize))));
  }

  private catalogPage(db: Database.Database, f: Required<CatalogFilters>, after: string | undefined, pageSize: number): CatalogTable[] {
    const params: unknown[] = [];
    const d: FilterDialect = {
      param: (v) => {
        params.push(v);
        return '?';
      },
      lower: (e) => `lower(${e})`,
      qualified: (s, t) => `(${s} || '.' || ${t})`,
    };
    const hasStat = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat1'`).get() !== undefined;
    // sqlite_stat1.stat starts with the row count (of the table for the idx-less row, else of the index).
    const estimate = hasStat ? `(SELECT CAST(s.stat AS INTEGER) FROM sqlite_stat1 s WHERE s.tbl = m.name ORDER BY s.idx IS NOT NULL LIMIT 1)` : 'NULL';
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
      .all(...tables.map((t) => t.name)) as { tbl: string; cid: number; name: string; type: string; not_null: number; pk: number }[];
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
        columns: cols.map((c) => ({ name: c.name, ordinal: c.cid + 1, data_type: c.type, nullable: c.not_null === 0 && c.pk === 0, comment: null, is_primary_key: c.pk > 0 })),
      };
    });
  }

  /** Runs `fn` after every earlier call has finished: one transaction at a time on the single handle. */
  private exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    const next = this.queue.then(fn);
    this.queue = next.catch(() => {});
    return next;
  }

  sample(table: SampleTable, columns: readonly SampleColumn[], sampleSize?: number): Promise<SampleResult> {
    return this.exclusive(() => this.sampleNow(table, columns, sampleSize));
  }

  private async sampleNow(table: SampleTable, columns: readonly SampleColumn[], sampleSize?: number): Promise<SampleResult> {
    const size = sampleSizeOf(this.spec, sampleSize);
    const collector = new SampleCollector(
      columns.map((c) => c.name),
      size,
    );
    if (size === 0 || columns.length === 0) return { rows_read: 0, values: collector.values };
    const bound = rowBound(size, this.options);
    const n = Math.trunc(this.maxText);
    // SQLite values carry their own type, whatever the declared one: ask for it next to each value.
    const select = columns
      .map((c) => {
        const col = quoteIdent(c.name);
        return `typeof(${col}), CASE typeof(${col}) WHEN 'blob' THEN length(${col}) WHEN 'text' THEN substr(${col}, 1, ${n}) ELSE ${col} END`;
      })
      .join(', ');
    const from = quoteIdent(table.name);
    const add = (rows: unknown[][]): void => {
      for (const row of rows) {
        const out: (string | number | undefined)[] = [];
        for (let i = 0; i < columns.length; i++) {
          const type = row[2 * i];
          const v = row[2 * i + 1];
          if (type === 'null' || v === null || v === undefined) out.push(undefined);
          else if (type === 'blob') out.push(binaryDescriptor(Number(v)));
          else if (typeof v === 'bigint') out.push(v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString());
          else out.push(typeof v === 'number' ? v : String(v));
        }
        collector.add(out);
      }
    };
    const run = (db: Database.Database, sql: string): Raw[] => {
      this.stats.sample_queries++;
      // safeIntegers: 64-bit keys and values beyond 2^53 keep their digits.
      return db.prepare(sql).raw(true).safeIntegers(true).all() as Raw[];
    };
    const db = this.open();
    const pk = table.primary_key.length === 1 ? quoteIdent(table.primary_key[0]!) : undefined;
    try {
      db.exec('BEGIN');
      try {
        if (pk && table.kind === 'table' && table.row_estimate !== null && table.row_estimate > bound * 4) {
          await readPrimaryKeyRanges({
            bound,
            minMax: async () => run(db, `SELECT MIN(${pk}), MAX(${pk}) FROM ${from}`)[0] ?? [],
            // `start` is an integer we drew ourselves, written as a literal.
            range: async (start, limit) => run(db, `SELECT ${select} FROM ${from} WHERE ${pk} >= ${start} ORDER BY ${pk} LIMIT ${limit}`),
            add,
            full: () => collector.full,
          });
        }
        if (!collector.full && collector.rowsRead < size) add(run(db, `SELECT ${select} FROM ${from} LIMIT ${bound - collector.rowsRead}`));
      } finally {
        db.exec('COMMIT');
      }
    } catch (err) {
      throw this.fail(err, `sampling ${table.name}`);
    }
    this.stats.rows_read += collector.rowsRead;
    return { rows_read: collector.rowsRead, values: collector.values };
  }

  close(): Promise<void> {
    return this.exclusive(() => {
      this.db?.close();
      this.db = undefined;
    });
  }
}
