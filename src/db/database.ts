/**
 * The only file that knows whether FieldLens runs on SQLite or PostgreSQL.
 * Everything else sees a Kysely<DB> and the few portable helpers exported here.
 */
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  sql,
  type CompiledQuery,
  type MigrationResultSet,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { migrationFactories, type DialectKind } from './migrations/index.js';
import type { DB } from './schema.js';
import { FALLBACK_PAGES, WalCheckpointer } from './wal-checkpointer.js';

export type { DialectKind } from './migrations/index.js';
export type Kdb = Kysely<DB>;
export type Tx = Transaction<DB>;
/** A query runner: the database itself or an open transaction. */
export type Queryable = Kysely<DB> | Transaction<DB>;

export interface Database {
  readonly kind: DialectKind;
  readonly db: Kysely<DB>;
  /**
   * True when every query and transaction of the database runs on this process's one connection, one at a time
   * (embedded SQLite, single-instance by design): no read can see the database while another transaction is
   * half-done, so rows may be cached in memory as long as this process's own writes invalidate them. False for
   * PostgreSQL, where pooled connections and other instances read and write concurrently.
   */
  readonly singleConnection: boolean;
  /**
   * Runs a compiled SELECT and answers its rows as arrays of column values, in select-list order. For reads of
   * hundreds of wide rows on a hot path, where the driver's building of an object per row costs more than the read
   * itself (figures in docs/benchmarks.md).
   */
  selectArrays(query: CompiledQuery): Promise<unknown[][]>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  /**
   * Serialises writers that must not interleave (quota check + insert, audit chain append) until
   * the transaction ends. PostgreSQL: a transaction-scoped advisory lock. SQLite: writers are
   * already serialised by its single connection, so this is a no-op.
   */
  lock(trx: Tx, name: string): Promise<void>;
  /**
   * SQLite only: a number that changes whenever another connection (another process, such as the `fieldlens` CLI)
   * has committed to the database since the last call could have seen (`PRAGMA data_version`). Lets a cache of
   * rows that this process's own writes invalidate also notice writes it did not make.
   */
  externalChanges?(): number;
  /**
   * SQLite on a file only: moves the WAL checkpoints to a thread of their own (wal-checkpointer.ts), so no commit of a
   * request or a background batch waits for one. server.ts starts it with the background work; close() stops it.
   * Started once: a second call answers the running checkpointer. `onFailure` hears when its thread fails (the
   * connection then checkpoints on its own again).
   */
  startCheckpoints?(onFailure: (error: Error) => void): WalCheckpointer;
  /** PostgreSQL only: the connection pool's counts, for monitoring. */
  poolStats?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL schema to use (search_path); tests use a fresh one per app. */
  schema?: string;
  poolSize?: number;
  /** Called when an idle pooled connection fails (e.g. the server dropped it). */
  onPoolError?: (error: Error) => void;
  /**
   * Open an existing database only (commands that read, such as `audit verify`): a SQLite file that does not exist is
   * an error instead of a new empty database. (PostgreSQL never creates a database on connect.)
   */
  mustExist?: boolean;
}

// COUNT(*) and bigint columns come back from pg as strings; every count here fits a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));
pg.types.setTypeParser(pg.types.builtins.FLOAT4, (value) => Number.parseFloat(value));

/** Opens the configured database. Does not migrate: call migrateToLatest. */
export function openDatabase(config: DatabaseConfig, options: OpenDatabaseOptions = {}): Database {
  if (config.kind === 'sqlite') return openSqlite(config.file, options.mustExist ?? false);
  return openPostgres(config.url, options);
}

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * For mustExist: throws DatabaseMissingError unless `file` is an existing SQLite database. SQLite itself takes an
 * empty file for a new database (and would write one into it), and names any other file "not a database" only on
 * the first query.
 */
function assertSqliteFile(file: string): void {
  if (file === ':memory:' || !fs.existsSync(file)) {
    throw new DatabaseMissingError(`The SQLite database ${file} does not exist (check DATABASE_URL)`);
  }
  const header = Buffer.alloc(SQLITE_HEADER.length);
  const fd = fs.openSync(file, 'r');
  let read: number;
  try {
    read = fs.readSync(fd, header, 0, header.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (read === 0) throw new DatabaseMissingError(`${file} is empty, not a FieldLens database (check DATABASE_URL)`);
  if (read < header.length || !header.equals(SQLITE_HEADER)) {
    throw new DatabaseMissingError(`${file} is not a SQLite database (check DATABASE_URL)`);
  }
}

function openSqlite(file: string, mustExist: boolean): Database {
  if (mustExist) assertSqliteFile(file);
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const connection = new BetterSqlite3(file, { fileMustExist: mustExist });
  // An existing database keeps its journal mode (FieldLens's own is WAL since its first start): a command pointed
  // at another application's file must not convert it.
  if (!mustExist) connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  // A 64 MiB page cache (SQLite's default is 2 MiB) keeps the inner pages of the large tables' indexes in memory:
  // at a million fields, lookups and the metrics worker's writes by random id otherwise read most pages from the OS.
  // Pages are allocated as they are used, so a small catalog never takes it all.
  connection.pragma('cache_size = -65536');
  // Checkpoint the WAL every 10,000 pages (~40 MiB) rather than SQLite's default 1,000: the metrics worker's batch of
  // 1,000 scores dirties thousands of index pages, so at the default every commit was followed by a checkpoint that
  // wrote them back and synced the file (a page changed again by the next batch was written back again). Measured on
  // the scores' update alone, 30,000 fields of a 100,000-field catalog: 25–35 % less time (docs/benchmarks.md).
  // Once the checkpoint thread runs (startCheckpoints), this connection checkpoints only as a backstop.
  // After a checkpoint the WAL file is cut back to 64 MiB at most.
  connection.pragma(`wal_autocheckpoint = ${FALLBACK_PAGES}`);
  connection.pragma('journal_size_limit = 67108864');
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(connection) }) });
  let checkpointer: WalCheckpointer | undefined;
  // Statements in array mode are cached apart from Kysely's (the mode is a statement's state).
  const arrayStatements = withStatementCache(connection);
  return {
    kind: 'sqlite',
    db,
    singleConnection: true,
    externalChanges: () => connection.pragma('data_version', { simple: true }) as number,
    ...(file === ':memory:'
      ? {}
      : {
          startCheckpoints(onFailure: (error: Error) => void) {
            checkpointer ??= new WalCheckpointer(
              file,
              { setAutocheckpoint: (pages) => connection.pragma(`wal_autocheckpoint = ${pages}`) },
              onFailure,
            );
            return checkpointer;
          },
        }),
    async selectArrays(query) {
      return arrayStatements
        .prepare(query.sql)
        .raw(true)
        .all(...query.parameters) as unknown[][];
    },
    async lock() {},
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** Stands in for ROLLBACK when SQLite has already rolled the transaction back (see withStatementCache). */
const ALREADY_ROLLED_BACK = {
  reader: false,
  run: () => ({ changes: 0, lastInsertRowid: 0 }),
} as unknown as BetterSqlite3.Statement;

/** Prepared statements kept per SQLite connection; beyond it the least recently used is dropped. */
export const SQLITE_STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query anew, which costs more than running the short queries most
 * requests make. This hands it the connection with a `prepare` that reuses statements by SQL text (LRU).
 * A statement still iterating (a streamed query) is never handed out twice: a busy one is prepared afresh.
 */
function withStatementCache(connection: BetterSqlite3.Database): Pick<BetterSqlite3.Database, 'prepare' | 'close'> {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => connection.close(),
    prepare(source: string) {
      // After SQLITE_FULL (or IOERR, NOMEM, BUSY on commit) SQLite has often rolled the whole transaction back itself;
      // Kysely's ROLLBACK would then fail with "cannot rollback - no transaction is active" and that error would
      // replace the real cause in the log. Nothing to roll back: a no-op, so the statement's own error surfaces.
      if (source === 'rollback' && !connection.inTransaction) return ALREADY_ROLLED_BACK;
      const cached = cache.get(source);
      if (cached !== undefined) {
        if (cached.busy) return connection.prepare(source);
        cache.delete(source);
        cache.set(source, cached);
        return cached;
      }
      const statement = connection.prepare(source);
      cache.set(source, statement);
      if (cache.size > SQLITE_STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      return statement;
    },
  } as Pick<BetterSqlite3.Database, 'prepare' | 'close'>;
}

function openPostgres(url: string, options: OpenDatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // Without a statement timeout a hung server would hold requests forever.
    statement_timeout: 30_000,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // A client whose server connection dies emits 'error': on the pool while idle, on the client itself
  // while checked out (e.g. just handed to a query). Unhandled, either would crash the process;
  // the query that was using it fails on its own and is answered 503.
  pool.on('error', (error) => options.onPoolError?.(error));
  pool.on('connect', (client) => {
    client.on('error', (error) => options.onPoolError?.(error));
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'postgres',
    db,
    singleConnection: false,
    async selectArrays(query) {
      return (await pool.query<unknown[]>({ text: query.sql, values: [...query.parameters], rowMode: 'array' })).rows;
    },
    async lock(trx, name) {
      await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(trx);
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

/** The database named by the configuration does not exist, or holds no FieldLens schema. */
export class DatabaseMissingError extends Error {}

/**
 * Throws DatabaseMissingError unless the database holds FieldLens's tables, every migration applied, without changing
 * anything: for commands that only read, which must not create or migrate a database named by a mistyped URL.
 */
export async function assertMigrated(database: Database): Promise<void> {
  let pending: string[];
  try {
    const migrator = await migratorOf(database);
    pending = (await migrator.getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
  } catch (error) {
    if ((error as { code?: unknown }).code === '3D000') {
      throw new DatabaseMissingError(`${(error as Error).message} (check DATABASE_URL)`, { cause: error });
    }
    throw error;
  }
  if (pending.length === migrationFactories.length) {
    throw new DatabaseMissingError(
      'The database holds no FieldLens tables (check DATABASE_URL, or start the service once to create them)',
    );
  }
  if (pending.length > 0)
    throw new DatabaseMissingError(
      `The database schema is not up to date (pending: ${pending.join(', ')}); start the service once to migrate it`,
    );
}

/** Runs every pending migration; safe to call on every start and from several instances at once. */
export async function migrateToLatest(database: Database): Promise<void> {
  await migrate(database, (migrator) => migrator.migrateToLatest());
}

/** Migrates up or down to the named migration (upgrade tests; rolling back by hand). */
export async function migrateTo(database: Database, name: string): Promise<void> {
  await migrate(database, (migrator) => migrator.migrateTo(name));
}

async function migrate(database: Database, run: (migrator: Migrator) => Promise<MigrationResultSet>): Promise<void> {
  const migrator = await migratorOf(database);
  const { error, results } = await run(migrator);
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${reason}`, { cause: error });
  }
}

async function migratorOf(database: Database): Promise<Migrator> {
  const migrations = Object.fromEntries(migrationFactories.map(([name, factory]) => [name, factory(database.kind)]));
  // Kysely looks for its bookkeeping tables in every schema; pin them to the schema in use, or a
  // same-named table in another schema of the database would be mistaken for ours.
  const migrationTableSchema =
    database.kind === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0]?.schema
      : undefined;
  return new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
}

const PG_UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006']);
const NET_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection ended unexpectedly',
  'connection is closed',
  'Cannot use a pool after calling end',
  'The database connection is not open',
];

/** True when an error means "the database cannot be reached right now" (answered 503, retried by clients). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (PG_UNAVAILABLE_CODES.has(code) || NET_UNAVAILABLE_CODES.has(code)) return true;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_IOERR') return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error && isDatabaseUnavailable(cause);
}

/**
 * True when a write failed because the database's storage is full: SQLite's SQLITE_FULL (disk full, or the file at
 * its size limit), PostgreSQL's disk_full (53100: "could not extend file … No space left on device"). Reads still work.
 */
export function isStorageFull(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_FULL' || code === '53100') return true;
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error && isStorageFull(cause);
}

/** True for a unique-constraint violation on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True for a foreign-key violation on either database. */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** Encodes a float32 vector for the embedding column (the same bytes on both databases). */
export function encodeVector(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength));
}

/** Decodes an embedding column back to float32. */
export function decodeVector(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}

/**
 * For a background worker's transaction: on PostgreSQL, waiting for a row lock longer than `ms` fails the statement
 * (the worker retries on its next round). Writers serving requests therefore never wait long for a worker, and in a
 * lock cycle the worker gives up before PostgreSQL's deadlock detection (after 1 s) could pick the request's
 * transaction as the victim. SQLite serialises writers: nothing to do.
 */
export async function yieldLocksAfter(trx: Tx, ms: number): Promise<void> {
  if (isPostgres(trx)) await sql`select set_config('lock_timeout', ${`${Math.round(ms)}ms`}, true)`.execute(trx);
}

/** Whether a query runner (the database or a transaction) talks to PostgreSQL; for the few statements that differ. */
export function isPostgres(db: Queryable): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
