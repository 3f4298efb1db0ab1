// The nearest-neighbour index, off the event loop: hnswlib's HNSW (ann-index.ts) held by worker threads.
//
// At a million fields building the index and searching every field's neighbours was most of a full recompute (see
// docs/benchmarks.md) — on the one thread that also serves requests. Here the index is
// split into shards by key (key mod shards), each owned by its own worker thread (ann-worker.ts): shards build in
// parallel, and search while the main thread measures and stores the previous fields. A query asks every shard for
// its k best and merges them.
//
// Changes (add, remove) are buffered and sent in order; a search is sent after the changes before it, and every
// shard applies and answers in arrival order, so a search sees every change made before it was asked. Urgent
// searches go ahead of queued work and see the changes applied so far.
import type { Worker } from 'node:worker_threads';
import { startModuleThread } from '../../background/threads.js';
import { checkKey, checkVector } from './ann-index.js';

export const OP_ADD = 1;
export const OP_REMOVE = 2;

/** What a worker is created with. */
export interface ShardSetup {
  dimensions: number;
  capacity: number;
}
/** A batch of changes: kinds[i] applies to keys[i]; adds take their vectors from `vectors` in order. */
export interface IndexOps {
  type: 'ops';
  kinds: Uint8Array;
  keys: Uint32Array;
  vectors: Float32Array;
}
export interface SearchRequest {
  type: 'search';
  id: number;
  /** n query vectors, one after another. */
  vectors: Float32Array;
  k: number;
  urgent: boolean;
}
export type ShardMessage = IndexOps | SearchRequest;
/**
 * keys (−1: none) and similarities, k per query, best first. `spent`: the buffers of a message the shard is done with,
 * handed back (transferred) so that they are freed by the main thread's frequent garbage collections; left in the
 * worker, whose heap sees few allocations, hundreds of megabytes of them waited for its next full collection.
 */
export type ShardReply =
  | { type: 'found'; id: number; keys: Int32Array; similarities: Float32Array; spent: Float32Array }
  | { type: 'failed'; id: number; message: string }
  | { type: 'spent'; buffers: ArrayBufferLike[] };

export interface Neighbours {
  keys: number[];
  similarities: number[];
}

/** Changes sent to a shard per message (bounded so a long build interleaves with searches and frees memory early). */
const OPS_PER_MESSAGE = 2048;

class OpsBuffer {
  kinds = new Uint8Array(OPS_PER_MESSAGE);
  keys = new Uint32Array(OPS_PER_MESSAGE);
  vectors: Float32Array;
  count = 0;
  adds = 0;

  constructor(private readonly dimensions: number) {
    this.vectors = new Float32Array(OPS_PER_MESSAGE * dimensions);
  }

  push(kind: number, key: number, vector?: Float32Array): void {
    this.kinds[this.count] = kind;
    this.keys[this.count] = key;
    if (vector) this.vectors.set(vector, this.adds++ * this.dimensions);
    this.count++;
  }

  /** The buffered changes as a message (transferable), and a fresh buffer. */
  take(): IndexOps {
    const ops: IndexOps = {
      type: 'ops',
      kinds: this.kinds.slice(0, this.count),
      keys: this.keys.slice(0, this.count),
      vectors: this.vectors.slice(0, this.adds * this.dimensions),
    };
    this.count = 0;
    this.adds = 0;
    return ops;
  }
}

interface Shard {
  worker: Worker;
  buffer: OpsBuffer;
}

interface Pending {
  replies: Array<{ keys: Int32Array; similarities: Float32Array } | undefined>;
  waiting: number;
  n: number;
  k: number;
  resolve: (found: Neighbours[]) => void;
  reject: (error: Error) => void;
}

/** The shard's thread: ann-worker.ts (ann-worker.js once compiled). */
function startWorker(setup: ShardSetup): Worker {
  return startModuleThread(import.meta.url, 'ann-worker', setup);
}

export class ThreadedNearestIndex {
  private readonly shards: Shard[];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private flushScheduled = false;
  private live = new Uint8Array(0);
  private liveCount = 0;
  private closed = false;
  /** Set when a worker thread died: the index is no longer complete, and the owner should build a new one. */
  failure: Error | null = null;

  constructor(
    readonly dimensions: number,
    capacityHint: number,
    shards: number,
  ) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) throw new RangeError('dimensions must be a positive integer');
    if (!Number.isInteger(shards) || shards < 1) throw new RangeError('shards must be a positive integer');
    const capacity = Math.ceil(Math.max(0, capacityHint) / shards);
    this.shards = Array.from({ length: shards }, () => {
      const worker = startWorker({ dimensions, capacity });
      worker.on('message', (reply: ShardReply) => this.onReply(reply));
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => {
        if (!this.closed) this.fail(new Error(`nearest-neighbour index thread exited with code ${code}`));
      });
      // An idle index nobody closed must not keep the process alive (referenced only while a search is pending).
      worker.unref();
      return { worker, buffer: new OpsBuffer(dimensions) };
    });
  }

  get shardCount(): number {
    return this.shards.length;
  }

  get size(): number {
    return this.liveCount;
  }

  has(key: number): boolean {
    return this.live[key] === 1;
  }

  /** Inserts or replaces the vector stored under `key` (a non-negative integer below 2^32). */
  add(key: number, vector: Float32Array): void {
    checkKey(key);
    checkVector(vector, this.dimensions);
    if (key >= this.live.length) {
      const grown = new Uint8Array(Math.max(key + 1, this.live.length * 2, 1024));
      grown.set(this.live);
      this.live = grown;
    }
    if (this.live[key] !== 1) {
      this.live[key] = 1;
      this.liveCount++;
    }
    this.change(OP_ADD, key, vector);
  }

  /** Removes `key`; a no-op for an unknown key. */
  remove(key: number): void {
    if (this.live[key] !== 1) return;
    this.live[key] = 0;
    this.liveCount--;
    this.change(OP_REMOVE, key);
  }

  /**
   * Up to k nearest stored vectors by cosine similarity for each query, best first. `urgent` searches are answered
   * before queued changes and searches (for a caller that holds a transaction open).
   */
  search(queries: readonly Float32Array[], k: number, options: { urgent?: boolean } = {}): Promise<Neighbours[]> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error('the nearest-neighbour index is closed'));
    const wanted = Math.min(Math.floor(k), this.liveCount);
    if (queries.length === 0 || !(wanted > 0))
      return Promise.resolve(queries.map(() => ({ keys: [], similarities: [] })));
    const vectors = new Float32Array(queries.length * this.dimensions);
    queries.forEach((q, i) => {
      checkVector(q, this.dimensions);
      vectors.set(q, i * this.dimensions);
    });
    return this.request(vectors, wanted, options.urgent === true);
  }

  /** Resolves once every shard has applied the changes made so far (a bulk load's index is built). */
  async applied(): Promise<void> {
    if (this.failure) throw this.failure;
    await this.request(new Float32Array(0), 1, false);
  }

  private request(vectors: Float32Array, k: number, urgent: boolean): Promise<Neighbours[]> {
    this.flush();
    const id = this.nextId++;
    return new Promise<Neighbours[]>((resolve, reject) => {
      if (this.pending.size === 0) for (const shard of this.shards) shard.worker.ref();
      this.pending.set(id, {
        replies: [],
        waiting: this.shards.length,
        n: vectors.length / this.dimensions,
        k,
        resolve,
        reject,
      });
      const request: SearchRequest = { type: 'search', id, vectors, k, urgent };
      for (const shard of this.shards) shard.worker.postMessage(request);
    });
  }

  /** Stops the worker threads; pending searches are rejected. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.rejectAll(new Error('the nearest-neighbour index was closed'));
    await Promise.all(this.shards.map((s) => s.worker.terminate()));
  }

  private change(kind: number, key: number, vector?: Float32Array): void {
    if (this.closed || this.failure) return;
    const shard = this.shards[key % this.shards.length] as Shard;
    shard.buffer.push(kind, key, vector);
    if (shard.buffer.count >= OPS_PER_MESSAGE) this.send(shard);
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    for (const shard of this.shards) if (shard.buffer.count > 0) this.send(shard);
  }

  private send(shard: Shard): void {
    if (this.closed || this.failure) return;
    const ops = shard.buffer.take();
    shard.worker.postMessage(ops, [
      ops.kinds.buffer as ArrayBuffer,
      ops.keys.buffer as ArrayBuffer,
      ops.vectors.buffer as ArrayBuffer,
    ]);
  }

  private onReply(reply: ShardReply): void {
    if (reply.type === 'spent') return;
    const p = this.pending.get(reply.id);
    if (!p) return;
    if (reply.type === 'failed') {
      this.settle(reply.id);
      p.reject(new Error(`nearest-neighbour search failed: ${reply.message}`));
      return;
    }
    p.replies.push(reply);
    if (--p.waiting > 0) return;
    this.settle(reply.id);
    p.resolve(merge(p.replies as Array<{ keys: Int32Array; similarities: Float32Array }>, p.n, p.k));
  }

  private settle(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) for (const shard of this.shards) shard.worker.unref();
  }

  private fail(error: Error): void {
    if (this.failure || this.closed) return;
    this.failure = error;
    this.rejectAll(error);
  }

  private rejectAll(error: Error): void {
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
    for (const shard of this.shards) shard.worker.unref();
  }
}

/** Each query's k best over the shards' answers (each best first). */
function merge(
  replies: ReadonlyArray<{ keys: Int32Array; similarities: Float32Array }>,
  n: number,
  k: number,
): Neighbours[] {
  const out: Neighbours[] = [];
  for (let q = 0; q < n; q++) {
    const keys: number[] = [];
    const similarities: number[] = [];
    const at = new Array<number>(replies.length).fill(0);
    while (keys.length < k) {
      let best = -1;
      let bestSimilarity = -Infinity;
      replies.forEach((r, s) => {
        const i = at[s] as number;
        if (i < k && (r.keys[q * k + i] as number) >= 0 && (r.similarities[q * k + i] as number) > bestSimilarity) {
          best = s;
          bestSimilarity = r.similarities[q * k + i] as number;
        }
      });
      if (best < 0) break;
      const r = replies[best] as (typeof replies)[number];
      keys.push(r.keys[q * k + (at[best] as number)] as number);
      similarities.push(bestSimilarity);
      at[best] = (at[best] as number) + 1;
    }
    out.push({ keys, similarities });
  }
  return out;
}
