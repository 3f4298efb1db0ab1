/**
 * The trial's sample data: loads the built-in sample catalog (assets/sample-catalog.json) once per database and
 * removes it when a paid license is imported. It owns no table: data sources and fields are written through
 * their services, so the rules of an import (classification, embeddings, upsert) exist once.
 */
import type { Clock } from '../../clock.js';
import type { Database, Tx } from '../../db/database.js';
import { SYSTEM_ACTOR, type Actor, type AuditService } from '../audit/audit.service.js';
import type { DatasourcesService } from '../datasources/datasources.service.js';
import type { FieldsService } from '../fields/fields.service.js';
import { getSetting, putSetting } from '../../db/settings.js';
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import { loadSampleCatalog } from './sample-catalog.js';

/** Set once the sample data was loaded: removing it (or deleting its sources) must not bring it back at the next start. */
const SAMPLE_DATA_MARKER = 'sample_data.loaded';

export class SampleDataService {
  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      audit: AuditService;
      taxonomy: Pick<TaxonomyService, 'configuredLevel'>;
      datasources: Pick<DatasourcesService, 'hasSampleData' | 'insertSampleDatasource' | 'deleteSampleDatasources'>;
      fields: Pick<FieldsService, 'prepareFieldImport'>;
    },
  ) {}

  /**
   * Loads the sample catalog once per database: marked is_sample, not counted in quotas, audit-logged as
   * `sample_data.loaded`. Under a lock, so instances starting together load it once. Returns whether this call loaded it.
   */
  async ensureSampleData(): Promise<boolean> {
    const db = this.deps.database.db;
    // The common case (every start after the first) answers without a transaction.
    if ((await getSetting(db, SAMPLE_DATA_MARKER)) !== undefined || (await this.deps.datasources.hasSampleData()))
      return false;
    // Classification and embeddings first, outside the transaction (a few hundred fields): an instance that loses
    // the race below just drops them.
    const prepared = await Promise.all(
      loadSampleCatalog().datasources.map(async (source) => ({
        source,
        fields: await this.deps.fields.prepareFieldImport(
          source.fields.map((f) => ({
            table_name: f.table_name,
            field_name: f.field_name,
            data_type: f.data_type,
            comment: f.comment ?? null,
            ...(f.sample_values ? { sample_values: f.sample_values } : {}),
            classification_chain_path: f.classification_chain_path,
            level: this.deps.taxonomy.configuredLevel(f.level),
          })),
        ),
      })),
    );
    return db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.sample_data');
      if ((await getSetting(trx, SAMPLE_DATA_MARKER)) !== undefined || (await this.deps.datasources.hasSampleData(trx)))
        return false;
      const loaded: Array<{ name: string; fields: number }> = [];
      for (const { source, fields } of prepared) {
        // undefined when the user already has a source of that name: theirs is never touched.
        const datasource = await this.deps.datasources.insertSampleDatasource(trx, source);
        if (!datasource) continue;
        const result = await fields.writeInto(trx, datasource);
        loaded.push({ name: datasource.name, fields: result.field_ids.length });
      }
      const now = this.deps.clock.now();
      await putSetting(trx, SAMPLE_DATA_MARKER, now.toISOString(), now);
      await this.deps.audit.record(trx, SYSTEM_ACTOR, {
        action: 'sample_data.loaded',
        targetType: 'datasource',
        targetId: null,
        details: { datasources: loaded },
      });
      return true;
    });
  }

  /**
   * Deletes every sample data source and its fields inside the caller's transaction and records
   * `sample_data.removed` (when there was any). Called when a paid license is imported.
   */
  async removeSampleData(trx: Tx, actor: Actor): Promise<{ datasources: number; fields: number }> {
    const removed = await this.deps.datasources.deleteSampleDatasources(trx);
    if (removed.names.length > 0) {
      await this.deps.audit.record(trx, actor, {
        action: 'sample_data.removed',
        targetType: 'datasource',
        targetId: null,
        details: { datasources: removed.names, fields: removed.fields },
      });
    }
    return { datasources: removed.names.length, fields: removed.fields };
  }
}
