// Rules benchmark (issue 26): what 200 classification rules cost on top of the classifier, per field, on the labelled
// public schemas' columns (with their embeddings and samples, as an import classifies them), in one run:
//   - the classifier alone (classifyField),
//   - the rule set's decision alone (200 rules with column and table patterns, as an organisation would write them),
//   - the rule set tried naively (every rule's matches(), without the union pre-check),
// interleaved over rounds so a burst of load elsewhere on the machine hits all three alike.
//
//   npx tsx bench/rules.ts [--rounds 5] [--rules 200]
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createEmbedder } from '../src/embeddings/embedder.js';
import { buildClassifierContext, classifyField } from '../src/modules/classifier/classifier.js';
import { compileRule, compileRuleSet, ruleOrder, type RuleMatch } from '../src/modules/rules/rule-matcher.js';
import { flattenTaxonomy } from '../src/modules/taxonomy/default-taxonomy.js';
import { loadPublicSets } from './classify/sets.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, rules: { type: 'string', default: '200' } },
});
const rounds = Number(values.rounds);
const ruleCount = Number(values.rules);

const flat = flattenTaxonomy();
const embedder = createEmbedder({ provider: 'builtin' });
const anchors = await embedder.embedTexts(
  flat.map((t) => [t.name, t.chain_path.split('/').join(' '), t.description, t.keywords.join(', ')].join('. ')),
);
const ctx = buildClassifierContext(
  flat.map((t, i) => ({
    id: i + 1,
    chain_path: t.chain_path,
    default_level: t.default_level,
    keywords: t.keywords,
    anchor: anchors[i] as Float32Array,
  })),
);
const fields = loadPublicSets().flatMap((s) => s.fields.map((f) => f.input));
const embeddings = await embedder.embedTexts(
  fields.map((f) => `${f.table_name} ${f.field_name} ${f.data_type ?? ''} ${f.comment ?? ''}`),
);
const inputs = fields.map((f, i) => ({ ...f, embedding: embeddings[i] as Float32Array }));

// Rules of the shapes organisations write: a column pattern (prefixes, alternations, anchored codes), half with a
// table pattern, a fifth with a type family, none matching most columns.
const words = [
  'treuekarte',
  'bonus',
  'kunden',
  'member',
  'loyalty',
  'vertrag',
  'policy',
  'claim',
  'patient',
  'badge',
  'locker',
  'vehicle',
  'plate',
  'iban',
  'tax',
];
const compiled = Array.from({ length: ruleCount }, (_, i) => {
  const w = words[i % words.length] as string;
  const match: RuleMatch = {
    column_name: i % 3 === 0 ? `^${w}_?(nr|no|num|id)_${i}$` : i % 3 === 1 ? `(${w}|${w}s)_code_${i}` : `^x${i}_${w}`,
    ...(i % 2 === 0 ? { table_name: `^(${w}|${w}_${i})` } : {}),
    ...(i % 5 === 0 ? { data_type_family: ['text' as const] } : {}),
  };
  return compileRule({
    id: String(i),
    name: `rule ${i}`,
    tag_id: 1,
    level: null,
    priority: i % 7,
    created_at: new Date(i).toISOString(),
    datasource_ids: null,
    match,
  });
});
const set = compileRuleSet(compiled);
const naive = [...compiled].sort(ruleOrder);

const time = (f: () => number): { us: number; hits: number } => {
  const t0 = performance.now();
  const hits = f();
  return { us: ((performance.now() - t0) * 1000) / inputs.length, hits };
};
const results: Record<'classifier' | 'set' | 'naive', number[]> = { classifier: [], set: [], naive: [] };
let hits = 0;
for (let r = 0; r < rounds; r++) {
  results.classifier.push(
    time(() => inputs.reduce((n, f) => n + (classifyField(f, ctx).confidence > 0 ? 1 : 0), 0)).us,
  );
  const s = time(() => inputs.reduce((n, f) => n + (set.decide({ ...f, datasource_id: null }) ? 1 : 0), 0));
  results.set.push(s.us);
  hits = s.hits;
  results.naive.push(
    time(() =>
      inputs.reduce((n, f) => n + (naive.some((rule) => rule.matches({ ...f, datasource_id: null })) ? 1 : 0), 0),
    ).us,
  );
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const [c, s, n] = [median(results.classifier), median(results.set), median(results.naive)];
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, node ${process.version}, load ${os.loadavg()[0]?.toFixed(2)}; ${inputs.length} columns, ${ruleCount} rules, median of ${rounds} rounds`,
);
console.log('| per field | µs | vs the classifier |');
console.log('|---|---:|---:|');
console.log(`| classifier (classifyField) | ${c.toFixed(1)} | 100 % |`);
console.log(`| ${ruleCount} rules, rule set (union pre-check) | ${s.toFixed(1)} | ${((s / c) * 100).toFixed(1)} % |`);
console.log(`| ${ruleCount} rules, each rule tried | ${n.toFixed(1)} | ${((n / c) * 100).toFixed(1)} % |`);
console.log(`columns a rule took: ${hits}`);
