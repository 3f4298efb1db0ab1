import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  defaultTaxonomy,
  flattenTaxonomy,
  leafChainPaths,
  type DefaultTagSpec,
} from '../../../src/modules/taxonomy/default-taxonomy.js';

const flat = flattenTaxonomy();
const LEVELS = new Set(['L1', 'L2', 'L3', 'L4', 'L5']);

test('tag names contain no slash and are not blank', () => {
  for (const t of flat) {
    assert.ok(!t.name.includes('/'), `name with slash: ${t.name}`);
    assert.equal(t.name.trim(), t.name);
    assert.ok(t.name.length > 0);
  }
});

test('chain paths are unique and built from the parent path', () => {
  const paths = flat.map((t) => t.chain_path);
  assert.equal(new Set(paths).size, paths.length);
  for (const t of flat) {
    if (t.parent_path === null) assert.equal(t.chain_path, t.name);
    else assert.equal(t.chain_path, `${t.parent_path}/${t.name}`);
  }
});

test('flattenTaxonomy lists every parent before its children', () => {
  const seen = new Set<string>();
  for (const t of flat) {
    if (t.parent_path !== null) assert.ok(seen.has(t.parent_path), `${t.chain_path} before its parent`);
    seen.add(t.chain_path);
  }
});

// The cap keeps the tree reviewable: every leaf is a choice a reviewer reads. It was raised from 90 to 100 when the
// classifier needed answers real schemas hold that had no leaf (Age, Marital status, Time zone, File reference).
test('size and shape: 8 top-level groups, 2–3 levels deep, roughly 50–100 tags', () => {
  const tops = flat.filter((t) => t.parent_path === null).map((t) => t.name);
  assert.deepEqual(tops, [
    'Personal',
    'Credentials & secrets',
    'Financial',
    'Health',
    'Location',
    'Business',
    'Technical',
    'Public reference data',
  ]);
  assert.ok(flat.length >= 50 && flat.length <= 100, `tag count ${flat.length}`);
  const depths = flat.map((t) => t.chain_path.split('/').length);
  assert.equal(Math.max(...depths), 3);
  for (const leaf of leafChainPaths(flat)) assert.ok(leaf.split('/').length >= 2, `top-level leaf ${leaf}`);
});

test('every tag has a level, a one-sentence description and keywords; leaves have 5–15', () => {
  const leaves = new Set(leafChainPaths(flat));
  for (const t of flat) {
    assert.ok(LEVELS.has(t.default_level), `${t.chain_path} level`);
    assert.match(t.description, /^[A-Z].*\.$/, `${t.chain_path} description`);
    assert.ok(t.keywords.length > 0, `${t.chain_path} keywords`);
    assert.equal(new Set(t.keywords).size, t.keywords.length, `${t.chain_path} duplicate keywords`);
    if (leaves.has(t.chain_path))
      assert.ok(t.keywords.length >= 5 && t.keywords.length <= 15, `${t.chain_path} has ${t.keywords.length} keywords`);
  }
});

test('leaf names are unique, so a leaf can be named without its path', () => {
  const leaves = leafChainPaths(flat).map((p) => p.split('/').at(-1));
  assert.equal(new Set(leaves).size, leaves.length);
});

test('well-known tags exist with sensible default levels', () => {
  const level = (path: string): string | undefined => flat.find((t) => t.chain_path === path)?.default_level;
  assert.equal(level('Personal/Contact/Email address'), 'L3');
  assert.equal(level('Personal/Identity/National ID number'), 'L5');
  assert.equal(level('Credentials & secrets/Password hash'), 'L5');
  assert.equal(level('Financial/Payment card number'), 'L5');
  assert.equal(level('Health/Diagnosis'), 'L5');
  assert.equal(level('Technical/Timestamp'), 'L1');
  assert.equal(level('Public reference data/Country code'), 'L1');
  assert.equal(level('Business/Commerce/Order ID'), 'L2');
  assert.equal(level('Personal/Identity/Age'), 'L3');
  assert.equal(level('Personal/Identity/Marital status'), 'L3');
  assert.equal(level('Technical/File reference'), 'L2');
  assert.equal(level('Public reference data/Time zone'), 'L1');
});

test('keywords include the abbreviations real schemas use', () => {
  const kw = (path: string): string[] => flat.find((t) => t.chain_path === path)?.keywords ?? [];
  assert.ok(kw('Personal/Identity/Date of birth').includes('dob'));
  assert.ok(kw('Personal/Identity/National ID number').includes('ssn'));
  assert.ok(kw('Personal/Contact/Phone number').includes('tel'));
  assert.ok(kw('Personal/Contact/Postal address').includes('addr'));
  assert.ok(kw('Financial/Monetary amount').includes('amt'));
  assert.ok(kw('Financial/Bank account number').includes('acct no'));
});

test('flattenTaxonomy works on a custom tree and copies keywords', () => {
  const custom: DefaultTagSpec[] = [
    {
      name: 'A',
      default_level: 'L2',
      description: 'A.',
      keywords: ['a'],
      children: [{ name: 'B', default_level: 'L4', description: 'B.', keywords: ['b'] }],
    },
  ];
  const out = flattenTaxonomy(custom);
  assert.deepEqual(
    out.map((t) => [t.chain_path, t.parent_path, t.default_level]),
    [
      ['A', null, 'L2'],
      ['A/B', 'A', 'L4'],
    ],
  );
  out[1]!.keywords.push('mutated');
  assert.deepEqual(custom[0]!.children![0]!.keywords, ['b']);
  assert.equal(defaultTaxonomy.length, 8);
});
