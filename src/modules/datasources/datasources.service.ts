/**
 * Data sources: the systems whose fields are catalogued. Creating one counts against
 * the license quota, checked inside the inserting transaction; the built-in sample sources do not count.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database, Tx } from '../../db/database.js';
import type { DatasourceRow } from '../../db/schema.js';
import type { Caller } from '../../http/access.js';
import { notFound } from '../../http/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import type { FieldsService } from '../fields/fields.service.js';
import type { LicenseGate } from '../license/license.gate.js';
import * as repo from './datasources.repository.js';
import type { CreateDatasourceBody, DatasourceResponse } from './datasources.schemas.js';

function toDatasourceResponse(row: repo.DatasourceWithCount): DatasourceResponse {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    description: row.description,
    is_sample: row.is_sample === 1,
    field_count: row.field_count,
    created_at: row.created_at,
  };
}

export class DatasourcesService {
  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      audit: AuditService;
      gate: Pick<LicenseGate, 'assertCanCreate'>;
      /** The owner of the fields a data source holds (deleted with it). */
      fields: Pick<FieldsService, 'deleteFieldsOfDatasource'>;
    },
  ) {}

  private get db() {
    return this.deps.database.db;
  }

  /** All data sources with their field counts, oldest first. */
  async listDatasources(): Promise<DatasourceResponse[]> {
    return (await repo.listDatasources(this.db)).map(toDatasourceResponse);
  }

  /** The data source, or 404. */
  async getDatasource(id: string, trx?: Tx): Promise<DatasourceRow> {
    const row = await repo.findDatasourceById(trx ?? this.db, id);
    if (!row) throw notFound('Data source');
    return row;
  }

  /** Creates a data source; 409 on a duplicate name, 403 at the license's data-source quota. */
  async createDatasource(caller: Caller, body: CreateDatasourceBody): Promise<DatasourceResponse> {
    const now = this.deps.clock.now().toISOString();
    const row: DatasourceRow = {
      id: randomUUID(),
      name: body.name,
      type: body.type,
      description: body.description ?? null,
      is_sample: 0,
      created_at: now,
      updated_at: now,
    };
    await this.db.transaction().execute(async (trx) => {
      await this.deps.gate.assertCanCreate(trx, 'datasources');
      await repo.insertDatasource(trx, row);
      await this.deps.audit.record(trx, caller, {
        action: 'datasource.created',
        targetType: 'datasource',
        targetId: row.id,
        details: { name: row.name, type: row.type },
      });
    });
    return toDatasourceResponse({ ...row, field_count: 0 });
  }

  /** Deletes a data source and all its fields. */
  async deleteDatasource(caller: Caller, id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const existing = await repo.findDatasourceById(trx, id);
      if (!existing) throw notFound('Data source');
      const fields = await this.removeDatasource(trx, id);
      await this.deps.audit.record(trx, caller, {
        action: 'datasource.deleted',
        targetType: 'datasource',
        targetId: id,
        details: { name: existing.name, is_sample: existing.is_sample === 1, fields_removed: fields },
      });
    });
  }

  /** Data sources that count against the quota (sample sources do not); for the license gate, inside its transaction. */
  async countBillableDatasources(trx?: Tx): Promise<number> {
    return repo.countDatasources(trx ?? this.db, { billableOnly: true });
  }

  /** Whether any built-in sample data source exists. */
  async hasSampleData(trx?: Tx): Promise<boolean> {
    return (await repo.listSampleDatasources(trx ?? this.db)).length > 0;
  }

  /**
   * Inserts a sample data source (is_sample = 1, no quota check) inside the caller's transaction;
   * returns undefined when a source of that name already exists (a user's own source is never touched).
   */
  async insertSampleDatasource(trx: Tx, spec: { name: string; type: string; description: string }): Promise<DatasourceRow | undefined> {
    const now = this.deps.clock.now().toISOString();
    const row: DatasourceRow = { id: randomUUID(), name: spec.name, type: spec.type, description: spec.description, is_sample: 1, created_at: now, updated_at: now };
    if (await repo.findDatasourceByName(trx, spec.name)) return undefined;
    await repo.insertDatasource(trx, row);
    return row;
  }

  /** Deletes every sample data source and its fields inside the caller's transaction; returns their names and the number of fields removed. */
  async deleteSampleDatasources(trx: Tx): Promise<{ names: string[]; fields: number }> {
    const samples = await repo.listSampleDatasources(trx);
    let fields = 0;
    for (const source of samples) fields += await this.removeDatasource(trx, source.id);
    return { names: samples.map((s) => s.name), fields };
  }

  /** Deletes a data source and its fields (through their owner) in `trx`; returns how many fields went with it. */
  private async removeDatasource(trx: Tx, id: string): Promise<number> {
    const fields = await this.deps.fields.deleteFieldsOfDatasource(trx, id);
    if (!(await repo.deleteDatasource(trx, id))) throw notFound('Data source');
    return fields;
  }
}
