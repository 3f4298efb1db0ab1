import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CatalogState } from '../../../src/modules/metrics/catalog-state.js';
import { encodeVector } from '../../../src/db/database.js';
import { dot } from '../../../src/modules/metrics/vectors.js';
import { NO_SUCCESSOR, NOT_INDEXED, Twins } from '../../../src/modules/metrics/twins.js';
import { mulberry32, randomUnitVector } from '../../../bench/support/random.js';

const DIM = 24;

describe('Twins (fields with identical embeddings)', () => {
  /** A twin registry over a plain slot → vector store. */
  function registry(): { twins: Twins; vectors: Float32Array[] } {
    const vectors: Float32Array[] = [];
    const twins = new Twins((slot) => vectors[slot] as Float32Array);
    twins.grow(4096);
    return { twins, vectors };
  }

  it('makes the first slot of an embedding its representative, and hands over to a twin when it leaves', () => {
    const { twins, vectors } = registry();
    const rand = mulberry32(1);
    const shared = randomUnitVector(rand, DIM);
    vectors[0] = shared;
    vectors[1] = Float32Array.from(shared);
    vectors[2] = randomUnitVector(rand, DIM);
    vectors[3] = Float32Array.from(shared);
    assert.equal(twins.join(0), 0);
    assert.equal(twins.join(1), 0);
    assert.equal(twins.join(2), 2);
    assert.equal(twins.join(3), 0);
    assert.deepEqual(twins.expand({ keys: [2, 0], similarities: [0.9, 0.5] }, 10), {
      keys: [2, 0, 3, 1],
      similarities: [0.9, 0.5, 0.5, 0.5],
    });
    assert.deepEqual(twins.expand({ keys: [0, 2], similarities: [0.9, 0.5] }, 2).keys, [0, 3]);

    assert.equal(twins.leave(3), NOT_INDEXED); // not the representative: the index is left alone
    assert.equal(twins.leave(0), 1); // the representative: slot 1 takes its place
    assert.equal(twins.join(0), 1);
    assert.equal(twins.leave(2), NO_SUCCESSOR);
    assert.equal(twins.hasTwins(2), false);
    assert.deepEqual(twins.expand({ keys: [1], similarities: [1] }, 10).keys, [1, 0]);
  });

  it('keeps thousands of distinct embeddings and groups apart through growth and removals', () => {
    const { twins, vectors } = registry();
    const rand = mulberry32(2);
    const groups = Array.from({ length: 50 }, () => randomUnitVector(rand, DIM));
    const representative = new Map<number, number>();
    for (let slot = 0; slot < 3000; slot++) {
      const group = slot % 60 < 50 ? slot % 60 : -1; // 10 of every 60 slots are distinct
      vectors[slot] = group >= 0 ? Float32Array.from(groups[group] as Float32Array) : randomUnitVector(rand, DIM);
      const rep = twins.join(slot);
      if (group < 0) assert.equal(rep, slot);
      else {
        if (!representative.has(group)) representative.set(group, slot);
        assert.equal(rep, representative.get(group));
      }
    }
    // Every distinct slot leaves; then the groups' representatives, each replaced by the next twin.
    for (let slot = 0; slot < 3000; slot++) if (slot % 60 >= 50) assert.equal(twins.leave(slot), NO_SUCCESSOR);
    for (const [group, rep] of representative) {
      const successor = twins.leave(rep);
      assert.ok(successor >= 0 && successor % 60 === group, `group ${group}`);
      assert.equal(twins.join(rep), successor);
    }
  });
});

describe('CatalogState with many identical embeddings', () => {
  const states: CatalogState[] = [];
  after(async () => {
    await Promise.all(states.map((s) => s.close()));
  });

  it('finds every field its true nearest neighbours, twins included (HNSW alone loses them among 495 duplicates)', async () => {
    const rand = mulberry32(7);
    const state = new CatalogState(DIM, 1024);
    states.push(state);
    const field = (id: string, v: Float32Array) =>
      state.apply({ id, tag_id: 1, level: 'L1', review_status: 'unreviewed', embedding: encodeVector(v) });
    const distinct = Array.from({ length: 17 }, () => randomUnitVector(rand, DIM));
    distinct.forEach((v, i) => field(`d${i}`, v));
    const shared = randomUnitVector(rand, DIM);
    for (let i = 0; i < 495; i++) field(`twin${i}`, shared);
    assert.equal(state.index.size, 18, 'one index entry for the 495 twins');

    const queries = distinct.map((v) => Float32Array.from(v, (x) => x + 0.01 * (rand() - 0.5)));
    const found = await state.search(queries, 1);
    queries.forEach((q, i) => {
      let best = -1;
      let bestSimilarity = -2;
      for (let slot = 0; slot < state.slotCount; slot++) {
        const s = dot(q, state.embedding(slot));
        if (s > bestSimilarity) [best, bestSimilarity] = [slot, s];
      }
      assert.equal(found[i]?.keys[0], best, `query ${i}`);
    });

    // A twin's nearest fields are its twins, at similarity 1.
    const twinSlot = state.slot('twin7') as number;
    const [own] = await state.search([state.embedding(twinSlot)], 11);
    assert.equal(own?.keys.length, 11);
    assert.ok(own?.keys.every((slot) => state.idOf(slot)?.startsWith('twin')));
    assert.ok(own?.similarities.every((s) => s > 0.9999));

    // The representative leaves; another twin represents the rest. A twin that changes embedding leaves the group.
    state.remove('twin0');
    const moved = randomUnitVector(rand, DIM);
    field('twin1', moved);
    assert.equal(state.index.size, 19);
    const [afterwards] = await state.search([shared, moved], 3);
    assert.ok(
      afterwards?.keys.every(
        (slot) => state.idOf(slot)?.startsWith('twin') && state.idOf(slot) !== 'twin0' && state.idOf(slot) !== 'twin1',
      ),
    );
    const [, ofMoved] = await state.search([shared, moved], 1);
    assert.equal(ofMoved?.keys[0], state.slot('twin1'));
  });
});
