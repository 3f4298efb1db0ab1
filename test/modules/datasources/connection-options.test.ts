// GET /api/v1/datasources/connection-options: what the data-source form offers, from the server's own settings, and
// limits that are the ones the create route enforces.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';

interface Options {
  kinds: Array<{
    kind: string;
    label: string;
    available: boolean;
    reason: string | null;
    default_port: number | null;
    schemas: boolean;
  }>;
  sqlite_dir: string | null;
  passwords: boolean;
  limits: {
    name_length: { min: number; max: number };
    patterns_per_list: number;
    pattern_length: { min: number; max: number };
    sample_size: { min: number; max: number; default: number };
    scan_interval_hours: { min: number; max: number };
  };
  patterns: string;
}

describeEachDatabase('data-source connection options', (kind) => {
  let plain: TestApp;
  let configured: TestApp;
  let sqliteDir: string;

  before(async () => {
    sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-scan-dir-'));
    plain = await buildTestApp(kind);
    configured = await buildTestApp(kind, {
      env: { FIELDLENS_SCAN_SQLITE_DIR: sqliteDir, FIELDLENS_SECRET_KEY: randomBytes(32).toString('base64') },
    });
  });
  after(async () => {
    await plain.close();
    await configured.close();
    fs.rmSync(sqliteDir, { recursive: true, force: true });
  });

  const options = async (t: TestApp, token?: string) =>
    t.app.inject({ method: 'GET', url: '/api/v1/datasources/connection-options', headers: token ? bearer(token) : {} });

  it('names the SQLite folder and that passwords can be stored when the server is set up for them', async () => {
    const response = await options(configured, await adminToken(configured.app));
    assert.equal(response.statusCode, 200);
    const body = json<Options>(response);
    assert.deepEqual(
      body.kinds.map((k) => [k.kind, k.available, k.default_port, k.schemas]),
      [
        ['postgresql', true, 5432, true],
        ['mysql', true, 3306, true],
        ['sqlite', true, null, false],
      ],
    );
    assert.ok(body.sqlite_dir && fs.realpathSync(body.sqlite_dir) === fs.realpathSync(sqliteDir));
    assert.equal(body.passwords, true);
    assert.match(body.patterns, /\* matches any run/);
  });

  it('says SQLite is refused, and why, when no folder is set; and that no password can be stored without a key', async () => {
    const body = json<Options>(await options(plain, await adminToken(plain.app)));
    const sqlite = body.kinds.find((k) => k.kind === 'sqlite');
    assert.equal(sqlite?.available, false);
    assert.match(sqlite?.reason ?? '', /FIELDLENS_SCAN_SQLITE_DIR/);
    assert.equal(body.sqlite_dir, null);
    assert.equal(body.passwords, false);
  });

  it('gives the limits the create route enforces', async () => {
    const token = await adminToken(configured.app);
    const { limits } = json<Options>(await options(configured, token));
    const create = (payload: object) =>
      configured.app.inject({ method: 'POST', url: '/api/v1/datasources', headers: bearer(token), payload });
    const sqlite = (extra: object) => ({ kind: 'sqlite', database: 'x.db', ...extra });
    assert.equal((await create({ name: 'n'.repeat(limits.name_length.max + 1), type: 'postgresql' })).statusCode, 400);
    const tooMany = Array.from({ length: limits.patterns_per_list + 1 }, (_, i) => `t${i}`);
    assert.equal(
      (await create({ name: 'too-many', type: 'sqlite', connection: sqlite({ exclude_tables: tooMany }) })).statusCode,
      400,
    );
    assert.equal(
      (
        await create({
          name: 'too-long',
          type: 'sqlite',
          connection: sqlite({ include_tables: ['p'.repeat(limits.pattern_length.max + 1)] }),
        })
      ).statusCode,
      400,
    );
    assert.equal(
      (
        await create({
          name: 'too-big',
          type: 'sqlite',
          connection: sqlite({ sample_size: limits.sample_size.max + 1 }),
        })
      ).statusCode,
      400,
    );
    assert.equal(
      (await create({ name: 'too-often', type: 'postgresql', scan_interval_hours: limits.scan_interval_hours.min - 1 }))
        .statusCode,
      400,
    );
    // At the limits it is taken (the sqlite file need not exist to be stored).
    const atLimits = await create({
      name: 'n'.repeat(limits.name_length.max),
      type: 'sqlite',
      connection: sqlite({
        exclude_tables: tooMany.slice(1),
        include_tables: ['p'.repeat(limits.pattern_length.max)],
        sample_size: limits.sample_size.max,
      }),
      scan_interval_hours: limits.scan_interval_hours.max,
    });
    assert.equal(atLimits.statusCode, 201, atLimits.body);
  });

  it('needs datasource:write: it names a server folder', async () => {
    assert.equal((await options(configured)).statusCode, 401);
    const observer = await createUser(configured.app, ['observer']);
    const refused = await options(configured, observer.token);
    assert.equal(refused.statusCode, 403);
    assert.equal(problem(refused).code, 'forbidden');
  });
});
