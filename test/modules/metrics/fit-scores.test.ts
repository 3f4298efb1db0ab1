import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildFitCalibration,
  FIT_MIN_MEMBERS,
  fitScore,
  fitScores,
  LEVEL_PRIOR,
  levelFit,
  NO_EVIDENCE_FIT,
  type FitSource,
} from '../../../src/modules/metrics/fit-scores.js';
import { mulberry32 } from '../../../bench/support/random.js';

const sample = (members: number[], others: number[]) => ({
  members: Float64Array.from(members).sort(),
  others: Float64Array.from(others).sort(),
});

describe('fitScore', () => {
  const s = sample([0.1, 0.12, 0.15, 0.2, 0.25, 0.3], [0.6, 0.7, 0.75, 0.8, 0.9, 0.95]);

  it('is near 1 among the members, near 0 among the non-members, 0.5 where they meet', () => {
    assert.ok(fitScore(0.15, s) >= 0.9, `${fitScore(0.15, s)}`);
    assert.ok(fitScore(0.8, s) < 0.1, `${fitScore(0.8, s)}`);
    const between = fitScore(0.45, s);
    assert.ok(between > 0.3 && between < 0.7, `${between}`);
  });

  it('never rises with the distance, and stays inside (0, 1)', () => {
    let previous = Infinity;
    for (let x = 0; x <= 2; x += 0.01) {
      const f = fitScore(x, s);
      assert.ok(f <= previous + 1e-12 && f > 0 && f < 1, `x=${x} f=${f}`);
      previous = f;
    }
  });

  it('says "no evidence" without one of the samples or for a non-finite value', () => {
    assert.equal(fitScore(0.2, sample([], [0.5])), NO_EVIDENCE_FIT);
    assert.equal(fitScore(0.2, sample([0.1], [])), NO_EVIDENCE_FIT);
    assert.equal(fitScore(Number.NaN, s), NO_EVIDENCE_FIT);
  });
});

/** A catalog of clusters in 16 dimensions: each tag a direction with noise; the level of each tag fixed. */
function clusters(perTag: number[], levels: string[], noise = 0.35, seed = 3) {
  const rng = mulberry32(seed);
  const dims = 16;
  const unit = (v: Float32Array): Float32Array => {
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const centres = perTag.map((_, t) =>
    unit(Float32Array.from({ length: dims }, (_, i) => (i === t ? 1 : 0) + (rng() - 0.5) * 0.1)),
  );
  const embeddings: Float32Array[] = [];
  const tagOf: number[] = [];
  perTag.forEach((n, t) => {
    for (let i = 0; i < n; i++) {
      embeddings.push(unit(Float32Array.from(centres[t]!, (x) => x + (rng() - 0.5) * 2 * noise)));
      tagOf.push(t + 1);
    }
  });
  const sumOf = (slots: number[]): Float32Array => {
    const s = new Float32Array(dims);
    for (const slot of slots) for (let i = 0; i < dims; i++) s[i]! += embeddings[slot]![i]!;
    return s;
  };
  const slotsOfTag = (tagId: number): number[] => tagOf.flatMap((t, slot) => (t === tagId ? [slot] : []));
  const slotsOfLevel = (level: string): number[] => tagOf.flatMap((t, slot) => (levels[t - 1] === level ? [slot] : []));
  const source: FitSource = {
    embedding: (slot) => embeddings[slot]!,
    tags: perTag.map((_, t) => {
      const members = slotsOfTag(t + 1);
      return {
        tagId: t + 1,
        anchor: centres[t]!,
        members: members.slice(0, 64),
        peersOf: (slot: number) => members.filter((m) => m !== slot).map((m) => embeddings[m]!),
        peers: members.map((m) => embeddings[m]!),
        others: tagOf.flatMap((tag, slot) => (tag !== t + 1 ? [slot] : [])).slice(0, 64),
      };
    }),
    levels: [...new Set(levels)].map((level) => {
      const members = slotsOfLevel(level);
      return {
        level,
        sum: sumOf(members),
        count: members.length,
        members: members.slice(0, 64),
        others: tagOf.flatMap((t, slot) => (levels[t - 1] !== level ? [slot] : [])).slice(0, 64),
      };
    }),
  };
  return { source, embeddings, tagOf, centres, sumOf, slotsOfTag, slotsOfLevel };
}

describe('buildFitCalibration and fitScores', () => {
  it('a field of another cluster carrying the tag sits low on the tag axes; the tag’s own fields sit high', async () => {
    const c = clusters([40, 40, 40], ['L1', 'L4', 'L4']);
    const calibration = await buildFitCalibration(c.source);
    const { computeAxes } = await import('../../../src/modules/metrics/axes.js');
    const tag1 = c.source.tags[0]!;
    const rawFor = (slot: number, member: boolean) =>
      computeAxes({
        embedding: c.embeddings[slot]!,
        anchor: tag1.anchor,
        levelSum: null,
        levelCount: 0,
        peerSample: member ? tag1.peersOf(slot) : tag1.peers,
        nearest: null,
      }).raw;
    const own = fitScores(rawFor(0, true), { tagId: 1, level: 'L1' }, [], 0, calibration).scores;
    const stranger = fitScores(
      rawFor(c.slotsOfTag(2)[5]!, false),
      { tagId: 1, level: 'L1' },
      [],
      0,
      calibration,
    ).scores;
    for (const k of ['category_anchor', 'peer_mean', 'lower_quartile', 'farthest'] as const) {
      assert.ok(own[k] > 0.7, `own ${k} ${own[k]}`);
      assert.ok(stranger[k] < 0.3, `stranger ${k} ${stranger[k]}`);
    }
  });

  it('the centroid bar separates levels: a field labelled with a level its look-alikes do not have sits low', async () => {
    const c = clusters([40, 40, 40], ['L1', 'L4', 'L4']);
    const calibration = await buildFitCalibration(c.source);
    const { computeAxes } = await import('../../../src/modules/metrics/axes.js');
    const l1 = c.sumOf(c.slotsOfLevel('L1'));
    const l4 = c.sumOf(c.slotsOfLevel('L4'));
    const slot = c.slotsOfTag(2)[0]!; // a field of tag 2 (usually L4)
    const e = c.embeddings[slot]!;
    const asL4 = computeAxes({
      embedding: e,
      anchor: null,
      levelSum: l4,
      levelCount: 80,
      peerSample: [],
      nearest: null,
    }).raw;
    const asL1 = computeAxes({
      embedding: e,
      anchor: null,
      levelSum: Float32Array.from(l1, (x, i) => x + e[i]!),
      levelCount: 41,
      peerSample: [],
      nearest: null,
    }).raw;
    const right = fitScores(asL4, { tagId: 2, level: 'L4' }, [], 0, calibration).scores.centroid;
    const wrong = fitScores(asL1, { tagId: 2, level: 'L1' }, [], 0, calibration).scores.centroid;
    assert.ok(right > 0.6, `right ${right}`);
    assert.ok(wrong < 0.3, `wrong ${wrong}`);
  });

  it('a tag with too few members borrows the pooled members, never a NaN', async () => {
    const c = clusters([40, 40, FIT_MIN_MEMBERS - 3], ['L1', 'L4', 'L4']);
    const calibration = await buildFitCalibration(c.source);
    const small = calibration.tags.get(3)!;
    assert.equal(small.peer_mean.members, calibration.pooledTag.peer_mean.members);
    assert.ok(small.peer_mean.others.length > 0);
    // The anchor bar's members are every anchored tag's, whatever the tag's size; its non-members the tag's own.
    assert.equal(small.category_anchor.members, calibration.anchorMembers);
    assert.ok(small.category_anchor.others.length > 0);
    const scores = fitScores(
      { category_anchor: 0.2, centroid: 0.2, peer_mean: 0.2, nearest: 0.2, lower_quartile: 0.2, farthest: 0.2 },
      { tagId: 3, level: 'L4' },
      [],
      0,
      calibration,
    ).scores;
    for (const v of Object.values(scores)) assert.ok(Number.isFinite(v) && v >= 0 && v <= 1);
  });

  it('the anchor bar’s members are every tag’s: one tag’s wrong members do not teach it to forgive them', async () => {
    // Tag 1 holds its 40 fields and 30 others of a related kind (half its direction, half tag 2's: a data source
    // imported under one wrong tag); tag 4 has no anchor.
    const c = clusters([40, 40, 40], ['L1', 'L4', 'L4']);
    const { computeAxes } = await import('../../../src/modules/metrics/axes.js');
    const rng = mulberry32(9);
    const wrong: number[] = [];
    for (let i = 0; i < 30; i++) {
      const v = Float32Array.from(c.centres[1]!, (x, d) => x + 0.25 * c.centres[0]![d]! + (rng() - 0.5) * 0.5);
      const n = Math.hypot(...v);
      wrong.push(c.embeddings.push(v.map((x) => x / n)) - 1);
    }
    const tag1 = [...c.slotsOfTag(1), ...wrong];
    const source: FitSource = {
      ...c.source,
      tags: [
        {
          ...c.source.tags[0]!,
          members: tag1.slice(0, 64),
          peersOf: (slot: number) => tag1.filter((m) => m !== slot).map((m) => c.embeddings[m]!),
          peers: tag1.map((m) => c.embeddings[m]!),
        },
        ...c.source.tags.slice(1),
        { ...c.source.tags[2]!, tagId: 4, anchor: null },
      ],
    };
    const calibration = await buildFitCalibration(source);
    const members = calibration.anchorMembers;
    assert.ok(members);
    const t1 = calibration.tags.get(1)!.category_anchor;
    assert.equal(t1.members, members);
    assert.equal(calibration.tags.get(2)!.category_anchor.members, members);
    // Each tag keeps its own non-members: how near its anchor other tags' fields come.
    assert.notEqual(t1.others, calibration.tags.get(2)!.category_anchor.others);
    // Without an anchor the axis is the peer mean: the tag's own sample.
    assert.notEqual(calibration.tags.get(4)!.category_anchor.members, members);
    const anchorRaw = (slot: number) =>
      computeAxes({
        embedding: c.embeddings[slot]!,
        anchor: c.centres[0]!,
        levelSum: null,
        levelCount: 0,
        peerSample: source.tags[0]!.peersOf(slot),
        nearest: null,
      }).raw;
    const bar = (slot: number) =>
      fitScores(anchorRaw(slot), { tagId: 1, level: 'L1' }, [], 0, calibration).scores.category_anchor;
    // Calibrated on tag 1's own members (the wrong ones among them), a wrong field would sit among the members.
    const ownMembers = Float64Array.from(tag1.slice(0, 64).map((m) => anchorRaw(m).category_anchor)).sort();
    const own = (slot: number) => fitScore(anchorRaw(slot).category_anchor, { members: ownMembers, others: t1.others });
    const w = wrong[3]!;
    assert.ok(bar(w) < own(w) - 0.15, `wrong field: ${bar(w)} catalog-wide vs ${own(w)} on the tag's own members`);
    // Tag 1's own fields still fit it.
    const r = c.slotsOfTag(1)[3]!;
    assert.ok(bar(r) > 0.7, `right field ${bar(r)}`);
  });

  it('a level few of the tag’s fields hold scales the four tag bars down, not the level and nearest bars', async () => {
    const c = clusters([40, 40, 40], ['L1', 'L4', 'L4']);
    const calibration = await buildFitCalibration(c.source);
    const raw = {
      category_anchor: 0.1,
      centroid: 0.1,
      peer_mean: 0.2,
      nearest: 0.05,
      lower_quartile: 0.3,
      farthest: 0.5,
    };
    const agree = [0.9, 0.8].map((similarity) => ({ similarity, tag_id: 1, level: 'L1' }));
    const usual = fitScores(raw, { tagId: 1, level: 'L1' }, agree, 39, calibration).scores;
    const rare = fitScores(raw, { tagId: 1, level: 'L1' }, agree, 39, calibration, undefined, 0.1).scores;
    for (const k of ['category_anchor', 'peer_mean', 'lower_quartile', 'farthest'] as const)
      assert.ok(Math.abs(rare[k] - usual[k] * 0.1) < 1e-12, `${k}: ${rare[k]} is ${usual[k]} × 0.1`);
    assert.equal(rare.centroid, usual.centroid);
    assert.equal(rare.nearest, usual.nearest);
  });

  it('levelFit: 1 at the tag’s most common level or a level a reviewer confirmed for it, low at a rare one', () => {
    const levels = [
      { level: 'L3', count: 41, confirmed: 0 },
      { level: 'L1', count: 2, confirmed: 0 },
    ];
    assert.deepEqual(levelFit(levels, 'L3', false), { fit: 1, atLevel: 40, of: 42, usual: 'L3' });
    const rare = levelFit(levels, 'L1', false);
    assert.equal(rare.fit, (1 + LEVEL_PRIOR) / (41 + LEVEL_PRIOR));
    assert.deepEqual({ ...rare, fit: 0 }, { fit: 0, atLevel: 1, of: 42, usual: 'L3' });
    // Confirmed: the field itself, or another field of the tag at that level.
    assert.equal(levelFit(levels, 'L1', true).fit, 1);
    assert.equal(levelFit([levels[0]!, { level: 'L1', count: 2, confirmed: 1 }], 'L1', false).fit, 1);
    // The field's own confirmation counts for it alone: another field at L1 is judged by the others.
    assert.equal(levelFit([levels[0]!, { level: 'L1', count: 2, confirmed: 1 }], 'L1', false).fit, 1);
    assert.ok(levelFit([levels[0]!, { level: 'L1', count: 2, confirmed: 0 }], 'L1', false).fit < 0.1);
    // A tag split about evenly: both levels nearly usual; a field alone in its tag: nothing to compare with.
    const split = [
      { level: 'L2', count: 10, confirmed: 0 },
      { level: 'L3', count: 11, confirmed: 0 },
    ];
    assert.equal(levelFit(split, 'L3', false).fit, 1);
    assert.equal(levelFit(split, 'L2', false).fit, (9 + LEVEL_PRIOR) / (11 + LEVEL_PRIOR));
    assert.equal(levelFit([{ level: 'L2', count: 1, confirmed: 0 }], 'L2', false).fit, 1);
    assert.equal(levelFit([], 'L2', false).fit, 1);
    // With the levels' order, one step from the tag's usual level counts as usual; two steps do not.
    const rank = (l: string) => ['L1', 'L2', 'L3', 'L4', 'L5'].indexOf(l);
    const tag = [
      { level: 'L3', count: 40, confirmed: 0 },
      { level: 'L4', count: 1, confirmed: 0 },
      { level: 'L1', count: 1, confirmed: 0 },
    ];
    assert.equal(levelFit(tag, 'L4', false, rank).fit, 1);
    assert.equal(levelFit(tag, 'L4', false).fit, (0 + LEVEL_PRIOR) / (40 + LEVEL_PRIOR));
    assert.deepEqual(levelFit(tag, 'L1', false, rank), {
      fit: (0 + LEVEL_PRIOR) / (40 + LEVEL_PRIOR),
      atLevel: 0,
      of: 41,
      usual: 'L3',
    });
  });

  it('the nearest bar is whether the nearest fields agree, not how close they are', () => {
    const agree = [0.9, 0.8, 0.7].map((similarity) => ({ similarity, tag_id: 1, level: 'L4' }));
    const disagree = [0.99, 0.98, 0.97].map((similarity) => ({ similarity, tag_id: 2, level: 'L4' }));
    assert.equal(
      fitScores(
        { category_anchor: 0, centroid: 0, peer_mean: 0, nearest: 0.3, lower_quartile: 0, farthest: 0 },
        { tagId: 1, level: 'L4' },
        agree,
        10,
        null,
      ).scores.nearest,
      1,
    );
    assert.equal(
      fitScores(
        { category_anchor: 0, centroid: 0, peer_mean: 0, nearest: 0.01, lower_quartile: 0, farthest: 0 },
        { tagId: 1, level: 'L4' },
        disagree,
        10,
        null,
      ).scores.nearest,
      0,
    );
    const none = fitScores(
      { category_anchor: 0, centroid: 0, peer_mean: 0, nearest: 0, lower_quartile: 0, farthest: 0 },
      { tagId: 1, level: 'L4' },
      [],
      0,
      null,
    );
    assert.equal(none.scores.nearest, NO_EVIDENCE_FIT);
    assert.ok(none.fallbacks.includes('nearest') && none.fallbacks.includes('category_anchor'));
  });
});
