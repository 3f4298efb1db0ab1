// In-memory approximate nearest-neighbour index over field embeddings (cosine), backed by usearch's HNSW.
// Chosen over hnswlib-node by measurement (docs/benchmarks.md, "Nearest-neighbour index (ann)"): it takes
// Float32Array directly, has a real remove, grows its capacity by itself and matched or beat hnswlib's
// recall and speed at the same M / ef settings.
import { Index, MetricKind, ScalarKind } from 'usearch';

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

/** HNSW parameters (docs/benchmarks.md): M = 16, efConstruction = 128, efSearch = 64. */
export const ANN_PARAMS = { connectivity: 16, expansionAdd: 128, expansionSearch: 64 } as const;

// The service calls the index from the event loop: one thread per call avoids spawning a pool per query.
const THREADS = 1;

class UsearchNearestIndex implements NearestIndex {
  private readonly index: Index;

  constructor(private readonly dimensions: number) {
    this.index = new Index({
      dimensions,
      metric: MetricKind.Cos,
      quantization: ScalarKind.F32,
      connectivity: ANN_PARAMS.connectivity,
      expansion_add: ANN_PARAMS.expansionAdd,
      expansion_search: ANN_PARAMS.expansionSearch,
      multi: false,
    });
  }

  get size(): number {
    return Number(this.index.size());
  }

  has(key: number): boolean {
    return this.index.contains(toKey(key)) === true;
  }

  add(key: number, vector: Float32Array): void {
    this.checkVector(vector);
    const k = toKey(key);
    // usearch refuses duplicate keys: an update is remove + add (the freed slot is reused).
    if (this.index.contains(k) === true) this.index.remove(k);
    this.index.add(k, vector, THREADS);
  }

  remove(key: number): void {
    const k = toKey(key);
    if (this.index.contains(k) === true) this.index.remove(k);
  }

  search(vector: Float32Array, k: number): { keys: number[]; similarities: number[] } {
    this.checkVector(vector);
    const size = this.size;
    const wanted = Math.min(Math.floor(k), size);
    if (!(wanted > 0)) return { keys: [], similarities: [] };
    const matches = this.index.search(vector, wanted, THREADS);
    const keys: number[] = [];
    const similarities: number[] = [];
    for (let i = 0; i < matches.keys.length; i++) {
      keys.push(Number(matches.keys[i]!));
      // usearch's cos metric returns the distance 1 − cos.
      const sim = 1 - matches.distances[i]!;
      similarities.push(sim > 1 ? 1 : sim < -1 ? -1 : sim);
    }
    return { keys, similarities };
  }

  private checkVector(vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new RangeError(`vector has ${vector.length} dimensions, index has ${this.dimensions}`);
    }
    for (let i = 0; i < vector.length; i++) {
      if (!Number.isFinite(vector[i]!)) throw new RangeError('vector contains a non-finite value');
    }
  }
}

function toKey(key: number): bigint {
  if (!Number.isSafeInteger(key) || key < 0) throw new RangeError(`index key must be a non-negative safe integer, got ${key}`);
  return BigInt(key);
}

/**
 * Creates an empty cosine index. `capacityHint` is accepted for callers that know the catalog size; usearch
 * grows by doubling on its own (its JS binding exposes no reserve), so the hint only validates intent.
 */
export function createNearestIndex(dimensions: number, capacityHint: number): NearestIndex {
  if (!Number.isInteger(dimensions) || dimensions <= 0) throw new RangeError('dimensions must be a positive integer');
  if (!Number.isFinite(capacityHint) || capacityHint < 0) throw new RangeError('capacityHint must be a non-negative number');
  return new UsearchNearestIndex(dimensions);
}
