import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { auroc, exactNeighbours, knnDisagreementBaseline, precisionAtK } from '../../../bench/quality/measures.js';
import {
  AXIS_KEYS,
  AxisDistribution,
  type AxisScores,
  buildAxisDistributions,
  computeAxes,
  normalizeAxes,
} from '../../../src/modules/metrics/axes.js';
import {
  classificationEvidence,
  type ClassificationEvidenceInput,
  computeTagMargins,
  marginScale,
  NEAREST_RATIO_EPSILON,
  nearestTagEvidence,
  neighbourDisagreement,
} from '../../../src/modules/metrics/measure-field.js';
import {
  OUTLIER_WEIGHTS,
  outlierSignals,
  outlierTerms,
  outlierScore,
  severityOf,
} from '../../../src/modules/metrics/outlier-model.js';
import { asStored, CatalogState, quantizeInto } from '../../../src/modules/metrics/catalog-state.js';
import { encodeVector } from '../../../src/db/database.js';
import { cosine, meanUnit, normalize } from '../../../src/modules/metrics/vectors.js';

const v = (...xs: number[]): Float32Array => Float32Array.from(xs);
/** Unit vector in the x–y plane at `deg` degrees from x, padded to 4 dimensions. */
const at = (deg: number): Float32Array => v(Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180), 0, 0);
const sumOf = (...xs: Float32Array[]): Float32Array => {
  const s = new Float32Array(xs[0]!.length);
  for (const x of xs) for (let i = 0; i < s.length; i++) s[i]! += x[i]!;
  return s;
};
const close = (a: number, b: number, eps = 1e-6): void => assert.ok(Math.abs(a - b) < eps, `${a} ≉ ${b}`);
const uniformScores = (s: number): AxisScores => Object.fromEntries(AXIS_KEYS.map((k) => [k, s])) as AxisScores;

describe('vector helpers', () => {
  it('cosine of known angles, zero vectors give 0, scale-invariant', () => {
    close(cosine(at(0), at(60)), 0.5);
    close(cosine(at(0), at(90)), 0);
    close(cosine(at(0), at(180)), -1);
    close(cosine(v(2, 0, 0, 0), v(3, 3, 0, 0)), Math.SQRT1_2);
    assert.equal(cosine(v(0, 0, 0, 0), at(0)), 0);
  });

  it('meanUnit is the normalised mean direction, null for empty input', () => {
    const m = meanUnit([at(0), at(90)])!;
    close(cosine(m, at(45)), 1);
    close(Math.hypot(...m), 1);
    assert.equal(meanUnit([]), null);
    assert.equal(meanUnit([at(0), at(180)]), null);
  });
});

describe('computeAxes', () => {
  const e = at(0);
  const peers = [at(10), at(20), at(30), at(60), at(90)];

  it('computes the six distances exactly as defined', () => {
    const anchor = at(45);
    const levelOthers = [at(30), at(90)];
    const res = computeAxes({
      embedding: e,
      anchor,
      levelSum: sumOf(e, ...levelOthers),
      levelCount: 3,
      peerSample: peers,
      nearest: { similarity: 0.99 },
    });
    close(res.raw.category_anchor, 1 - Math.cos(Math.PI / 4));
    // c_l = mean of the other level fields: direction 60°.
    close(res.raw.centroid, 1 - 0.5, 1e-6);
    const sims = peers.map((p) => cosine(e, p));
    close(res.raw.peer_mean, 1 - sims.reduce((a, b) => a + b, 0) / sims.length);
    close(res.raw.nearest, 0.01, 1e-9);
    // Q25 of sorted sims [cos90, cos60, cos30, cos20, cos10] at h = 1 → cos60.
    close(res.raw.lower_quartile, 1 - 0.5);
    close(res.raw.farthest, 1 - 0);
    close(res.category_similarity, Math.SQRT1_2);
    close(res.centroid_similarity, 0.5);
    // The closest peer of the sample is at 10°.
    close(res.nearest_peer_similarity!, Math.cos(Math.PI / 18));
    assert.deepEqual(res.fallbacks, []);
  });

  it('falls back, never NaN, when the tag and level have no other fields', () => {
    const res = computeAxes({
      embedding: e,
      anchor: at(60),
      levelSum: e,
      levelCount: 1,
      peerSample: [],
      nearest: null,
    });
    for (const k of AXIS_KEYS) {
      assert.ok(Number.isFinite(res.raw[k]), k);
      close(res.raw[k], 0.5); // every axis falls back to the anchor similarity (cos 60° = 0.5)
    }
    assert.deepEqual(
      new Set(res.fallbacks),
      new Set(['centroid', 'peer_mean', 'lower_quartile', 'farthest', 'nearest']),
    );
    assert.equal(res.nearest_peer_similarity, null);
  });

  it('without an anchor uses the peer mean, and without anything reports distance 1', () => {
    const withPeers = computeAxes({
      embedding: e,
      anchor: null,
      levelSum: null,
      levelCount: 0,
      peerSample: [at(60)],
      nearest: null,
    });
    close(withPeers.raw.category_anchor, 0.5);
    assert.ok(withPeers.fallbacks.includes('category_anchor'));
    const nothing = computeAxes({
      embedding: e,
      anchor: v(0, 0, 0, 0),
      levelSum: null,
      levelCount: 0,
      peerSample: [],
      nearest: null,
    });
    for (const k of AXIS_KEYS) close(nothing.raw[k], 1);
    assert.equal(nothing.category_similarity, 0);
  });

  it('keeps raw values within [0, 2] for opposite vectors and a degenerate level sum', () => {
    const res = computeAxes({
      embedding: e,
      anchor: at(180),
      levelSum: e, // only the field itself → zero "others" vector
      levelCount: 2,
      peerSample: [at(180)],
      nearest: { similarity: Number.NaN },
    });
    for (const k of AXIS_KEYS) assert.ok(res.raw[k] >= 0 && res.raw[k] <= 2, `${k}=${res.raw[k]}`);
    close(res.raw.category_anchor, 2);
    assert.ok(res.fallbacks.includes('centroid') && res.fallbacks.includes('nearest'));
  });
});

describe('AxisDistribution', () => {
  const values = Array.from({ length: 1000 }, (_, i) => i / 500); // 0 .. 1.998

  it('rank is the share of the catalog with a worse (larger) raw value', () => {
    const d = AxisDistribution.fromValues(values);
    close(d.rank(1.0), 0.5, 0.01);
    close(d.rank(0.2), 0.9, 0.01);
    assert.equal(d.rank(-1), 1);
    assert.equal(d.rank(5), 0);
    assert.equal(d.rank(Number.NaN), 0);
  });

  it('is monotone non-increasing and within [0, 1] everywhere, ties included', () => {
    const tied = [...values, ...Array(300).fill(0.5), ...Array(50).fill(1.5)];
    const d = AxisDistribution.fromValues(tied, 65);
    let prev = Infinity;
    for (let x = -0.1; x <= 2.1; x += 0.0005) {
      const r = d.rank(x);
      assert.ok(r >= 0 && r <= 1);
      assert.ok(r <= prev + 1e-12, `not monotone at ${x}`);
      prev = r;
    }
  });

  it('round-trips through JSON compactly', () => {
    const d = AxisDistribution.fromValues(values, 129);
    const json = JSON.parse(JSON.stringify(d)) as ReturnType<AxisDistribution['toJSON']>;
    assert.equal(json.quantiles.length, 129);
    assert.equal(json.count, 1000);
    const back = AxisDistribution.fromJSON(json);
    for (const x of [0, 0.3, 1.1, 1.9]) close(back.rank(x), d.rank(x), 1e-4);
  });

  it('an empty distribution falls back to 1 − raw / 2; a single value ranks it in the middle', () => {
    const empty = AxisDistribution.fromValues([]);
    close(empty.rank(0.5), 0.75);
    const one = AxisDistribution.fromValues([0.4]);
    assert.equal(one.rank(0.3), 1);
    assert.equal(one.rank(0.4), 0.5);
    assert.equal(one.rank(0.5), 0);
  });

  it('normalizeAxes scores every axis in [0, 1] against the catalog', () => {
    const rows = values.map(
      (x) => Object.fromEntries(AXIS_KEYS.map((k) => [k, x])) as Record<(typeof AXIS_KEYS)[number], number>,
    );
    const dists = buildAxisDistributions(rows);
    const s = normalizeAxes(rows[100]!, dists);
    for (const k of AXIS_KEYS) close(s[k], 0.9, 0.01);
  });
});

describe('tag margins', () => {
  it('are negative when another tag fits better, by anchor and by members', () => {
    const e = at(0);
    const tags = [
      { tagId: 1, anchor: at(70), sum: sumOf(e, at(80), at(75)), count: 3 },
      { tagId: 2, anchor: at(10), sum: sumOf(at(5), at(15)), count: 2 },
    ];
    const m = computeTagMargins(e, 1, tags);
    assert.ok(m.anchorMargin! < 0);
    assert.equal(m.bestOtherAnchorTagId, 2);
    close(m.anchorMargin!, Math.cos((70 * Math.PI) / 180) - Math.cos((10 * Math.PI) / 180));
    assert.ok(m.peerMargin! < 0);
    assert.equal(m.bestOtherPeerTagId, 2);
    const good = computeTagMargins(e, 2, tags);
    assert.ok(good.anchorMargin! > 0 && good.peerMargin! > 0);
  });

  it('are null when there is no other tag', () => {
    const m = computeTagMargins(at(0), 1, [{ tagId: 1, anchor: at(0), sum: at(0), count: 1 }]);
    assert.equal(m.anchorMargin, null);
    assert.equal(m.peerMargin, null);
  });

  it('marginScale is a robust positive spread', () => {
    close(marginScale([1, 2, 3, 4, 5]), 1.4826, 1e-9);
    assert.ok(marginScale([0.2, 0.2, 0.2]) > 0);
    assert.ok(marginScale([]) > 0);
  });
});

describe('neighbour disagreement and the outlier model', () => {
  const self = { tag_id: 1, level: 'L2' };

  it('neighbourDisagreement weights by similarity; another level of the same tag counts half', () => {
    close(
      neighbourDisagreement(
        [
          { similarity: 0.9, tag_id: 2, level: 'L2' },
          { similarity: 0.6, tag_id: 1, level: 'L2' },
          { similarity: 0.5, tag_id: 1, level: 'L3' },
        ],
        self,
      ),
      (0.9 + 0.25) / 2.0,
    );
    assert.equal(neighbourDisagreement([], self), 0);
    assert.equal(neighbourDisagreement([{ similarity: -0.3, tag_id: 2, level: 'L1' }], self), 0);
  });

  it('nearestTagEvidence compares the closest same-tag field with the closest field of another tag', () => {
    const eps = NEAREST_RATIO_EPSILON;
    const ratio = (own: number, other: number): number => Math.log((1 - own + eps) / (1 - other + eps));
    const neighbours = [
      { similarity: 0.95, tag_id: 2 },
      { similarity: 0.9, tag_id: 3 },
      { similarity: 0.7, tag_id: 1 },
    ];
    // Own tag's closest field among the neighbours (0.7) unless the peer sample has a closer one.
    let ev = nearestTagEvidence(neighbours, { tag_id: 1 }, 0.6);
    close(ev.ownSimilarity, 0.7);
    close(ev.otherSimilarity!, 0.95);
    close(ev.ratio!, ratio(0.7, 0.95));
    assert.ok(ev.ratio! > 0);
    ev = nearestTagEvidence(neighbours, { tag_id: 1 }, 0.97);
    close(ev.ratio!, ratio(0.97, 0.95));
    assert.ok(ev.ratio! < 0);
    // Neighbours of its own tag only: the farthest of them bounds the closest field of another tag.
    ev = nearestTagEvidence(
      [
        { similarity: 0.9, tag_id: 1 },
        { similarity: 0.8, tag_id: 1 },
      ],
      { tag_id: 1 },
      null,
    );
    close(ev.otherSimilarity!, 0.8);
    close(ev.ratio!, ratio(0.9, 0.8));
    // No other field with its tag: nothing to compare (a lone field is not suspicious for being alone).
    ev = nearestTagEvidence([{ similarity: 0.9, tag_id: 2 }], { tag_id: 1 }, null);
    assert.equal(ev.ownSimilarity, 0);
    assert.equal(ev.ratio, null);
    // No neighbours at all (or none with a finite similarity): nothing to compare.
    assert.equal(nearestTagEvidence([], { tag_id: 1 }, 0.9).ratio, null);
    assert.equal(nearestTagEvidence([{ similarity: Number.NaN, tag_id: 2 }], { tag_id: 1 }, null).ratio, null);
  });

  it('nearestTagEvidence is dimension-free: scaling every distance leaves the ratio nearly unchanged', () => {
    const ratioAt = (own: number, other: number, k: number): number =>
      nearestTagEvidence([{ similarity: 1 - k * (1 - other), tag_id: 2 }], { tag_id: 1 }, 1 - k * (1 - own)).ratio!;
    // Distances 0.4 vs 0.1 (a loose embedder) and 0.2 vs 0.05 (a tighter one): both say "4 times closer" up to ε.
    const loose = ratioAt(0.6, 0.9, 1);
    const tight = ratioAt(0.6, 0.9, 0.5);
    assert.ok(loose > 1 && tight > 1, `${loose} ${tight}`);
    assert.ok(Math.abs(loose - tight) < 0.2, `${loose} vs ${tight}`);
  });

  it('knnDisagreementBaseline uses the k exact nearest neighbours', () => {
    const vectors = [at(0), at(5), at(10), at(90), at(95)].map(normalize);
    const tags = [1, 1, 2, 3, 3];
    const nn = exactNeighbours(vectors, 2);
    assert.deepEqual(
      nn[0]!.map((n) => n.index),
      [1, 2],
    );
    const b = knnDisagreementBaseline(vectors, tags, 2);
    close(b[0]!, cosine(at(0), at(10)) / (cosine(at(0), at(5)) + cosine(at(0), at(10))));
    // at(90): nearest at(95) (same tag) and at(10) (another tag)
    close(b[3]!, cosine(at(90), at(10)) / (cosine(at(90), at(95)) + cosine(at(90), at(10))));
    assert.equal(knnDisagreementBaseline([at(0), at(1)], [4, 4], 10)[0], 0);
  });

  it('outlier score is in [0, 1] and monotone in disagreement and in the margins', () => {
    const scores = uniformScores(0.5);
    let prev = -1;
    for (let d = 0; d <= 1.0001; d += 0.1) {
      const o = outlierScore({ scores, neighbourDisagreement: d, peerMargin: 0, anchorMargin: 0 });
      assert.ok(o >= 0 && o <= 1);
      assert.ok(o > prev);
      prev = o;
    }
    prev = -1;
    for (let m = 0.3; m >= -0.3; m -= 0.05) {
      const o = outlierScore({
        scores,
        neighbourDisagreement: 0.5,
        peerMargin: m,
        anchorMargin: m,
        scales: { peer: 0.05, anchor: 0.05 },
      });
      assert.ok(o >= prev, `not monotone at margin ${m}`);
      prev = o;
    }
    prev = -1;
    for (let r = -4; r <= 4; r += 0.5) {
      const o = outlierScore({ scores, neighbourDisagreement: 0.5, peerMargin: 0, anchorMargin: 0, nearestRatio: r });
      assert.ok(o >= prev, `not monotone at ratio ${r}`);
      prev = o;
    }
    const none = {
      classifierOther: 0,
      classifierFar: 0,
      classifierAgrees: 0,
      expectedLevel: null,
      under: 0,
      over: 0,
      underClassifier: 0,
      overClassifier: 0,
      classifierOtherAlone: 0,
    };
    const clean = outlierScore({
      scores: uniformScores(0.8),
      neighbourDisagreement: 0,
      peerMargin: 0.1,
      anchorMargin: 0.1,
      nearestRatio: -1,
      evidence: { ...none, classifierAgrees: 0.9 },
    });
    // Every neighbour has another tag, another tag fits better, a field of another tag is 5 times closer than any of
    // its own, the classifier names another tag, and the level is two steps below the expected one.
    const suspicious = outlierScore({
      scores: uniformScores(0.05),
      neighbourDisagreement: 1,
      peerMargin: -0.15,
      anchorMargin: -0.1,
      nearestRatio: Math.log(5),
      evidence: { ...none, classifierOther: 0.95, classifierFar: 0.95, under: 2 },
    });
    assert.ok(clean < 0.05, `clean ${clean}`);
    assert.ok(suspicious > 0.9, `suspicious ${suspicious}`);
    // Each classifier and level signal raises the score (classifierAgrees lowers it); a confirmed, unchanged field drops.
    const base = { scores, neighbourDisagreement: 0.5, peerMargin: 0, anchorMargin: 0, evidence: none };
    const at = (e: Partial<typeof none>): number => outlierScore({ ...base, evidence: { ...none, ...e } });
    for (const k of ['classifierOther', 'under', 'over', 'underClassifier', 'overClassifier'] as const)
      assert.ok(at({ [k]: 1 }) > at({}), k);
    assert.ok(at({ classifierAgrees: 1 }) < at({}));
    assert.ok(at({ under: 2 }) > at({ under: 1 }));
    assert.ok(outlierScore({ ...base, evidence: { ...none, classifierOther: 1 }, confirmedUnchanged: true }) < 0.01);
    assert.ok(Number.isFinite(outlierScore({ scores, neighbourDisagreement: Number.NaN, peerMargin: null })));
  });

  it('the nearest-field ratio enters with its weight, clipped, and a missing one counts 0', () => {
    const base = { scores: uniformScores(0.5), neighbourDisagreement: 0.5, peerMargin: 0, anchorMargin: 0 };
    close(outlierTerms({ ...base, nearestRatio: 1 }).nearestRatio, OUTLIER_WEIGHTS.nearestRatio);
    close(
      outlierTerms({ ...base, nearestRatio: 50 }).nearestRatio,
      OUTLIER_WEIGHTS.nearestRatio * OUTLIER_WEIGHTS.ratioClip,
    );
    close(
      outlierTerms({ ...base, nearestRatio: -50 }).nearestRatio,
      -OUTLIER_WEIGHTS.nearestRatio * OUTLIER_WEIGHTS.ratioClip,
    );
    assert.equal(outlierTerms({ ...base, nearestRatio: null }).nearestRatio, 0);
    assert.equal(outlierTerms({ ...base, nearestRatio: Number.NaN }).nearestRatio, 0);
    assert.equal(outlierScore({ ...base, nearestRatio: null }), outlierScore(base));
  });

  it('severity follows the thresholds, inclusive at the boundaries', () => {
    assert.equal(severityOf(0.7), 'high');
    assert.equal(severityOf(0.69), 'medium');
    assert.equal(severityOf(0.4), 'medium');
    assert.equal(severityOf(0.39), 'low');
    assert.equal(severityOf(0.5, { high: 0.5, medium: 0.2 }), 'high');
    assert.throws(() => severityOf(0.5, { high: 0.2, medium: 0.5 }), RangeError);
  });
});

// The reason sentences are tested in reason.test.ts.

describe('evaluation measures', () => {
  it('auroc: perfect, inverted, random-tied and half-tied cases', () => {
    assert.equal(auroc([0.9, 0.8, 0.1, 0.2], [true, true, false, false]), 1);
    assert.equal(auroc([0.1, 0.2, 0.9, 0.8], [true, true, false, false]), 0);
    assert.equal(auroc([0.5, 0.5, 0.5, 0.5], [true, false, true, false]), 0.5);
    // positive 0.5 ties one negative (counts 1/2) and beats the other: (1 + 0.5) / 2
    assert.equal(auroc([0.5, 0.5, 0.1], [true, false, false]), 0.75);
    // Pairs: (0.8 vs 0.6) win, (0.8 vs 0.3) win, (0.4 vs 0.6) loss, (0.4 vs 0.3) win → 3/4
    assert.equal(auroc([0.8, 0.4, 0.6, 0.3], [true, true, false, false]), 0.75);
    assert.ok(Number.isNaN(auroc([0.1, 0.2], [false, false])));
  });

  it('precisionAtK counts ties at the cut-off in expectation', () => {
    assert.equal(precisionAtK([0.9, 0.8, 0.7, 0.1], [true, false, true, false], 2), 0.5);
    assert.equal(precisionAtK([0.9, 0.8, 0.7, 0.1], [true, true, false, false], 2), 1);
    // top item positive, then three tied items with one positive for the last slot: (1 + 1/3) / 2
    close(precisionAtK([0.9, 0.5, 0.5, 0.5], [true, true, false, false], 2), (1 + 1 / 3) / 2);
    assert.equal(precisionAtK([0.3, 0.2], [true, false], 10), 0.5);
  });
});

describe('the label gap (how many classifier points the label trails its answer by)', () => {
  const base: ClassificationEvidenceInput = {
    tagId: 11,
    level: 'L2',
    neighbours: [],
    predicted: { tagId: 12, level: 'L2', confidence: 0.7, labelGap: 4.5 },
    tagLevels: [{ level: 'L2', count: 20 }],
    defaultLevel: 'L2',
    rank: (level) => ['L1', 'L2', 'L3', 'L4', 'L5'].indexOf(level),
    groupOf: () => 'Technical',
  };
  const input = (predicted: ClassificationEvidenceInput['predicted']) => ({
    scores: uniformScores(0.5),
    neighbourDisagreement: 0,
    evidence: classificationEvidence({ ...base, predicted }),
  });

  it('is the evidence when the classifier names another tag, 0 when it names the label, unknown → 0, clipped at 10', () => {
    assert.equal(classificationEvidence(base).labelGap, 4.5);
    assert.equal(outlierSignals(input(base.predicted)).labelGap, 4.5);
    // A stale gap cannot speak when the classifier names the label itself.
    assert.equal(
      classificationEvidence({ ...base, predicted: { tagId: 11, level: 'L2', confidence: 0.7, labelGap: 3 } }).labelGap,
      0,
    );
    assert.equal(
      classificationEvidence({ ...base, predicted: { tagId: 12, level: 'L2', confidence: 0.7, labelGap: null } })
        .labelGap,
      0,
    );
    assert.equal(
      classificationEvidence({ ...base, predicted: { tagId: 12, level: 'L2', confidence: 0.7 } }).labelGap,
      0,
    );
    assert.equal(classificationEvidence({ ...base, predicted: null }).labelGap, 0);
    assert.equal(
      outlierSignals(input({ tagId: 12, level: 'L2', confidence: 0.7, labelGap: 25 })).labelGap,
      OUTLIER_WEIGHTS.gapClip,
    );
    assert.equal(OUTLIER_WEIGHTS.gapClip, 10);
    // An input recorded before the term existed (no labelGap in its evidence) reads as 0.
    const { labelGap: _gap, ...older } = classificationEvidence(base);
    assert.equal(outlierSignals({ scores: uniformScores(0.5), neighbourDisagreement: 0, evidence: older }).labelGap, 0);
  });

  it('weighs in the score with its fitted weight: a label the classifier gives fewer points to is more suspect', () => {
    assert.ok(OUTLIER_WEIGHTS.labelGap > 0, `fitted weight ${OUTLIER_WEIGHTS.labelGap}`);
    const near = input({ tagId: 12, level: 'L2', confidence: 0.7, labelGap: 0.5 });
    const far = input({ tagId: 12, level: 'L2', confidence: 0.7, labelGap: 8 });
    close(outlierTerms(far).labelGap, OUTLIER_WEIGHTS.labelGap * 8);
    assert.ok(outlierScore(far) > outlierScore(near));
    // Beyond the clip nothing more is added.
    close(
      outlierScore(input({ tagId: 12, level: 'L2', confidence: 0.7, labelGap: 40 })),
      outlierScore(input({ tagId: 12, level: 'L2', confidence: 0.7, labelGap: 10 })),
    );
  });

  it('the replica keeps it per field from fields.predicted_label_gap; null is unknown', async () => {
    const state = new CatalogState(4, 16);
    try {
      const row = (id: string, gap: number | null | undefined, predicted: number | null = 12) => ({
        id,
        tag_id: 11,
        level: 'L2',
        review_status: 'unreviewed' as const,
        embedding: encodeVector(at(id.length * 10)),
        predicted_tag_id: predicted,
        predicted_level: predicted === null ? null : 'L2',
        predicted_confidence: predicted === null ? null : 0.7,
        predicted_label_gap: gap,
      });
      state.apply(row('a', 3.25));
      state.apply(row('bb', null));
      state.apply(row('ccc', undefined));
      state.apply(row('dddd', 2, null));
      const slot = (id: string) => state.slot(id) as number;
      assert.equal(state.predicted(slot('a'))?.labelGap, 3.25);
      assert.equal(state.predicted(slot('bb'))?.labelGap, null);
      assert.equal(state.predicted(slot('ccc'))?.labelGap, null);
      assert.equal(state.predicted(slot('dddd')), null);
      // A field re-applied with its gap refreshed (a label change measured again) reads the new one.
      state.apply(row('bb', 0));
      assert.equal(state.predicted(slot('bb'))?.labelGap, 0);
    } finally {
      await state.close();
    }
  });
});

describe('the replica keeps embeddings as one byte a dimension', () => {
  const random = (seed: number, n: number): Float32Array => {
    let s = seed;
    const next = (): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
    return normalize(Float32Array.from({ length: n }, next));
  };

  it('quantizes a unit vector to within half a step per component, and cosines to within 0.005', () => {
    const bytes = new Int8Array(100);
    for (let seed = 1; seed <= 50; seed++) {
      const a = random(seed, 100);
      const scale = quantizeInto(bytes, a);
      const largest = Math.max(...Array.from(a, Math.abs));
      assert.ok(Math.abs(scale - largest / 127) < 1e-7);
      assert.equal(Math.max(...Array.from(bytes, Math.abs)), 127);
      for (let i = 0; i < a.length; i++) assert.ok(Math.abs(bytes[i]! * scale - a[i]!) <= scale / 2 + 1e-7);
      const b = random(seed + 1000, 100);
      assert.ok(Math.abs(cosine(asStored(a), asStored(b)) - cosine(a, b)) < 0.005);
    }
    // A zero vector stays zero instead of dividing by zero.
    assert.equal(quantizeInto(bytes, new Float32Array(100)), 0);
    assert.ok(bytes.every((x) => x === 0));
  });

  it('answers the stored values as a copy of its own; an unchanged re-apply leaves the index alone, a change moves it', async () => {
    const state = new CatalogState(100, 16);
    try {
      const row = (id: string, embedding: Float32Array) => ({
        id,
        tag_id: 11,
        level: 'L2',
        review_status: 'unreviewed' as const,
        embedding: encodeVector(embedding),
      });
      const a = random(7, 100);
      state.apply(row('a', a));
      state.apply(row('b', random(8, 100)));
      const slot = state.slot('a') as number;
      const stored = state.embedding(slot);
      assert.deepEqual(stored, asStored(a));
      stored.fill(0);
      assert.deepEqual(state.embedding(slot), asStored(a), 'a caller cannot write into the store');
      // The same vector scaled (normalized to the same unit vector) is no move; the tag's sum holds it once.
      const before = state.version;
      state.apply(
        row(
          'a',
          a.map((x) => x * 3),
        ),
      );
      assert.equal(state.version, before + 1);
      const [nearest] = await state.search([asStored(a)], 1);
      assert.equal(nearest!.keys[0], slot);
      assert.ok(Math.abs(nearest!.similarities[0]! - 1) < 1e-5);
      // A different vector replaces it in the index.
      const c = random(9, 100);
      state.apply(row('a', c));
      const [now] = await state.search([asStored(c)], 1);
      assert.equal(now!.keys[0], slot);
      assert.ok(Math.abs(cosine(state.embedding(slot), c) - 1) < 0.005);
    } finally {
      await state.close();
    }
  });
});
