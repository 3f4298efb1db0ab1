/** Scans through the API: data sources with connections, starting and following scans, the catalog a scan wrote. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../../src/db/database.js';
import { bearer, json } from '../../helpers/app.js';

export interface ScanBody {
  id: string;
  datasource_id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  phase: string;
  progress: { tables_done: number; tables_total: number; fields_done: number; fields_total: number };
  counts: { new: number; changed: number; removed: number; unchanged: number; classified: number };
  error: string | null;
  requested_by: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

let counter = 0;

/** A folder for SQLite sources, to give as FIELDLENS_SCAN_SQLITE_DIR. */
export function sqliteScanDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'fl-scan-src-'));
}

export async function createScannable(
  app: FastifyInstance,
  token: string,
  connection: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<string> {
  counter += 1;
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/datasources',
    headers: bearer(token),
    payload: { name: `scanned-${process.pid}-${counter}`, type: String(connection.kind), connection, ...extra },
  });
  if (response.statusCode !== 201)
    throw new Error(`create data source failed: ${response.statusCode} ${response.body}`);
  return json<{ id: string }>(response).id;
}

export async function startScan(app: FastifyInstance, token: string, datasourceId: string): Promise<ScanBody> {
  const response = await app.inject({
    method: 'POST',
    url: `/api/v1/datasources/${datasourceId}/scans`,
    headers: bearer(token),
    payload: {},
  });
  if (response.statusCode !== 202) throw new Error(`start scan failed: ${response.statusCode} ${response.body}`);
  return json<ScanBody>(response);
}

export async function getScan(app: FastifyInstance, token: string, id: string): Promise<ScanBody> {
  const response = await app.inject({ method: 'GET', url: `/api/v1/scans/${id}`, headers: bearer(token) });
  if (response.statusCode !== 200) throw new Error(`get scan failed: ${response.statusCode} ${response.body}`);
  return json<ScanBody>(response);
}

/** Starts a scan and runs the worker until no scan is left; answers the scan as it ended. */
export async function scanNow(app: FastifyInstance, token: string, datasourceId: string): Promise<ScanBody> {
  const scan = await startScan(app, token, datasourceId);
  await app.services.scanWorker.drain();
  return getScan(app, token, scan.id);
}

/** Polls until the condition holds (the worker runs in the background); fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface CatalogField {
  id: string;
  table_name: string;
  field_name: string;
  data_type: string | null;
  comment: string | null;
  level: string;
  tag_id: number;
  locked: number;
  review_status: string;
  classification_source: string;
  format_signature: string | null;
}

/** The catalog's fields of a data source, by `table.field`. */
export async function catalog(database: Database, datasourceId: string): Promise<Map<string, CatalogField>> {
  const rows = await database.db
    .selectFrom('fields')
    .select([
      'id',
      'table_name',
      'field_name',
      'data_type',
      'comment',
      'level',
      'tag_id',
      'locked',
      'review_status',
      'classification_source',
      'format_signature',
    ])
    .where('datasource_id', '=', datasourceId)
    .execute();
  return new Map(rows.map((r) => [`${r.table_name}.${r.field_name}`, r as CatalogField]));
}

export async function auditOf(
  database: Database,
  action: string,
  targetId?: string,
): Promise<Array<{ target_id: string | null; actor_id: string | null; details: Record<string, unknown> }>> {
  let q = database.db.selectFrom('audit_log').select(['target_id', 'actor_id', 'details']).where('action', '=', action);
  if (targetId !== undefined) q = q.where('target_id', '=', targetId);
  const rows = await q.orderBy('seq').execute();
  return rows.map((r) => ({
    target_id: r.target_id,
    actor_id: r.actor_id,
    details: JSON.parse(r.details) as Record<string, unknown>,
  }));
}
