import Database from 'better-sqlite3';
const db = new Database(process.argv[2], { readonly: true });
const cols = `fields.id, fields.datasource_id, fields.table_name, fields.field_name, fields.data_type, fields.comment, fields.tag_id, fields.level, fields.locked, fields.review_status, fields.outlier_score, fields.severity, fields.classification_source, fields.classification_confidence, fields.classification_evidence, fields.suggested_tag_id, fields.suggested_level, fields.suggested_confidence, fields.risk, fields.last_scan_id, fields.scan_change, fields.created_at, fields.updated_at, tags.chain_path as c1, suggested.chain_path as c2`;
const from = `from fields inner join tags on tags.id = fields.tag_id left join tags as suggested on suggested.id = fields.suggested_tag_id`;
const fts = `(select rowid from fields_search where fields_search match '"email"')`;
const variants: Record<string, string> = {
  drive: `select ${cols} ${from} where fields.rowid in ${fts} order by fields.risk desc nulls last, fields.id desc limit 500`,
  drive_unrev: `select ${cols} ${from} where +fields.review_status = 'unreviewed' and fields.rowid in ${fts} order by fields.risk desc nulls last, fields.id desc limit 500`,
  walk: `select ${cols} ${from} where +fields.rowid in ${fts} order by fields.risk desc nulls last, fields.id desc limit 500`,
  walk_unrev: `select ${cols} ${from} where fields.review_status = 'unreviewed' and +fields.rowid in ${fts} order by fields.risk desc nulls last, fields.id desc limit 500`,
  walk_name: `select ${cols} ${from} where +fields.rowid in ${fts} order by fields.field_name, fields.id limit 500`,
  drive_name: `select ${cols} ${from} where fields.rowid in ${fts} order by fields.field_name, fields.id limit 500`,
  count: `select count(*) from (select 1 from fields_search where fields_search match '"email"' limit 2000)`,
  count_rare: `select count(*) from (select 1 from fields_search where fields_search match '"table_99."' limit 2000)`,
};
for (const [name, q] of Object.entries(variants)) {
  const st = db.prepare(q);
  const plan = db.prepare('explain query plan ' + q).all().map((r: any) => r.detail).join(' | ');
  const t: number[] = [];
  for (let i = 0; i < 9; i++) { const t0 = performance.now(); st.all(); t.push(performance.now() - t0); }
  t.sort((a, b) => a - b);
  console.log(name.padEnd(12), 'p50', t[4]!.toFixed(1), 'min', t[0]!.toFixed(1), 'rows', st.all().length, '\n   ', plan);
}
