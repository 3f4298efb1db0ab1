import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../../src/db/database.js';
import { BACKSTOP_PAGES, FALLBACK_PAGES, WalCheckpointer } from '../../src/db/wal-checkpointer.js';
import { createTestDatabase, describeEachDatabase } from '../helpers/databases.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-wal-'));
  dirs.push(dir);
  return path.join(dir, 'db.sqlite');
}

async function autocheckpoint(database: Database): Promise<number> {
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(database.db);
  return rows[0]?.wal_autocheckpoint ?? -1;
}

/** Commits ~2 MiB (about 500 pages) in one transaction: far below the connection's own checkpoint threshold. */
async function writeRows(database: Database, from: number): Promise<void> {
  await sql`create table if not exists t (id integer primary key, v text not null)`.execute(database.db);
  await database.db.transaction().execute(async (trx) => {
    for (let i = from; i < from + 2000; i++)
      await sql`insert into t (id, v) values (${i}, ${'x'.repeat(1000)})`.execute(trx);
  });
}

/** Rows in the database file itself, read from a copy without its WAL: only what a checkpoint has copied back. */
function rowsInMainFile(file: string): number {
  const copy = `${file}.copy`;
  fs.copyFileSync(file, copy);
  const db = new BetterSqlite3(copy, { readonly: true });
  try {
    const hasTable = db.prepare("select count(*) as n from sqlite_master where name = 't'").get() as { n: number };
    return hasTable.n === 0 ? 0 : (db.prepare('select count(*) as n from t').get() as { n: number }).n;
  } finally {
    db.close();
    fs.rmSync(copy);
  }
}

describe('WAL checkpoints on their own thread (SQLite)', () => {
  it('copies committed pages into the database file on its own, while the connection only keeps a backstop', async () => {
    const file = tempFile();
    const database = openDatabase({ kind: 'sqlite', file });
    try {
      assert.equal(await autocheckpoint(database), FALLBACK_PAGES);
      const failures: Error[] = [];
      const checkpointer = database.startCheckpoints?.((error) => failures.push(error));
      assert.ok(checkpointer, 'a SQLite file database starts a checkpointer');
      assert.equal(
        database.startCheckpoints?.(() => undefined),
        checkpointer,
        'started once',
      );
      assert.equal(await autocheckpoint(database), BACKSTOP_PAGES);

      await writeRows(database, 0);
      // The commit did not checkpoint (500 pages < the backstop); the thread does, on its interval.
      const deadline = Date.now() + 10_000;
      while (rowsInMainFile(file) < 2000 && Date.now() < deadline) await sleep(50);
      assert.equal(rowsInMainFile(file), 2000, 'the thread copied the commit into the database file');

      await writeRows(database, 2000);
      const result = await checkpointer.now();
      assert.equal(result.busy, false);
      assert.ok(result.walPages > 0);
      assert.equal(result.checkpointedPages, result.walPages, 'everything committed is copied');
      assert.equal(rowsInMainFile(file), 4000);
      assert.deepEqual(failures, []);
    } finally {
      await database.close();
    }
  });

  it('stops with the database: the connection checkpoints on its own again and the thread answers no more', async () => {
    const file = tempFile();
    const database = openDatabase({ kind: 'sqlite', file });
    const checkpointer = database.startCheckpoints?.(() => undefined);
    assert.ok(checkpointer);
    await checkpointer.stop();
    assert.equal(await autocheckpoint(database), FALLBACK_PAGES);
    await assert.rejects(checkpointer.now(), /stopped/);
    await database.close();
  });

  it('reports a thread that fails and hands checkpoints back to the connection', async () => {
    const calls: number[] = [];
    const failed = new Promise<Error>((resolve) => {
      // The thread cannot open a file that does not exist.
      new WalCheckpointer(
        path.join(tempFile(), 'missing.sqlite'),
        { setAutocheckpoint: (p) => calls.push(p) },
        resolve,
      );
    });
    // The thread does not hold the process open; the test does while it waits for the report.
    const alive = setInterval(() => undefined, 60_000);
    const error = await failed.finally(() => clearInterval(alive));
    assert.match(error.message, /WAL checkpoint thread|does not exist|unable to open/i);
    assert.deepEqual(calls, [BACKSTOP_PAGES, FALLBACK_PAGES]);
  });

  it('does not exist for a database in memory', () => {
    const database = openDatabase({ kind: 'sqlite', file: ':memory:' });
    assert.equal(database.startCheckpoints, undefined);
    void database.close();
  });
});

describeEachDatabase('Database.startCheckpoints', (kind) => {
  it(
    kind === 'sqlite' ? 'is offered for a SQLite file' : 'is not offered for PostgreSQL (the server checkpoints)',
    async () => {
      const testDatabase = await createTestDatabase(kind);
      const database = testDatabase.open();
      try {
        assert.equal(typeof database.startCheckpoints, kind === 'sqlite' ? 'function' : 'undefined');
      } finally {
        await database.close();
        await testDatabase.dispose();
      }
    },
  );
});
