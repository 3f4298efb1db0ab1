// The database a benchmark runs on: a SQLite file in a temporary folder, or a PostgreSQL database of its own (not a
// schema: Kysely's migrator would take another schema's migration tables for its own), dropped afterwards.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { DatabaseConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';

export interface Target {
  kind: 'sqlite' | 'postgres';
  config: DatabaseConfig;
  open(): Database;
  dispose(): Promise<void>;
}

export async function sqliteTarget(): Promise<Target> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-bench-'));
  const config: DatabaseConfig = { kind: 'sqlite', file: path.join(dir, 'bench.db') };
  return {
    kind: 'sqlite',
    config,
    open: () => openDatabase(config),
    dispose: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

export async function postgresTarget(url: string): Promise<Target> {
  const name = `fl_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const benchUrl = new URL(url);
  benchUrl.pathname = `/${name}`;
  const config: DatabaseConfig = { kind: 'postgres', url: benchUrl.toString() };
  return {
    kind: 'postgres',
    config,
    open: () => openDatabase(config, { poolSize: 10 }),
    async dispose() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
