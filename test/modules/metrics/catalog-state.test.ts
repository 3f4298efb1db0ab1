import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CatalogState } from '../../../src/modules/metrics/catalog-state.js';
import { encodeVector } from '../../../src/db/database.js';
import { mulberry32, randomUnitVector } from '../../../bench/support/random.js';

const DIM = 16;

const states: CatalogState[] = [];
after(async () => {
  await Promise.all(states.map((s) => s.close()));
});

describe('CatalogState naming patterns', () => {
  it("counts reviews of the classifier's answers per pattern and finds a pattern's self-classified fields, through re-applies and removals", () => {
    const rand = mulberry32(11);
    const state = new CatalogState(DIM, 64);
    states.push(state);
    // Tag 1 is the classifier's answer everywhere; reviewers correct some of them to tag 2.
    const field = (id: string, datasource: string, name: string, review: 'unreviewed' | 'kept' | 'corrected') =>
      state.apply({
        id,
        tag_id: review === 'corrected' ? 2 : 1,
        level: 'L1',
        review_status: review === 'unreviewed' ? 'unreviewed' : 'confirmed',
        embedding: encodeVector(randomUnitVector(rand, DIM)),
        predicted_tag_id: 1,
        predicted_level: 'L1',
        predicted_confidence: 0.7,
        classification_source: 'classifier',
        datasource_id: datasource,
        table_name: `t_${id}`,
        field_name: name,
      });
    const touched = (): string[] =>
      state
        .patternPeers(state.takeTouchedPatterns(), 10)
        .map((s) => state.idOf(s) as string)
        .sort();
    field('a1', 'ds-a', 'cod_cliente', 'corrected');
    field('a2', 'ds-a', 'codProduto', 'unreviewed');
    field('a3', 'ds-a', 'cod_vendedor', 'unreviewed');
    field('a4', 'ds-a', 'nome_cliente', 'unreviewed');
    field('b1', 'ds-b', 'cod_cliente', 'unreviewed');
    const slot = (id: string): number => state.slot(id) as number;
    assert.deepEqual(state.patternReviews(slot('a2'), 1), {
      kept: 0,
      corrected: 1,
      top: { tagId: 2, level: 'L1', count: 1 },
    });
    assert.equal(state.patternReviews(slot('a2'), 3), null, 'another answer was not reviewed there');
    assert.equal(state.patternReviews(slot('a4'), 1), null, 'another first word');
    assert.equal(state.patternReviews(slot('b1'), 1), null, 'another data source');
    // The correction touched its pattern: the pattern's self-classified fields have new evidence, once.
    assert.deepEqual(touched(), ['a2', 'a3']);
    assert.deepEqual(touched(), [], 'taken');
    // A reviewer keeps the answer on another field of the pattern: it counts against the correction.
    field('a3', 'ds-a', 'cod_vendedor', 'kept');
    assert.deepEqual(state.patternReviews(slot('a2'), 1), {
      kept: 1,
      corrected: 1,
      top: { tagId: 2, level: 'L1', count: 1 },
    });
    assert.deepEqual(touched(), ['a2'], 'a confirmed field is no longer self-classified');
    // An unreviewed field changing touches nothing.
    field('a4', 'ds-a', 'nome_cliente', 'unreviewed');
    field('a2', 'ds-a', 'codProduto', 'unreviewed');
    assert.deepEqual(touched(), []);
    // The corrected field is reopened: its correction no longer counts, and its pattern hears of it.
    field('a1', 'ds-a', 'cod_cliente', 'unreviewed');
    assert.deepEqual(state.patternReviews(slot('a2'), 1), { kept: 1, corrected: 0, top: null });
    const reopened = state.takeTouchedPatterns();
    assert.deepEqual(
      state
        .patternPeers(reopened, 10)
        .map((s) => state.idOf(s))
        .sort(),
      ['a1', 'a2'],
    );
    assert.equal(state.patternPeers(reopened, 1).length, 1, 'at most `limit` a pattern');
    // The kept field is deleted: its review goes with it, and its reused slot keeps no pattern behind.
    state.remove('a3');
    assert.equal(state.patternReviews(slot('a2'), 1), null);
    assert.deepEqual(touched(), ['a1', 'a2']);
    field('c1', 'ds-c', 'cod_cliente', 'unreviewed');
    field('a5', 'ds-a', 'cod_loja', 'corrected');
    assert.deepEqual(touched(), ['a1', 'a2'], 'only the touched pattern, in its own data source');
  });
});

describe('CatalogState peer samples', () => {
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
