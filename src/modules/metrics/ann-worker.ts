// The worker thread that owns one shard of the nearest-neighbour index (see ann-threads.ts for the protocol).
// Work is done in slices of a few milliseconds, so that messages keep arriving between them: an urgent search (a
// writer's transaction waiting for a changed field's neighbours) is answered after at most one slice, even while
// a million-field build or a batch's searches are queued.
import { parentPort, workerData } from 'node:worker_threads';
import { createNearestIndex } from './ann-index.js';
import {
  OP_ADD,
  type IndexOps,
  type SearchRequest,
  type ShardMessage,
  type ShardReply,
  type ShardSetup,
} from './ann-threads.js';

const SLICE_MS = 5;

const setup = workerData as ShardSetup;
const index = createNearestIndex(setup.dimensions, setup.capacity);
const port = parentPort;
if (!port) throw new Error('ann-worker must run in a worker thread');

interface OpsJob {
  ops: IndexOps;
  next: number;
  /** Offset of the next add's vector in ops.vectors. */
  vectorAt: number;
}
interface SearchJob {
  request: SearchRequest;
  next: number;
  keys: Int32Array;
  similarities: Float32Array;
}

/** Index changes and ordinary searches, in arrival order: a search sees every change sent before it. */
const queue: Array<OpsJob | SearchJob> = [];
/** Urgent searches go before the queue (they see the changes applied so far). */
const urgent: SearchJob[] = [];
let scheduled = false;

port.on('message', (message: ShardMessage) => {
  if (message.type === 'ops') {
    queue.push({ ops: message, next: 0, vectorAt: 0 });
  } else {
    const n = message.vectors.length / setup.dimensions;
    const job = {
      request: message,
      next: 0,
      keys: new Int32Array(n * message.k).fill(-1),
      similarities: new Float32Array(n * message.k),
    };
    (message.urgent ? urgent : queue).push(job);
  }
  schedule();
});

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(step);
}

function step(): void {
  scheduled = false;
  // eslint-disable-next-line no-restricted-properties -- real time: the index thread's time slice
  const deadline = performance.now() + SLICE_MS;
  // eslint-disable-next-line no-restricted-properties -- real time: the index thread's time slice
  while (performance.now() < deadline) {
    const job = urgent[0] ?? queue[0];
    if (!job) return;
    const done = 'ops' in job ? applySome(job, deadline) : searchSome(job, deadline);
    if (!done) continue;
    (urgent[0] === job ? urgent : queue).shift();
    if ('ops' in job) {
      const { kinds, keys, vectors } = job.ops;
      const buffers = [kinds.buffer, keys.buffer, vectors.buffer] as ArrayBuffer[];
      post({ type: 'spent', buffers }, buffers);
    }
  }
  schedule();
}

/** Applies changes until the deadline; true when the job is finished. */
function applySome(job: OpsJob, deadline: number): boolean {
  const { kinds, keys, vectors } = job.ops;
  const d = setup.dimensions;
  while (job.next < kinds.length) {
    const key = keys[job.next] as number;
    if (kinds[job.next] === OP_ADD) {
      index.add(key, vectors.subarray(job.vectorAt, job.vectorAt + d));
      job.vectorAt += d;
    } else {
      index.remove(key);
    }
    job.next++;
    // eslint-disable-next-line no-restricted-properties -- real time: the index thread's time slice
    if ((job.next & 15) === 0 && performance.now() >= deadline) break;
  }
  return job.next >= kinds.length;
}

/** Answers queries until the deadline; posts the answer and returns true when all are answered. */
function searchSome(job: SearchJob, deadline: number): boolean {
  const { vectors, k, id } = job.request;
  const d = setup.dimensions;
  const n = vectors.length / d;
  while (job.next < n) {
    const q = job.next++;
    try {
      const found = index.search(vectors.subarray(q * d, (q + 1) * d), k);
      found.keys.forEach((key, i) => {
        job.keys[q * k + i] = key;
        job.similarities[q * k + i] = found.similarities[i] as number;
      });
    } catch (error) {
      post({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) });
      return true;
    }
    // eslint-disable-next-line no-restricted-properties -- real time: the index thread's time slice
    if (performance.now() >= deadline) break;
  }
  if (job.next < n) return false;
  post({ type: 'found', id, keys: job.keys, similarities: job.similarities, spent: vectors }, [
    job.keys.buffer as ArrayBuffer,
    job.similarities.buffer as ArrayBuffer,
    vectors.buffer as ArrayBuffer,
  ]);
  return true;
}

function post(reply: ShardReply, transfer: ArrayBuffer[] = []): void {
  (port as NonNullable<typeof port>).postMessage(reply, transfer);
}
