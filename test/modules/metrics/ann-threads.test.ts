import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ThreadedNearestIndex } from '../../../src/modules/metrics/ann-threads.js';
import { dot } from '../../../src/modules/metrics/vectors.js';
import { mulberry32, randomUnitVector } from '../../../bench/support/random.js';

const DIM = 32;

const randomUnit = (rand: () => number): Float32Array => randomUnitVector(rand, DIM);

/** The exact k nearest keys by cosine, best first. */
function bruteTop(store: Map<number, Float32Array>, q: Float32Array, k: number): number[] {
  return [...store]
    .map(([key, v]) => ({ key, s: dot(q, v) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((x) => x.key);
}

describe('ThreadedNearestIndex (index shards in worker threads)', () => {
  const opened: ThreadedNearestIndex[] = [];
  const open = (shards: number, capacity = 100): ThreadedNearestIndex => {
    const index = new ThreadedNearestIndex(DIM, capacity, shards);
    opened.push(index);
    return index;
  };
  after(async () => {
    await Promise.all(opened.map((index) => index.close()));
  });

  for (const shards of [1, 3]) {
    it(`answers each query's nearest keys over all ${shards} shard(s), merged best first`, async () => {
      const rand = mulberry32(shards);
      const index = open(shards, 600);
      const store = new Map<number, Float32Array>();
      for (let key = 0; key < 600; key++) {
        const v = randomUnit(rand);
        store.set(key, v);
        index.add(key, v);
      }
      assert.equal(index.size, 600);
      const queries = Array.from({ length: 40 }, () => randomUnit(rand));
      // Asked right after the adds, without waiting: a search sees every change made before it.
      const found = await index.search(queries, 5);
      assert.equal(found.length, 40);
      let hits = 0;
      found.forEach((f, i) => {
        assert.equal(f.keys.length, 5);
        for (let j = 1; j < 5; j++)
          assert.ok((f.similarities[j - 1] as number) >= (f.similarities[j] as number), 'best first');
        f.keys.forEach((key, j) =>
          assert.ok(
            Math.abs(dot(queries[i] as Float32Array, store.get(key) as Float32Array) - (f.similarities[j] as number)) <
              1e-5,
          ),
        );
        const exact = bruteTop(store, queries[i] as Float32Array, 5);
        hits += f.keys.filter((key) => exact.includes(key)).length;
      });
      assert.ok(hits / (40 * 5) >= 0.95, `recall@5 ${hits / 200}`);
      if (shards > 1) {
        const shardsSeen = new Set(found.flatMap((f) => f.keys.map((key) => key % shards)));
        assert.equal(shardsSeen.size, shards, 'answers come from every shard');
      }
    });
  }

  it('never returns a removed key, and finds a key again once re-added (also with a new vector)', async () => {
    const rand = mulberry32(7);
    const index = open(2);
    const vs = Array.from({ length: 50 }, () => randomUnit(rand));
    vs.forEach((v, key) => index.add(key, v));
    index.remove(10);
    index.remove(11);
    index.remove(999); // unknown: no-op
    assert.equal(index.size, 48);
    assert.equal(index.has(10), false);
    const [gone] = await index.search([vs[10] as Float32Array], 48);
    assert.ok(!gone?.keys.includes(10) && !gone?.keys.includes(11));
    assert.equal(gone?.keys.length, 48);

    index.add(10, vs[10] as Float32Array);
    index.add(11, vs[20] as Float32Array); // key 11 now holds another vector
    const [back, moved] = await index.search([vs[10] as Float32Array, vs[20] as Float32Array], 2);
    assert.equal(back?.keys[0], 10);
    assert.deepEqual([...(moved?.keys ?? [])].sort(), [11, 20]);
  });

  it('answers an urgent search before work queued ahead of it', async () => {
    const rand = mulberry32(3);
    const index = open(1, 20_000);
    const first = randomUnit(rand);
    index.add(0, first);
    await index.applied();
    // A long build queued, then an ordinary search behind it, then an urgent one.
    for (let key = 1; key < 20_000; key++) index.add(key, randomUnit(rand));
    const order: string[] = [];
    const ordinary = index.search([first], 1).then((r) => {
      order.push('ordinary');
      return r;
    });
    const urgent = index.search([first], 1, { urgent: true }).then((r) => {
      order.push('urgent');
      return r;
    });
    const [[u], [o]] = await Promise.all([urgent, ordinary]);
    assert.deepEqual(order, ['urgent', 'ordinary']);
    assert.equal(u?.keys[0], 0);
    assert.equal(o?.keys[0], 0);
    assert.equal(index.size, 20_000);
  });

  it('reports a dead thread: the failure is set and searches are refused', async () => {
    const index = open(2);
    index.add(1, new Float32Array(DIM).fill(1));
    await index.applied();
    // Fault injection: one shard's thread dies (as it would out of memory).
    await (
      index as unknown as { shards: Array<{ worker: { terminate(): Promise<number> } }> }
    ).shards[1]?.worker.terminate();
    assert.match(String(index.failure?.message), /exited/);
    await assert.rejects(index.search([new Float32Array(DIM).fill(1)], 1), /exited/);
    await assert.rejects(index.applied(), /exited/);
  });

  it('refuses bad keys and vectors at once, and answers nothing after close', async () => {
    const index = open(2);
    assert.throws(() => index.add(-1, new Float32Array(DIM)), RangeError);
    assert.throws(() => index.add(1.5, new Float32Array(DIM)), RangeError);
    assert.throws(() => index.add(1, new Float32Array(DIM - 1)), RangeError);
    const nan = new Float32Array(DIM);
    nan[3] = Number.NaN;
    assert.throws(() => index.add(1, nan), RangeError);
    assert.equal(index.size, 0);
    assert.deepEqual(await index.search([new Float32Array(DIM).fill(1)], 3), [{ keys: [], similarities: [] }]);

    index.add(1, new Float32Array(DIM).fill(1));
    const pending = assert.rejects(index.search([new Float32Array(DIM).fill(1)], 1), /closed/);
    await index.close();
    await pending;
    await assert.rejects(index.search([new Float32Array(DIM).fill(1)], 1), /closed/);
  });
});
