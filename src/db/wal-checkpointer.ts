/**
 * WAL checkpoints off the event loop (SQLite on a file only; docs/operations.md, "SQLite's write-ahead log").
 *
 * In WAL mode every commit appends the pages it changed to the log, and a checkpoint copies them back into the database
 * file and syncs it. By default the connection that commits does the checkpoint once the log has grown past
 * `wal_autocheckpoint` pages, inside that commit: the request or background batch that happens to cross the threshold
 * waits for the copy and the sync. At a million fields the metrics worker's batches change ~13,000 pages each, and the
 * checkpoints were half of its store phase (docs/benchmarks.md). Here a worker thread with a connection of its own runs
 * a PASSIVE checkpoint every `intervalMs`: it copies what has been committed, never waits for a writer and never blocks
 * one, and the service's connection only checkpoints itself as a backstop, when the log passes BACKSTOP_PAGES (the
 * thread stopped or cannot keep up). If the thread fails, the service's connection goes back to checkpointing every
 * FALLBACK_PAGES on its own.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleThread } from '../background/threads.js';

export interface CheckpointerSetup {
  file: string;
  intervalMs: number;
}

/** What a PASSIVE checkpoint reported: whether it could not run at all, the log's size and how much of it is now copied. */
export interface CheckpointResult {
  busy: boolean;
  walPages: number;
  checkpointedPages: number;
}

export type CheckpointerMessage = { type: 'now'; id: number } | { type: 'stop' };
export type CheckpointerReply =
  { type: 'result'; id: number; result: CheckpointResult } | { type: 'failed'; message: string };

/** How often the thread checkpoints. A page changed by several commits within it is copied once. */
export const CHECKPOINT_INTERVAL_MS = 500;
/** The service's own connection checkpoints only past this many log pages (~400 MiB) while the thread runs. */
export const BACKSTOP_PAGES = 100_000;
/** … and every this many (~40 MiB) without the thread, as before it existed. */
export const FALLBACK_PAGES = 10_000;

/** The service's connection, as far as the checkpointer needs it. */
export interface CheckpointedConnection {
  setAutocheckpoint(pages: number): void;
}

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (r: CheckpointResult) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private stopped = false;
  /** Set when the thread failed: the service's connection checkpoints on its own again. */
  failure: Error | null = null;

  constructor(
    file: string,
    private readonly connection: CheckpointedConnection,
    private readonly onFailure: (error: Error) => void,
    intervalMs = CHECKPOINT_INTERVAL_MS,
  ) {
    const setup: CheckpointerSetup = { file, intervalMs };
    this.worker = startModuleThread(import.meta.url, 'wal-checkpoint-thread', setup);
    this.worker.on('message', (reply: CheckpointerReply) => {
      if (reply.type === 'failed') return this.fail(new Error(`WAL checkpoint thread: ${reply.message}`));
      const w = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) this.worker.unref();
      w?.resolve(reply.result);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => {
      if (!this.stopped) this.fail(new Error(`WAL checkpoint thread exited with code ${code}`));
    });
    // A checkpointer nobody stopped must not keep the process alive (referenced only while a caller waits for it).
    this.worker.unref();
    connection.setAutocheckpoint(BACKSTOP_PAGES);
  }

  /** Runs a checkpoint on the thread now and answers what it reported (tests, and a caller that wants the log copied). */
  now(): Promise<CheckpointResult> {
    if (this.stopped || this.failure) return Promise.reject(this.failure ?? new Error('WAL checkpointer stopped'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ type: 'now', id } satisfies CheckpointerMessage);
    });
  }

  /** Stops the thread (its connection closes); the service's connection checkpoints on its own again. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.connection.setAutocheckpoint(FALLBACK_PAGES);
    this.rejectWaiting(new Error('WAL checkpointer stopped'));
    if (this.failure) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.ref();
    this.worker.postMessage({ type: 'stop' } satisfies CheckpointerMessage);
    await exited;
  }

  private fail(error: Error): void {
    if (this.failure || this.stopped) return;
    this.failure = error;
    this.connection.setAutocheckpoint(FALLBACK_PAGES);
    this.rejectWaiting(error);
    void this.worker.terminate();
    this.onFailure(error);
  }

  private rejectWaiting(error: Error): void {
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
  }
}
