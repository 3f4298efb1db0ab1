/**
 * Reason sentences in words a reviewer acts on: what the field's nearest fields are and what it is, what its own name
 * and values point to, which level its tag's fields have — never a catalog statistic ("in the lowest 3% of the
 * catalog"). Pure cases of reasonFor, then the sentences the service stores for a real catalog on each database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AXIS_KEYS, type AxisScores } from '../../../src/modules/metrics/axes.js';
import type { OutlierTerms } from '../../../src/modules/metrics/outlier-model.js';
import { reasonFor, type ReasonNeighbour } from '../../../src/modules/metrics/reason.js';
import { adminToken, bearer, buildTestApp, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource, importOk, type FieldInput } from '../fields/factories.js';

const uniform = (s: number): AxisScores => Object.fromEntries(AXIS_KEYS.map((k) => [k, s])) as AxisScores;
const zero: OutlierTerms = {
  disagreement: 0,
  peerMargin: 0,
  anchorMargin: 0,
  nearestRatio: 0,
  axisFit: 0,
  classifierOther: 0,
  classifierFar: 0,
  classifierAgrees: 0,
  under: 0,
  over: 0,
  underClassifier: 0,
  overClassifier: 0,
  classifierOtherAlone: 0,
  labelGap: 0,
  selfBias: 0,
  selfDoubt: 0,
  selfDisagreement: 0,
  selfNearestRatio: 0,
  selfPeerMargin: 0,
  selfAnchorMargin: 0,
  selfLooseTag: 0,
  confirmedOther: 0,
  confirmedAgrees: 0,
  twinOther: 0,
  patternOther: 0,
};
/** What a reviewer cannot act on: percentiles and catalog shares. */
const STATISTIC = /percentile|lowest \d+ ?%|of the catalog/;

const DOB = 'Personal/Identity/Date of birth (L4)';
const TS = 'Technical/Timestamp (L1)';
const hr = (classification: string, same = false): ReasonNeighbour => ({
  classification,
  sameClassification: same,
  sameTagAsSuggestion: classification === DOB,
  datasource: 'hr',
});

describe('reasonFor: plain words', () => {
  it('says its neighbours in one data source are all of another classification, and what it is', () => {
    const text = reasonFor({
      classification: TS,
      tag: 'Technical/Timestamp',
      level: 'L1',
      scores: { ...uniform(0.6), category_anchor: 0.03 },
      severity: 'high',
      terms: { ...zero, disagreement: 3 },
      nearest: {
        name: 'employees.birth_dt',
        datasource: 'hr',
        similarity: 0.9312,
        classification: DOB,
        sameClassification: false,
        sameTagAsSuggestion: true,
      },
      neighbours: [hr(DOB), hr(DOB), hr(DOB), hr(DOB), hr(DOB)],
      suggestion: { classification: DOB, sameTag: false, by: 'neighbours' },
    });
    assert.equal(
      text,
      'Its 5 nearest fields in hr are all Personal/Identity/Date of birth (L4), the closest `employees.birth_dt` (similarity 0.93); it is Technical/Timestamp (L1). ' +
        'Also, its name, type and comment are far from what Technical/Timestamp describes.',
    );
  });

  it('counts a majority across data sources and names the closest with its own', () => {
    const text = reasonFor({
      classification: TS,
      scores: uniform(0.4),
      severity: 'medium',
      terms: { ...zero, disagreement: 2 },
      nearest: {
        name: 'employees.birth_dt',
        datasource: 'hr',
        similarity: 0.9,
        classification: DOB,
        sameClassification: false,
        sameTagAsSuggestion: true,
      },
      neighbours: [hr(DOB), { ...hr(DOB), datasource: 'crm' }, hr(TS, true), hr(DOB), hr(DOB)],
      suggestion: { classification: DOB, sameTag: false, by: 'neighbours' },
    });
    assert.equal(
      text,
      '4 of its 5 nearest fields are Personal/Identity/Date of birth (L4), the closest `employees.birth_dt` in hr (similarity 0.90); it is Technical/Timestamp (L1).',
    );
  });

  it('names a data source only together with the nearest field (whose deletion withholds the reason)', () => {
    const text = reasonFor({
      classification: TS,
      scores: uniform(0.4),
      severity: 'high',
      terms: { ...zero, disagreement: 2 },
      nearest: {
        name: 'events.created',
        datasource: 'hr',
        similarity: 0.9,
        classification: TS,
        sameClassification: true,
      },
      neighbours: [hr(TS, true), hr(DOB), hr(DOB), hr(DOB), hr(TS, true)],
      suggestion: { classification: DOB, sameTag: false, by: 'neighbours' },
    });
    assert.equal(
      text,
      '3 of its 5 nearest fields are Personal/Identity/Date of birth (L4); it is Technical/Timestamp (L1).',
    );
  });

  it('falls back to the nearest field alone when no two neighbours agree', () => {
    const text = reasonFor({
      classification: TS,
      scores: uniform(0.4),
      severity: 'high',
      terms: { ...zero, disagreement: 2 },
      nearest: {
        name: 'customers.contact_email',
        datasource: 'crm',
        similarity: 0.93,
        classification: 'Personal/Contact/Email address (L3)',
        sameClassification: false,
        sameTagAsSuggestion: true,
      },
      neighbours: [
        {
          classification: 'Personal/Contact/Email address (L3)',
          sameClassification: false,
          sameTagAsSuggestion: true,
          datasource: 'crm',
        },
        hr(TS, true),
        hr(TS, true),
      ],
      suggestion: { classification: 'Personal/Contact/Email address (L3)', sameTag: false, by: 'neighbours' },
    });
    assert.equal(
      text,
      'Nearest field `customers.contact_email` in crm (similarity 0.93) is Personal/Contact/Email address (L3); it is Technical/Timestamp (L1).',
    );
  });

  it('never names a third classification: neighbours of a tag other than the suggested one are not cited', () => {
    const country = 'Personal/Contact/Country (L2)';
    const text = reasonFor({
      classification: 'Public reference data/Country code (L1)',
      scores: uniform(0.9),
      severity: 'high',
      terms: { ...zero, classifierOther: 5, disagreement: 1 },
      nearest: {
        name: 'payroll.country',
        datasource: 'hr',
        similarity: 0.8,
        classification: country,
        sameClassification: false,
        sameTagAsSuggestion: false,
      },
      neighbours: [
        { classification: country, sameClassification: false, sameTagAsSuggestion: false, datasource: 'hr' },
        { classification: country, sameClassification: false, sameTagAsSuggestion: false, datasource: 'hr' },
      ],
      suggestion: { classification: 'Personal/Identity/National ID number (L5)', sameTag: false, by: 'classifier' },
      classifier: { classification: 'Personal/Identity/National ID number (L5)', confidence: 0.93 },
      betterTag: { classification: 'Business/Products/Price', by: 'anchor' },
    });
    assert.match(
      text,
      /^Its own name, table, comment, type and value formats point to Personal\/Identity\/National ID number \(L5\) \(classifier 93% sure\), not Public reference data\/Country code \(L1\)\./,
    );
    assert.doesNotMatch(text, /Country \(L2\)|Price/);
    // The classifier's view is named only when it is the suggestion (or there is none to contradict).
    const other = reasonFor({
      classification: 'Public reference data/Category (L1)',
      scores: uniform(0.4),
      severity: 'high',
      terms: { ...zero, classifierOther: 5, disagreement: 3 },
      suggestion: { classification: 'Personal/Identity/Full name (L3)', sameTag: false, by: 'neighbours' },
      classifier: { classification: 'Technical/Object name (L1)', confidence: 0.96 },
    });
    assert.doesNotMatch(other, /Object name/, other);
    assert.match(
      other,
      /^Its nearest fields are mostly Personal\/Identity\/Full name \(L3\); it is Public reference data\/Category \(L1\)\./,
    );
    // Every bar above the median and a high severity: the reason says why the bars are high.
    assert.match(text, /bars are high because the fields around it carry the same label/);
  });

  it("says how far the tag trails the classifier's answer when the label gap drives the score", () => {
    const base = {
      classification: 'Public reference data/Country code (L1)',
      tag: 'Public reference data/Country code',
      scores: uniform(0.6),
      severity: 'high' as const,
      suggestion: {
        classification: 'Personal/Identity/National ID number (L5)',
        sameTag: false,
        by: 'classifier' as const,
      },
    };
    const driven = reasonFor({
      ...base,
      terms: { ...zero, classifierOther: 0.15, labelGap: 4.2, disagreement: 0.5 },
      classifier: { classification: 'Personal/Identity/National ID number (L5)', confidence: 0.62, labelGap: 6.46 },
    });
    assert.match(
      driven,
      /^Its own name, table, comment, type and value formats point to Personal\/Identity\/National ID number \(L5\) \(classifier 62% sure; Public reference data\/Country code trails by 6\.5 points\), not Public reference data\/Country code \(L1\)\./,
    );
    // The classifier's confidence weighing more, or an unknown gap: the sentence as before.
    for (const [terms, gap] of [
      [{ ...zero, classifierOther: 2.5, labelGap: 1.3, disagreement: 0.5 }, 2],
      [{ ...zero, classifierOther: 0.15, labelGap: 4.2, disagreement: 0.5 }, null],
    ] as const) {
      const text = reasonFor({
        ...base,
        terms,
        classifier: { classification: 'Personal/Identity/National ID number (L5)', confidence: 0.62, labelGap: gap },
      });
      assert.match(text, /\(classifier 62% sure\), not Public reference data\/Country code \(L1\)\./, text);
    }
  });

  it("says which level the tag's fields have and that the field's looks too low (or too high)", () => {
    const base = {
      classification: 'Personal/Identity/Passport number (L2)',
      tag: 'Personal/Identity/Passport number',
      level: 'L2',
      scores: uniform(0.3),
      severity: 'high' as const,
      terms: { ...zero, under: 3 },
    };
    const suggestion = {
      classification: 'Personal/Identity/Passport number (L5)',
      sameTag: true,
      by: 'level' as const,
    };
    assert.match(
      reasonFor({
        ...base,
        suggestion,
        expectedLevel: { level: 'L5', under: true, peers: 14, peersAtLevel: 12, isDefault: true },
      }),
      /^12 of the 14 other fields tagged Personal\/Identity\/Passport number are L5, the tag's default, so at L2 it looks under-classified\./,
    );
    assert.match(
      reasonFor({
        ...base,
        suggestion,
        expectedLevel: { level: 'L5', under: true, peers: 0, peersAtLevel: 0, isDefault: true },
      }),
      /^The default level of Personal\/Identity\/Passport number is L5, so at L2 it looks under-classified\./,
    );
    assert.match(
      reasonFor({
        ...base,
        suggestion,
        expectedLevel: { level: 'L5', under: true, peers: 1, peersAtLevel: 1, isDefault: true },
      }),
      /^The only other field tagged Personal\/Identity\/Passport number is L5, the tag's default, so at L2 it looks under-classified\./,
    );
    assert.match(
      reasonFor({ ...base, suggestion, expectedLevel: { level: 'L5', under: true, peers: 3, peersAtLevel: 3 } }),
      /^All 3 other fields tagged Personal\/Identity\/Passport number are L5, so at L2/,
    );
    assert.match(
      reasonFor({
        ...base,
        level: 'L5',
        classification: 'Personal/Identity/Passport number (L5)',
        terms: { ...zero, over: 3 },
        expectedLevel: { level: 'L3', under: false, peers: 5, peersAtLevel: 4 },
      }),
      /^4 of the 5 other fields tagged Personal\/Identity\/Passport number are L3, so at L5 it looks over-classified\./,
    );
  });

  it('explains a field that fits by its agreeing nearest field, and says a weak axis is no evidence against it', () => {
    const agreeing = reasonFor({
      classification: 'Personal/Name (L3)',
      scores: uniform(0.8),
      severity: 'low',
      nearest: {
        name: 'users.first_name',
        datasource: 'crm',
        similarity: 0.95,
        classification: 'Personal/Name (L3)',
        sameClassification: true,
      },
    });
    assert.equal(
      agreeing,
      'Nearest field `users.first_name` in crm (similarity 0.95) is Personal/Name (L3) too. Nothing points to another classification.',
    );
    const weak = reasonFor({
      classification: 'Technical/Status flag (L1)',
      tag: 'Technical/Status flag',
      level: 'L1',
      scores: { ...uniform(0.6), category_anchor: 0.01 },
      severity: 'low',
    });
    assert.equal(
      weak,
      'Nothing points to another classification, though its name, type and comment are far from what Technical/Status flag describes.',
    );
    const confirmed = reasonFor({
      classification: 'Personal/Name (L3)',
      scores: uniform(0.8),
      severity: 'low',
      confirmedUnchanged: true,
    });
    assert.match(
      confirmed,
      /^Confirmed by a reviewer as Personal\/Name \(L3\); its neighbourhood has not changed since\./,
    );
  });

  it('says a weak tag bar of a field at an unusual level in those terms: how few of its tag share its level', () => {
    const rare = reasonFor({
      classification: 'Personal/Contact/Email address (L1)',
      tag: 'Personal/Contact/Email address',
      level: 'L1',
      scores: { ...uniform(0.08), centroid: 0.6, nearest: 0.7 },
      severity: 'low',
      unusualLevel: { atLevel: 2, of: 57, usual: 'L3' },
    });
    assert.equal(
      rare,
      'Nothing points to another classification, though only 2 of the 57 other fields tagged Personal/Contact/Email address are L1; most are L3.',
    );
    const alone = reasonFor({
      classification: 'Personal/Contact/Email address (L1)',
      tag: 'Personal/Contact/Email address',
      level: 'L1',
      scores: { ...uniform(0.08), centroid: 0.6, nearest: 0.7 },
      severity: 'low',
      unusualLevel: { atLevel: 0, of: 57, usual: 'L3' },
    });
    assert.match(alone, /none of the 57 other fields tagged Personal\/Contact\/Email address is L1; most are L3\.$/);
    // The level bar itself keeps its own words.
    const centroid = reasonFor({
      classification: 'Personal/Contact/Email address (L1)',
      tag: 'Personal/Contact/Email address',
      level: 'L1',
      scores: { ...uniform(0.8), centroid: 0.05 },
      severity: 'low',
      unusualLevel: { atLevel: 2, of: 57, usual: 'L3' },
    });
    assert.match(centroid, /it looks more like fields at other levels than like those at L1\.$/);
  });

  it('never reads as a statistic, whatever the weakest axis', () => {
    for (const axis of AXIS_KEYS) {
      for (const severity of ['low', 'medium', 'high'] as const) {
        const text = reasonFor({
          classification: TS,
          tag: 'Technical/Timestamp',
          level: 'L1',
          scores: { ...uniform(0.7), [axis]: 0.02 },
          severity,
          terms: { ...zero, disagreement: 1 },
        });
        assert.doesNotMatch(text, STATISTIC, `${axis} ${severity}: ${text}`);
        assert.ok(text.length > 10);
      }
    }
  });
});

const EMAIL = 'Personal/Contact/Email address';
const TIMESTAMP = 'Technical/Timestamp';

describeEachDatabase('reasons the service stores', (kind) => {
  let t: TestApp;
  let token: string;
  let ids: string[];

  before(async () => {
    t = await buildTestApp(kind);
    token = await adminToken(t.app);
    const hrSource = await createDatasource(t.app, token, 'hr');
    const emails = ['email', 'email_address', 'contact_email', 'work_email', 'private_email', 'personal_email'];
    const times = ['created_at', 'updated_at', 'deleted_at', 'modified_at', 'inserted_at', 'processed_at'];
    const fields: FieldInput[] = [
      ...emails.map((f, i) => ({
        table_name: `employees_${i % 2}`,
        field_name: f,
        data_type: 'varchar',
        classification_chain_path: EMAIL,
      })),
      ...times.map((f, i) => ({
        table_name: `events_${i % 2}`,
        field_name: f,
        data_type: 'timestamp',
        classification_chain_path: TIMESTAMP,
      })),
      // Mislabelled: an e-mail column tagged as a timestamp.
      {
        table_name: 'employee_contacts',
        field_name: 'email',
        data_type: 'varchar',
        comment: 'e-mail address of the employee',
        classification_chain_path: TIMESTAMP,
      },
    ];
    ids = (await importOk(t.app, token, hrSource, fields)).field_ids;
    await t.app.services.metricsWorker.drain();
  });

  after(async () => {
    await t?.close();
  });

  it("names what the mislabelled field's neighbours are and what it is, in plain words; no reason reads as a statistic", async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/classify/fields/embedding-minibars',
      headers: bearer(token),
      payload: { field_ids: ids },
    });
    assert.equal(response.statusCode, 200, response.body);
    const items = response.json<{ items: Array<{ field_id: string; reason: string; severity: string }> }>().items;
    const wrong = items.find((i) => i.field_id === ids[ids.length - 1]);
    assert.ok(wrong && wrong.severity !== 'low', JSON.stringify(wrong));
    assert.match(
      wrong.reason,
      /nearest fields in hr are all Personal\/Contact\/Email address \(L\d\), the closest `employees_\d\.\w+` \(similarity 0\.\d\d\); it is Technical\/Timestamp \(L\d\)\./,
    );
    for (const item of items) assert.doesNotMatch(item.reason, STATISTIC, item.reason);
  });
});
