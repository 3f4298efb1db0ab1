// The rule set's pre-check (one union of all column and table patterns) must never change which rule decides: it
// answers exactly what trying every rule in order answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  compilePattern,
  compileRule,
  compileRuleSet,
  ruleOrder,
  type RuleMatch,
} from '../../../src/modules/rules/rule-matcher.js';

const build = (matches: RuleMatch[], priorities: number[]) => {
  const rules = matches.map((match, i) => {
    return compileRule({
      id: String(i),
      name: `r${i}`,
      tag_id: i + 1,
      level: null,
      priority: priorities[i] ?? 0,
      created_at: new Date(i * 1000).toISOString(),
      datasource_ids: null,
      match,
    });
  });
  return { set: compileRuleSet(rules), naive: [...rules].sort(ruleOrder) };
};

test('the rule set decides as trying each rule in priority order does', () => {
  const word = fc.constantFrom('card', 'kunde', 'nr', 'id', 'email', 'x', 'treue', 'bonus');
  const pattern = fc
    .tuple(
      fc.constantFrom('', '^'),
      word,
      fc.constantFrom('', '_?', '.*'),
      fc.option(word, { nil: '' }),
      fc.constantFrom('', '$'),
    )
    .map((p) => p.join(''));
  const match = fc
    .record(
      { column_name: fc.option(pattern, { nil: undefined }), table_name: fc.option(pattern, { nil: undefined }) },
      { requiredKeys: [] },
    )
    .filter((m) => m.column_name !== undefined || m.table_name !== undefined);
  const field = fc.record({
    table_name: fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join('_')),
    field_name: fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join('_')),
  });
  fc.assert(
    fc.property(
      fc.array(match, { minLength: 1, maxLength: 12 }),
      fc.array(fc.integer({ min: -2, max: 2 }), { maxLength: 12 }),
      fc.array(field, { minLength: 1, maxLength: 20 }),
      (matches, priorities, fields) => {
        const { set, naive } = build(matches as RuleMatch[], priorities);
        for (const f of fields) {
          const input = { ...f, datasource_id: null };
          assert.equal(set.decide(input)?.id, naive.find((r) => r.matches(input))?.id);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('higher priority first, then the older rule; patterns are case-insensitive', () => {
  const { set } = build([{ column_name: 'card' }, { column_name: '^CARD_NO$' }, { column_name: 'card' }], [0, 5, 0]);
  assert.equal(set.decide({ datasource_id: null, table_name: 't', field_name: 'card_no' })?.id, '1');
  assert.equal(set.decide({ datasource_id: null, table_name: 't', field_name: 'card_holder' })?.id, '0');
  assert.equal(set.decide({ datasource_id: null, table_name: 't', field_name: 'iban' }), undefined);
});

test('a union RE2 cannot compile (two rules naming the same group) falls back to trying each rule', () => {
  const { set } = build([{ column_name: '(?P<n>card)' }, { column_name: '(?P<n>iban)' }], [0, 0]);
  assert.equal(compilePattern('(?:(?P<n>card))|(?:(?P<n>iban))').ok, false);
  assert.equal(set.decide({ datasource_id: null, table_name: 't', field_name: 'iban' })?.id, '1');
});

test('patterns RE2 cannot run in linear time are refused, with the reason', () => {
  for (const p of ['(a)\\1', '(?=x)', '(?<!y)z']) {
    const compiled = compilePattern(p);
    assert.equal(compiled.ok, false, p);
  }
  assert.equal(compilePattern('(a+)+$').ok, true, 'nested repetition is fine: RE2 runs it in linear time');
});
