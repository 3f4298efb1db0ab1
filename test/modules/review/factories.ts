/** Small factories for review tests: fields through the catalog's import API, review calls, chain facts. */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Database } from '../../../src/db/database.js';
import { bearer, json } from '../../helpers/app.js';
import { createDatasource, importOk, manyFields } from '../fields/factories.js';

export interface FieldBody {
  id: string;
  classification_tag_id: number;
  classification_chain_path: string;
  level: string;
  lock_level: string | null;
  review_status: string;
  updated_at: string;
}

let batchCounter = 0;

/** A fresh data source with `count` unreviewed fields classified by `chainPath`; returns their ids. */
export async function newFields(
  app: FastifyInstance,
  token: string,
  count: number,
  chainPath = 'Technical/Record ID',
  datasourceId?: string,
): Promise<string[]> {
  batchCounter += 1;
  const source = datasourceId ?? (await createDatasource(app, token));
  const result = await importOk(app, token, source, manyFields(count, `r${batchCounter}`, chainPath));
  return result.field_ids;
}

export async function getField(app: FastifyInstance, token: string, id: string): Promise<FieldBody> {
  const response = await app.inject({ method: 'GET', url: `/api/v1/fields/${id}`, headers: bearer(token) });
  if (response.statusCode !== 200) throw new Error(`get field failed: ${response.statusCode} ${response.body}`);
  return json<FieldBody>(response);
}

export function confirm(
  app: FastifyInstance,
  token: string,
  id: string,
  body: unknown = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/api/v1/classify/fields/${id}/confirm`,
    headers: bearer(token),
    payload: body as object,
  });
}

export function batchConfirm(app: FastifyInstance, token: string, body: unknown): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/api/v1/classify/fields/batch-confirm',
    headers: bearer(token),
    payload: body as object,
  });
}

export function defer(app: FastifyInstance, token: string, id: string, body: unknown): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/api/v1/classify/fields/${id}/defer`,
    headers: bearer(token),
    payload: body as object,
  });
}

/** The audit head seq: grows by one per entry, so "nothing written" is "unchanged". */
export async function auditSeq(database: Database): Promise<number> {
  const head = await database.db.selectFrom('audit_head').select('seq').executeTakeFirstOrThrow();
  return Number(head.seq);
}

export interface EntryRow {
  seq: number;
  action: string;
  actor_id: string | null;
  target_id: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
}

/** Entries written after `afterSeq`, oldest first. */
export async function entriesSince(database: Database, afterSeq: number): Promise<EntryRow[]> {
  const rows = await database.db
    .selectFrom('audit_log')
    .selectAll()
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({
    seq: Number(r.seq),
    action: r.action,
    actor_id: r.actor_id,
    target_id: r.target_id,
    request_id: r.request_id,
    details: JSON.parse(r.details) as Record<string, unknown>,
  }));
}

/** The review columns straight from the table (what a failed call must leave untouched). */
export async function reviewColumns(database: Database, ids: readonly string[]) {
  return database.db
    .selectFrom('fields')
    .select([
      'id',
      'tag_id',
      'level',
      'locked',
      'review_status',
      'review_reason',
      'reviewed_at',
      'reviewed_by',
      'updated_at',
    ])
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
}
