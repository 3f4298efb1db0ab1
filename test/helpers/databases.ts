/**
 * Fresh real databases for tests: a new SQLite file per app, and, when TEST_DATABASE_URL is set,
 * a new PostgreSQL schema per app (dropped afterwards). Never a mock.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe } from 'node:test';
import pg from 'pg';
import type { DatabaseConfig } from '../../src/config.js';
import { openDatabase, type Database, type DialectKind } from '../../src/db/database.js';

export type { DialectKind };

export function databaseKinds(): DialectKind[] {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * Runs the suite once per database, so the same tests cover both dialects. Without TEST_DATABASE_URL the PostgreSQL
 * variant is reported as skipped with the reason (never silently absent); CI sets it and fails on any skipped test.
 */
export function describeEachDatabase(name: string, suite: (kind: DialectKind) => void): void {
  for (const kind of databaseKinds()) {
    void describe(`${name} [${kind}]`, () => suite(kind));
  }
  if (!process.env.TEST_DATABASE_URL) {
    void describe(`${name} [postgres]`, { skip: 'TEST_DATABASE_URL is not set (see README: Tests)' }, () =>
      suite('postgres'),
    );
  }
}

export interface TestDatabase {
  readonly kind: DialectKind;
  readonly config: DatabaseConfig;
  /** PostgreSQL schema, when kind is postgres. */
  readonly schema: string | undefined;
  /** Opens another handle on the same database (a second "instance"). */
  open(options?: { url?: string }): Database;
  dispose(): Promise<void>;
}

export async function createTestDatabase(kind: DialectKind): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-test-'));
    const config: DatabaseConfig = { kind: 'sqlite', file: path.join(dir, 'test.db') };
    return {
      kind,
      config,
      schema: undefined,
      open: () => openDatabase(config),
      async dispose() {
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `fl_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const config: DatabaseConfig = { kind: 'postgres', url };
  return {
    kind,
    config,
    schema,
    open: (options = {}) => openDatabase({ kind: 'postgres', url: options.url ?? url }, { schema, poolSize: 5 }),
    async dispose() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

/** The DATABASE_URL under which the CLI sees a test database (PostgreSQL: its schema through search_path). */
export function cliDatabaseUrl(testDatabase: TestDatabase): string {
  if (testDatabase.config.kind === 'sqlite') return `sqlite:${testDatabase.config.file}`;
  const parsed = new URL(testDatabase.config.url);
  parsed.searchParams.set('options', `-c search_path=${testDatabase.schema ?? 'public'}`);
  return parsed.toString();
}
