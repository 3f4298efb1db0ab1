// In-memory approximate nearest-neighbour index over field embeddings (cosine), backed by hnswlib-node's HNSW.
// Chosen over usearch by measurement (docs/benchmarks.md, "Nearest-neighbour index (ann)"): same recall at the
// same M / ef, but about 1.2–1.6× more inserts and queries per CPU-second single-threaded on this workload.
import hnswlib from 'hnswlib-node';

export interface NearestIndex {
  readonly size: number;
  /** Inserts or replaces (re-embedding) the vector stored under `key`. */
  add(key: number, vector: Float32Array): void;
  /** Removes `key`; a no-op for an unknown key. Removed keys are never returned by search. */
  remove(key: number): void;
  /** Up to k nearest stored vectors by cosine similarity, best first. */
  search(vector: Float32Array, k: number): { keys: number[]; similarities: number[] };
  has(key: number): boolean;
}

/** HNSW parameters (docs/benchmarks.md): M = 16, efConstruction = 64, efSearch = 64. */
export const ANN_PARAMS = { m: 16, efConstruction: 64, efSearch: 64, randomSeed: 100 } as const;

/** hnswlib labels are unsigned 32-bit integers. */
const MAX_KEY = 0xffffffff;
const MIN_CAPACITY = 1024;
/** What the index knows of a key (one byte per key: keys are a catalog's slot numbers, small and dense). */
const ABSENT = 0;
const LIVE = 1;
/** Marked deleted; may still own its slot (a slot can be taken over by a later new key). */
const TOMBSTONE = 2;

/**
 * Key design for updates: the caller's key (the field's slot in the catalog state) is the hnswlib label. Re-embedding
 * a live key updates its vector in place (hnswlib's addPoint on an existing label). Removal is hnswlib's markDelete (a
 * tombstone search skips); the index is created with replacement of deleted elements enabled, so a NEW key
 * reuses a tombstoned slot instead of growing the graph, and re-adding a removed key that still owns its slot
 * un-deletes and updates it. Memory is therefore bounded by the peak number of live fields.
 */
class HnswNearestIndex implements NearestIndex {
  private readonly index: hnswlib.HierarchicalNSW;
  private capacity: number;
  private keyState = new Uint8Array(0);
  private liveCount = 0;
  /** Slots marked deleted and not yet reused: hnswlib's own count of replaceable elements. */
  private freeSlots = 0;

  constructor(
    private readonly dimensions: number,
    capacityHint: number,
  ) {
    this.capacity = Math.max(MIN_CAPACITY, Math.ceil(capacityHint));
    this.index = new hnswlib.HierarchicalNSW('cosine', dimensions);
    this.index.initIndex({
      maxElements: this.capacity,
      m: ANN_PARAMS.m,
      efConstruction: ANN_PARAMS.efConstruction,
      randomSeed: ANN_PARAMS.randomSeed,
      allowReplaceDeleted: true,
    });
    this.index.setEf(ANN_PARAMS.efSearch);
  }

  get size(): number {
    return this.liveCount;
  }

  has(key: number): boolean {
    return this.keyState[key] === LIVE;
  }

  add(key: number, vector: Float32Array): void {
    checkKey(key);
    const point = this.toPoint(vector);
    if (key >= this.keyState.length) {
      const grown = new Uint8Array(Math.max(key + 1, this.keyState.length * 2, MIN_CAPACITY));
      grown.set(this.keyState);
      this.keyState = grown;
    }
    if (this.keyState[key] === LIVE) {
      this.index.addPoint(point, key); // update in place
      return;
    }
    if (this.keyState[key] === TOMBSTONE) {
      this.keyState[key] = ABSENT;
      try {
        this.index.unmarkDelete(key);
        this.freeSlots--;
        this.index.addPoint(point, key);
        this.markLive(key);
        return;
      } catch {
        // The slot was taken over by another key meanwhile: add as new below.
      }
    }
    if (this.freeSlots > 0) {
      this.index.addPoint(point, key, true); // reuses a tombstoned slot
      this.freeSlots--;
    } else {
      if (this.index.getCurrentCount() >= this.capacity) {
        this.capacity *= 2;
        this.index.resizeIndex(this.capacity);
      }
      this.index.addPoint(point, key);
    }
    this.markLive(key);
  }

  remove(key: number): void {
    if (this.keyState[key] !== LIVE) return;
    this.index.markDelete(key);
    this.keyState[key] = TOMBSTONE;
    this.liveCount--;
    this.freeSlots++;
  }

  private markLive(key: number): void {
    this.keyState[key] = LIVE;
    this.liveCount++;
  }

  search(vector: Float32Array, k: number): { keys: number[]; similarities: number[] } {
    const point = this.toPoint(vector);
    const wanted = Math.min(Math.floor(k), this.liveCount);
    if (!(wanted > 0)) return { keys: [], similarities: [] };
    // Results come best first; the cosine space's distance is 1 − cos.
    const res = this.index.searchKnn(point, wanted);
    return {
      keys: res.neighbors,
      similarities: res.distances.map((d) => {
        const s = 1 - d;
        return s > 1 ? 1 : s < -1 ? -1 : s;
      }),
    };
  }

  private toPoint(vector: Float32Array): number[] {
    checkVector(vector, this.dimensions);
    return Array.from(vector);
  }
}

/** Throws RangeError unless the vector has the index's dimensions and only finite values. */
export function checkVector(vector: Float32Array, dimensions: number): void {
  if (vector.length !== dimensions)
    throw new RangeError(`vector has ${vector.length} dimensions, index has ${dimensions}`);
  for (let i = 0; i < vector.length; i++)
    if (!Number.isFinite(vector[i])) throw new RangeError('vector contains a non-finite value');
}

/** Throws RangeError unless the key can be an hnswlib label. */
export function checkKey(key: number): void {
  if (!Number.isInteger(key) || key < 0 || key > MAX_KEY) {
    throw new RangeError(`index key must be an integer in [0, 2^32 − 1], got ${key}`);
  }
}

/**
 * Creates an empty cosine index sized for `capacityHint` vectors (at least 1,024); it doubles its capacity
 * when full. Keys are meant to be small dense integers (slot numbers): the index keeps one byte per key up to the
 * largest key used. Vectors need not be unit length (hnswlib normalises for the cosine space).
 */
export function createNearestIndex(dimensions: number, capacityHint: number): NearestIndex {
  if (!Number.isInteger(dimensions) || dimensions <= 0) throw new RangeError('dimensions must be a positive integer');
  if (!Number.isFinite(capacityHint) || capacityHint < 0)
    throw new RangeError('capacityHint must be a non-negative number');
  return new HnswNearestIndex(dimensions, capacityHint);
}
