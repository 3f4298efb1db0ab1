import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createNearestIndex } from '../../../src/modules/metrics/ann-index.js';
import { dot } from '../../../src/modules/metrics/vectors.js';
import { mulberry32, randomUnitVector } from '../../../bench/support/random.js';

const DIM = 64;

const randomUnit = (rand: () => number): Float32Array => randomUnitVector(rand, DIM);

function bruteBest(store: Map<number, Float32Array>, q: Float32Array): number {
  let best = -1;
  let bestSim = -Infinity;
  for (const [key, v] of store) {
    const s = dot(q, v);
    if (s > bestSim) {
      bestSim = s;
      best = key;
    }
  }
  return best;
}

function recallAt1(
  index: ReturnType<typeof createNearestIndex>,
  store: Map<number, Float32Array>,
  queries: Float32Array[],
): number {
  let hits = 0;
  for (const q of queries) if (index.search(q, 1).keys[0] === bruteBest(store, q)) hits++;
  return hits / queries.length;
}

describe('createNearestIndex', () => {
  it('finds an exact vector with similarity 1, best first, and reports size', () => {
    const rand = mulberry32(1);
    const index = createNearestIndex(DIM, 10);
    const vs = Array.from({ length: 10 }, () => randomUnit(rand));
    vs.forEach((v, i) => index.add(i + 100, v));
    assert.equal(index.size, 10);
    const res = index.search(vs[3]!, 5);
    assert.equal(res.keys[0], 103);
    assert.ok(Math.abs(res.similarities[0]! - 1) < 1e-5);
    assert.equal(res.keys.length, 5);
    for (let i = 1; i < res.similarities.length; i++) assert.ok(res.similarities[i - 1]! >= res.similarities[i]!);
    for (let i = 0; i < res.keys.length; i++) {
      assert.ok(
        Math.abs(res.similarities[i]! - dot(vs[3]!, vs[res.keys[i]! - 100]!)) < 1e-4,
        'similarity is the cosine',
      );
    }
  });

  it('returns nothing from an empty index and at most size results', () => {
    const index = createNearestIndex(DIM, 0);
    const rand = mulberry32(2);
    assert.deepEqual(index.search(randomUnit(rand), 5), { keys: [], similarities: [] });
    index.add(1, randomUnit(rand));
    assert.equal(index.search(randomUnit(rand), 5).keys.length, 1);
  });

  it('rejects wrong dimensions, non-finite values and bad keys', () => {
    const index = createNearestIndex(DIM, 1);
    assert.throws(() => index.add(1, new Float32Array(DIM + 1)), RangeError);
    const bad = new Float32Array(DIM);
    bad[0] = Number.NaN;
    assert.throws(() => index.add(1, bad), RangeError);
    assert.throws(() => index.add(-1, new Float32Array(DIM).fill(0.1)), RangeError);
    assert.throws(() => index.add(1.5, new Float32Array(DIM).fill(0.1)), RangeError);
    assert.throws(() => index.add(2 ** 32, new Float32Array(DIM).fill(0.1)), RangeError);
  });

  it('keeps recall@1 ≥ 0.95 against brute force through adds, removals and updates on 2,000 vectors', () => {
    const rand = mulberry32(42);
    const index = createNearestIndex(DIM, 2000);
    const store = new Map<number, Float32Array>();
    for (let i = 0; i < 2000; i++) {
      const v = randomUnit(rand);
      index.add(i, v);
      store.set(i, v);
    }
    const queries = Array.from({ length: 200 }, () => randomUnit(rand));
    assert.ok(recallAt1(index, store, queries) >= 0.95, 'recall after build');

    // Remove 300 keys: they must never come back.
    const removed = new Set<number>();
    for (let i = 0; i < 2000; i += 7) {
      index.remove(i);
      store.delete(i);
      removed.add(i);
    }
    index.remove(999_999); // unknown key: no-op
    assert.equal(index.size, store.size);
    for (const q of queries)
      for (const key of index.search(q, 20).keys) assert.ok(!removed.has(key), `removed key ${key} returned`);
    // Searching for a removed vector itself must not return its key.
    assert.ok(!index.search(randomUnit(mulberry32(42)), 5).keys.includes(0));

    // Re-embed 500 keys (update in place): the new vector is found, the old one is not.
    for (let i = 1; i < 2000; i += 4) {
      if (removed.has(i)) continue;
      const old = store.get(i)!;
      const v = randomUnit(rand);
      index.add(i, v);
      store.set(i, v);
      assert.equal(index.search(v, 1).keys[0], i);
      const oldHit = index.search(old, 1);
      if (oldHit.keys[0] === i) assert.ok(oldHit.similarities[0]! < 0.999, 'old vector of an updated key is gone');
    }
    assert.equal(index.size, store.size);
    assert.ok(recallAt1(index, store, queries) >= 0.95, 'recall after removals and updates');

    // Removed keys can be added again.
    index.add(7, randomUnit(rand));
    assert.ok(index.has(7));
    assert.equal(index.size, store.size + 1);
  });

  it('reuses removed slots for new keys, grows past its capacity, and keeps keys distinct', () => {
    const rand = mulberry32(9);
    const index = createNearestIndex(DIM, 0); // starts at the minimum capacity (1,024)
    const store = new Map<number, Float32Array>();
    for (let i = 0; i < 1500; i++) {
      const vec = randomUnit(rand);
      index.add(i, vec);
      store.set(i, vec);
    }
    for (let i = 0; i < 500; i++) {
      index.remove(i);
      store.delete(i);
    }
    // New keys take over tombstoned slots; an old key re-added after its slot was reused still works.
    for (let i = 5000; i < 5500; i++) {
      const vec = randomUnit(rand);
      index.add(i, vec);
      store.set(i, vec);
    }
    const back = randomUnit(rand);
    index.add(3, back);
    store.set(3, back);
    assert.equal(index.size, store.size);
    assert.equal(index.search(back, 1).keys[0], 3);
    for (const [key, vec] of [...store].slice(0, 100)) assert.equal(index.search(vec, 1).keys[0], key);
    const queries = Array.from({ length: 100 }, () => randomUnit(rand));
    for (const q of queries) for (const key of index.search(q, 10).keys) assert.ok(store.has(key), `stale key ${key}`);
    assert.ok(recallAt1(index, store, queries) >= 0.95);
  });
});
