import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  DEFAULT_SAMPLE_CATALOG_URL,
  loadSampleCatalog,
  parseSampleCatalog,
} from '../../../src/modules/sample-data/sample-catalog.js';
import { flattenTaxonomy, leafChainPaths } from '../../../src/modules/taxonomy/default-taxonomy.js';

const { datasources: sampleCatalog, corrections: sampleCatalogCorrections } = loadSampleCatalog();

const flat = flattenTaxonomy();
const leaves = new Set(leafChainPaths(flat));
const all = sampleCatalog.flatMap((s) => s.fields.map((f) => ({ source: s.name, ...f })));
const byKey = new Map(all.map((f) => [`${f.source}.${f.table_name}.${f.field_name}`, f]));
const top = (p: string): string => p.split('/')[0]!;
const parent = (p: string): string => p.slice(0, p.lastIndexOf('/'));

/** Lower-case word tokens of a column name: snake, camel, Pascal and UPPER_CASE. */
function tokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

test('at least 3 data sources and 400 fields', () => {
  assert.ok(sampleCatalog.length >= 3);
  assert.ok(all.length >= 400, `only ${all.length} fields`);
  for (const s of sampleCatalog) {
    assert.ok(s.name && s.type && s.description);
    assert.ok(s.fields.length >= 50, `${s.name} has ${s.fields.length} fields`);
  }
});

test('every classification is a leaf of the default taxonomy with a valid level', () => {
  for (const f of all) {
    assert.ok(
      leaves.has(f.classification_chain_path),
      `${f.source}.${f.table_name}.${f.field_name}: ${f.classification_chain_path}`,
    );
    assert.match(f.level, /^L[1-5]$/);
    assert.ok(f.data_type.length > 0);
  }
});

test('no duplicate (source, table, field)', () => {
  assert.equal(byKey.size, all.length);
});

test('6–8% of fields are seeded wrong, the same ones on every load', () => {
  const wrong = all.filter((f) => f.seeded_wrong);
  const share = wrong.length / all.length;
  assert.ok(share >= 0.06 && share <= 0.08, `share ${share}`);
  assert.equal(sampleCatalogCorrections.size, wrong.length);
});

/** The kinds of mistake the catalog seeds besides a tag of another top-level group (docs/catalog.md, answer key). */
const NEAR_MISSES = ['crm.contacts.postal_code', 'ecommerce.customers.lastname', 'billing.accounts.balance'];
const LEVEL_ONLY = ['hr.Employees.PassportNo', 'legacy_dwh.CUST_MSTR.DL_NO', 'ecommerce.customers.password'];
const SYSTEMATIC = [
  'legacy_dwh.CUST_MSTR.ADDR1',
  'legacy_dwh.CUST_MSTR.ADDR2',
  'legacy_dwh.CUST_MSTR.HOME_TEL',
  'legacy_dwh.CUST_MSTR.EMAIL_ADR',
];
const keyOf = (f: { source: string; table_name: string; field_name: string }): string =>
  `${f.source}.${f.table_name}.${f.field_name}`;

test('each seeded mistake is wrong in the way the answer key says', () => {
  for (const f of all.filter((x) => x.seeded_wrong)) {
    const key = keyOf(f);
    const truth = sampleCatalogCorrections.get(key);
    assert.ok(truth, `no correction for ${f.field_name}`);
    assert.ok(leaves.has(truth.chain_path));
    if (LEVEL_ONLY.includes(key)) {
      // Right tag, level two or more steps too low.
      assert.equal(truth.chain_path, f.classification_chain_path, key);
      assert.ok(Number(truth.level.slice(1)) - Number(f.level.slice(1)) >= 2, key);
    } else if (NEAR_MISSES.includes(key)) {
      assert.notEqual(truth.chain_path, f.classification_chain_path, key);
      assert.equal(parent(truth.chain_path), parent(f.classification_chain_path), key);
    } else if (SYSTEMATIC.includes(key)) {
      assert.equal(f.classification_chain_path, 'Technical/Log message', key);
      assert.equal(parent(truth.chain_path), 'Personal/Contact', key);
    } else assert.notEqual(top(truth.chain_path), top(f.classification_chain_path), key);
  }
  for (const key of [...NEAR_MISSES, ...LEVEL_ONLY, ...SYSTEMATIC])
    assert.equal(byKey.get(key)?.seeded_wrong, true, key);
});

test("no seeded-wrong field's name matches a keyword of the tag it was given (tag errors of another group)", () => {
  for (const f of all.filter(
    (x) =>
      x.seeded_wrong && top(sampleCatalogCorrections.get(keyOf(x))!.chain_path) !== top(x.classification_chain_path),
  )) {
    const keywords = new Set(flat.find((t) => t.chain_path === f.classification_chain_path)!.keywords);
    const words = tokens(f.field_name);
    assert.ok(!keywords.has(words.join(' ')), `${f.field_name} matches ${f.classification_chain_path}`);
    for (const w of words)
      assert.ok(!keywords.has(w), `${f.field_name}: "${w}" is a keyword of ${f.classification_chain_path}`);
  }
});

test('hand-checked mistakes: the name says one thing, the tag another', () => {
  const cases: Array<[string, string]> = [
    ['crm.contacts.email', 'Personal/Contact/Email address'],
    ['hr.Employees.SocialSecurityNumber', 'Personal/Identity/National ID number'],
    ['legacy_dwh.CUST_MSTR.SSN_NO', 'Personal/Identity/National ID number'],
    ['billing.payment_methods.card_number', 'Financial/Payment card number'],
    ['crm.users.password_hash', 'Credentials & secrets/Password hash'],
    ['legacy_dwh.EMP_MSTR.EMPDOB', 'Personal/Identity/Date of birth'],
  ];
  for (const [key, expected] of cases) {
    const f = byKey.get(key);
    assert.ok(f, key);
    assert.equal(f.seeded_wrong, true, key);
    assert.notEqual(f.classification_chain_path, expected, key);
    assert.equal(sampleCatalogCorrections.get(key)?.chain_path, expected, key);
  }
  assert.equal(byKey.get('crm.contacts.email')!.classification_chain_path, 'Technical/Timestamp');
  assert.equal(
    byKey.get('legacy_dwh.CUST_MSTR.SSN_NO')!.classification_chain_path,
    'Public reference data/Country code',
  );
});

test('correctly classified fields keep their expected tag', () => {
  const cases: Array<[string, string]> = [
    ['crm.leads.email', 'Personal/Contact/Email address'],
    ['ecommerce.customers.birthday', 'Personal/Identity/Date of birth'],
    ['hr.Payroll.TaxId', 'Personal/Identity/Tax identification number'],
    ['billing.countries.code', 'Public reference data/Country code'],
    ['ecommerce.coupons.code', 'Business/Commerce/Discount code'],
    ['legacy_dwh.ACCT_MSTR.ACCTNO', 'Financial/Bank account number'],
  ];
  for (const [key, expected] of cases) {
    const f = byKey.get(key);
    assert.ok(f, key);
    assert.equal(f.seeded_wrong, false, key);
    assert.equal(f.classification_chain_path, expected, key);
  }
});

test('sample values are synthetic', () => {
  const luhn = (s: string): boolean => {
    let sum = 0;
    for (let i = 0; i < s.length; i++) {
      let d = Number(s[s.length - 1 - i]);
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    return sum % 10 === 0;
  };
  for (const f of all) {
    for (const v of f.sample_values ?? []) {
      if (v.includes('@')) assert.match(v, /@example\.(com|org|net)$/, `${f.field_name}: ${v}`);
    }
    if (
      sampleCatalogCorrections.get(`${f.source}.${f.table_name}.${f.field_name}`)?.chain_path ===
        'Financial/Payment card number' ||
      (!f.seeded_wrong && f.classification_chain_path === 'Financial/Payment card number')
    ) {
      for (const v of f.sample_values ?? []) assert.ok(luhn(v), `${f.field_name}: ${v} fails Luhn`);
    }
  }
  assert.ok(all.filter((f) => f.sample_values).length > all.length / 2);
});

// The data file itself: what the loader refuses, so a broken edit of assets/sample-catalog.json fails at once.
const raw = (): {
  datasources: Array<{ name: string; tables: Array<{ name: string; fields: Array<Record<string, unknown>> }> }>;
} => JSON.parse(readFileSync(DEFAULT_SAMPLE_CATALOG_URL, 'utf8')) as ReturnType<typeof raw>;
const firstField = (data: ReturnType<typeof raw>): Record<string, unknown> =>
  data.datasources[0]!.tables[0]!.fields[0]!;

test('the data file in assets/ matches its schema and the default taxonomy', () => {
  const parsed = parseSampleCatalog(raw());
  assert.equal(parsed.datasources.length, sampleCatalog.length);
  assert.equal(parsed.corrections.size, sampleCatalogCorrections.size);
});

test('the loader rejects a field that breaks the schema, naming where', () => {
  const unknownKey = raw();
  firstField(unknownKey).tag = 'Personal';
  assert.throws(() => parseSampleCatalog(unknownKey), /schema: .*\/datasources\/0\/tables\/0\/fields\/0/);
  const badLevel = raw();
  firstField(badLevel).level = 'L9';
  assert.throws(() => parseSampleCatalog(badLevel), /\/datasources\/0\/tables\/0\/fields\/0\/level/);
  const noType = raw();
  delete firstField(noType).data_type;
  assert.throws(() => parseSampleCatalog(noType), /schema/);
  const numbers = raw();
  firstField(numbers).sample_values = [1, 2];
  assert.throws(() => parseSampleCatalog(numbers), /sample_values/);
  assert.throws(() => parseSampleCatalog({ datasources: [] }), /schema/);
});

test('the loader rejects a chain path that names no leaf tag of the default taxonomy', () => {
  for (const path of ['Personal/Contact/E-mail', 'Personal', '']) {
    const data = raw();
    firstField(data).classification_chain_path = path;
    assert.throws(() => parseSampleCatalog(data), /classification_chain_path/, path);
  }
  const wrongTruth = raw();
  firstField(wrongTruth).seeded_error = { correct_chain_path: 'Nowhere/At all', correct_level: 'L3' };
  assert.throws(() => parseSampleCatalog(wrongTruth), /correct_chain_path/);
  const notAnError = raw();
  const f = firstField(notAnError);
  f.seeded_error = { correct_chain_path: f.classification_chain_path, correct_level: 'L1' };
  assert.throws(() => parseSampleCatalog(notAnError), /no error/);
});

test('the loader rejects a field listed twice', () => {
  const data = raw();
  const fields = data.datasources[0]!.tables[0]!.fields;
  fields.push({ ...fields[0]! });
  assert.throws(() => parseSampleCatalog(data), /appears twice/);
});
