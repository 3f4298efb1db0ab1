import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CatalogState } from '../../../src/modules/metrics/catalog-state.js';
import { encodeVector } from '../../../src/db/database.js';
import { mulberry32, randomUnitVector } from '../../../bench/support/random.js';

const DIM = 16;

describe('CatalogState peer samples', () => {
  const states: CatalogState[] = [];
  after(async () => {
    await Promise.all(states.map((s) => s.close()));
  });

  it("takes a tag's peers from the members nothing says are misfiled, and from every member when too few are", () => {
    const rand = mulberry32(5);
    const state = new CatalogState(DIM, 64);
    states.push(state);
    type Member = {
      predicted?: number;
      gap?: number | null;
      source?: 'import' | 'classifier';
      confidence?: number;
      confirmed?: boolean;
    };
    const put = (id: string, m: Member = {}): void =>
      state.apply({
        id,
        tag_id: 1,
        level: 'L2',
        review_status: m.confirmed ? 'confirmed' : 'unreviewed',
        embedding: encodeVector(randomUnitVector(rand, DIM)),
        predicted_tag_id: m.predicted ?? 1,
        predicted_level: 'L2',
        predicted_confidence: m.confidence ?? 0.9,
        predicted_label_gap: m.gap ?? 0,
        classification_source: m.source ?? 'import',
        datasource_id: 'ds',
        table_name: 't',
        field_name: id,
      });
    const sampled = (): string[] =>
      state
        .tagSample(1, 64)
        .slots.map((s) => state.idOf(s) as string)
        .sort();
    put('a');
    put('b');
    put('c', { source: 'classifier', confidence: 0.95 });
    // An import's label the classifier found 3 points fewer for than its own answer (tag 2).
    put('x', { predicted: 2, gap: 3 });
    // The classifier's own answer, at a confidence of 0.4.
    put('y', { source: 'classifier', confidence: 0.4 });
    // Three trusted members are too few to stand for the tag: every member is a peer.
    assert.deepEqual(sampled(), ['a', 'b', 'c', 'x', 'y']);
    // A reviewer confirmed a label the classifier disagrees with: trusted, and now four are.
    put('z', { predicted: 2, gap: 5, confirmed: true });
    assert.deepEqual(sampled(), ['a', 'b', 'c', 'z']);
    // A field outside the sample is compared with all of it; a sampled one with the rest.
    assert.equal(state.peersOf(state.slot('x') as number).length, 4);
    assert.equal(state.peersOf(state.slot('a') as number).length, 3);
    // Unknown gaps (a label not yet measured) say nothing against a member.
    put('x', { predicted: 2, gap: null });
    assert.deepEqual(sampled(), ['a', 'b', 'c', 'x', 'z']);
    // A reopened member the classifier disagrees with leaves the sample again.
    put('z', { predicted: 2, gap: 5 });
    assert.deepEqual(sampled(), ['a', 'b', 'c', 'x']);
    // Where the classifier recognises fewer than a tenth of the tag's fields, every member is a peer again.
    for (let i = 0; i < 36; i++) put(`u${i}`, { predicted: 2, gap: 4 });
    assert.equal(state.tagSample(1, 64).slots.length, 42);
    put('u0', { confirmed: true });
    assert.deepEqual(sampled(), ['a', 'b', 'c', 'u0', 'x']);
  });
});
