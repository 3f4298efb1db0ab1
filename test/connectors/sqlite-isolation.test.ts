// SQLite sources are read in a process of their own (issue 30 items 1, 7, 11, 12): a view that never ends does not
// stop the service's event loop, ends at the statement deadline and on cancel; very wide tables and column names that
// are not UTF-8 are sampled; the service's own database is never a source.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import {
  ConnectionFailure,
  ConnectionSpecError,
  checkConnectionSpec,
  openConnector,
  resolveSqlitePath,
  type CatalogTable,
  type Connector,
} from '../../src/connectors/index.js';
import { collect } from './sources.js';

const ENDLESS_VIEW =
  'CREATE VIEW endless AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x < 0';

/** A column name whose bytes are not UTF-8 (0x6E 0xFF 0x6F), written into the schema as SQLite stores it. */
function addNonUtf8Column(db: Database.Database): void {
  db.exec(
    `CREATE TABLE latin (id INTEGER, zzz TEXT, ok TEXT); INSERT INTO latin VALUES (1, 'bytes-name-value', 'plain'), (2, 'second', 'plain2');`,
  );
  db.unsafeMode(true);
  db.exec('PRAGMA writable_schema = ON');
  db.prepare(
    `UPDATE sqlite_schema SET sql = CAST(replace(sql, 'zzz', '"' || CAST(X'6EFF6F' AS TEXT) || '"') AS TEXT) WHERE name = 'latin'`,
  ).run();
  db.exec('PRAGMA writable_schema = OFF');
  db.unsafeMode(false);
}

/** Whether a timer of the service's event loop fires while `work` is still running. */
async function loopTurnsDuring(work: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void work.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  return !settled;
}

describe('SQLite reads in a reader process', () => {
  let root: string;
  let dir: string;
  const open: Connector[] = [];
  const connect = (database: string, options = {}): Connector => {
    const c = openConnector({ kind: 'sqlite', database }, { sqliteDir: dir, ...options });
    open.push(c);
    return c;
  };
  const table = async (c: Connector, name: string): Promise<CatalogTable> => {
    const t = (await collect(c.listColumns())).find((x) => x.name === name);
    assert.ok(t, `${name} listed`);
    return t;
  };

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'fl-sqlite-iso-'));
    dir = path.join(root, 'scan');
    fs.mkdirSync(dir);
    const db = new Database(path.join(dir, 'source.db'));
    db.exec(
      `${ENDLESS_VIEW}; CREATE TABLE fine (id INTEGER PRIMARY KEY, email TEXT); INSERT INTO fine VALUES (1, 'a@example.com'), (2, 'b@example.com');`,
    );
    const wide = Array.from({ length: 1200 }, (_, i) => `"col ${i}" TEXT`).join(', ');
    db.exec(`CREATE TABLE wide (id INTEGER PRIMARY KEY, ${wide})`);
    db.prepare(`INSERT INTO wide VALUES (?, ${Array.from({ length: 1200 }, () => '?').join(', ')})`).run(
      1,
      ...Array.from({ length: 1200 }, (_, i) => `v${i}`),
    );
    addNonUtf8Column(db);
    db.close();
  });

  after(async () => {
    for (const c of open) await c.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('a view that never ends leaves the event loop free and is stopped at the statement deadline; the next read works', async () => {
    const c = connect('source.db', { statementTimeoutMs: 1500 });
    const endless = await table(c, 'endless');
    const started = Date.now();
    const reading = c.sample(endless, endless.columns);
    assert.ok(await loopTurnsDuring(reading), 'timers fire while the view is being read');
    await assert.rejects(
      reading,
      (err: unknown) => err instanceof ConnectionFailure && err.cause === 'timeout' && /timed out/.test(err.detail),
    );
    assert.ok(Date.now() - started < 60_000, 'ended by the deadline, not by the view');
    const fine = await table(c, 'fine');
    assert.deepEqual((await c.sample(fine, fine.columns)).values.get('email'), ['a@example.com', 'b@example.com']);
  });

  it('cancel stops a read that never ends, long before the deadline, and refuses later reads', async () => {
    const c = connect('source.db', { statementTimeoutMs: 600_000 });
    const endless = await table(c, 'endless');
    const fine = await table(c, 'fine');
    const reading = c.sample(endless, endless.columns);
    const queued = c.sample(fine, fine.columns);
    assert.ok(await loopTurnsDuring(reading));
    const cancelledAt = Date.now();
    await c.cancel();
    await assert.rejects(reading, (err: unknown) => err instanceof ConnectionFailure && /cancelled/.test(err.detail));
    await assert.rejects(queued, ConnectionFailure, 'a read queued behind it is not run');
    assert.ok(Date.now() - cancelledAt < 60_000, `cancel took ${Date.now() - cancelledAt} ms`);
    await c.close();
  });

  it('samples every column of a table of 1,201 columns (more than SQLite returns in one result)', async () => {
    const c = connect('source.db');
    const wide = await table(c, 'wide');
    assert.equal(wide.columns.length, 1201);
    const r = await c.sample(wide, wide.columns);
    assert.equal(r.rows_read, 1);
    assert.deepEqual(r.values.get('col 0'), ['v0']);
    assert.deepEqual(r.values.get('col 1199'), ['v1199']);
    assert.equal([...r.values.values()].filter((v) => v.length === 1).length, 1201);
  });

  it('samples a column whose name is not UTF-8', async () => {
    const c = connect('source.db');
    const latin = await table(c, 'latin');
    const odd = latin.columns.find((col) => col.name.includes('\uFFFD'));
    assert.ok(odd, 'listed under its decoded name');
    const r = await c.sample(latin, latin.columns);
    assert.deepEqual(r.values.get(odd.name), ['bytes-name-value', 'second']);
    assert.deepEqual(r.values.get('ok'), ['plain', 'plain2']);
  });

  it("refuses the service's own database and its -wal, -shm and -journal files, by path, symlink or hard link", () => {
    const own = path.join(dir, 'service.db');
    const db = new Database(own);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE users (id INTEGER, password_hash TEXT); INSERT INTO users VALUES (1, 1)');
    // The WAL database stays open, so its -wal and -shm files exist.
    try {
      const refused = (database: string): void =>
        assert.throws(
          () => checkConnectionSpec({ kind: 'sqlite', database }, { sqliteDir: dir, ownDatabaseFiles: [own] }),
          (err: unknown) => err instanceof ConnectionSpecError && /own database/.test(err.message),
          database,
        );
      assert.ok(fs.existsSync(`${own}-wal`) && fs.existsSync(`${own}-shm`));
      refused('service.db');
      refused(own);
      refused('service.db-wal');
      refused('service.db-shm');
      refused('service.db-journal');
      fs.symlinkSync(own, path.join(dir, 'alias.db'));
      refused('alias.db');
      fs.linkSync(own, path.join(dir, 'hard.db'));
      refused('hard.db');
      fs.mkdirSync(path.join(dir, 'sub'));
      refused('sub/../service.db');
      assert.throws(
        () => openConnector({ kind: 'sqlite', database: 'service.db' }, { sqliteDir: dir, ownDatabaseFiles: [own] }),
        ConnectionSpecError,
      );
      // Another file of the folder is still a source.
      assert.equal(resolveSqlitePath('source.db', dir, [own]), fs.realpathSync(path.join(dir, 'source.db')));
    } finally {
      db.close();
    }
  });
});
