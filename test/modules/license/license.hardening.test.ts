/**
 * License regressions: an older license cannot replace a newer one, an oversized file is always 413, and an operator
 * can recover from a far-future clock excursion (`fieldlens license reset-clock`, audited).
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { runLicenseCommand } from '../../../src/cli/license.command.js';
import { MAX_LICENSE_FILE_BYTES } from '../../../src/modules/license/license-file.js';
import { adminToken, bearer, buildTestApp, json, problem, type TestApp } from '../../helpers/app.js';
import { cliDatabaseUrl, describeEachDatabase } from '../../helpers/databases.js';
import { DAY, importLicense, issueLicense, keyPair, multipart } from './license.helpers.js';

const vendor = keyPair();
const env = { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem };

async function status(
  t: TestApp,
  token: string,
): Promise<{ sku_tier: string; license_status: string; computed_status: string }> {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/license/status', headers: bearer(token) });
  assert.equal(response.statusCode, 200, response.body);
  return json(response);
}

function assertProblem(response: LightMyRequestResponse, statusCode: number, code: string): string {
  assert.equal(response.statusCode, statusCode, response.body);
  const body = problem(response);
  assert.equal(body.code, code);
  return body.detail;
}

describeEachDatabase('license hardening', (kind) => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp(kind, { env });
    token = await adminToken(t.app);
  });
  after(async () => t.close());

  it('an older license cannot replace a newer one (active → suspended → active again)', async () => {
    const now = t.clock.now();
    const active = issueLicense(vendor, new Date(now.getTime() - 2 * DAY), {
      not_before: new Date(now.getTime() - 2 * DAY).toISOString(),
    });
    assert.equal((await importLicense(t.app, token, active)).statusCode, 200);
    const suspended = issueLicense(vendor, new Date(now.getTime() - DAY), {
      status: 'suspended',
      not_before: new Date(now.getTime() - 2 * DAY).toISOString(),
    });
    assert.equal((await importLicense(t.app, token, suspended)).statusCode, 200);
    assert.equal((await status(t, token)).license_status, 'suspended');

    const detail = assertProblem(await importLicense(t.app, token, active), 400, 'license_invalid');
    assert.match(detail, /issued at .* before the license in force/);
    assert.equal((await status(t, token)).license_status, 'suspended', 'the newer license stays in force');
    const failures = await t.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'license.import_failed')
      .execute();
    assert.ok(failures.some((row) => (JSON.parse(row.details) as { reason?: string }).reason === 'older'));

    // The same license again, or a newer one, is accepted.
    assert.equal((await importLicense(t.app, token, suspended)).statusCode, 200);
    assert.equal((await importLicense(t.app, token, issueLicense(vendor, now))).statusCode, 200);
    assert.equal((await status(t, token)).license_status, 'active');
  });

  it('an oversized file is always 413, never cut to 64 KiB and read', async () => {
    const license = issueLicense(vendor, t.clock.now());
    for (const extra of [1, 2, 100, 1000, 4095, 4096, 4097, 16 * 1024, 64 * 1024 + 7]) {
      // A valid license padded past the limit: read cut at the limit, it would be refused as 400 instead.
      const content = Buffer.concat([
        Buffer.from(license),
        Buffer.alloc(MAX_LICENSE_FILE_BYTES - license.length + extra, 0x0a),
      ]);
      assertProblem(await importLicense(t.app, token, content), 413, 'payload_too_large');
    }
  });

  it('an oversized file whose bytes arrive with a break exactly at 64 KiB is 413 too', async () => {
    // The upload streamed as a client sends it: the first chunk ends at the 64 KiB boundary of the file, the rest
    // follows a moment later. Read per chunk, the file's end looked like a complete 64 KiB file.
    const license = issueLicense(vendor, t.clock.now());
    const content = Buffer.concat([
      Buffer.from(license),
      Buffer.alloc(MAX_LICENSE_FILE_BYTES - license.length + 500, 0x0a),
    ]);
    const body = multipart([{ name: 'file', filename: 'acme.service-license', content }]);
    const split = body.payload.indexOf(content) + MAX_LICENSE_FILE_BYTES;
    async function* chunks() {
      yield body.payload.subarray(0, split);
      await new Promise((resolve) => setTimeout(resolve, 20));
      yield body.payload.subarray(split);
    }
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/license/import',
      headers: { ...bearer(token), ...body.headers, 'content-length': String(body.payload.length) },
      payload: Readable.from(chunks()),
    });
    assertProblem(response, 413, 'payload_too_large');
  });

  it('fieldlens license reset-clock recovers from a far-future clock excursion, audited', async () => {
    const realNow = t.clock.now();
    // The clock runs a year ahead long enough for the service to record it, then comes back.
    t.clock.set(new Date(realNow.getTime() + 365 * DAY));
    await status(t, await adminToken(t.app));
    t.clock.set(realNow);
    token = await adminToken(t.app);
    assert.equal((await status(t, token)).computed_status, 'expired');
    const refused = await importLicense(t.app, token, issueLicense(vendor, realNow));
    assertProblem(refused, 400, 'license_invalid');

    let stdout = '';
    let stderr = '';
    const code = await runLicenseCommand(
      ['reset-clock'],
      { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) },
      {
        env: { DATABASE_URL: cliDatabaseUrl(t.testDatabase) },
        now: () => t.clock.now(),
      },
    );
    assert.equal(code, 0, stderr);
    assert.match(stdout, /lowered from/);
    const entries = await t.database.db
      .selectFrom('audit_log')
      .select(['details', 'actor_username'])
      .where('action', '=', 'license.clock_reset')
      .execute();
    assert.equal(entries.length, 1);
    assert.equal(
      (JSON.parse(entries[0]!.details) as { high_water_mark: string }).high_water_mark,
      realNow.toISOString(),
    );

    assert.equal((await status(t, token)).computed_status, 'active');
    assert.equal((await importLicense(t.app, token, issueLicense(vendor, realNow))).statusCode, 200);

    // Nothing to reset now: no change, no audit entry.
    const again = await runLicenseCommand(
      ['reset-clock'],
      { stdout: () => {}, stderr: () => {} },
      { env: { DATABASE_URL: cliDatabaseUrl(t.testDatabase) }, now: () => t.clock.now() },
    );
    assert.equal(again, 0);
    assert.equal(
      (await t.database.db.selectFrom('audit_log').select('seq').where('action', '=', 'license.clock_reset').execute())
        .length,
      1,
    );
  });
});
