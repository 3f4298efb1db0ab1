// Where a connection may go: a stored password never follows the connection to another destination, strings the
// remote server chooses are bounded and cleaned, and a PostgreSQL host that is a path (a Unix socket) is refused unless
// FIELDLENS_SCAN_ALLOW_SOCKETS allows it. Against fake PostgreSQL servers that record what reaches them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, it } from 'node:test';
import { remoteText } from '../../../src/connectors/remote-text.js';
import { adminToken, bearer, buildTestApp, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { startFakePgServer, type FakePgServer } from '../../fixtures/fake-pg-server.js';
import { auditActions, countRows } from '../fields/factories.js';

interface Answer {
  id: string;
  connection: Record<string, unknown> | null;
  has_password: boolean;
  password_dropped?: boolean;
  notice?: string;
}

const KEY = randomBytes(32).toString('base64');
// Control, bidi and zero-width characters a hostile server could put in what it sends.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/u;

describeEachDatabase('data-source destinations', (kind) => {
  let t: TestApp;
  let token: string;
  const servers: FakePgServer[] = [];

  before(async () => {
    t = await buildTestApp(kind, { env: { FIELDLENS_SECRET_KEY: KEY } });
    token = await adminToken(t.app);
  });
  after(async () => {
    for (const s of servers) await s.close();
    await t.close();
  });
  afterEach(async () => {
    const listed = json<{ items: Answer[] }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/datasources', headers: bearer(token) }),
    ).items;
    for (const d of listed)
      await t.app.inject({ method: 'DELETE', url: `/api/v1/datasources/${d.id}`, headers: bearer(token) });
  });

  const fake = async (options: Parameters<typeof startFakePgServer>[0] = {}): Promise<FakePgServer> => {
    const server = await startFakePgServer(options);
    servers.push(server);
    return server;
  };
  const create = (payload: Record<string, unknown>, app = t.app, as = token) =>
    app.inject({ method: 'POST', url: '/api/v1/datasources', headers: bearer(as), payload });
  const patch = (id: string, payload: Record<string, unknown>, app = t.app, as = token) =>
    app.inject({ method: 'PATCH', url: `/api/v1/datasources/${id}`, headers: bearer(as), payload });
  const testConnection = (id: string, app = t.app, as = token) =>
    app.inject({ method: 'POST', url: `/api/v1/datasources/${id}/test-connection`, headers: bearer(as) });
  const createOk = async (payload: Record<string, unknown>): Promise<Answer> => {
    const response = await create(payload);
    assert.equal(response.statusCode, 201, response.body);
    return json<Answer>(response);
  };

  it('a stored password never reaches a new address: moving host or port without a password drops it, and the answer says so', async () => {
    const secret = `moving-${randomBytes(6).toString('hex')}-password`;
    const home = await fake();
    const elsewhere = await fake();
    const base = { kind: 'postgresql', host: '127.0.0.1', port: home.port, database: 'orders', user: 'scan' };
    const created = await createOk({ name: 'orders', type: 'postgresql', connection: { ...base, password: secret } });
    assert.equal((await testConnection(created.id)).statusCode, 200);
    assert.deepEqual(
      home.logins,
      [{ user: 'scan', database: 'orders', password: secret }],
      'the password goes where it was given for',
    );

    // A change that keeps the destination keeps the password.
    const kept = await patch(created.id, { connection: { ...base, exclude_tables: ['*_backup'] } });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.equal(json<Answer>(kept).has_password, true);
    assert.equal(json<Answer>(kept).password_dropped, false);
    assert.equal(json<Answer>(kept).notice, undefined);

    // The same server under another port: the destination moved.
    const moved = await patch(created.id, { connection: { ...base, port: elsewhere.port } });
    assert.equal(moved.statusCode, 200, moved.body);
    const answer = json<Answer>(moved);
    assert.equal(answer.has_password, false);
    assert.equal(answer.password_dropped, true);
    assert.match(answer.notice ?? '', /password was removed because the connection's port changed/);
    assert.equal((await t.app.services.datasources.getScanTarget(created.id)).connection?.password, undefined);
    const entry = (await auditActions(t.database, 'datasource.updated')).at(-1);
    assert.equal(entry?.details.password_dropped, true);
    assert.equal(entry?.details.password_changed, true);
    assert.ok(!JSON.stringify(entry).includes(secret));

    assert.equal((await testConnection(created.id)).statusCode, 200);
    assert.equal(elsewhere.logins.length, 1, 'the new address was contacted');
    assert.ok(
      elsewhere.logins.every((l) => l.password !== secret),
      'the old password never reached the new address',
    );

    // A new password in the same request is taken for the new destination.
    const fresh = `${secret}-new`;
    const withPassword = await patch(created.id, {
      connection: { ...base, host: 'localhost', port: elsewhere.port, password: fresh },
    });
    assert.equal(json<Answer>(withPassword).password_dropped, false);
    assert.equal(json<Answer>(withPassword).has_password, true);
    assert.equal((await testConnection(created.id)).statusCode, 200);
    assert.equal(elsewhere.logins.at(-1)?.password, fresh);
    assert.ok(home.logins.every((l) => l.password !== fresh));
  });

  it('drops the stored password when kind, host, database or user change, or TLS gets weaker; not for filters or a stronger TLS', async () => {
    const base = { kind: 'postgresql', host: 'db.internal', port: 5432, database: 'crm', user: 'scan', ssl: 'require' };
    const created = await createOk({
      name: 'crm',
      type: 'postgresql',
      connection: { ...base, password: 'first-password' },
    });
    const cases: Array<[Record<string, unknown>, boolean, string]> = [
      [{ include_schemas: ['sales'], sample_size: 20 }, false, 'filters'],
      [{ port: undefined }, false, 'the default port spelled out or not'],
      [{ host: 'DB.INTERNAL' }, false, 'host names are not case-sensitive'],
      [{ ssl: 'verify-full' }, false, 'stronger TLS'],
      [{ host: 'db.attacker.example' }, true, 'host'],
      [{ port: 6432 }, true, 'port'],
      [{ database: 'other' }, true, 'database'],
      [{ user: 'postgres' }, true, 'user'],
      [{ ssl: 'disable' }, true, 'ssl'],
      [{ kind: 'mysql', port: 5432 }, true, 'kind'],
    ];
    for (const [change, drops, what] of cases) {
      await patch(created.id, { connection: { ...base, password: 'first-password' } });
      const before = await countRows(t.database, 'audit_log');
      const response = await patch(created.id, { connection: { ...base, ...change } });
      assert.equal(response.statusCode, 200, `${what}: ${response.body}`);
      const answer = json<Answer>(response);
      assert.equal(answer.password_dropped, drops, what);
      assert.equal(answer.has_password, !drops, what);
      if (drops) assert.match(answer.notice ?? '', new RegExp(what.replace(/ .*/, '')), what);
      assert.equal(
        (await t.app.services.datasources.getScanTarget(created.id)).connection?.password,
        drops ? undefined : 'first-password',
        what,
      );
      assert.equal(await countRows(t.database, 'audit_log'), before + 1, `${what}: one audit entry`);
    }
    // No stored password: nothing to drop, nothing said.
    await patch(created.id, { connection: { ...base, password: null } });
    const moved = json<Answer>(await patch(created.id, { connection: { ...base, host: 'elsewhere' } }));
    assert.equal(moved.password_dropped, false);
    assert.equal(moved.notice, undefined);
  });

  it('bounds and cleans the server version a server chooses (5 MB, control and bidi characters) before answering, auditing or logging it', async () => {
    const hostile = `16.1\u202e\u0000\u001b[31m evil\u200b\n${'V'.repeat(5 * 1024 * 1024)}`;
    const server = await fake({ serverVersion: hostile });
    const created = await createOk({
      name: 'hostile',
      type: 'postgresql',
      connection: { kind: 'postgresql', host: '127.0.0.1', port: server.port, database: 'd', user: 'u' },
    });
    const response = await testConnection(created.id);
    assert.equal(response.statusCode, 200, response.body.slice(0, 300));
    assert.ok(response.body.length < 1000, `answered ${response.body.length} bytes`);
    const version = json<{ server_version: string }>(response).server_version;
    assert.ok([...version].length <= 200, `${version.length} characters`);
    assert.ok(version.startsWith('PostgreSQL 16.1'), version.slice(0, 40));
    assert.ok(!UNSAFE.test(version), JSON.stringify(version.slice(0, 60)));
    assert.ok(version.endsWith('…'), 'the cut is marked');

    const audited = (await auditActions(t.database, 'datasource.connection_tested')).filter(
      (e) => e.target_id === created.id,
    );
    assert.equal(audited.length, 1);
    assert.equal(audited[0]?.details.server_version, version);
    const logs = t.logs.join('');
    assert.ok(!logs.includes('V'.repeat(300)), 'the version is not logged whole');
  });

  it('refuses a PostgreSQL host that is a path (a Unix socket) with 422 unless FIELDLENS_SCAN_ALLOW_SOCKETS=on', async () => {
    const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fl-sock-'));
    const allowing = await buildTestApp(kind, {
      testDatabase: t.testDatabase,
      env: { FIELDLENS_SECRET_KEY: KEY, FIELDLENS_SCAN_ALLOW_SOCKETS: 'on' },
    });
    try {
      const server = await fake({ socketDir, socketPort: 5432 });
      const socketConnection = { kind: 'postgresql', host: socketDir, port: 5432, database: 'd', user: 'u' };

      // Off (the default): refused on create and on update, nothing stored or audited.
      const before = [await countRows(t.database, 'datasources'), await countRows(t.database, 'audit_log')];
      const refused = await create({ name: 'local', type: 'postgresql', connection: socketConnection });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.equal(problem(refused).code, 'unprocessable');
      assert.match(problem(refused).detail, /Unix socket.*FIELDLENS_SCAN_ALLOW_SOCKETS=on/);
      const network = await createOk({
        name: 'network',
        type: 'postgresql',
        connection: { ...socketConnection, host: 'db.internal' },
      });
      const refusedPatch = await patch(network.id, { connection: socketConnection });
      assert.equal(refusedPatch.statusCode, 422);
      assert.equal(
        (await t.app.services.datasources.getScanTarget(network.id)).connection?.host,
        'db.internal',
        'the refused PATCH changed nothing',
      );
      assert.deepEqual(
        [await countRows(t.database, 'datasources'), await countRows(t.database, 'audit_log')],
        [before[0]! + 1, before[1]! + 1],
      );
      assert.equal(server.logins.length, 0, 'nothing was connected');

      // On: accepted, and test-connection goes over the socket.
      const allowingToken = await adminToken(allowing.app);
      const accepted = await create(
        { name: 'local', type: 'postgresql', connection: socketConnection },
        allowing.app,
        allowingToken,
      );
      assert.equal(accepted.statusCode, 201, accepted.body);
      const id = json<Answer>(accepted).id;
      const ok = await testConnection(id, allowing.app, allowingToken);
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(
        server.logins.map((l) => l.database),
        ['d'],
      );

      // An instance where sockets are off refuses the stored socket connection too.
      const stored = await testConnection(id);
      assert.equal(stored.statusCode, 422);
      assert.match(problem(stored).detail, /FIELDLENS_SCAN_ALLOW_SOCKETS/);
      assert.equal(server.logins.length, 1);
    } finally {
      await allowing.close();
      fs.rmSync(socketDir, { recursive: true, force: true });
    }
  });
});

it('remoteText: cut to the limit (marked), one line, without control, bidi, zero-width characters or lone surrogates', () => {
  assert.equal(remoteText('PostgreSQL 16.4'), 'PostgreSQL 16.4');
  assert.equal(remoteText('16.1\u202e\u0000evil\u200b \u2066x\u2069\r\n\ty\u0085z\ufeff'), '16.1 evil x y z');
  assert.equal(remoteText('a\ud800b\udc00c'), 'abc');
  assert.equal(remoteText('😀'.repeat(10), 5), '😀😀😀😀…', 'characters, not UTF-16 units');
  const long = remoteText('x'.repeat(5 * 1024 * 1024));
  assert.equal([...long].length, 200);
  assert.ok(long.endsWith('…'));
  // A long run of removed characters before the text still ends in a bounded, marked string.
  assert.equal(remoteText('\u0000'.repeat(10_000) + 'tail'), '…');
  assert.equal(remoteText(undefined), '');
  assert.equal(remoteText(42), '42');
});
