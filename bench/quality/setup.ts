// Shared by run.ts and fit.ts: the labelled catalog with a seeded share of labels flipped, imported through the real
// FieldsService on a temporary SQLite database, with the metrics worker drained.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { SYSTEM_ACTOR } from '../../src/modules/audit/audit.service.js';
import type { OutlierInput } from '../../src/modules/metrics/outlier-model.js';
import { buildQualityCatalog, seededErrors, type ErrorMode, type LabelledField } from './catalog.js';

export interface ImportedCatalog {
  app: Awaited<ReturnType<typeof buildApp>>;
  database: Database;
  fields: LabelledField[];
  flipped: boolean[];
  /** Field id of fields[i]. */
  ids: string[];
  dataSources: number;
  importSeconds: number;
  drainSeconds: number;
  close(): Promise<void>;
}

/** A fresh service on a temporary SQLite database (no sample data), bootstrapped; close() removes it. */
export async function openQualityApp(
  prepare?: (worker: Awaited<ReturnType<typeof buildApp>>['services']['metricsWorker']) => void,
): Promise<{
  app: Awaited<ReturnType<typeof buildApp>>;
  database: Database;
  close(): Promise<void>;
}> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-quality-'));
  const config = loadConfig({
    DATABASE_URL: `sqlite:${path.join(dir, 'q.db')}`,
    FIELDLENS_SAMPLE_DATA: 'off',
    FIELDLENS_ADMIN_PASSWORD: 'quality-bench-passphrase-0001',
    LOG_LEVEL: 'warn',
  });
  const database = openDatabase(config.database);
  const app = await buildApp({ config, database, logStream: pino.destination(2) });
  await app.services.bootstrap();
  prepare?.(app.services.metricsWorker);
  const close = async (): Promise<void> => {
    await app.close();
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { app, database, close };
}

/** Adds a data source directly, as a sample source so that the trial's quota of 3 does not apply; its fields go through the service. */
export async function addBenchDataSource(database: Database, name: string): Promise<string> {
  const id = randomUUID();
  const now = new Date().toISOString();
  await database.db
    .insertInto('datasources')
    .values({ id, name, type: 'postgresql', description: null, is_sample: 1, created_at: now, updated_at: now })
    .execute();
  return id;
}

/** Imports a labelled catalog through the real FieldsService, one data source per `datasource`, labels as given. */
export async function importLabelled(
  app: ImportedCatalog['app'],
  database: Database,
  fields: readonly LabelledField[],
): Promise<{ ids: string[]; dataSources: number }> {
  const bySource = new Map<string, Array<{ f: LabelledField; i: number }>>();
  fields.forEach((f, i) => bySource.set(f.datasource, [...(bySource.get(f.datasource) ?? []), { f, i }]));
  const ids: string[] = new Array<string>(fields.length);
  for (const [name, list] of bySource) {
    const id = await addBenchDataSource(database, name);
    for (let s = 0; s < list.length; s += 5000) {
      const part = list.slice(s, s + 5000);
      const res = await app.services.fields.importFields(SYSTEM_ACTOR, {
        datasource_id: id,
        fields: part.map(({ f }) => ({
          table_name: f.table_name,
          field_name: f.field_name,
          data_type: f.data_type,
          ...(f.comment ? { comment: f.comment } : {}),
          ...(f.sample_values ? { sample_values: f.sample_values } : {}),
          classification_chain_path: f.chain_path,
          level: f.level,
        })),
      });
      res.field_ids.forEach((fid, j) => (ids[part[j]!.i] = fid));
    }
  }
  return { ids, dataSources: bySource.size };
}

export async function importFlippedCatalog(
  seed: number,
  flipSeed: number,
  share: number,
  mode: ErrorMode = 'random',
  prepare?: (worker: ImportedCatalog['app']['services']['metricsWorker']) => void,
): Promise<ImportedCatalog> {
  const { app, database, close } = await openQualityApp(prepare);
  try {
    const catalog = buildQualityCatalog(seed);
    const { fields, flipped } = seededErrors(catalog, mode, share, flipSeed);
    const t0 = performance.now();
    const { ids, dataSources } = await importLabelled(app, database, fields);
    const t1 = performance.now();
    await app.services.metricsWorker.drain();
    const t2 = performance.now();
    return {
      app,
      database,
      fields,
      flipped,
      ids,
      dataSources,
      importSeconds: (t1 - t0) / 1000,
      drainSeconds: (t2 - t1) / 1000,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The generated catalog of one seed and mode, imported and drained with the worker recording every field's exact
 * outlier-model input (fit.ts, fit-public.ts): per field, in catalog order, that input, whether its label was flipped
 * and the outlier score the worker stored.
 */
export async function loggedFlippedCatalog(
  seed: number,
  flipSeed: number,
  share: number,
  mode: ErrorMode,
): Promise<{ inputs: OutlierInput[]; flipped: boolean[]; stored: number[] }> {
  const { app, database, flipped, ids, close } = await importFlippedCatalog(
    seed,
    flipSeed,
    share,
    mode,
    (worker) => (worker.featureLog = new Map()),
  );
  try {
    const log = app.services.metricsWorker.featureLog as Map<string, OutlierInput>;
    const stored = new Map(
      (await database.db.selectFrom('field_metrics').select(['field_id', 'outlier_score']).execute()).map((r) => [
        r.field_id,
        r.outlier_score,
      ]),
    );
    return {
      inputs: ids.map((id) => log.get(id) as OutlierInput),
      flipped,
      stored: ids.map((id) => stored.get(id) as number),
    };
  } finally {
    await close();
  }
}
