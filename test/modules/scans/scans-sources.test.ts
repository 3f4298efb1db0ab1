// Scans of real PostgreSQL and MariaDB sources on both app databases: awkward identifiers, views, several schemas with
// include/exclude filters, binary and huge columns, a rescan after altering columns, and failures with their cause.
import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { adminToken, bearer, buildTestApp, json, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import {
  closedPort,
  createMysqlSource,
  createPgSource,
  MYSQL,
  randomName,
  type MysqlSource,
  type PgSource,
} from '../../connectors/sources.js';
import { catalog, createScannable, scanNow } from './helpers.js';

const PLANTED = 'planted-pg-value-51c0de';
const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

describeEachDatabase('scans of PostgreSQL and MariaDB sources', (kind) => {
  let t: TestApp;
  let token: string;
  let src: PgSource;
  let my: MysqlSource;

  before(async () => {
    t = await buildTestApp(kind, { env: { FIELDLENS_SECRET_KEY: SECRET_KEY } });
    src = await createPgSource();
    my = await createMysqlSource();
  });
  beforeEach(async () => {
    token = await adminToken(t.app);
    for (const ds of json<{ items: Array<{ id: string }> }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/datasources', headers: bearer(token) }),
    ).items) {
      await t.app.inject({ method: 'DELETE', url: `/api/v1/datasources/${ds.id}`, headers: bearer(token) });
    }
  });
  after(async () => {
    await t.close();
    await src.dispose();
    await my.dispose();
  });

  const pgConnection = (extra: Record<string, unknown> = {}) => ({
    kind: 'postgresql',
    host: src.server.host,
    port: src.server.port,
    user: src.server.user,
    ...(src.server.password ? { password: src.server.password } : {}),
    database: src.database,
    ...extra,
  });

  it('PostgreSQL: quoted, mixed-case, unicode and reserved identifiers, views, schema and table filters, binary and huge columns', async () => {
    await src.client.query(`
      CREATE SCHEMA "Sales"; CREATE SCHEMA hr; CREATE SCHEMA archive;
      CREATE TABLE "Sales"."Customer ""VIP"" List" ("E-Mail" text, "Größe" integer, "user" text, "select" text);
      COMMENT ON COLUMN "Sales"."Customer ""VIP"" List"."E-Mail" IS 'contact address';
      INSERT INTO "Sales"."Customer ""VIP"" List" VALUES ('${PLANTED}@example.com', 1, 'u1', 's'), ('ben@example.org', 2, 'u2', 's');
      CREATE TABLE "Sales"."order" (id bigint PRIMARY KEY, payload bytea, body text, empty_col text, nulls_only text);
      INSERT INTO "Sales"."order" VALUES (1, '\\xdeadbeef', repeat('y', 2000000), NULL, NULL);
      CREATE VIEW "Sales"."Recent Orders" AS SELECT id, body FROM "Sales"."order";
      CREATE TABLE hr."社員" ("名前" text, salary numeric(10,2));
      CREATE TABLE hr.people_backup (email text);
      CREATE TABLE archive.old (email text);
    `);
    await src.client.query('ANALYZE');
    const id = await createScannable(
      t.app,
      token,
      pgConnection({ include_schemas: ['sales', 'HR'], exclude_tables: ['*_backup'] }),
    );
    const scan = await scanNow(t.app, token, id);
    assert.equal(scan.status, 'succeeded', scan.error ?? '');
    const fields = await catalog(t.database, id);
    assert.deepEqual([...fields.keys()].sort(), [
      'Sales.Customer "VIP" List.E-Mail',
      'Sales.Customer "VIP" List.Größe',
      'Sales.Customer "VIP" List.select',
      'Sales.Customer "VIP" List.user',
      'Sales.Recent Orders.body',
      'Sales.Recent Orders.id',
      'Sales.order.body',
      'Sales.order.empty_col',
      'Sales.order.id',
      'Sales.order.nulls_only',
      'Sales.order.payload',
      'hr.社員.salary',
      'hr.社員.名前',
    ]);
    assert.deepEqual(scan.progress, { tables_done: 4, tables_total: 4, fields_done: 13, fields_total: 13 });
    assert.equal(fields.get('Sales.Customer "VIP" List.E-Mail')!.comment, 'contact address');
    assert.equal(fields.get('Sales.order.payload')!.data_type, 'bytea');
    assert.equal(fields.get('Sales.order.nulls_only')!.format_signature, null);
    const stored = JSON.stringify(await t.database.db.selectFrom('fields').selectAll().execute(), (_k, v: unknown) =>
      v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v,
    );
    assert.equal(stored.includes(PLANTED), false, 'no sampled value is stored');
    assert.equal(stored.includes('y'.repeat(100)), false);
    assert.equal(t.logs.join('').includes(PLANTED), false, 'nor logged');
  });

  it('PostgreSQL: a rescan after adding, altering, commenting and dropping columns counts each change', async () => {
    await src.client
      .query(`CREATE SCHEMA shop; CREATE TABLE shop.clients (id integer PRIMARY KEY, email text, age text, city text, fax text);
      INSERT INTO shop.clients VALUES (1, 'a@example.com', '42', 'Berlin', '123')`);
    const id = await createScannable(t.app, token, pgConnection({ include_schemas: ['shop'] }));
    const first = await scanNow(t.app, token, id);
    assert.deepEqual(first.counts, { new: 5, changed: 0, removed: 0, unchanged: 0, classified: 5 });
    await src.client.query(`ALTER TABLE shop.clients ALTER COLUMN age TYPE integer USING age::integer;
      COMMENT ON COLUMN shop.clients.city IS 'city of residence';
      ALTER TABLE shop.clients DROP COLUMN fax; ALTER TABLE shop.clients ADD COLUMN iban text`);
    const second = await scanNow(t.app, token, id);
    assert.equal(second.status, 'succeeded', second.error ?? '');
    assert.deepEqual(second.counts, { new: 1, changed: 2, removed: 1, unchanged: 2, classified: 3 });
    const fields = await catalog(t.database, id);
    assert.equal(fields.get('shop.clients.age')!.data_type, 'integer');
    assert.equal(fields.get('shop.clients.city')!.comment, 'city of residence');
    assert.equal(fields.has('shop.clients.fax'), false);
    assert.ok(fields.has('shop.clients.iban'));
  });

  it('PostgreSQL: a scan fails with the cause for an unknown user, an unknown database, an unreachable host', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ user: randomName('nobody') }, /^authentication: /],
      [{ database: 'fl_src_does_not_exist' }, /^unknown_database: /],
      [{ host: '127.0.0.1', port: await closedPort() }, /^unreachable: /],
    ];
    for (const [change, cause] of cases) {
      const id = await createScannable(t.app, token, pgConnection(change));
      const scan = await scanNow(t.app, token, id);
      assert.equal(scan.status, 'failed');
      assert.match(scan.error ?? '', cause);
      assert.equal(scan.phase, 'done');
      await t.app.inject({ method: 'DELETE', url: `/api/v1/datasources/${id}`, headers: bearer(token) });
    }
  });

  it('MariaDB: backquoted, unicode and reserved identifiers and a view; a bad password fails with authentication and is never shown', async () => {
    await my.conn.query(`
      CREATE TABLE \`Client Data\` (\`E-Mail\` varchar(100) COMMENT 'mail address', \`select\` int, \`ñame\` text, \`bin\` varbinary(16));
      INSERT INTO \`Client Data\` VALUES ('${PLANTED}@example.com', 1, 'Zoë', x'beef'), ('b@example.org', 2, 'Åsa', NULL);
      CREATE VIEW \`Mail View\` AS SELECT \`E-Mail\` FROM \`Client Data\`;
    `);
    const id = await createScannable(t.app, token, {
      kind: 'mysql',
      host: MYSQL.host,
      port: MYSQL.port,
      user: MYSQL.user,
      database: my.database,
    });
    const scan = await scanNow(t.app, token, id);
    assert.equal(scan.status, 'succeeded', scan.error ?? '');
    const fields = await catalog(t.database, id);
    assert.deepEqual(
      [...fields.keys()].sort(),
      [
        `${my.database}.Client Data.E-Mail`,
        `${my.database}.Client Data.bin`,
        `${my.database}.Client Data.select`,
        `${my.database}.Client Data.ñame`,
        `${my.database}.Mail View.E-Mail`,
      ].sort(),
    );
    assert.equal(fields.get(`${my.database}.Client Data.E-Mail`)!.comment, 'mail address');

    const user = randomName('fl_scan_user');
    const wrong = 'wrong-password-Zq81';
    await my.conn.query(`CREATE USER '${user}'@'%' IDENTIFIED BY 'right-password-Zq81'`);
    try {
      const bad = await createScannable(t.app, token, {
        kind: 'mysql',
        host: MYSQL.host,
        port: MYSQL.port,
        user,
        password: wrong,
        database: my.database,
      });
      const failed = await scanNow(t.app, token, bad);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error ?? '', /^authentication: /);
      assert.equal(JSON.stringify(failed).includes(wrong), false);
      const audit = JSON.stringify(await t.database.db.selectFrom('audit_log').select('details').execute());
      assert.equal(audit.includes(wrong), false, 'the password is in no audit entry');
      assert.equal(t.logs.join('').includes(wrong), false, 'nor in the log');
      assert.equal(t.logs.join('').includes(PLANTED), false);
    } finally {
      await my.conn.query(`DROP USER '${user}'@'%'`);
    }
  });
});
