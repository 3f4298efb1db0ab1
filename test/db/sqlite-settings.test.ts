import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';

/** The connection settings the write-heavy paths were measured with (docs/benchmarks.md): a regression here is slow, not wrong. */
describe('SQLite connection settings', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-sqlite-settings-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('opens a new database in WAL mode with a 64 MiB page cache, a 10,000-page checkpoint interval and a 64 MiB WAL cap', async () => {
    const database = openDatabase({ kind: 'sqlite', file: path.join(dir, 'settings.db') });
    try {
      const pragma = async (name: string) =>
        Object.values((await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(database.db)).rows[0] ?? {})[0];
      assert.equal(String(await pragma('journal_mode')).toLowerCase(), 'wal');
      assert.equal(Number(await pragma('cache_size')), -65536);
      assert.equal(Number(await pragma('wal_autocheckpoint')), 10000);
      assert.equal(Number(await pragma('journal_size_limit')), 64 * 1024 * 1024);
      assert.equal(Number(await pragma('synchronous')), 1, 'NORMAL');
    } finally {
      await database.close();
    }
  });
});
