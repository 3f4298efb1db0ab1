/** Small factories for catalog tests: data sources and fields through the API, counts straight from the database. */
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../../src/db/database.js';
import { bearer, json } from '../../helpers/app.js';

let sourceCounter = 0;

export interface FieldInput {
  table_name: string;
  field_name: string;
  data_type?: string | null;
  comment?: string | null;
  sample_values?: string[];
  classification_tag_id?: number | null;
  classification_chain_path?: string | null;
  level?: string | null;
}

export async function createDatasource(app: FastifyInstance, token: string, name?: string): Promise<string> {
  sourceCounter += 1;
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/datasources',
    headers: bearer(token),
    payload: { name: name ?? `source-${process.pid}-${sourceCounter}`, type: 'postgresql' },
  });
  if (response.statusCode !== 201)
    throw new Error(`create data source failed: ${response.statusCode} ${response.body}`);
  return json<{ id: string }>(response).id;
}

export async function importFields(app: FastifyInstance, token: string, datasourceId: string, fields: FieldInput[]) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/fields/import',
    headers: bearer(token),
    payload: { datasource_id: datasourceId, fields },
  });
}

export async function importOk(
  app: FastifyInstance,
  token: string,
  datasourceId: string,
  fields: FieldInput[],
): Promise<{ created: number; updated: number; field_ids: string[] }> {
  const response = await importFields(app, token, datasourceId, fields);
  if (response.statusCode !== 200) throw new Error(`import failed: ${response.statusCode} ${response.body}`);
  return json(response);
}

/** `count` plain fields spread over a few tables, classified by path so no embedding lookup decides them. */
export function manyFields(count: number, prefix = 'f', chainPath = 'Technical/Record ID'): FieldInput[] {
  return Array.from({ length: count }, (_, i) => ({
    table_name: `${prefix}_table_${i % 7}`,
    field_name: `${prefix}_col_${i}`,
    data_type: 'text',
    classification_chain_path: chainPath,
  }));
}

export async function countRows(
  database: Database,
  table: 'fields' | 'datasources' | 'tags' | 'audit_log',
): Promise<number> {
  const row = await database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function auditActions(
  database: Database,
  action: string,
): Promise<Array<{ target_id: string | null; details: Record<string, unknown> }>> {
  const rows = await database.db
    .selectFrom('audit_log')
    .select(['target_id', 'details'])
    .where('action', '=', action)
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({ target_id: r.target_id, details: JSON.parse(r.details) as Record<string, unknown> }));
}
