/** All SQL of the `datasources` table (field counts are read from `fields`, which the fields module writes). */
import type { Insertable, Updateable } from 'kysely';
import { isUniqueViolation, type Queryable } from '../../db/database.js';
import type { DatasourceRow, DatasourcesTable } from '../../db/schema.js';
import { conflict } from '../../http/errors.js';

export type DatasourceWithCount = DatasourceRow & { field_count: number };

function withFieldCount(db: Queryable) {
  return db
    .selectFrom('datasources')
    .selectAll('datasources')
    .select((eb) =>
      eb
        .selectFrom('fields')
        .select((inner) => inner.fn.countAll<number>().as('n'))
        .whereRef('fields.datasource_id', '=', 'datasources.id')
        .as('field_count'),
    );
}

export async function listDatasources(db: Queryable): Promise<DatasourceWithCount[]> {
  const rows = await withFieldCount(db).orderBy('datasources.created_at').orderBy('datasources.id').execute();
  return rows.map((r) => ({ ...r, field_count: Number(r.field_count ?? 0) }));
}

export async function findDatasourceWithCount(db: Queryable, id: string): Promise<DatasourceWithCount | undefined> {
  const row = await withFieldCount(db).where('datasources.id', '=', id).executeTakeFirst();
  return row && { ...row, field_count: Number(row.field_count ?? 0) };
}

/** Id, name and sample flag of every data source (no field counts: for naming sources in exports and reports). */
export async function listDatasourceNames(
  db: Queryable,
): Promise<Array<{ id: string; name: string; is_sample: boolean }>> {
  const rows = await db.selectFrom('datasources').select(['id', 'name', 'is_sample']).orderBy('name').execute();
  return rows.map((r) => ({ id: r.id, name: r.name, is_sample: Number(r.is_sample) === 1 }));
}

export async function findDatasourceById(db: Queryable, id: string): Promise<DatasourceRow | undefined> {
  return db.selectFrom('datasources').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findDatasourceByName(db: Queryable, name: string): Promise<DatasourceRow | undefined> {
  return db.selectFrom('datasources').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function insertDatasource(db: Queryable, row: Insertable<DatasourcesTable>): Promise<void> {
  try {
    await db.insertInto('datasources').values(row).execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A data source named "${row.name}" already exists`);
    throw error;
  }
}

export async function updateDatasource(db: Queryable, id: string, update: Updateable<DatasourcesTable>): Promise<void> {
  try {
    await db.updateTable('datasources').set(update).where('id', '=', id).execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A data source named "${update.name ?? ''}" already exists`);
    throw error;
  }
}

/** Data sources with a connection and a scan interval: the ones scanned periodically. */
export async function listScheduledDatasources(
  db: Queryable,
): Promise<Array<{ id: string; scan_interval_hours: number }>> {
  const rows = await db
    .selectFrom('datasources')
    .select(['id', 'scan_interval_hours'])
    .where('scan_interval_hours', 'is not', null)
    .where('connection', 'is not', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, scan_interval_hours: Number(r.scan_interval_hours) }));
}

/** Deletes the data source row (its fields are deleted first, by the fields module); whether it existed. */
export async function deleteDatasource(db: Queryable, id: string): Promise<boolean> {
  const result = await db.deleteFrom('datasources').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function countDatasources(db: Queryable, options: { billableOnly: boolean }): Promise<number> {
  let query = db.selectFrom('datasources').select((eb) => eb.fn.countAll<number>().as('n'));
  if (options.billableOnly) query = query.where('is_sample', '=', 0);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

export async function listSampleDatasources(db: Queryable): Promise<DatasourceRow[]> {
  return db.selectFrom('datasources').selectAll().where('is_sample', '=', 1).orderBy('name').execute();
}

/** Which of the given ids name a data source. */
export async function existingDatasourceIds(db: Queryable, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('datasources').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}
