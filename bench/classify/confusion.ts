// Aggregate confusion (expected category → predicted leaf, counts only, no column names) for a shared set,
// so failure modes can be seen without reading individual held-out rows.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { flattenTaxonomy } from '../../src/modules/taxonomy/default-taxonomy.js';
import { buildClassifierContext, classifyField } from '../../src/modules/classifier/classifier.js';
const dir = process.env.FIELDLENS_EXTERNAL_LABELS ?? path.resolve(process.cwd(), '../shared/data/external-labels');
const ctx = buildClassifierContext(flattenTaxonomy().map((t, i) => ({ id: i + 1, chain_path: t.chain_path, default_level: t.default_level, keywords: t.keywords })));
const file = process.argv[2] as string;
const counts = new Map<string, number>();
for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const r = JSON.parse(line) as { table: string; column: string; data_type: string | null; sample_values?: unknown[]; fieldlens_category: string | null; is_personal: boolean | null };
  const out = classifyField({ table_name: r.table, field_name: r.column, data_type: r.data_type, sample_values: r.sample_values }, ctx);
  const key = `${r.fieldlens_category ?? (r.is_personal === false ? 'NEGATIVE' : 'unlabelled')} → ${out.chain_path}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
for (const [k, c] of [...counts].sort((a, b) => b[1] - a[1])) console.log(c, k);
