/**
 * The SQLite reader process: forked by SqliteConnector (sqlite.ts), one per open SQLite source, it runs the
 * synchronous reads of sqlite-reader.ts one request at a time and answers over the IPC channel. A read stuck in
 * SQLite's native code (a view that never ends) blocks only this process; the service kills it on the statement
 * deadline, on cancel and on shutdown.
 *
 * A watchdog thread kills this process when the service that forked it is gone (its parent changed), even while the
 * main thread is stuck in a read: an orphaned reader never spins on. Nothing here writes to stdout or stderr (a
 * driver message may quote a value); failures go back as classified ConnectionFailures only.
 */
import { Worker } from 'node:worker_threads';
import { ConnectionFailure } from './errors.js';
import { SqliteReader, type ReaderOptions } from './sqlite-reader.js';
import type { CatalogFilters, ConnectionSpec, SampleColumn, SampleTable } from './connector.js';

export type ReaderRequest =
  | { id: number; op: 'init'; file: string; spec: Pick<ConnectionSpec, 'sample_size'>; options: ReaderOptions }
  | { id: number; op: 'test' }
  | { id: number; op: 'catalogPage'; filters: Required<CatalogFilters>; after: string | undefined; pageSize: number }
  | { id: number; op: 'sample'; table: SampleTable; columns: SampleColumn[]; sampleSize: number | undefined };

export type ReaderReply =
  | { id: number; ok: true; result: unknown; stats: SqliteReader['stats'] }
  | { id: number; ok: false; failure: { cause: ConnectionFailure['cause']; detail: string; code: string | undefined } };

// The parent's pid at start; checked from a thread of its own so that a stuck main thread cannot stop the check.
const watchdog = `
const { workerData } = require('node:worker_threads');
setInterval(() => { if (process.ppid !== workerData.parent) process.kill(process.pid, 'SIGKILL'); }, 500);
`;

function main(): void {
  const send = process.send?.bind(process);
  if (!send) process.exit(2);
  new Worker(watchdog, { eval: true, workerData: { parent: process.ppid } }).unref();
  process.on('disconnect', () => process.exit(0));
  let reader: SqliteReader | undefined;
  const before = { catalog_queries: 0, catalog_rows: 0, sample_queries: 0, rows_read: 0 };

  const handle = async (req: ReaderRequest): Promise<unknown> => {
    if (req.op === 'init') {
      reader = new SqliteReader(req.file, req.spec, req.options);
      return null;
    }
    if (!reader) throw new ConnectionFailure('other', 'the sqlite reader was not initialised');
    if (req.op === 'test') return reader.test();
    if (req.op === 'catalogPage') return reader.catalogPage(req.filters, req.after, req.pageSize);
    return reader.sample(req.table, req.columns, req.sampleSize);
  };

  process.on('message', (req: ReaderRequest) => {
    void handle(req).then(
      (result) => {
        const s = reader?.stats ?? before;
        // Only what this request added, so the service can add it up.
        const delta = {
          catalog_queries: s.catalog_queries - before.catalog_queries,
          catalog_rows: s.catalog_rows - before.catalog_rows,
          sample_queries: s.sample_queries - before.sample_queries,
          rows_read: s.rows_read - before.rows_read,
        };
        Object.assign(before, s);
        send({ id: req.id, ok: true, result, stats: delta } satisfies ReaderReply);
      },
      (err: unknown) => {
        const failure =
          err instanceof ConnectionFailure ? err : new ConnectionFailure('other', 'the sqlite reader failed');
        send({
          id: req.id,
          ok: false,
          failure: { cause: failure.cause, detail: failure.detail, code: failure.code },
        } satisfies ReaderReply);
      },
    );
  });
  send({ id: 0, ok: true, result: 'ready', stats: { ...before } } satisfies ReaderReply);
}

main();
