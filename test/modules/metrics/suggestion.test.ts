import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  classificationEvidence,
  computeTagMargins,
  neighbourDisagreement,
  type ClassificationEvidenceInput,
  type TagMargins,
} from '../../../src/modules/metrics/measure-field.js';
import {
  riskOf,
  suggestClassification,
  suggestionConfidence,
  type SuggestionInput,
} from '../../../src/modules/metrics/suggestion.js';

const rank = (level: string): number => ['L1', 'L2', 'L3', 'L4', 'L5'].indexOf(level);
const groupOf = (tagId: number): string => (tagId < 10 ? 'Personal' : 'Technical');

describe('small tags', () => {
  it('a field alone in its tag gets no disagreement, no peer margin; a tag of 3 counts only what its size does not force', () => {
    const others = Array.from({ length: 10 }, () => ({ similarity: 0.8, tag_id: 2, level: 'L1' }));
    assert.equal(neighbourDisagreement(others, { tag_id: 1, level: 'L3' }, 0), 0);
    // With 3 other fields of its tag all among the neighbours, 7 of 10 elsewhere is what a correct field shows.
    const three = [
      ...Array.from({ length: 3 }, () => ({ similarity: 0.8, tag_id: 1, level: 'L3' })),
      ...others.slice(0, 7),
    ];
    assert.ok(neighbourDisagreement(three, { tag_id: 1, level: 'L3' }, 3) < 1e-9);
    assert.equal(neighbourDisagreement(others, { tag_id: 1, level: 'L3' }, 3), 1);
    // Unlimited tag size: the plain similarity-weighted share.
    assert.ok(Math.abs(neighbourDisagreement(three, { tag_id: 1, level: 'L3' }) - 0.7) < 1e-9);
    const e = Float32Array.from([1, 0]);
    const margins = computeTagMargins(e, 1, [
      { tagId: 1, anchor: Float32Array.from([0.9, Math.sqrt(1 - 0.81)]), sum: Float32Array.from([1, 0]), count: 1 },
      { tagId: 2, anchor: Float32Array.from([0, 1]), sum: Float32Array.from([1.6, 1.2]), count: 2 },
    ]);
    assert.equal(margins.peerMargin, null);
    assert.ok(margins.anchorMargin! > 0);
  });

  it('confirmed neighbours weigh double', () => {
    const list = [
      { similarity: 0.9, tag_id: 1, level: 'L3' },
      { similarity: 0.9, tag_id: 2, level: 'L3', confirmed: true },
    ];
    assert.ok(Math.abs(neighbourDisagreement(list, { tag_id: 1, level: 'L3' }) - 2 / 3) < 1e-9);
  });
});

describe('classificationEvidence', () => {
  const base: ClassificationEvidenceInput = {
    tagId: 1,
    level: 'L5',
    neighbours: [],
    predicted: null,
    tagLevels: [{ level: 'L5', count: 20 }],
    defaultLevel: 'L5',
    rank,
    groupOf,
  };

  it("expects the tag's usual level and counts the steps below it as under-classification", () => {
    const e = classificationEvidence({
      ...base,
      level: 'L2',
      tagLevels: [
        { level: 'L5', count: 20 },
        { level: 'L2', count: 1 },
      ],
    });
    assert.equal(e.expectedLevel, 'L5');
    assert.equal(e.under, 3);
    assert.equal(e.over, 0);
    const fits = classificationEvidence(base);
    assert.equal(fits.under + fits.over, 0);
  });

  it("weighs the classifier's view: another tag, another group, or agreement", () => {
    const other = classificationEvidence({ ...base, predicted: { tagId: 12, level: 'L1', confidence: 0.9 } });
    assert.equal(other.classifierOther, 0.9);
    assert.equal(other.classifierFar, 0.9);
    assert.equal(other.classifierAgrees, 0);
    const sibling = classificationEvidence({ ...base, predicted: { tagId: 3, level: 'L5', confidence: 0.8 } });
    assert.equal(sibling.classifierFar, 0);
    const agrees = classificationEvidence({
      ...base,
      level: 'L3',
      predicted: { tagId: 1, level: 'L5', confidence: 0.7 },
    });
    assert.equal(agrees.classifierAgrees, 0.7);
    assert.ok(Math.abs(agrees.underClassifier - 2 * 0.7) < 1e-9);
  });
});

describe('suggestClassification and riskOf', () => {
  const margins: TagMargins = {
    anchorMargin: 0.1,
    bestOtherAnchorTagId: 2,
    bestOtherAnchorSimilarity: 0.3,
    peerMargin: 0.1,
    bestOtherPeerTagId: 2,
  };
  const evidence = classificationEvidence({
    tagId: 1,
    level: 'L1',
    neighbours: [],
    predicted: null,
    tagLevels: [{ level: 'L1', count: 5 }],
    defaultLevel: 'L1',
    rank,
    groupOf,
  });
  const base: SuggestionInput = {
    tagId: 1,
    level: 'L1',
    neighbours: [],
    predicted: null,
    margins,
    evidence,
    outlierScore: 0.9,
    threshold: 0.15,
    usualLevel: () => 'L3',
    rank,
  };

  it('suggests the better-supported tag at the level the classifier gives it', () => {
    const s = suggestClassification({
      ...base,
      predicted: { tagId: 5, level: 'L5', confidence: 0.95 },
      margins: { ...margins, anchorMargin: -0.1, bestOtherAnchorTagId: 5 },
      neighbours: [{ similarity: 0.9, tag_id: 5, level: 'L5' }],
    });
    assert.deepEqual({ tagId: s?.tagId, level: s?.level, by: s?.by }, { tagId: 5, level: 'L5', by: 'classifier' });
    assert.ok(s!.confidence > 0 && s!.confidence <= 0.9);
  });

  it('is null when the current classification is best or the score is low', () => {
    assert.equal(suggestClassification({ ...base, neighbours: [{ similarity: 0.9, tag_id: 1, level: 'L1' }] }), null);
    assert.equal(
      suggestClassification({ ...base, outlierScore: 0.1, predicted: { tagId: 5, level: 'L5', confidence: 0.95 } }),
      null,
    );
  });

  it('suggests the same tag at the expected level for a level-only error', () => {
    const under = classificationEvidence({
      tagId: 1,
      level: 'L1',
      neighbours: [],
      predicted: null,
      tagLevels: [
        { level: 'L4', count: 9 },
        { level: 'L1', count: 1 },
      ],
      defaultLevel: 'L4',
      rank,
      groupOf,
    });
    const s = suggestClassification({ ...base, evidence: under });
    assert.deepEqual({ tagId: s?.tagId, level: s?.level, by: s?.by }, { tagId: 1, level: 'L4', by: 'level' });
  });

  it('orders high before medium before low, and under-classified first within a severity', () => {
    const highUnder = riskOf(0.75, 'high', 'L1', { level: 'L4' }, rank);
    const highOver = riskOf(0.99, 'high', 'L4', { level: 'L1' }, rank);
    const mediumUnder = riskOf(0.69, 'medium', 'L1', { level: 'L5' }, rank);
    const mediumNone = riskOf(0.69, 'medium', 'L1', null, rank);
    const low = riskOf(0.39, 'low', 'L1', { level: 'L5' }, rank);
    assert.ok(highUnder > highOver && highOver > mediumUnder && mediumUnder > mediumNone && mediumNone > low);
  });
});

describe('suggestionConfidence', () => {
  it('is a probability of its own, not the outlier score: it rises with the share of the support and depends on the source', () => {
    for (const by of ['classifier', 'neighbours', 'margins', 'level', 'twin', 'corrections'] as const) {
      let previous = -1;
      for (let share = 0; share <= 1; share += 0.1) {
        const p = suggestionConfidence(0.7, share, by);
        assert.ok(p >= 0 && p <= 1 && p >= previous, `${by} ${share} ${p}`);
        previous = p;
      }
    }
    // A reviewer's decision on a twin (share 1) is accepted far more often than a neighbours' vote.
    assert.ok(suggestionConfidence(0.7, 1, 'twin') > suggestionConfidence(0.7, 0.6, 'neighbours') + 0.4);
    // Not a copy of the outlier score.
    assert.notEqual(suggestionConfidence(0.9, 1, 'level'), 0.9);
    assert.ok(Number.isFinite(suggestionConfidence(Number.NaN, Number.NaN, 'classifier')));
  });
});
