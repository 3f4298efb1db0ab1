import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildQualityCatalog, seededFlips, QUALITY_DOMAINS, type LabelledField } from '../../bench/quality/catalog.js';
import { mulberry32 } from '../../bench/support/random.js';
import { flattenTaxonomy, leafChainPaths } from '../../src/modules/taxonomy/default-taxonomy.js';

const SEED = 42;
const catalog = buildQualityCatalog(SEED);
const flat = flattenTaxonomy();
const leaves = new Set(leafChainPaths(flat));
const top = (p: string): string => p.split('/')[0]!;
const key = (f: LabelledField): string => `${f.datasource}\u0000${f.table_name}\u0000${f.field_name}`;
const names = new Set(catalog.map((f) => f.field_name));
const find = (table: string, field: string): LabelledField[] =>
  catalog.filter((f) => f.table_name === table && f.field_name === field);

test('mulberry32 is deterministic and uniform enough', () => {
  const a = mulberry32(7);
  const b = mulberry32(7);
  const xs = Array.from({ length: 1000 }, () => a());
  assert.deepEqual(
    xs.slice(0, 10),
    Array.from({ length: 10 }, () => b()),
  );
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  assert.ok(Math.abs(mean - 0.5) < 0.05, `mean ${mean}`);
  assert.notEqual(mulberry32(8)(), mulberry32(7)());
});

test('at least 1,200 fields for several seeds', () => {
  for (const seed of [1, 2, SEED, 99999]) assert.ok(buildQualityCatalog(seed).length >= 1200, `seed ${seed}`);
});

test('deterministic for a seed, different for another', () => {
  assert.deepEqual(buildQualityCatalog(SEED), catalog);
  assert.notDeepEqual(buildQualityCatalog(SEED + 1), catalog);
});

test('(datasource, table, field) is unique', () => {
  assert.equal(new Set(catalog.map(key)).size, catalog.length);
  for (const seed of [1, 2, 3]) {
    const c = buildQualityCatalog(seed);
    assert.equal(new Set(c.map(key)).size, c.length, `seed ${seed}`);
  }
});

test('labels are leaves of the default taxonomy with valid levels, and most leaves are used', () => {
  for (const f of catalog) {
    assert.ok(leaves.has(f.chain_path), f.chain_path);
    assert.match(f.level, /^L[1-5]$/);
    assert.ok(f.data_type.length > 0);
  }
  const used = new Set(catalog.map((f) => f.chain_path));
  assert.ok(used.size >= leaves.size * 0.9, `${used.size} of ${leaves.size} leaves used`);
  const groups = new Set(catalog.map((f) => top(f.chain_path)));
  assert.equal(groups.size, 8);
  // No single tag dominates: the biggest stays under 15% of the catalog.
  const counts = new Map<string, number>();
  for (const f of catalog) counts.set(f.chain_path, (counts.get(f.chain_path) ?? 0) + 1);
  assert.ok(Math.max(...counts.values()) < catalog.length * 0.15);
});

test('spans at least 8 domains, each with several data sources', () => {
  assert.ok(QUALITY_DOMAINS.length >= 8);
  const perDomain = new Map<string, Set<string>>();
  for (const f of catalog) {
    const domain = f.datasource.split('_')[0]!;
    assert.ok(QUALITY_DOMAINS.includes(domain), f.datasource);
    perDomain.set(domain, (perDomain.get(domain) ?? new Set()).add(f.datasource));
  }
  assert.ok(perDomain.size >= 8, `${perDomain.size} domains`);
  for (const [d, sources] of perDomain) assert.ok(sources.size >= 3, `${d}: ${sources.size} sources`);
});

test('contains every naming style', () => {
  const some = (re: RegExp, what: string, min = 20): void => {
    const n = catalog.filter((f) => re.test(f.field_name)).length;
    assert.ok(n >= min, `${what}: ${n}`);
  };
  some(/^[a-z]+(_[a-z0-9]+)+$/, 'snake_case');
  some(/^[a-z]+([A-Z][a-z0-9]+)+$/, 'camelCase');
  some(/^([A-Z][a-z0-9]+){2,}$/, 'PascalCase');
  some(/^[A-Z]+(_[A-Z0-9]+)+$/, 'UPPER_CASE');
  some(/^(str|sz|int|lng|dbl|cur|dec|dt|dte|dtm|mem|txt|ch|bln|b|n|guid|bin)[A-Z][A-Za-z0-9]*$/, 'Hungarian');
  some(/^[A-Z0-9]{2,8}$/, 'legacy 8-char');
  some(/[\u3040-\u30ff\u4e00-\u9fff]/, 'CJK', 30);
  // Examples, for this seed.
  for (const n of [
    'ACCTNO',
    'EMPDOB',
    'CUSTNO',
    'szName',
    'strFullName',
    'strFirstName',
    'birthDate',
    'DateOfBirth',
    'DATE_OF_BIRTH',
    'date_of_birth',
  ])
    assert.ok(names.has(n), n);
  for (const seed of [1, 2, 3]) {
    const legacy = buildQualityCatalog(seed).map((f) => f.field_name);
    assert.ok(
      legacy.some((n) => /^(CUST|EMP|PAT|CTZ|PH)(DOB|BDT|BRTHDT)$/.test(n)),
      `seed ${seed}: legacy date of birth such as EMPDOB`,
    );
    assert.ok(
      legacy.some((n) => /^[A-Z]{2,4}NM$/.test(n)),
      `seed ${seed}: legacy name such as CUSTNM`,
    );
  }
  // Spare columns carry their meaning only in the comment.
  const spare = catalog.filter((f) => /^(UDF|ATTR|FLD|USRDEF)\d$/.test(f.field_name));
  assert.ok(spare.length >= 10, `spare columns: ${spare.length}`);
  assert.ok(spare.every((f) => f.comment && f.comment.length > 1));
});

test('contains non-English names with the right labels', () => {
  const expect = (field: string, path: string): void => {
    const hits = catalog.filter((f) => f.field_name === field);
    assert.ok(hits.length > 0, `${field} missing`);
    for (const f of hits) assert.equal(f.chain_path, path, `${f.datasource}.${f.table_name}.${field}`);
  };
  expect('geburtsdatum', 'Personal/Identity/Date of birth');
  expect('date_naissance', 'Personal/Identity/Date of birth');
  expect('adresse_courriel', 'Personal/Contact/Email address');
  expect('correo', 'Personal/Contact/Email address');
  expect('telefono', 'Personal/Contact/Phone number');
  expect('電話番号', 'Personal/Contact/Phone number');
  expect('生年月日', 'Personal/Identity/Date of birth');
  expect('身份证号', 'Personal/Identity/National ID number');
  assert.ok(catalog.some((f) => f.field_name === 'strasse' || f.field_name === 'anschrift'));
});

test('ambiguous names are resolved by their table', () => {
  const label = (table: string, field: string): string[] => [...new Set(find(table, field).map((f) => f.chain_path))];
  assert.deepEqual(label('credit_cards', 'number'), ['Financial/Payment card number']);
  assert.deepEqual(label('orders', 'number'), ['Business/Commerce/Order ID']);
  assert.deepEqual(label('countries', 'code'), ['Public reference data/Country code']);
  assert.deepEqual(label('discount_codes', 'code'), ['Business/Commerce/Discount code']);
  assert.deepEqual(label('products', 'name'), ['Public reference data/Public product description']);
  assert.deepEqual(label('patients', 'name'), ['Personal/Identity/Full name']);
  assert.deepEqual(label('lab_results', 'value'), ['Health/Lab result']);
});

test('realistic data types, comments on a portion, synthetic samples', () => {
  const types = new Set(catalog.map((f) => f.data_type));
  for (const t of ['varchar(255)', 'nvarchar(max)', 'VARCHAR2(60)', 'STRING', 'timestamptz', 'DATE'])
    assert.ok(types.has(t), t);
  const withComment = catalog.filter((f) => f.comment).length / catalog.length;
  assert.ok(withComment > 0.04 && withComment < 0.5, `comments on ${withComment}`);
  const withSamples = catalog.filter((f) => f.sample_values?.length).length / catalog.length;
  assert.ok(withSamples > 0.3 && withSamples < 0.8, `samples on ${withSamples}`);
  for (const f of catalog)
    for (const v of f.sample_values ?? []) if (v.includes('@')) assert.match(v, /@example\.(com|org|net)$/);
  assert.ok(find('customers', 'email').every((f) => f.level === 'L3'));
  assert.ok(
    catalog.some((f) => f.chain_path === 'Personal/Contact/City' && f.level === 'L1'),
    'context-dependent levels (store city)',
  );
});

test('seededFlips flips exactly 10% to another top-level group with its default level', () => {
  const levels = new Map(flat.map((t) => [t.chain_path, t.default_level]));
  const { fields, flipped } = seededFlips(catalog, 0.1, 7);
  assert.equal(fields.length, catalog.length);
  assert.equal(flipped.length, catalog.length);
  assert.equal(flipped.filter(Boolean).length, Math.round(catalog.length * 0.1));
  for (let i = 0; i < catalog.length; i++) {
    const before = catalog[i]!;
    const after = fields[i]!;
    assert.equal(key(after), key(before));
    if (flipped[i]) {
      assert.notEqual(top(after.chain_path), top(before.chain_path));
      assert.ok(leaves.has(after.chain_path));
      assert.equal(after.level, levels.get(after.chain_path));
    } else {
      assert.deepEqual(after, before);
    }
  }
  // Input untouched, output deterministic, a different seed flips different fields.
  assert.deepEqual(catalog, buildQualityCatalog(SEED));
  assert.deepEqual(seededFlips(catalog, 0.1, 7), { fields, flipped });
  assert.notDeepEqual(seededFlips(catalog, 0.1, 8).flipped, flipped);
});

test('seededFlips rounds the share and handles edge cases', () => {
  const small = catalog.slice(0, 25);
  assert.equal(seededFlips(small, 0.1, 1).flipped.filter(Boolean).length, 3);
  assert.equal(seededFlips(small, 0, 1).flipped.filter(Boolean).length, 0);
  assert.equal(seededFlips(small, 1, 1).flipped.filter(Boolean).length, 25);
  assert.deepEqual(seededFlips([], 0.1, 1), { fields: [], flipped: [] });
});
