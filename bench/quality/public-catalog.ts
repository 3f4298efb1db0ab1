// The labelled public schemas of bench/classify/public as a quality catalog (public-seeded.ts, fit-public.ts): each
// schema one data source, each field at its first label's tag and that tag's default level, and which half of
// bench/classify's hash split each schema is in.
import { flattenTaxonomy, type LevelCode } from '../../src/modules/taxonomy/default-taxonomy.js';
import { loadPublicSets, type Half } from '../classify/sets.js';
import type { LabelledField } from './catalog.js';

/** The public schemas as a labelled catalog: each field at its first label's tag and that tag's default level. */
export function publicCatalog(): { fields: LabelledField[]; half: Map<string, Half> } {
  const defaults = new Map(flattenTaxonomy().map((t) => [t.chain_path, t.default_level]));
  const half = new Map<string, Half>();
  const fields: LabelledField[] = [];
  for (const set of loadPublicSets()) {
    half.set(set.source, set.half);
    for (const f of set.fields) {
      const chain = f.labels?.[0];
      const level = chain === undefined ? undefined : defaults.get(chain);
      if (chain === undefined || level === undefined) continue;
      fields.push({
        datasource: set.source,
        table_name: f.input.table_name,
        field_name: f.input.field_name,
        data_type: f.input.data_type ?? 'text',
        ...(f.input.comment ? { comment: f.input.comment } : {}),
        ...(f.input.sample_values ? { sample_values: f.input.sample_values.map(String) } : {}),
        chain_path: chain,
        level: level as LevelCode,
      });
    }
  }
  return { fields, half };
}
