/**
 * Reports over the catalog for a data-protection officer: what sensitive data is held, where, and how
 * much of it a person has checked. Read-only, from aggregate queries of the fields module (never by loading fields),
 * named through the data-source and taxonomy services.
 */
import type { Clock } from '../../clock.js';
import type { DatasourcesService } from '../datasources/datasources.service.js';
import type { FieldCatalogReader } from '../fields/field-catalog-reader.service.js';
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import type { InventoryResponse } from './reports.schemas.js';

export class ReportsService {
  constructor(
    private readonly deps: {
      clock: Clock;
      fields: Pick<FieldCatalogReader, 'countByDatasourceAndLevel' | 'countByTag'>;
      datasources: Pick<DatasourcesService, 'listDatasourceNames'>;
      taxonomy: Pick<TaxonomyService, 'listLevels' | 'tagIndex'>;
    },
  ) {}

  /** The inventory: totals, by level, by data source (levels, high risk), by tag (levels); two aggregate queries. */
  async inventory(): Promise<InventoryResponse> {
    const generatedAt = this.deps.clock.now().toISOString();
    const [cells, tagCounts, sources, index] = await Promise.all([
      this.deps.fields.countByDatasourceAndLevel(),
      this.deps.fields.countByTag(),
      this.deps.datasources.listDatasourceNames(),
      this.deps.taxonomy.tagIndex(),
    ]);
    const levels = this.deps.taxonomy.listLevels().map((l) => ({ code: l.code, name: l.name }));
    const zeroLevels = () => Object.fromEntries(levels.map((l) => [l.code, 0])) as Record<string, number>;

    const totals = { fields: 0, confirmed: 0, unreviewed: 0, deferred: 0 };
    const byLevel = new Map(levels.map((l) => [l.code, { level: l.code, fields: 0, confirmed: 0 }]));
    const bySource = new Map(
      sources.map((s) => [
        s.id,
        {
          datasource_id: s.id,
          name: s.name,
          is_sample: s.is_sample,
          fields: 0,
          confirmed: 0,
          by_level: zeroLevels(),
          high_risk: 0,
        },
      ]),
    );
    for (const cell of cells) {
      totals.fields += cell.fields;
      totals.confirmed += cell.confirmed;
      totals.deferred += cell.deferred;
      totals.unreviewed += cell.fields - cell.confirmed - cell.deferred;
      let level = byLevel.get(cell.level);
      if (!level) byLevel.set(cell.level, (level = { level: cell.level, fields: 0, confirmed: 0 }));
      level.fields += cell.fields;
      level.confirmed += cell.confirmed;
      // A data source deleted between the two reads has no fields any more: its cell is left out of by_datasource.
      const source = bySource.get(cell.datasource_id);
      if (!source) continue;
      source.fields += cell.fields;
      source.confirmed += cell.confirmed;
      source.by_level[cell.level] = (source.by_level[cell.level] ?? 0) + cell.fields;
      source.high_risk += cell.high_risk;
    }
    const tags = new Map<
      number,
      { tag_id: number; chain_path: string; fields: number; by_level: Record<string, number> }
    >();
    for (const cell of tagCounts) {
      let tag = tags.get(cell.tag_id);
      if (!tag)
        tags.set(
          cell.tag_id,
          (tag = {
            tag_id: cell.tag_id,
            chain_path: index.byId.get(cell.tag_id)?.chain_path ?? `#${cell.tag_id}`,
            fields: 0,
            by_level: zeroLevels(),
          }),
        );
      tag.fields += cell.fields;
      tag.by_level[cell.level] = (tag.by_level[cell.level] ?? 0) + cell.fields;
    }
    const byTag = [...tags.values()].sort(
      (a, b) => b.fields - a.fields || (a.chain_path < b.chain_path ? -1 : a.chain_path > b.chain_path ? 1 : 0),
    );
    return {
      generated_at: generatedAt,
      levels,
      totals,
      by_level: [...byLevel.values()],
      by_datasource: [...bySource.values()],
      by_tag: byTag,
    };
  }
}
