// Connections of data sources: stored without their password in clear, PATCH semantics, the sqlite scan folder, the
// secret key, and test-connection against the machine's real PostgreSQL, MariaDB and a SQLite file.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, it, test } from 'node:test';
import Database from 'better-sqlite3';
import type { LightMyRequestResponse } from 'fastify';
import type { RowDataPacket } from 'mysql2';
import pg from 'pg';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { AppError } from '../../../src/http/errors.js';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import {
  closedPort,
  createMysqlSource,
  createPgSource,
  MYSQL,
  randomName,
  silentServer,
  type MysqlSource,
  type PgSource,
} from '../../connectors/sources.js';
import { auditActions, countRows } from '../fields/factories.js';

interface DatasourceBody {
  id: string;
  name: string;
  connection: Record<string, unknown> | null;
  has_password: boolean;
  scan_interval_hours: number | null;
}

const KEY_A = randomBytes(32).toString('base64');
const KEY_B = randomBytes(32).toString('base64');
const NOWHERE = '00000000-0000-4000-8000-000000000000';

/** Every table of the app database as text (SQLite: the raw file and its write-ahead log; PostgreSQL: every row of its schema). */
async function appDatabaseText(t: TestApp): Promise<string> {
  const config = t.testDatabase.config;
  if (config.kind === 'sqlite') {
    return [config.file, `${config.file}-wal`, `${config.file}-journal`]
      .filter((f) => fs.existsSync(f))
      .map((f) => fs.readFileSync(f).toString('latin1'))
      .join('\n');
  }
  const client = new pg.Client({ connectionString: config.url });
  await client.connect();
  try {
    const schema = t.testDatabase.schema as string;
    const tables = await client.query<{ table_name: string }>(
      'select table_name from information_schema.tables where table_schema = $1',
      [schema],
    );
    const out: string[] = [];
    for (const { table_name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`select t::text as row from "${schema}"."${table_name}" t`);
      out.push(...rows.rows.map((r) => r.row));
    }
    return out.join('\n');
  } finally {
    await client.end();
  }
}

describeEachDatabase('data-source connections', (kind) => {
  let t: TestApp;
  let token: string;
  let sqliteDir: string;
  /** Every response body this suite received, to check that no password was ever answered. */
  const answered: string[] = [];

  before(async () => {
    sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fl-scan-dir-'));
    const file = new Database(path.join(sqliteDir, 'shop.db'));
    file.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT)');
    file.close();
    t = await buildTestApp(kind, { env: { FIELDLENS_SECRET_KEY: KEY_A, FIELDLENS_SCAN_SQLITE_DIR: sqliteDir } });
    token = await adminToken(t.app);
  });
  after(async () => {
    await t.close();
    fs.rmSync(sqliteDir, { recursive: true, force: true });
  });
  // The trial allows 3 data sources: each test starts from none.
  afterEach(async () => {
    for (const d of await list())
      await t.app.inject({ method: 'DELETE', url: `/api/v1/datasources/${d.id}`, headers: bearer(token) });
  });

  const record = (response: LightMyRequestResponse): LightMyRequestResponse => {
    answered.push(response.body);
    return response;
  };
  const create = async (payload: Record<string, unknown>, as = token) =>
    record(await t.app.inject({ method: 'POST', url: '/api/v1/datasources', headers: bearer(as), payload }));
  const patch = async (id: string, payload: Record<string, unknown>, as = token) =>
    record(await t.app.inject({ method: 'PATCH', url: `/api/v1/datasources/${id}`, headers: bearer(as), payload }));
  const testConnection = async (id: string, as = token) =>
    record(
      await t.app.inject({ method: 'POST', url: `/api/v1/datasources/${id}/test-connection`, headers: bearer(as) }),
    );
  const list = async (): Promise<DatasourceBody[]> =>
    json<{ items: DatasourceBody[] }>(
      record(await t.app.inject({ method: 'GET', url: '/api/v1/datasources', headers: bearer(token) })),
    ).items;
  const createOk = async (payload: Record<string, unknown>): Promise<DatasourceBody> => {
    const response = await create(payload);
    assert.equal(response.statusCode, 201, response.body);
    return json<DatasourceBody>(response);
  };
  const storedPassword = async (id: string): Promise<string | undefined> =>
    (await t.app.services.datasources.getScanTarget(id)).connection?.password;

  it('stores a connection with its password sealed: never answered, audited, logged or written in clear', async () => {
    const secret = `planted-${randomBytes(6).toString('hex')}-password`;
    const user = `scanner_${randomBytes(4).toString('hex')}`;
    const created = await createOk({
      name: 'orders-db',
      type: 'postgresql',
      connection: {
        kind: 'postgresql',
        host: 'db.internal',
        port: 5433,
        database: 'orders',
        user,
        password: secret,
        ssl: 'require',
        include_schemas: ['sales*'],
        sample_size: 50,
      },
      scan_interval_hours: 24,
    });
    assert.deepEqual(created.connection, {
      kind: 'postgresql',
      host: 'db.internal',
      port: 5433,
      database: 'orders',
      user,
      ssl: 'require',
      include_schemas: ['sales*'],
      sample_size: 50,
    });
    assert.equal(created.has_password, true);
    assert.equal(created.scan_interval_hours, 24);
    const listed = (await list()).find((d) => d.id === created.id);
    assert.deepEqual(listed?.connection, created.connection);
    assert.equal(listed?.has_password, true);

    // The scanner gets it back decrypted.
    const target = await t.app.services.datasources.getScanTarget(created.id);
    assert.equal(target.connection?.password, secret);
    assert.equal(target.scanIntervalHours, 24);
    assert.equal(target.datasource.id, created.id);

    // Replacing and then removing the password is audited as a change, without the password.
    const replaced = `${secret}-second`;
    assert.equal(
      (await patch(created.id, { connection: { ...created.connection, password: replaced } })).statusCode,
      200,
    );
    assert.equal(await storedPassword(created.id), replaced);

    const audit = [
      ...(await auditActions(t.database, 'datasource.created')),
      ...(await auditActions(t.database, 'datasource.updated')),
    ];
    const auditText = JSON.stringify(audit);
    assert.ok(auditText.includes(user), 'the audit entries name the connection');
    assert.ok(!auditText.includes(secret), 'no password in the audit log');
    assert.equal(audit.at(-1)?.details.password_changed, true);

    const stored = await appDatabaseText(t);
    assert.ok(stored.includes(user), 'the search sees what is stored in clear');
    assert.ok(!stored.includes(secret), 'the password is not in the app database in clear');
    const logs = t.logs.join('');
    assert.ok(logs.includes('/api/v1/datasources'), 'the requests were logged');
    assert.ok(!logs.includes(secret), 'no password in the logs');
    assert.ok(answered.length > 0 && answered.every((body) => !body.includes(secret)), 'no password in any response');
  });

  it('PATCH: an omitted password is kept, null removes it, a string replaces it; connection null removes both', async () => {
    const connection = {
      kind: 'mysql',
      host: 'mysql.internal',
      database: 'crm',
      user: 'scan',
      password: 'first-password',
    };
    const created = await createOk({ name: 'crm', type: 'mysql', connection });
    const { password: _omitted, ...withoutPassword } = connection;

    const kept = await patch(created.id, {
      connection: { ...withoutPassword, port: 3306, exclude_tables: ['*_backup'] },
    });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.deepEqual(json<DatasourceBody>(kept).connection, {
      ...withoutPassword,
      port: 3306,
      exclude_tables: ['*_backup'],
    });
    assert.equal(json<DatasourceBody>(kept).has_password, true);
    assert.equal(await storedPassword(created.id), 'first-password');
    const keptEntry = (await auditActions(t.database, 'datasource.updated')).at(-1);
    assert.equal(keptEntry?.details.password_changed, undefined, 'an omitted password is no change');
    assert.deepEqual(
      (keptEntry?.details.changes as Record<string, { before: unknown; after: unknown }>).connection?.after,
      { ...withoutPassword, port: 3306, exclude_tables: ['*_backup'] },
    );

    const replaced = await patch(created.id, { connection: { ...withoutPassword, password: 'second-password' } });
    assert.equal(json<DatasourceBody>(replaced).has_password, true);
    assert.equal(await storedPassword(created.id), 'second-password');

    const removed = await patch(created.id, { connection: { ...withoutPassword, password: null } });
    assert.equal(json<DatasourceBody>(removed).has_password, false);
    assert.equal(await storedPassword(created.id), undefined);
    assert.equal((await auditActions(t.database, 'datasource.updated')).at(-1)?.details.password_changed, true);

    await patch(created.id, { connection: { ...withoutPassword, password: 'third-password' } });
    const gone = await patch(created.id, {
      connection: null,
      name: 'crm-renamed',
      description: 'no longer scanned',
      scan_interval_hours: null,
    });
    assert.equal(gone.statusCode, 200);
    const body = json<DatasourceBody & { description: string }>(gone);
    assert.deepEqual(
      [body.connection, body.has_password, body.name, body.description],
      [null, false, 'crm-renamed', 'no longer scanned'],
    );
    const target = await t.app.services.datasources.getScanTarget(created.id);
    assert.equal(target.connection, null);
    const entry = (await auditActions(t.database, 'datasource.updated')).at(-1);
    assert.equal(entry?.details.password_changed, true);
    assert.deepEqual(Object.keys(entry?.details.changes as object).sort(), ['connection', 'description', 'name']);

    // A PATCH that changes nothing writes no audit entry.
    const before = await countRows(t.database, 'audit_log');
    assert.equal((await patch(created.id, { name: 'crm-renamed' })).statusCode, 200);
    assert.equal(await countRows(t.database, 'audit_log'), before);
  });

  it('lists for the scheduler the data sources with both a connection and an interval', async () => {
    const scheduled = await createOk({
      name: 'nightly',
      type: 'postgresql',
      connection: { kind: 'postgresql', host: 'h', database: 'd' },
      scan_interval_hours: 24,
    });
    const noConnection = await createOk({ name: 'interval-only', type: 'postgresql', scan_interval_hours: 1 });
    const noInterval = await createOk({
      name: 'manual',
      type: 'postgresql',
      connection: { kind: 'postgresql', host: 'h', database: 'd' },
    });
    const ids = async () =>
      (await t.app.services.datasources.listScheduledScans()).filter((s) =>
        [scheduled.id, noConnection.id, noInterval.id].includes(s.datasourceId),
      );
    assert.deepEqual(await ids(), [{ datasourceId: scheduled.id, scanIntervalHours: 24 }]);
    await patch(noInterval.id, { scan_interval_hours: 8760 });
    await patch(scheduled.id, { scan_interval_hours: null });
    assert.deepEqual(await ids(), [{ datasourceId: noInterval.id, scanIntervalHours: 8760 }]);
  });

  it('takes sqlite files only inside FIELDLENS_SCAN_SQLITE_DIR, and tests them', async () => {
    const inside = await createOk({
      name: 'shop-file',
      type: 'sqlite',
      connection: { kind: 'sqlite', database: 'shop.db' },
    });
    const ok = await testConnection(inside.id);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(json(ok).ok, true);
    assert.match(json<{ server_version: string }>(ok).server_version, /^SQLite 3\.\d+/);

    const outsideFile = path.join(os.tmpdir(), `fl-outside-${randomBytes(4).toString('hex')}.db`);
    new Database(outsideFile).close();
    fs.symlinkSync(outsideFile, path.join(sqliteDir, 'link.db'));
    try {
      for (const database of [
        '../outside.db',
        outsideFile,
        '/etc/passwd',
        'link.db',
        t.testDatabase.config.kind === 'sqlite' ? t.testDatabase.config.file : '/proc/self/environ',
      ]) {
        const before = await countRows(t.database, 'datasources');
        const refused = await create({ name: 'escape', type: 'sqlite', connection: { kind: 'sqlite', database } });
        assert.equal(refused.statusCode, 422, `${database}: ${refused.body}`);
        assert.equal(problem(refused).code, 'unprocessable');
        assert.match(problem(refused).detail, /inside the scan folder/);
        assert.equal(await countRows(t.database, 'datasources'), before, 'nothing stored');
        assert.equal((await patch(inside.id, { connection: { kind: 'sqlite', database } })).statusCode, 422);
      }
    } finally {
      fs.rmSync(outsideFile, { force: true });
      fs.rmSync(path.join(sqliteDir, 'link.db'), { force: true });
    }
    assert.equal(
      (await list()).find((d) => d.id === inside.id)?.connection?.database,
      'shop.db',
      'a refused PATCH changed nothing',
    );

    // Switching a connection with a stored password to sqlite drops the password (a sqlite file has none).
    const network = await createOk({
      name: 'moving',
      type: 'postgresql',
      connection: { kind: 'postgresql', host: 'h', database: 'd', password: 'old-password' },
    });
    const moved = await patch(network.id, { connection: { kind: 'sqlite', database: 'shop.db' } });
    assert.equal(json<DatasourceBody>(moved).has_password, false);
    assert.equal(await storedPassword(network.id), undefined);

    // A sqlite connection takes no network settings, and a password has no meaning for it.
    const withHost = await create({
      name: 'odd',
      type: 'sqlite',
      connection: { kind: 'sqlite', database: 'shop.db', host: 'x', password: 'y' },
    });
    assert.equal(withHost.statusCode, 422);
    assert.match(problem(withHost).detail, /host, password/);

    // An instance without the scan folder refuses sqlite connections, new or stored.
    const folderless = await buildTestApp(kind, { testDatabase: t.testDatabase, env: { FIELDLENS_SECRET_KEY: KEY_A } });
    try {
      const otherToken = await adminToken(folderless.app);
      const stored = await folderless.app.inject({
        method: 'POST',
        url: `/api/v1/datasources/${inside.id}/test-connection`,
        headers: bearer(otherToken),
      });
      assert.equal(stored.statusCode, 422);
      assert.match(problem(stored).detail, /FIELDLENS_SCAN_SQLITE_DIR/);
      const fresh = await folderless.app.inject({
        method: 'PATCH',
        url: `/api/v1/datasources/${inside.id}`,
        headers: bearer(otherToken),
        payload: { connection: { kind: 'sqlite', database: 'other.db' } },
      });
      assert.equal(fresh.statusCode, 422);
      assert.match(problem(fresh).detail, /FIELDLENS_SCAN_SQLITE_DIR/);
    } finally {
      await folderless.close();
    }

    // A file that does not exist (yet) is accepted; its test names the cause.
    const missing = await createOk({
      name: 'later',
      type: 'sqlite',
      connection: { kind: 'sqlite', database: 'later.db' },
    });
    const failed = await testConnection(missing.id);
    assert.equal(failed.statusCode, 422);
    assert.equal(problem(failed).code, 'connection_failed');
    assert.match(problem(failed).detail, /unknown_database/);
  });

  it('tests a PostgreSQL connection: ok with the server version, or a failure naming the cause', async () => {
    let src: PgSource | undefined;
    let silent: Awaited<ReturnType<typeof silentServer>> | undefined;
    try {
      src = await createPgSource();
      const base = {
        kind: 'postgresql',
        host: src.server.host,
        port: src.server.port,
        database: src.database,
        user: src.server.user,
        ...(src.server.password ? { password: src.server.password } : {}),
      };
      const source = await createOk({ name: 'pg-source', type: 'postgresql', connection: base });
      const ok = await testConnection(source.id);
      assert.equal(ok.statusCode, 200, ok.body);
      const { server_version } = json<{ ok: boolean; server_version: string }>(ok);
      const actual =
        (await src.client.query<{ server_version: string }>('show server_version')).rows[0]?.server_version ?? '';
      assert.ok(server_version.includes(actual.split(' ')[0] ?? '?'), `${server_version} vs ${actual}`);

      const secret = `pg-secret-${randomBytes(4).toString('hex')}`;
      const expect = async (connection: Record<string, unknown>, cause: RegExp) => {
        const patched = await patch(source.id, { connection: { ...base, ...connection } });
        assert.equal(patched.statusCode, 200, patched.body);
        const failed = await testConnection(source.id);
        assert.equal(failed.statusCode, 422, failed.body);
        assert.equal(problem(failed).code, 'connection_failed');
        assert.match(problem(failed).detail, cause);
        assert.ok(!failed.body.includes(secret), 'no password in the failure');
      };
      // The machine's PostgreSQL trusts local connections, so an unknown role stands in for a wrong password.
      await expect({ user: randomName('nobody'), password: secret }, /authentication/);
      await expect({ database: 'fl_src_does_not_exist', password: secret }, /unknown_database.*fl_src_does_not_exist/);
      await expect({ host: '127.0.0.1', port: await closedPort(), password: secret }, /unreachable/);
      silent = await silentServer();
      await expect({ host: '127.0.0.1', port: silent.port, password: secret }, /timeout/);

      // Each test is audited with where it went and how it ended, never the password.
      const tested = (await auditActions(t.database, 'datasource.connection_tested')).filter(
        (e) => e.target_id === source.id,
      );
      const outcomes = tested.map((e) => (e.details.ok === true ? 'ok' : e.details.cause));
      assert.deepEqual(outcomes, ['ok', 'authentication', 'unknown_database', 'unreachable', 'timeout']);
      assert.ok(!JSON.stringify(tested).includes(secret), 'no password in the audit log');
    } finally {
      await silent?.close();
      await src?.dispose();
    }
  });

  it('tests a MariaDB connection with a password: ok, then a wrong password names authentication', async () => {
    let src: MysqlSource | undefined;
    const user = randomName('fl_conn');
    const right = `right-${randomBytes(4).toString('hex')}`;
    const wrong = `wrong-${randomBytes(4).toString('hex')}`;
    try {
      src = await createMysqlSource();
      for (const host of ['127.0.0.1', 'localhost']) {
        await src.conn.query(`CREATE USER '${user}'@'${host}' IDENTIFIED BY '${right}'`);
        await src.conn.query(`GRANT SELECT ON \`${src.database}\`.* TO '${user}'@'${host}'`);
      }
      const base = { kind: 'mysql', host: MYSQL.host, port: MYSQL.port, database: src.database, user };
      const source = await createOk({ name: 'maria', type: 'mariadb', connection: { ...base, password: right } });
      const ok = await testConnection(source.id);
      assert.equal(ok.statusCode, 200, ok.body);
      const [rows] = await src.conn.query<Array<{ v: string } & RowDataPacket>>('select version() as v');
      const version = json<{ server_version: string }>(ok).server_version;
      assert.ok(version.includes((rows[0]?.v ?? '?').split('-')[0] ?? '?'), `${version} vs ${rows[0]?.v}`);

      await patch(source.id, { connection: { ...base, password: wrong } });
      const failed = await testConnection(source.id);
      assert.equal(failed.statusCode, 422);
      assert.equal(problem(failed).code, 'connection_failed');
      assert.match(problem(failed).detail, /authentication/);
      assert.ok(!failed.body.includes(wrong) && !failed.body.includes(right));

      await patch(source.id, { connection: { ...base, database: 'fl_src_does_not_exist', password: right } });
      assert.match(problem(await testConnection(source.id)).detail, /unknown_database|permission/);
    } finally {
      for (const host of ['127.0.0.1', 'localhost'])
        await src?.conn.query(`DROP USER IF EXISTS '${user}'@'${host}'`).catch(() => {});
      await src?.dispose();
    }
  });

  it('refuses a connection or an interval on a sample data source (409), and test-connection without a connection (409)', async () => {
    const sample = await t.database.db.transaction().execute((trx) =>
      t.app.services.datasources.insertSampleDatasource(trx, {
        name: `sample-${randomBytes(3).toString('hex')}`,
        type: 'postgresql',
        description: 'sample',
      }),
    );
    assert.ok(sample);
    try {
      const refused = await patch(sample.id, { connection: { kind: 'postgresql', host: 'h', database: 'd' } });
      assert.equal(refused.statusCode, 409);
      assert.match(problem(refused).detail, /sample/);
      assert.equal((await patch(sample.id, { scan_interval_hours: 6 })).statusCode, 409);
      assert.equal((await patch(sample.id, { description: 'still editable' })).statusCode, 200);
      const untestable = await testConnection(sample.id);
      assert.equal(untestable.statusCode, 409);
      assert.equal(problem(untestable).code, 'conflict');
    } finally {
      await t.database.db.transaction().execute((trx) => t.app.services.datasources.deleteSampleDatasources(trx));
    }
  });

  it('validates bodies strictly (400) and changes nothing', async () => {
    const connection = { kind: 'postgresql', host: 'h', database: 'd', password: 'kept-password' };
    const created = await createOk({ name: 'strict', type: 'postgresql', connection, scan_interval_hours: 12 });
    const snapshot = JSON.stringify(await list());
    const auditBefore = await countRows(t.database, 'audit_log');
    const bad: Array<Record<string, unknown>> = [
      {},
      { connection: { ...connection, kind: 'oracle' } },
      { connection: { ...connection, port: 0 } },
      { connection: { ...connection, port: 65536 } },
      { connection: { ...connection, port: '5432' } },
      { connection: { ...connection, sample_size: 1001 } },
      { connection: { ...connection, sample_size: -1 } },
      { connection: { ...connection, ssl: 'prefer' } },
      { connection: { ...connection, extra: true } },
      { connection: { ...connection, include_tables: Array.from({ length: 101 }, (_, i) => `t${i}`) } },
      { connection: { ...connection, exclude_schemas: [''] } },
      { connection: { ...connection, include_schemas: ['x'.repeat(201)] } },
      { connection: { ...connection, include_schemas: 'sales' } },
      { connection: { ...connection, password: '' } },
      { connection: { host: 'h', database: 'd' } },
      { connection: { kind: 'postgresql', host: 'h' } },
      { scan_interval_hours: 0 },
      { scan_interval_hours: 8761 },
      { scan_interval_hours: 1.5 },
      { name: '' },
      { is_sample: true },
    ];
    for (const payload of bad) {
      const response = await patch(created.id, payload);
      assert.equal(response.statusCode, 400, `${JSON.stringify(payload).slice(0, 80)} → ${response.body}`);
      assert.equal(problem(response).code, 'validation_failed');
      if (payload.connection !== undefined || payload.scan_interval_hours !== undefined) {
        const onCreate = await create({ name: 'strict-2', type: 'postgresql', ...payload });
        assert.equal(onCreate.statusCode, 400, `create ${JSON.stringify(payload).slice(0, 80)}`);
      }
    }
    // A network connection without a host is refused by the connector rules (422), not silently pointed at localhost.
    const noHost = await patch(created.id, { connection: { kind: 'mysql', database: 'd' } });
    assert.equal(noHost.statusCode, 422);
    assert.match(problem(noHost).detail, /needs a host/);
    // A duplicate name is a conflict.
    await createOk({ name: 'other', type: 'x' });
    assert.equal((await patch(created.id, { name: 'other' })).statusCode, 409);

    assert.equal(JSON.stringify((await list()).filter((d) => d.name !== 'other')), snapshot, 'nothing changed');
    assert.equal(await storedPassword(created.id), 'kept-password');
    assert.equal(await countRows(t.database, 'audit_log'), auditBefore + 1, 'only the creation of "other" was audited');
  });

  it('answers 401 without a token, 403 without datasource:write, 404 for an unknown id, 400 for a bad id', async () => {
    const created = await createOk({
      name: 'guarded',
      type: 'postgresql',
      connection: { kind: 'postgresql', host: 'h', database: 'd' },
    });
    for (const request of [
      { method: 'PATCH' as const, url: `/api/v1/datasources/${created.id}`, payload: { name: 'x' } },
      { method: 'POST' as const, url: `/api/v1/datasources/${created.id}/test-connection` },
    ]) {
      const response = await t.app.inject(request);
      assert.equal(response.statusCode, 401, `${request.method} ${request.url}`);
      assert.equal(problem(response).code, 'unauthorized');
    }
    for (const role of ['operator', 'observer', 'classifier_owner'] as const) {
      const user = await createUser(t.app, [role]);
      const renamed = await patch(created.id, { name: 'hijacked' }, user.token);
      assert.equal(renamed.statusCode, 403, role);
      assert.equal(problem(renamed).code, 'forbidden');
      assert.equal((await testConnection(created.id, user.token)).statusCode, 403, role);
      await t.app.inject({ method: 'DELETE', url: `/api/v1/users/${user.id}`, headers: bearer(token) });
    }
    const dba = await createUser(t.app, ['dba']);
    assert.equal((await patch(created.id, { description: 'by the dba' }, dba.token)).statusCode, 200);
    await t.app.inject({ method: 'DELETE', url: `/api/v1/users/${dba.id}`, headers: bearer(token) });
    assert.equal((await list()).find((d) => d.id === created.id)?.name, 'guarded');

    assert.equal((await patch(NOWHERE, { name: 'x' })).statusCode, 404);
    assert.equal((await testConnection(NOWHERE)).statusCode, 404);
    assert.equal((await patch('nope', { name: 'x' })).statusCode, 400);
    assert.equal((await testConnection('nope')).statusCode, 400);
    await assert.rejects(
      t.app.services.datasources.getScanTarget(NOWHERE),
      (e: unknown) => e instanceof AppError && e.status === 404,
    );
  });

  it('after a change of the secret key, says so clearly instead of failing obscurely; a new password heals it', async () => {
    let src: PgSource | undefined;
    const others: TestApp[] = [];
    try {
      src = await createPgSource();
      const base = {
        kind: 'postgresql',
        host: src.server.host,
        port: src.server.port,
        database: src.database,
        user: src.server.user,
      };
      const created = await createOk({
        name: 'rekeyed',
        type: 'postgresql',
        connection: { ...base, password: src.server.password ?? 'any-password' },
      });

      // Another instance on the same database with another key, and one with no key at all.
      const rekeyed = await buildTestApp(kind, { testDatabase: t.testDatabase, env: { FIELDLENS_SECRET_KEY: KEY_B } });
      others.push(rekeyed);
      const keyless = await buildTestApp(kind, { testDatabase: t.testDatabase });
      others.push(keyless);
      for (const other of [rekeyed, keyless]) {
        const otherToken = await adminToken(other.app);
        const failed = await other.app.inject({
          method: 'POST',
          url: `/api/v1/datasources/${created.id}/test-connection`,
          headers: bearer(otherToken),
        });
        assert.equal(failed.statusCode, 422, failed.body);
        assert.equal(problem(failed).code, 'unprocessable');
        assert.match(problem(failed).detail, /password .* cannot be (decrypted|read)/);
        await assert.rejects(
          other.app.services.datasources.getScanTarget(created.id),
          (e: unknown) => e instanceof AppError && e.status === 422,
        );
        // Everything else keeps working.
        const listed = await other.app.inject({
          method: 'GET',
          url: '/api/v1/datasources',
          headers: bearer(otherToken),
        });
        assert.equal(
          json<{ items: DatasourceBody[] }>(listed).items.find((d) => d.id === created.id)?.has_password,
          true,
        );
      }
      // The keyless instance cannot store a password (422, nothing written), but may store a connection without one.
      const keylessToken = await adminToken(keyless.app);
      const before = await countRows(t.database, 'datasources');
      const refused = await keyless.app.inject({
        method: 'POST',
        url: '/api/v1/datasources',
        headers: bearer(keylessToken),
        payload: { name: 'no-key', type: 'pg', connection: { ...base, password: 'x-password' } },
      });
      assert.equal(refused.statusCode, 422);
      assert.match(problem(refused).detail, /FIELDLENS_SECRET_KEY/);
      assert.equal(await countRows(t.database, 'datasources'), before);
      const noPassword = await keyless.app.inject({
        method: 'POST',
        url: '/api/v1/datasources',
        headers: bearer(keylessToken),
        payload: { name: 'no-key', type: 'pg', connection: base },
      });
      assert.equal(noPassword.statusCode, 201, noPassword.body);

      // Entering the password again under the new key heals the data source there.
      const rekeyedToken = await adminToken(rekeyed.app);
      const healed = await rekeyed.app.inject({
        method: 'PATCH',
        url: `/api/v1/datasources/${created.id}`,
        headers: bearer(rekeyedToken),
        payload: { connection: { ...base, password: src.server.password ?? 'any-password' } },
      });
      assert.equal(healed.statusCode, 200, healed.body);
      const ok = await rekeyed.app.inject({
        method: 'POST',
        url: `/api/v1/datasources/${created.id}/test-connection`,
        headers: bearer(rekeyedToken),
      });
      assert.equal(ok.statusCode, 200, ok.body);
    } finally {
      for (const other of others) await other.close();
      await src?.dispose();
    }
  });
});

test('at trace level too, no log line carries a connection password', async () => {
  const secret = `trace-${randomBytes(6).toString('hex')}-password`;
  const t = await buildTestApp('sqlite', { env: { FIELDLENS_SECRET_KEY: KEY_A, LOG_LEVEL: 'trace' } });
  try {
    const token = await adminToken(t.app);
    const connection = {
      kind: 'postgresql',
      host: '127.0.0.1',
      port: await closedPort(),
      database: 'd',
      user: 'u',
      password: secret,
    };
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/datasources',
      headers: bearer(token),
      payload: { name: 'traced', type: 'pg', connection },
    });
    assert.equal(created.statusCode, 201);
    const id = json<DatasourceBody>(created).id;
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/datasources/${id}`,
      headers: bearer(token),
      payload: { connection: { ...connection, password: `${secret}-2` } },
    });
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/datasources/${id}`,
      headers: bearer(token),
      payload: { connection: { ...connection, port: 0, password: `${secret}-3` } },
    });
    assert.equal(
      (await t.app.inject({ method: 'POST', url: `/api/v1/datasources/${id}/test-connection`, headers: bearer(token) }))
        .statusCode,
      422,
    );
    // What a line logging a request body would write: the nested password is censored.
    t.app.log.info(
      { body: { connection }, req: { body: { connection } }, payload: [{ connection }] },
      'connection probe',
    );
    const logs = t.logs.join('');
    assert.ok(logs.includes('connection probe') && logs.includes('/test-connection'), 'the lines were written');
    assert.ok(!logs.includes(secret), 'no password in any line');
    assert.equal(
      JSON.parse(t.logs.find((l) => l.includes('connection probe')) ?? '{}').body.connection.password,
      '[redacted]',
    );
  } finally {
    await t.close();
  }
});

test('configuration: the secret key and the sqlite scan folder are checked at start, one line naming the variable', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fl-cfg-'));
  try {
    const config = loadConfig({ FIELDLENS_SECRET_KEY: KEY_A, FIELDLENS_SCAN_SQLITE_DIR: dir });
    assert.equal(config.secretKey?.toString('base64'), KEY_A);
    assert.equal(config.scanSqliteDir, dir);
    const keyFile = path.join(dir, 'key');
    fs.writeFileSync(keyFile, `${KEY_B}\n`);
    assert.equal(loadConfig({ FIELDLENS_SECRET_KEY_FILE: keyFile }).secretKey?.toString('base64'), KEY_B);
    const defaults = loadConfig({});
    assert.equal(defaults.secretKey, undefined);
    assert.equal(defaults.scanSqliteDir, undefined);
    const rejects = (env: Record<string, string>, variable: string) =>
      assert.throws(
        () => loadConfig(env),
        (e: unknown) => e instanceof ConfigError && e.variable === variable && !e.message.includes('\n'),
        JSON.stringify(env),
      );
    rejects({ FIELDLENS_SECRET_KEY: 'c2hvcnQ=' }, 'FIELDLENS_SECRET_KEY');
    rejects({ FIELDLENS_SECRET_KEY: 'not base64!' }, 'FIELDLENS_SECRET_KEY');
    rejects({ FIELDLENS_SECRET_KEY: KEY_A, FIELDLENS_SECRET_KEY_FILE: keyFile }, 'FIELDLENS_SECRET_KEY');
    rejects({ FIELDLENS_SECRET_KEY_FILE: path.join(dir, 'missing') }, 'FIELDLENS_SECRET_KEY_FILE');
    rejects({ FIELDLENS_SCAN_SQLITE_DIR: path.join(dir, 'missing') }, 'FIELDLENS_SCAN_SQLITE_DIR');
    rejects({ FIELDLENS_SCAN_SQLITE_DIR: keyFile }, 'FIELDLENS_SCAN_SQLITE_DIR');
    assert.ok(
      !String(
        (() => {
          try {
            loadConfig({ FIELDLENS_SECRET_KEY: 'c2hvcnQ=' });
          } catch (e) {
            return (e as Error).message;
          }
          return '';
        })(),
      ).includes('c2hvcnQ='),
      'the bad key is not echoed',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
