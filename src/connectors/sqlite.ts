/**
 * SQLite connector. The file must lie inside the operator's scan folder (realpath, so no symlink or `..` escape) and
 * must not be the service's own database. Reads never run on the service's event loop: each open source has a reader
 * process of its own (sqlite-child.ts, forked on first use) that opens the file read-only and answers one request at a
 * time. A request that outlives the statement timeout, a cancel and a shutdown kill that process (SQLite has no
 * statement timeout, and a worker thread cannot be stopped while it is inside SQLite's native code; a process can).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  effectiveFilters,
  newStats,
  option,
  pagedCatalog,
  type CatalogFilters,
  type CatalogTable,
  type ConnectionSpec,
  type Connector,
  type ConnectorOptions,
  type SampleColumn,
  type SampleResult,
  type SampleTable,
} from './connector.js';
import { ConnectionFailure, ConnectionSpecError } from './errors.js';
import type { ReaderReply, ReaderRequest } from './sqlite-child.js';

export { quoteIdent } from './sqlite-reader.js';

const OWN_REFUSED =
  "the sqlite path is the service's own database (or one of its -wal, -shm, -journal files): it cannot be scanned";

/** The path with every symlink resolved, or for a file that does not exist (yet) with its folder's resolved. */
function realLocation(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    try {
      return path.join(fs.realpathSync(path.dirname(p)), path.basename(p));
    } catch {
      return undefined;
    }
  }
}

/** Whether `file` is one of the service's database files or their -wal, -shm, -journal companions: by real path, or by device and inode (a hard link). */
function isOwnDatabase(file: string, ownFiles: readonly string[] | undefined): boolean {
  const where = realLocation(file);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(file);
  } catch {
    // does not exist (yet): compared by path only
  }
  for (const own of ownFiles ?? []) {
    for (const f of [own, `${own}-wal`, `${own}-shm`, `${own}-journal`]) {
      if (where !== undefined && realLocation(f) === where) return true;
      if (!stat) continue;
      try {
        const s = fs.statSync(f);
        if (s.dev === stat.dev && s.ino === stat.ino) return true;
      } catch {
        // that companion does not exist
      }
    }
  }
  return false;
}

/**
 * Resolves a sqlite source's path inside `allowedDir` (relative paths are taken from it). Refuses (ConnectionSpecError)
 * when no folder is configured, the real path leaves it, or it is one of `ownFiles` (the service's own database, by
 * real path or inode, with its -wal, -shm and -journal files); a missing file is a ConnectionFailure (unknown_database).
 */
export function resolveSqlitePath(
  database: string,
  allowedDir: string | undefined,
  ownFiles?: readonly string[],
): string {
  if (!allowedDir)
    throw new ConnectionSpecError(
      'sqlite sources are disabled: no scan folder (FIELDLENS_SCAN_SQLITE_DIR) is configured',
    );
  if (typeof database !== 'string' || database.length === 0 || database.includes('\0'))
    throw new ConnectionSpecError('the sqlite path is empty or invalid');
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
    // Not there yet: still refused when it names where the service's database (or its -wal/-shm) would be.
    if (isOwnDatabase(candidate, ownFiles)) throw new ConnectionSpecError(OWN_REFUSED);
    throw new ConnectionFailure('unknown_database', 'the sqlite file does not exist in the scan folder', 'ENOENT');
  }
  // Checked again on the real path: a symlink inside the folder may point anywhere.
  if (!inside(real)) throw new ConnectionSpecError('the sqlite path must lie inside the scan folder');
  if (!fs.statSync(real).isFile()) throw new ConnectionSpecError('the sqlite path is not a file');
  if (isOwnDatabase(real, ownFiles)) throw new ConnectionSpecError(OWN_REFUSED);
  return real;
}

/** The reader module next to this one: sqlite-child.ts under tsx (tests, `npm run dev`), sqlite-child.js from dist/. */
function readerModule(): { file: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const ext = path.extname(here);
  const file = path.join(path.dirname(here), `sqlite-child${ext}`);
  // The parent's flags (a TypeScript loader, memory settings), but never a debugger port or the test runner's own.
  const execArgv = process.execArgv.filter((a) => !/^--(inspect|debug|test)/.test(a));
  if (ext === '.ts' && !execArgv.some((a) => a.includes('tsx'))) execArgv.push('--import', 'tsx');
  return { file, execArgv };
}

/** A request without its id (given when it is sent). */
type RequestBody = ReaderRequest extends infer R ? (R extends ReaderRequest ? Omit<R, 'id'> : never) : never;

interface Pending {
  id: number;
  during: string;
  resolve: (reply: ReaderReply) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout | undefined;
}

/** Time a reader process may take to start (load the module, before the first read). */
const START_TIMEOUT_MS = 30_000;

export class SqliteConnector implements Connector {
  readonly kind = 'sqlite' as const;
  readonly stats = newStats();
  private readonly file: string;
  private readonly statementTimeoutMs: number;
  private child: ChildProcess | undefined;
  private ready: Promise<void> | undefined;
  private pending: Pending | undefined;
  private nextId = 1;
  private cancelled = false;
  // One reader, one request at a time: calls wait for every earlier call, so two samples never share a transaction.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly spec: ConnectionSpec,
    private readonly options: ConnectorOptions = {},
  ) {
    this.file = resolveSqlitePath(spec.database, options.sqliteDir, options.ownDatabaseFiles);
    this.statementTimeoutMs = option(options, 'statementTimeoutMs');
  }

  private get name(): string {
    return JSON.stringify(path.basename(this.file));
  }

  /** Forks the reader process (once; again after it was killed) and initialises it with the file. */
  private start(): Promise<void> {
    if (this.child && this.ready) return this.ready;
    const { file, execArgv } = readerModule();
    // No stdio: the reader writes nothing, and nothing a driver says can reach the service's output.
    const child = fork(file, [], { execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    this.child = child;
    // The process and its channel never keep the service alive; a pending request's timer does.
    child.unref();
    child.channel?.unref();
    child.on('message', (reply: ReaderReply) => {
      const p = this.pending;
      if (p && reply.id === p.id) {
        this.pending = undefined;
        if (p.timer) clearTimeout(p.timer);
        p.resolve(reply);
      }
    });
    child.on('error', () => this.ended(child, 'could not start'));
    child.on('exit', (code, signal) =>
      this.ended(child, signal ? `was stopped (${signal})` : `ended (exit code ${code ?? 'unknown'})`),
    );
    const init = {
      op: 'init' as const,
      file: this.file,
      spec: { sample_size: this.spec.sample_size },
      options: {
        connectTimeoutMs: this.options.connectTimeoutMs,
        maxTextLength: this.options.maxTextLength,
        maxRowsPerTable: this.options.maxRowsPerTable,
      },
    };
    // id 0 is the reader's "ready"; the init answer follows it.
    this.ready = this.exchange({ id: 0, ...init }, 'starting the sqlite reader', START_TIMEOUT_MS, true).then(() =>
      this.exchange({ ...init, id: this.nextId++ }, 'opening the file', START_TIMEOUT_MS).then(() => undefined),
    );
    return this.ready;
  }

  /** The reader process went away: the request in flight fails; the next call starts a new reader. */
  private ended(child: ChildProcess, how: string): void {
    if (this.child !== child) return;
    const during = this.pending?.during ?? 'reading';
    this.kill(() => new ConnectionFailure('other', `the sqlite reader ${how} while ${during} in ${this.name}`));
  }

  private cancelledFailure(during: string): ConnectionFailure {
    return new ConnectionFailure('other', `cancelled while ${during} in ${this.name}`, 'CANCELLED');
  }

  /** Sends one request (or, `waitOnly`, waits for the reader's first message) and waits for its answer, killing the reader at the deadline. */
  private exchange(req: ReaderRequest, during: string, timeoutMs: number, waitOnly = false): Promise<ReaderReply> {
    const child = this.child;
    if (!child)
      return Promise.reject(
        new ConnectionFailure('other', `the sqlite reader is not running while ${during} in ${this.name}`),
      );
    return new Promise<ReaderReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.pending?.id === req.id)
          this.kill(
            () =>
              new ConnectionFailure(
                'timeout',
                `timed out after ${timeoutMs} ms while ${during} in ${this.name} (the read was stopped)`,
                'SQLITE_TIMEOUT',
              ),
          );
      }, timeoutMs);
      this.pending = { id: req.id, during, resolve, reject, timer };
      if (!waitOnly) {
        child.send(req, (err) => {
          if (err && this.pending?.id === req.id)
            this.kill(
              () =>
                new ConnectionFailure(
                  'other',
                  `the sqlite reader could not be reached while ${during} in ${this.name}`,
                ),
            );
        });
      }
    }).then((reply) => {
      if (!reply.ok) throw new ConnectionFailure(reply.failure.cause, reply.failure.detail, reply.failure.code);
      this.stats.catalog_queries += reply.stats.catalog_queries;
      this.stats.catalog_rows += reply.stats.catalog_rows;
      this.stats.sample_queries += reply.stats.sample_queries;
      this.stats.rows_read += reply.stats.rows_read;
      return reply;
    });
  }

  /** Ends the reader process now; the request in flight fails with `failure`, and the next call starts a new reader. */
  private kill(failure: () => ConnectionFailure): void {
    const child = this.child;
    this.child = undefined;
    this.ready = undefined;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    if (p.timer) clearTimeout(p.timer);
    p.reject(failure());
  }

  /** Runs one request after every earlier one, on a started reader, within the statement timeout. */
  private call<T>(during: string, req: RequestBody): Promise<T> {
    const next = this.queue.then(async () => {
      if (this.cancelled) throw this.cancelledFailure(during);
      await this.start();
      if (this.cancelled) throw this.cancelledFailure(during);
      const reply = await this.exchange(
        { ...req, id: this.nextId++ } as ReaderRequest,
        during,
        this.statementTimeoutMs,
      );
      return (reply as Extract<ReaderReply, { ok: true }>).result as T;
    });
    this.queue = next.catch(() => {});
    return next;
  }

  test(): Promise<{ server_version: string }> {
    return this.call('reading the version', { op: 'test' });
  }

  async *listColumns(filters?: CatalogFilters): AsyncIterable<CatalogTable> {
    const f = effectiveFilters(this.spec, filters);
    const pageSize = option(this.options, 'catalogPageSize');
    yield* pagedCatalog(pageSize, (after) =>
      this.call<CatalogTable[]>('listing the catalog', { op: 'catalogPage', filters: f, after: after?.[1], pageSize }),
    );
  }

  sample(table: SampleTable, columns: readonly SampleColumn[], sampleSize?: number): Promise<SampleResult> {
    const t: SampleTable = {
      schema: table.schema,
      name: table.name,
      kind: table.kind,
      row_estimate: table.row_estimate,
      primary_key: [...table.primary_key],
    };
    return this.call(`sampling ${table.name}`, {
      op: 'sample',
      table: t,
      columns: columns.map((c) => ({ name: c.name, data_type: c.data_type })),
      sampleSize,
    });
  }

  /** Stops the read in flight (the reader process is killed) and refuses every later call. */
  cancel(): Promise<void> {
    this.cancelled = true;
    const during = this.pending?.during ?? 'reading';
    this.kill(() => this.cancelledFailure(during));
    return Promise.resolve();
  }

  async close(): Promise<void> {
    // Not queued behind a stuck read: the reader is read-only, so ending it at any point loses nothing.
    await this.cancel();
    await this.queue;
  }
}
