import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  classificationEvidence,
  classifierSupport,
  groupCohesion,
  reviewedEvidence,
  type ClassificationEvidenceInput,
  type TagMargins,
} from '../../../src/modules/metrics/measure-field.js';
import { outlierScore, outlierTerms, type OutlierInput } from '../../../src/modules/metrics/outlier-model.js';
import { reasonFor } from '../../../src/modules/metrics/reason.js';
import { namingPattern } from '../../../src/modules/metrics/catalog-state.js';
import {
  suggestClassification,
  suggestionConfidence,
  type SuggestionInput,
} from '../../../src/modules/metrics/suggestion.js';
import { AXIS_KEYS, type AxisScores } from '../../../src/modules/metrics/axes.js';
import { adminToken, bearer, buildTestApp, json, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource, importOk, type FieldInput } from '../fields/factories.js';

const rank = (level: string): number => ['L1', 'L2', 'L3', 'L4', 'L5'].indexOf(level);
const groupOf = (tagId: number): string => (tagId < 10 ? 'Personal' : 'Technical');
const uniform = (s: number): AxisScores => Object.fromEntries(AXIS_KEYS.map((k) => [k, s])) as AxisScores;

/** Neither the anchors nor the members of another tag fit better, nor worse: no margin speaks. */
const NO_MARGINS: TagMargins = {
  anchorMargin: null,
  bestOtherAnchorTagId: null,
  bestOtherAnchorSimilarity: null,
  peerMargin: null,
  bestOtherPeerTagId: null,
};

/** A suggestion's input for a field of tag 11 at L1 that the classifier classified itself, this sure of it. */
function selfClassifiedInput(confidence: number, rest: Partial<SuggestionInput> = {}): SuggestionInput {
  const predicted = { tagId: 11, level: 'L1', confidence };
  return {
    tagId: 11,
    level: 'L1',
    neighbours: [],
    predicted,
    margins: NO_MARGINS,
    evidence: classificationEvidence({
      tagId: 11,
      level: 'L1',
      neighbours: [],
      predicted,
      tagLevels: [{ level: 'L1', count: 5 }],
      defaultLevel: 'L1',
      rank,
      groupOf,
      selfClassified: true,
    }),
    outlierScore: 0.8,
    threshold: 0.15,
    usualLevel: (tagId) => (tagId === 2 ? 'L4' : 'L1'),
    rank,
    ...rest,
  };
}

describe('self-classified fields: the signals', () => {
  const base: ClassificationEvidenceInput = {
    tagId: 11,
    level: 'L1',
    neighbours: [],
    predicted: { tagId: 11, level: 'L1', confidence: 0.6 },
    tagLevels: [{ level: 'L1', count: 20 }],
    defaultLevel: 'L1',
    rank,
    groupOf,
  };

  it("takes the classifier's doubt in its own answer as evidence, and its agreement with itself as none", () => {
    const self = classificationEvidence({ ...base, selfClassified: true, tagCohesion: 0.3 });
    assert.equal(self.selfClassified, true);
    assert.ok(Math.abs((self.selfDoubt ?? 0) - 0.4) < 1e-9);
    assert.ok(Math.abs((self.selfLooseTag ?? 0) - 0.7) < 1e-9);
    const imported = classificationEvidence({ ...base, tagCohesion: 0.3 });
    assert.equal(imported.selfDoubt, 0);
    assert.equal(imported.selfLooseTag, 0);
    // The same field, more doubted by the classifier, scores higher; an imported label the classifier agrees with does not move.
    const input = (confidence: number, selfClassified: boolean): OutlierInput => ({
      scores: uniform(0.5),
      neighbourDisagreement: 0,
      evidence: classificationEvidence({
        ...base,
        predicted: { tagId: 11, level: 'L1', confidence },
        selfClassified,
        tagCohesion: 0.3,
      }),
    });
    assert.ok(outlierScore(input(0.3, true)) > outlierScore(input(0.95, true)) + 0.1);
    assert.ok(outlierScore(input(0.3, true)) > outlierScore(input(0.3, false)));
  });

  it('measures how alike the fields of a tag are from its running sum', () => {
    const a = Float32Array.from([1, 0]);
    assert.equal(groupCohesion(a, 1), null);
    assert.ok(Math.abs((groupCohesion(Float32Array.from([2, 0]), 2) as number) - 1) < 1e-9);
    assert.ok(Math.abs(groupCohesion(Float32Array.from([1, 1]), 2) as number) < 1e-9);
  });

  it("reads what the classifier's answer rested on from its evidence", () => {
    const s = classifierSupport(
      JSON.stringify([
        { factor: 'name', score: 2, detail: 'x' },
        { factor: 'anchor', score: 0.5, detail: 'x' },
        { factor: 'name', score: 1, detail: 'x', for: 'Personal/Identity/Full name' },
        { factor: 'anchor', score: 0.25, detail: 'x', for: 'Personal/Identity/Full name' },
        { factor: 'anchor', score: 0.4, detail: 'x', for: 'Technical/Category' },
      ]),
    );
    assert.deepEqual(s, {
      words: 2,
      runnerUp: 0.5,
      runnerUpPath: 'Personal/Identity/Full name',
      runnersUp: [
        { path: 'Personal/Identity/Full name', ratio: 0.5 },
        { path: 'Technical/Category', ratio: 0.16 },
      ],
    });
    assert.equal(classifierSupport('not json'), null);
    assert.equal(classifierSupport(null), null);
    assert.deepEqual(classifierSupport('[{"factor":"data_type","score":0.9,"detail":"x"}]'), {
      words: 0,
      runnerUp: 0,
      runnerUpPath: null,
      runnersUp: [],
    });
  });

  it('counts confirmed neighbours for and against, and a confirmed twin with another classification', () => {
    const r = reviewedEvidence(
      [
        { similarity: 1, tag_id: 2, level: 'L4', confirmed: true },
        { similarity: 0.8, tag_id: 11, level: 'L1', confirmed: true },
        { similarity: 0.9, tag_id: 3, level: 'L2' },
      ],
      { tag_id: 11, level: 'L1' },
      [{ tag_id: 2, level: 'L4' }],
      rank,
    );
    assert.equal(r.confirmedOther, 1);
    assert.equal(r.confirmedAgrees, 0.8);
    assert.deepEqual(r.twin, { tagId: 2, level: 'L4' });
    // Twins confirmed as it is classified outvote one that is not.
    const agreed = reviewedEvidence(
      [],
      { tag_id: 11, level: 'L1' },
      [
        { tag_id: 2, level: 'L4' },
        { tag_id: 11, level: 'L1' },
        { tag_id: 11, level: 'L1' },
      ],
      rank,
    );
    assert.equal(agreed.twin, null);
    const plain = { scores: uniform(0.5), neighbourDisagreement: 0 };
    const logit = (p: number): number => Math.log(p / (1 - p));
    assert.ok(logit(outlierScore({ ...plain, reviewed: r })) - logit(outlierScore(plain)) > 4);
  });
});

describe('self-classified fields: reasons', () => {
  const evidence = classificationEvidence({
    tagId: 11,
    level: 'L1',
    neighbours: [],
    predicted: { tagId: 11, level: 'L1', confidence: 0.35 },
    tagLevels: [{ level: 'L1', count: 5 }],
    defaultLevel: 'L1',
    rank,
    groupOf,
    selfClassified: true,
    tagCohesion: 0.2,
  });
  const input: OutlierInput = { scores: uniform(0.5), neighbourDisagreement: 0, evidence };

  it('says how sure the classifier was of its own answer, and its second choice when that is the suggestion', () => {
    const text = reasonFor({
      classification: 'Technical/Object name (L1)',
      scores: uniform(0.5),
      terms: outlierTerms(input),
      severity: 'high',
      selfConfidence: 0.35,
      suggestion: { classification: 'Technical/Foreign key (L1)', sameTag: false, by: 'classifier' },
    });
    assert.match(
      text,
      /^FieldLens classified it Technical\/Object name \(L1\) itself, only 35% sure from its name, table, type and values; its second choice was Technical\/Foreign key \(L1\)\./,
    );
  });

  it("names a twin's confirmation", () => {
    const reviewed = { confirmedOther: 0, confirmedAgrees: 0, twin: { tagId: 2, level: 'L4' } };
    const text = reasonFor({
      classification: 'Technical/Timestamp (L1)',
      scores: uniform(0.5),
      terms: outlierTerms({ scores: uniform(0.5), neighbourDisagreement: 0, reviewed }),
      severity: 'high',
      twin: { classification: 'Personal/Identity/Date of birth (L4)' },
      suggestion: { classification: 'Personal/Identity/Date of birth (L4)', sameTag: false, by: 'twin' },
    });
    assert.match(
      text,
      /^A reviewer confirmed the same column elsewhere as Personal\/Identity\/Date of birth \(L4\); it is Technical\/Timestamp \(L1\)\./,
    );
  });
});

describe('self-classified fields: suggestions', () => {
  const base = selfClassifiedInput(0.8);
  const { margins } = base;

  it("suggests a confirmed twin's classification as it is", () => {
    const twin = suggestClassification({ ...base, twin: { tagId: 2, level: 'L4' } });
    assert.deepEqual(
      { tagId: twin?.tagId, level: twin?.level, by: twin?.by, share: twin?.share },
      { tagId: 2, level: 'L4', by: 'twin', share: 1 },
    );
    // A reviewer's decision on an identical field is the most trusted suggestion there is.
    assert.ok(twin!.confidence > 0.85, `${twin?.confidence}`);
    for (const by of ['classifier', 'neighbours', 'margins', 'level', 'corrections'] as const)
      assert.ok(twin!.confidence > suggestionConfidence(0.8, 1, by), by);
    assert.equal(suggestClassification({ ...base, twin: { tagId: 2, level: 'L4' }, outlierScore: 0.1 }), null);
  });

  it("offers the classifier's runner-up, or what reviewers corrected its answers of this tag to", () => {
    const runner = suggestClassification({ ...base, runnerUpTagId: 2 });
    assert.equal(runner?.tagId, 2);
    assert.equal(runner?.level, 'L4');
    assert.equal(runner?.by, 'classifier');
    const corrected = suggestClassification({
      ...base,
      runnerUpTagId: 2,
      corrections: { tagId: 3, level: 'L3', share: 1 },
      neighbours: [{ similarity: 0.9, tag_id: 3, level: 'L3', confirmed: true }],
    });
    assert.deepEqual(
      { tagId: corrected?.tagId, level: corrected?.level, by: corrected?.by },
      { tagId: 3, level: 'L3', by: 'corrections' },
    );
    // Its own tag better supported by its neighbours (the same classifier's answers): the runner-up is still its
    // likeliest other tag, offered with a lower confidence than with no such crowd.
    const crowd = Array.from({ length: 5 }, () => ({ similarity: 0.9, tag_id: 11, level: 'L1' }));
    const crowded = suggestClassification({ ...base, runnerUpTagId: 2, neighbours: crowd, outlierScore: 0.3 });
    assert.equal(crowded?.tagId, 2);
    assert.ok(crowded!.confidence < 0.5, `${crowded?.confidence}`);
    // A field imported with this label: the classifier agreeing with it still counts for the label.
    const imported = classificationEvidence({
      tagId: 11,
      level: 'L1',
      neighbours: [],
      predicted: { tagId: 11, level: 'L1', confidence: 0.8 },
      tagLevels: [{ level: 'L1', count: 5 }],
      defaultLevel: 'L1',
      rank,
      groupOf,
    });
    assert.equal(suggestClassification({ ...base, evidence: imported, runnerUpTagId: 2 }), null);
  });

  it('chooses among the candidates by the fitted choice: a confirmed neighbour over the runner-up, the runner-up over a crowd of unreviewed look-alikes and a better-fitting anchor', () => {
    // A confirmed neighbour of tag 3 (a reviewer's decision nearby) outweighs the classifier's runner-up.
    const confirmed = suggestClassification({
      ...base,
      runnersUp: [{ tagId: 2, ratio: 0.8 }],
      neighbours: [
        { similarity: 0.9, tag_id: 3, level: 'L3', confirmed: true },
        { similarity: 0.8, tag_id: 11, level: 'L1' },
      ],
    });
    assert.deepEqual({ tagId: confirmed?.tagId, level: confirmed?.level }, { tagId: 3, level: 'L3' });
    // Unreviewed neighbours of tag 4 and the anchor of tag 5: the runner-up (the classifier's second choice) wins.
    const margins5: TagMargins = { ...margins, anchorMargin: -0.1, bestOtherAnchorTagId: 5 };
    const runner = suggestClassification({
      ...base,
      margins: margins5,
      runnersUp: [{ tagId: 2, ratio: 0.8 }],
      neighbours: [
        { similarity: 0.6, tag_id: 4, level: 'L2' },
        { similarity: 0.9, tag_id: 11, level: 'L1' },
        { similarity: 0.9, tag_id: 11, level: 'L1' },
      ],
    });
    assert.deepEqual({ tagId: runner?.tagId, by: runner?.by }, { tagId: 2, by: 'classifier' });
    // The runner-up closer to the answer is the likelier one: its confidence rises with its points.
    const weak = suggestClassification({ ...base, runnersUp: [{ tagId: 2, ratio: 0.1 }] });
    const strong = suggestClassification({ ...base, runnersUp: [{ tagId: 2, ratio: 0.9 }] });
    assert.ok(strong!.confidence > weak!.confidence, `${strong?.confidence} vs ${weak?.confidence}`);
    // The second runner-up is offered when nothing else speaks; a tag the nearest fields carry comes at their level.
    assert.equal(
      suggestClassification({
        ...base,
        runnersUp: [
          { tagId: 11, ratio: 0.9 },
          { tagId: 6, ratio: 0.5 },
        ],
      })?.tagId,
      6,
    );
    const near = suggestClassification({
      ...base,
      neighbours: [
        { similarity: 0.95, tag_id: 4, level: 'L3' },
        { similarity: 0.9, tag_id: 4, level: 'L3' },
      ],
    });
    assert.deepEqual(
      { tagId: near?.tagId, level: near?.level, by: near?.by },
      { tagId: 4, level: 'L3', by: 'neighbours' },
    );
    // A neighbour without a usable similarity still names its tag (weighing nothing), with a finite confidence.
    const odd = suggestClassification({ ...base, neighbours: [{ similarity: Number.NaN, tag_id: 4, level: 'L3' }] });
    assert.equal(odd?.tagId, 4);
    assert.ok(Number.isFinite(odd?.confidence), `${odd?.confidence}`);
  });

  it('offers the same tag at the expected level before any other tag when the level evidence disagrees', () => {
    const under = classificationEvidence({
      tagId: 11,
      level: 'L1',
      neighbours: [],
      predicted: { tagId: 11, level: 'L1', confidence: 0.8 },
      tagLevels: [
        { level: 'L4', count: 9 },
        { level: 'L1', count: 1 },
      ],
      defaultLevel: 'L4',
      rank,
      groupOf,
      selfClassified: true,
    });
    const s = suggestClassification({
      ...base,
      evidence: under,
      runnerUpTagId: 2,
      runnersUp: [{ tagId: 2, ratio: 0.9 }],
    });
    assert.deepEqual({ tagId: s?.tagId, level: s?.level, by: s?.by }, { tagId: 11, level: 'L4', by: 'level' });
  });
});

describe('self-classified fields: naming patterns', () => {
  const plain = { scores: uniform(0.5), neighbourDisagreement: 0 };
  const base = selfClassifiedInput(0.9, { outlierScore: 0.05, usualLevel: () => 'L1', runnerUpTagId: 2 });

  it('reads a naming pattern as the data source and the first word of the name, in any case style', () => {
    assert.equal(namingPattern('ds-1', 'cod_cliente'), 'ds-1\u0000cod');
    assert.equal(namingPattern('ds-1', 'codProduto'), 'ds-1\u0000cod');
    assert.equal(namingPattern('ds-1', 'COD-FORNECEDOR'), 'ds-1\u0000cod');
    assert.notEqual(namingPattern('ds-2', 'cod_cliente'), namingPattern('ds-1', 'cod_cliente'));
    assert.equal(namingPattern(null, 'cod_cliente'), null);
    assert.equal(namingPattern('ds-1', '__'), null);
  });

  it("takes the reviewers' most common correction of the same answer, with kept ones counting against it", () => {
    const self = { tag_id: 11, level: 'L1' };
    const corrected = reviewedEvidence([], self, [], rank, {
      kept: 1,
      corrected: 3,
      top: { tagId: 4, level: 'L1', count: 2 },
    });
    assert.deepEqual(corrected.pattern, { tagId: 4, level: 'L1', share: 0.5, count: 2 });
    // Corrected to what it already is (its level set by hand since): nothing against it.
    assert.equal(
      reviewedEvidence([], self, [], rank, { kept: 0, corrected: 1, top: { tagId: 11, level: 'L1', count: 1 } })
        .pattern,
      null,
    );
    assert.equal(reviewedEvidence([], self, [], rank, { kept: 2, corrected: 0, top: null }).pattern, null);
    assert.equal(reviewedEvidence([], self, [], rank).pattern, null);
    // The more of the pattern reviewers corrected, the higher the score.
    const score = (share: number): number =>
      outlierScore({ ...plain, reviewed: { ...corrected, pattern: { tagId: 4, level: 'L1', share, count: 1 } } });
    assert.ok(
      score(1) > score(0.5) && score(0.5) > outlierScore({ ...plain, reviewed: { ...corrected, pattern: null } }),
    );
  });

  it('suggests the correction of at least half the pattern whatever the score, after a twin, and calibrated by its share', () => {
    const s = suggestClassification({ ...base, pattern: { tagId: 4, level: 'L2', share: 1 } });
    assert.deepEqual({ tagId: s?.tagId, level: s?.level, by: s?.by }, { tagId: 4, level: 'L2', by: 'pattern' });
    const half = suggestClassification({ ...base, pattern: { tagId: 4, level: 'L2', share: 0.5 } });
    assert.equal(half?.by, 'pattern');
    assert.ok(half!.confidence < s!.confidence);
    // Less than half corrected: the pattern suggests nothing, and below the threshold nothing else does either.
    assert.equal(suggestClassification({ ...base, pattern: { tagId: 4, level: 'L2', share: 0.4 } }), null);
    const twin = suggestClassification({
      ...base,
      outlierScore: 0.9,
      twin: { tagId: 2, level: 'L4' },
      pattern: { tagId: 4, level: 'L2', share: 1 },
    });
    assert.equal(twin?.by, 'twin');
  });

  it('says what reviewers corrected in the pattern, for a field that fits as for a suspicious one', () => {
    const reviewed = {
      confirmedOther: 0,
      confirmedAgrees: 0,
      twin: null,
      pattern: { tagId: 4, level: 'L1', share: 1, count: 3 },
    };
    const input = {
      classification: 'Technical/Metric value (L1)',
      scores: uniform(0.6),
      terms: outlierTerms({ ...plain, reviewed }),
      pattern: { classification: 'Technical/Foreign key (L1)', count: 3 },
      suggestion: { classification: 'Technical/Foreign key (L1)', sameTag: false, by: 'pattern' as const },
    };
    const expected =
      /FieldLens had put 3 other fields of this data source whose names start with the same word in Technical\/Metric value \(L1\) too; reviewers corrected them to Technical\/Foreign key \(L1\)\./;
    const fits = reasonFor({ ...input, severity: 'low' });
    assert.match(fits, expected);
    assert.doesNotMatch(fits, /Nothing points to another classification/);
    assert.match(reasonFor({ ...input, severity: 'high' }), expected);
  });
});

interface Item {
  id: string;
  classification_chain_path: string;
  level: string;
  outlier_score: number | null;
  severity: string | null;
  suggested_classification: { chain_path: string; level: string } | null;
}

/** A field as `GET /fields/{id}` answers it. */
async function fieldOf(t: TestApp, token: string, id: string): Promise<Item> {
  return json<Item>(await t.app.inject({ method: 'GET', url: `/api/v1/fields/${id}`, headers: bearer(token) }));
}

describeEachDatabase('a correction flags the same column in another data source', (kind) => {
  let t: TestApp;
  let token: string;

  before(async () => {
    t = await buildTestApp(kind);
    token = await adminToken(t.app);
  });
  after(async () => t.close());
  const get = (id: string): Promise<Item> => fieldOf(t, token, id);

  it('gives the twins of a corrected field the correction as their suggestion, and a high score', async () => {
    // No classification given: the classifier decides, as after a scan.
    const columns: FieldInput[] = [
      { table_name: 'Employee', field_name: 'BirthDate', data_type: 'datetime' },
      { table_name: 'Employee', field_name: 'HireDate', data_type: 'datetime' },
      { table_name: 'Employee', field_name: 'Email', data_type: 'nvarchar(60)' },
      { table_name: 'Employee', field_name: 'EmployeeId', data_type: 'integer' },
      { table_name: 'Invoice', field_name: 'InvoiceDate', data_type: 'datetime' },
      { table_name: 'Invoice', field_name: 'Total', data_type: 'numeric(10,2)' },
    ];
    const a = await createDatasource(t.app, token, 'chinook-a');
    const b = await createDatasource(t.app, token, 'chinook-b');
    const idsA = (await importOk(t.app, token, a, columns)).field_ids;
    const idsB = (await importOk(t.app, token, b, columns)).field_ids;
    await t.app.services.metricsWorker.drain();
    const twin = await get(idsB[0]!);
    const correction =
      twin.classification_chain_path === 'Personal/Identity/Date of birth'
        ? { path: 'Technical/Timestamp', level: 'L1' }
        : { path: 'Personal/Identity/Date of birth', level: 'L4' };
    const confirm = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${idsA[0]}/confirm`,
      headers: bearer(token),
      payload: { classification_chain_path: correction.path, lock_level: correction.level },
    });
    assert.equal(confirm.statusCode, 200, confirm.body);
    await t.app.services.metricsWorker.drain();
    const after = await get(idsB[0]!);
    assert.equal(
      after.classification_chain_path,
      twin.classification_chain_path,
      'the twin keeps its classification until reviewed',
    );
    assert.deepEqual(
      after.suggested_classification && {
        path: after.suggested_classification.chain_path,
        level: after.suggested_classification.level,
      },
      correction,
    );
    assert.equal(after.severity, 'high');
    assert.ok((after.outlier_score ?? 0) > (twin.outlier_score ?? 0));
    // A field of the other source that is not its twin is not flagged by it.
    const other = await get(idsB[1]!);
    assert.notDeepEqual(
      other.suggested_classification && {
        path: other.suggested_classification.chain_path,
        level: other.suggested_classification.level,
      },
      correction,
    );
  });
});

describeEachDatabase('a correction speaks for the fields named like it in its data source', (kind) => {
  let t: TestApp;
  let token: string;

  before(async () => {
    t = await buildTestApp(kind);
    token = await adminToken(t.app);
  });
  after(async () => t.close());
  const get = (id: string): Promise<Item> => fieldOf(t, token, id);

  it("suggests the correction to the fields of the same data source whose name starts with the same word and got the classifier's same answer; a kept one counts against it", async () => {
    // An organisation's own prefix, in tables no embedding puts near one another; no classification given.
    const columns: FieldInput[] = [
      { table_name: 'pedido', field_name: 'qx_cliente', data_type: 'integer' },
      { table_name: 'estoque', field_name: 'qx_produto', data_type: 'integer' },
      { table_name: 'comissao', field_name: 'qx_vendedor', data_type: 'integer' },
      { table_name: 'frete', field_name: 'qx_transportadora', data_type: 'integer' },
    ];
    const a = await createDatasource(t.app, token, 'erp-a');
    const b = await createDatasource(t.app, token, 'erp-b');
    const idsA = (await importOk(t.app, token, a, columns)).field_ids;
    const idsB = (await importOk(t.app, token, b, columns.slice(1))).field_ids;
    await t.app.services.metricsWorker.drain();
    const first = await Promise.all(idsA.map(get));
    const answer = first[0]!.classification_chain_path;
    assert.ok(
      first.every((f) => f.classification_chain_path === answer),
      `the classifier gives the four the same answer: ${first.map((f) => f.classification_chain_path).join(', ')}`,
    );
    const correction =
      answer === 'Technical/Foreign key'
        ? { path: 'Technical/Metric value', level: 'L1' }
        : { path: 'Technical/Foreign key', level: 'L1' };
    const confirm = async (id: string, payload: Record<string, unknown>): Promise<void> => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/classify/fields/${id}/confirm`,
        headers: bearer(token),
        payload,
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const suggested = (f: Item): { path: string; level: string } | null =>
      f.suggested_classification && {
        path: f.suggested_classification.chain_path,
        level: f.suggested_classification.level,
      };
    await confirm(idsA[0]!, { classification_chain_path: correction.path, lock_level: correction.level });
    await t.app.services.metricsWorker.drain();
    const peer = await get(idsA[1]!);
    assert.equal(peer.classification_chain_path, answer, 'the peer keeps its classification until reviewed');
    assert.deepEqual(suggested(peer), correction);
    assert.ok((peer.outlier_score ?? 0) > (first[1]!.outlier_score ?? 0));
    const minibars = await t.app.inject({
      method: 'POST',
      url: '/api/v1/classify/fields/embedding-minibars',
      headers: bearer(token),
      payload: { field_ids: [idsA[1]] },
    });
    assert.equal(minibars.statusCode, 200, minibars.body);
    assert.match(
      minibars.json<{ items: Array<{ reason: string }> }>().items[0]!.reason,
      new RegExp(
        `another field of this data source whose name starts with the same word in ${answer} \\(L1\\) too; a reviewer corrected it to ${correction.path} \\(L1\\)\\.`,
      ),
    );
    // The same names in another data source are not its naming: nothing changes there.
    for (const id of idsB) assert.notDeepEqual(suggested(await get(id)), correction);
    // A taxonomy edit re-evaluates every field's classifier view, the corrected one's too: its own correction is not the
    // classifier's view of it, so the correction keeps speaking for its pattern.
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/classification/tags',
      headers: bearer(token),
      payload: { name: 'Loyalty card', parent_id: null, default_level: 'L2', keywords: ['treuekarte'] },
    });
    assert.equal(created.statusCode, 201, created.body);
    await t.app.services.reclassifyWorker.drain();
    await t.app.services.metricsWorker.drain();
    assert.deepEqual(suggested(await get(idsA[1]!)), correction);
    // A reviewer keeps the classifier's answer on another field of the pattern: one of two corrected still suggests it,
    // one of three does not.
    await confirm(idsA[2]!, {});
    await t.app.services.metricsWorker.drain();
    assert.deepEqual(suggested(await get(idsA[1]!)), correction);
    await confirm(idsA[3]!, {});
    await t.app.services.metricsWorker.drain();
    assert.notDeepEqual(suggested(await get(idsA[1]!)), correction);
  });
});
