// The WAL checkpointer's thread (wal-checkpointer.ts): its own connection to the SQLite file, copying committed pages
// from the write-ahead log back into the database file (PASSIVE: it never waits for, nor blocks, a writer or reader).
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type {
  CheckpointResult,
  CheckpointerMessage,
  CheckpointerReply,
  CheckpointerSetup,
} from './wal-checkpointer.js';

const { file, intervalMs } = workerData as CheckpointerSetup;
const port = parentPort;
if (!port) throw new Error('wal-checkpoint-thread.ts runs as a worker thread');

const db = new BetterSqlite3(file, { fileMustExist: true });
// The checkpoint syncs the WAL before copying and the database file after, as the service's own connection would.
db.pragma('synchronous = NORMAL');
db.pragma('journal_size_limit = 67108864');
// This connection never writes, so it never checkpoints on commit either.
db.pragma('wal_autocheckpoint = 0');

function checkpoint(): CheckpointResult {
  const [row] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
  return { busy: row?.busy === 1, walPages: row?.log ?? 0, checkpointedPages: row?.checkpointed ?? 0 };
}

function fail(error: unknown): void {
  clearInterval(timer);
  const reply: CheckpointerReply = { type: 'failed', message: error instanceof Error ? error.message : String(error) };
  port?.postMessage(reply);
  db.close();
  port?.close();
}

const timer = setInterval(() => {
  try {
    checkpoint();
  } catch (error) {
    fail(error);
  }
}, intervalMs);

port.on('message', (message: CheckpointerMessage) => {
  if (message.type === 'stop') {
    clearInterval(timer);
    db.close();
    port.close();
    return;
  }
  try {
    const reply: CheckpointerReply = { type: 'result', id: message.id, result: checkpoint() };
    port.postMessage(reply);
  } catch (error) {
    fail(error);
  }
});
