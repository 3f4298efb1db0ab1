// SQLite connector on real files in a temporary scan folder.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import {
  ConnectionFailure,
  ConnectionSpecError,
  openConnector,
  resolveSqlitePath,
  type CatalogTable,
  type ConnectionSpec,
  type Connector,
} from '../../src/connectors/index.js';
import { collect, errorText } from './sources.js';

const PLANTED = 'PLANTED-SECRET-378282246310005';

function hashFile(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

describe('SQLite connector', () => {
  let root: string;
  let dir: string;
  let file: string;
  const open: Connector[] = [];
  const connect = (extra: Partial<ConnectionSpec> = {}, options = {}): Connector => {
    const c = openConnector({ kind: 'sqlite', database: 'source.db', ...extra }, { sqliteDir: dir, ...options });
    open.push(c);
    return c;
  };
  const table = async (c: Connector, name: string): Promise<CatalogTable> => {
    const t = (await collect(c.listColumns())).find((x) => x.name === name);
    assert.ok(t, `${name} listed`);
    return t;
  };

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'fl-sqlite-src-'));
    dir = path.join(root, 'scan');
    fs.mkdirSync(dir);
    file = path.join(dir, 'source.db');
    const db = new Database(file);
    db.exec(`
      CREATE TABLE "Order" (id INTEGER PRIMARY KEY, "select" TEXT NOT NULL, "名前" VARCHAR(80), "Größe" INTEGER, MixedCase NUMERIC);
      WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 50)
        INSERT INTO "Order" ("select", "名前", "Größe", MixedCase) SELECT 'sel' || n, '名前' || n, n, n * 1.5 FROM g;
      CREATE VIEW order_names AS SELECT "名前" FROM "Order";
      CREATE TABLE empty_table (a INTEGER, b TEXT);
      CREATE TABLE null_only (id INTEGER PRIMARY KEY, "nothing" TEXT);
      WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 20) INSERT INTO null_only SELECT n, NULL FROM g;
      CREATE TABLE blobs (id INTEGER, payload BLOB, big TEXT, mixed INTEGER, huge INTEGER);
      INSERT INTO blobs VALUES (1, randomblob(16), printf('%.*c', 1000000, 'x'), zeroblob(5), 9007199254740993);
      CREATE TABLE a_b (x INTEGER); CREATE TABLE axb (x INTEGER);
      CREATE TABLE two_key (a INTEGER, b INTEGER, c TEXT, PRIMARY KEY (b, a)) WITHOUT ROWID;
      CREATE TABLE planted (id INTEGER, secret TEXT);
      INSERT INTO planted VALUES (1, '${PLANTED}');
      CREATE TABLE big (id INTEGER PRIMARY KEY, email TEXT, amount REAL);
      WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 250000) INSERT INTO big SELECT n, 'user' || n || '@example.com', n % 1000 FROM g;
      ANALYZE;
    `);
    db.close();
  });

  after(async () => {
    for (const c of open) await c.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('accepts only files inside the scan folder', () => {
    assert.throws(
      () => openConnector({ kind: 'sqlite', database: file }, {}),
      ConnectionSpecError,
      'no folder configured: refused',
    );
    assert.equal(resolveSqlitePath('source.db', dir), fs.realpathSync(file));
    assert.equal(resolveSqlitePath(file, dir), fs.realpathSync(file));
    const outside = path.join(root, 'outside.db');
    fs.copyFileSync(file, outside);
    assert.throws(() => resolveSqlitePath('../outside.db', dir), ConnectionSpecError);
    assert.throws(() => resolveSqlitePath(outside, dir), ConnectionSpecError);
    fs.symlinkSync(outside, path.join(dir, 'link.db'));
    assert.throws(
      () => resolveSqlitePath('link.db', dir),
      ConnectionSpecError,
      'a symlink out of the folder is refused',
    );
    fs.symlinkSync(root, path.join(dir, 'up'));
    assert.throws(
      () => resolveSqlitePath('up/outside.db', dir),
      ConnectionSpecError,
      'a symlinked folder out is refused',
    );
    assert.throws(() => resolveSqlitePath('.', dir), ConnectionSpecError);
    assert.throws(
      () => resolveSqlitePath('missing.db', dir),
      (err: unknown) => err instanceof ConnectionFailure && err.cause === 'unknown_database',
    );
  });

  it('reports the version and lists tables and views with keys, estimates and quoted, unicode, reserved-word names', async () => {
    const c = connect();
    assert.match((await c.test()).server_version, /^SQLite 3\./);
    const all = await collect(c.listColumns());
    assert.ok(all.every((t) => t.schema === 'main'));
    assert.ok(!all.some((t) => t.name.startsWith('sqlite_')), 'no internal tables');
    const order = all.find((t) => t.name === 'Order')!;
    assert.equal(order.kind, 'table');
    assert.equal(order.row_estimate, 50);
    assert.deepEqual(order.primary_key, ['id']);
    assert.deepEqual(
      order.columns.map((col) => [col.name, col.ordinal, col.data_type, col.nullable, col.is_primary_key]),
      [
        ['id', 1, 'INTEGER', false, true],
        ['select', 2, 'TEXT', false, false],
        ['名前', 3, 'VARCHAR(80)', true, false],
        ['Größe', 4, 'INTEGER', true, false],
        ['MixedCase', 5, 'NUMERIC', true, false],
      ],
    );
    assert.equal(all.find((t) => t.name === 'order_names')!.kind, 'view');
    assert.deepEqual(all.find((t) => t.name === 'two_key')!.primary_key, ['b', 'a']);
    assert.equal(all.find((t) => t.name === 'big')!.row_estimate, 250000);
  });

  it('applies include/exclude patterns', async () => {
    const c = connect();
    const list = async (filters: Parameters<Connector['listColumns']>[0]): Promise<string[]> =>
      (await collect(c.listColumns(filters))).map((t) => t.name).sort();
    assert.deepEqual(await list({ include_tables: ['ORD*'] }), ['Order', 'order_names']);
    assert.deepEqual(await list({ include_tables: ['main.a_b'] }), ['a_b']);
    assert.deepEqual(await list({ include_tables: ['a?b'] }), ['a_b', 'axb']);
    assert.deepEqual(await list({ include_schemas: ['other'] }), []);
    assert.deepEqual(await list({ exclude_tables: ['*a*', '*b*', '*e*'] }), ['null_only']);
  });

  it('filters in the catalog query: thousands of non-matching tables are never fetched', async () => {
    const bulkFile = path.join(dir, 'bulk.db');
    const db = new Database(bulkFile);
    db.exec(
      Array.from({ length: 3000 }, (_, i) => `CREATE TABLE t${i} (a INTEGER, b TEXT);`).join('\n') +
        'CREATE TABLE wanted (x INTEGER PRIMARY KEY);',
    );
    db.close();
    const c = connect({ database: 'bulk.db' }, { catalogPageSize: 200 });
    assert.deepEqual(
      (await collect(c.listColumns({ include_tables: ['want*'] }))).map((t) => t.name),
      ['wanted'],
    );
    assert.equal(c.stats.catalog_rows, 2);
    const all = await collect(c.listColumns({ include_tables: ['t*'] }));
    assert.equal(new Set(all.map((t) => t.name)).size, 3000);
  });

  it('samples values, views, empty tables, NULL-only columns, binary and huge text', async () => {
    const c = connect({}, { maxTextLength: 64 });
    const order = await table(c, 'Order');
    const r = await c.sample(order, order.columns, 10);
    assert.equal(r.values.get('select')!.length, 10);
    assert.match(String(r.values.get('名前')![0]), /^名前\d+$/);
    assert.equal(typeof r.values.get('Größe')![0], 'number');
    const view = await table(c, 'order_names');
    assert.equal((await c.sample(view, view.columns, 5)).values.get('名前')!.length, 5);
    const empty = await table(c, 'empty_table');
    assert.equal((await c.sample(empty, empty.columns)).rows_read, 0);
    const nulls = await table(c, 'null_only');
    const n = await c.sample(nulls, nulls.columns);
    assert.equal(n.rows_read, 20);
    assert.deepEqual(n.values.get('nothing'), []);
    const blobs = await table(c, 'blobs');
    const b = await c.sample(blobs, blobs.columns);
    assert.deepEqual(b.values.get('payload'), ['<binary 16 bytes>']);
    assert.deepEqual(b.values.get('big'), ['x'.repeat(64)]);
    assert.deepEqual(b.values.get('mixed'), ['<binary 5 bytes>'], 'a blob in an INTEGER column is still binary');
    assert.deepEqual(b.values.get('huge'), ['9007199254740993'], 'integers beyond 2^53 keep their digits');
  });

  it('never reads a large table in full: 250,000 rows, bounded key ranges', async () => {
    const c = connect();
    const big = await table(c, 'big');
    const r = await c.sample(big, big.columns, 100);
    assert.ok(r.rows_read <= 1000, `read ${r.rows_read} rows`);
    assert.equal(r.values.get('email')!.length, 100);
    const ids = r.values
      .get('id')!
      .map(Number)
      .sort((a, b) => a - b);
    assert.ok(ids[ids.length - 1]! > 1000, 'rows beyond the head of the table');
    // Four ranges of 25 consecutive keys, each drawn at random: the sample comes from more than one place.
    const runs = ids.filter((id, i) => i === 0 || id !== ids[i - 1]! + 1).length;
    assert.ok(runs >= 2, `ids come from ${runs} place(s)`);
    assert.ok(r.rows_read <= 100, `a dense table is done after the first round: ${r.rows_read} rows`);
  });

  it('concurrent samples on one file are serialised, and the file is never changed', async () => {
    const before = hashFile(file);
    const c = connect({}, { catalogPageSize: 2 });
    // Sampling starts while the catalog is still being listed, page by page, as a scan that streams would do.
    const pending: Promise<unknown>[] = [];
    for await (const t of c.listColumns()) pending.push(c.sample(t, t.columns, 5));
    const results = await Promise.all(pending);
    assert.ok(results.length > 5);
    await c.close();
    assert.equal(hashFile(file), before);
    assert.ok(!fs.existsSync(`${file}-wal`) && !fs.existsSync(`${file}-journal`));
  });

  it('a file that goes bad mid-scan is a ConnectionFailure without the value', async () => {
    const copy = path.join(dir, 'going.db');
    fs.copyFileSync(file, copy);
    const c = connect({ database: 'going.db' });
    const planted = await table(c, 'planted');
    // Overwrite the pages under the open handle, as a file replaced or damaged during a scan.
    const fd = fs.openSync(copy, 'r+');
    fs.writeSync(fd, Buffer.alloc(fs.fstatSync(fd).size, 0x5a), 0);
    fs.closeSync(fd);
    await assert.rejects(c.sample(planted, planted.columns, 5), (err: unknown) => {
      assert.ok(err instanceof ConnectionFailure, errorText(err));
      assert.ok(!errorText(err).includes(PLANTED));
      return true;
    });
  });
});
