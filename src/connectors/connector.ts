/**
 * The one interface every scanned database implements. Scan logic talks only to `Connector`, so another
 * database (SQL Server, Oracle, Snowflake) is a new file here plus a line in the factory, nothing else.
 * Connectors know nothing of Fastify or of the app's repositories.
 */

export type ConnectorKind = 'postgresql' | 'mysql' | 'sqlite';
export type SslMode = 'disable' | 'require' | 'verify-full';

/**
 * A name pattern: `*` matches any run of characters, `?` exactly one, everything else (including `%`, `_`, `\`)
 * is literal; matching is case-insensitive (ASCII letters always, other letters as the database's collation
 * folds them). Schema patterns match the schema name. Table patterns match `schema.table` when they contain a
 * dot and the bare table name otherwise.
 */
export type NamePattern = string;

/** Mirrors the API's connection object of a data source. */
export interface ConnectionSpec {
  kind: ConnectorKind;
  host?: string;
  port?: number;
  /** Database name; for `sqlite` a file path inside the allowed scan directory. */
  database: string;
  user?: string;
  password?: string;
  ssl?: SslMode;
  include_schemas?: NamePattern[];
  exclude_schemas?: NamePattern[];
  include_tables?: NamePattern[];
  exclude_tables?: NamePattern[];
  /** Non-null values kept per column, 0–1000 (default 100). */
  sample_size?: number;
}

export const SAMPLE_SIZE_DEFAULT = 100;
export const SAMPLE_SIZE_MAX = 1000;

export interface CatalogFilters {
  include_schemas?: NamePattern[];
  exclude_schemas?: NamePattern[];
  include_tables?: NamePattern[];
  exclude_tables?: NamePattern[];
}

export interface ConnectorOptions {
  /** Time allowed to open a connection (default 5 s). */
  connectTimeoutMs?: number;
  /**
   * Longest a single catalog or sample statement may run on the source (FIELDLENS_SCAN_STATEMENT_TIMEOUT_MS, default
   * 30 s): the server's statement timeout on PostgreSQL and MySQL/MariaDB; on SQLite the deadline of one read (a
   * catalog page, one table's sample), after which the reader process is killed.
   */
  statementTimeoutMs?: number;
  /** Connections opened at most per source, which bounds concurrent sampling (default 2). */
  maxConnections?: number;
  /** Folder that `sqlite` sources must lie in (FIELDLENS_SCAN_SQLITE_DIR); unset refuses `sqlite`. */
  sqliteDir?: string;
  /** The service's own SQLite database file(s): refused as `sqlite` sources, with their -wal, -shm and -journal files. */
  ownDatabaseFiles?: readonly string[];
  /** Text values are cut to this many characters in the source's SQL, before they reach us (default 256). */
  maxTextLength?: number;
  /** Tables fetched per catalog page (default 500). */
  catalogPageSize?: number;
  /**
   * PEM CA certificate(s) trusted for `verify-full` in addition to Node's bundled ones (a private database CA).
   * Without it, such a CA can be given to the whole process with NODE_EXTRA_CA_CERTS.
   */
  tlsCa?: string;
  /** Upper bound on rows read per sampled table; default max(1000, 10 × sample size), at most 20,000. */
  maxRowsPerTable?: number;
}

export type TableKind = 'table' | 'view';

export interface ColumnInfo {
  name: string;
  /** 1-based position as the database numbers it (may have gaps after dropped columns). */
  ordinal: number;
  /** The type as the database spells it, e.g. `character varying(80)`, `varchar(80)`, `INTEGER`. */
  data_type: string;
  nullable: boolean;
  comment: string | null;
  is_primary_key: boolean;
}

export interface TableInfo {
  schema: string;
  name: string;
  kind: TableKind;
  comment: string | null;
  /** Row count from the database's statistics (never counted); null when it has none. */
  row_estimate: number | null;
  /** Primary-key columns in key order; empty when there is none. */
  primary_key: string[];
}

export interface CatalogTable extends TableInfo {
  columns: ColumnInfo[];
}

/** What sampling needs to know of a table: as listed by `listColumns`. */
export type SampleTable = Pick<TableInfo, 'schema' | 'name' | 'kind' | 'row_estimate' | 'primary_key'>;
export type SampleColumn = Pick<ColumnInfo, 'name' | 'data_type'>;

/** A sampled value as the classifier sees it: text cut to a bounded length, binary as `<binary N bytes>`. */
export type SampleValue = string | number;

export interface SampleResult {
  /** Rows the source returned for this table (every query added up); never more than the bound. */
  rows_read: number;
  /** Up to sample size non-null values per column name. Held in memory only: never log or store them. */
  values: Map<string, SampleValue[]>;
}

export interface ConnectorStats {
  /** Catalog queries run and rows they returned (tables and columns), to show filters work in SQL. */
  catalog_queries: number;
  catalog_rows: number;
  sample_queries: number;
  rows_read: number;
}

export interface Connector {
  readonly kind: ConnectorKind;
  readonly stats: ConnectorStats;
  /** Opens a connection and reads the server's version; throws ConnectionFailure. */
  test(): Promise<{ server_version: string }>;
  /**
   * Tables and views passing the filters (the spec's when none are given), each with its columns, one page of
   * tables at a time, ordered by schema then name. Filters are applied in the catalog query itself.
   */
  listColumns(filters?: CatalogFilters): AsyncIterable<CatalogTable>;
  /** Reads a bounded number of rows of one table inside a read-only transaction with a statement timeout. */
  sample(table: SampleTable, columns: readonly SampleColumn[], sampleSize?: number): Promise<SampleResult>;
  /**
   * Stops the statements running on the source now (PostgreSQL `pg_cancel_backend`, MySQL/MariaDB `KILL QUERY`, the
   * SQLite reader process killed); they and every later call fail with a ConnectionFailure. For a scan's cancel and
   * the service's shutdown. Never throws.
   */
  cancel(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The tables of a catalog read one page at a time in (schema, name) order: `readPage(after)` answers up to `pageSize`
 * tables after the given key (the first page when undefined); a short page is the last.
 */
export async function* pagedCatalog(
  pageSize: number,
  readPage: (after: readonly [schema: string, name: string] | undefined) => Promise<CatalogTable[]>,
): AsyncIterable<CatalogTable> {
  let after: [string, string] | undefined;
  for (;;) {
    const page = await readPage(after);
    for (const t of page) yield t;
    if (page.length < pageSize) return;
    const last = page[page.length - 1] as CatalogTable;
    after = [last.schema, last.name];
  }
}

export function newStats(): ConnectorStats {
  return { catalog_queries: 0, catalog_rows: 0, sample_queries: 0, rows_read: 0 };
}

export function effectiveFilters(spec: ConnectionSpec, filters: CatalogFilters | undefined): Required<CatalogFilters> {
  const f = filters ?? spec;
  return {
    include_schemas: f.include_schemas ?? [],
    exclude_schemas: f.exclude_schemas ?? [],
    include_tables: f.include_tables ?? [],
    exclude_tables: f.exclude_tables ?? [],
  };
}

export function sampleSizeOf(spec: Pick<ConnectionSpec, 'sample_size'>, requested: number | undefined): number {
  const n = requested ?? spec.sample_size ?? SAMPLE_SIZE_DEFAULT;
  if (!Number.isInteger(n) || n < 0 || n > SAMPLE_SIZE_MAX)
    throw new RangeError(`sample size must be an integer 0–${SAMPLE_SIZE_MAX}`);
  return n;
}

/** Rows read per table at most: enough to find sample_size non-null values in sparse columns, never a whole big table. */
export function rowBound(sampleSize: number, options: ConnectorOptions): number {
  return options.maxRowsPerTable ?? Math.min(20_000, Math.max(1000, sampleSize * 10));
}

export const DEFAULTS = {
  connectTimeoutMs: 5000,
  statementTimeoutMs: 30_000,
  maxConnections: 2,
  maxTextLength: 256,
  catalogPageSize: 500,
} as const;

export function option<K extends keyof typeof DEFAULTS>(options: ConnectorOptions, key: K): number {
  return options[key] ?? DEFAULTS[key];
}
