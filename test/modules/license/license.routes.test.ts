import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, it } from 'node:test';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { DAY, importLicense, issueLicense, keyPair, multipart } from './license.helpers.js';

const vendor = keyPair();
const env = { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem };

interface Status {
  sku_tier: string;
  license_status: string;
  computed_status: string;
  expires_at: string | null;
  customer_name: string | null;
  quotas: { max_datasources: number | null; max_users: number | null };
  usage: { datasources: number; users: number };
  features_enabled: Record<string, boolean>;
  is_expired: boolean;
  days_remaining: number | null;
}

async function status(t: TestApp, token: string): Promise<Status> {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/license/status', headers: bearer(token) });
  assert.equal(response.statusCode, 200, response.body);
  return json<Status>(response);
}

async function auditEntries(t: TestApp, action: string) {
  const rows = await t.database.db
    .selectFrom('audit_log')
    .selectAll()
    .where('action', '=', action)
    .orderBy('seq')
    .execute();
  return rows.map((row) => ({ ...row, details: JSON.parse(row.details) as Record<string, unknown> }));
}

describeEachDatabase('license status and import', (kind) => {
  let t: TestApp;
  let token: string;
  let startedAt: Date;
  before(async () => {
    t = await buildTestApp(kind, { env });
    startedAt = t.clock.now();
    token = await adminToken(t.app);
  });
  after(async () => t.close());

  it('runs the 30-day trial on a fresh start, with every field of the status object', async () => {
    const body = await status(t, token);
    assert.deepEqual(Object.keys(body).sort(), [
      'computed_status',
      'customer_name',
      'days_remaining',
      'expires_at',
      'features_enabled',
      'is_expired',
      'license_status',
      'quotas',
      'sku_tier',
      'usage',
    ]);
    assert.deepEqual(body, {
      sku_tier: 'trial_mock',
      license_status: 'active',
      computed_status: 'active',
      expires_at: new Date(startedAt.getTime() + 30 * DAY).toISOString(),
      customer_name: null,
      quotas: { max_datasources: 3, max_users: 5 },
      usage: { datasources: 0, users: 1 },
      features_enabled: { embedding_metrics: true, batch_confirm: true, audit_export: true, sample_data: true },
      is_expired: false,
      days_remaining: 30,
    });
    const me = json<{ sku_tier: string }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) }),
    );
    assert.equal(me.sku_tier, 'trial_mock');
  });

  it('counts usage live: users that are not disabled, data sources', async () => {
    const user = await createUser(t.app, ['observer'], { token });
    const ds = await t.app.inject({
      method: 'POST',
      url: '/api/v1/datasources',
      headers: bearer(token),
      payload: { name: `usage-${kind}`, type: 'postgresql' },
    });
    assert.equal(ds.statusCode, 201, ds.body);
    assert.deepEqual((await status(t, token)).usage, { datasources: 1, users: 2 });
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${user.id}`,
      headers: bearer(token),
      payload: { disabled: true },
    });
    await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/datasources/${json<{ id: string }>(ds).id}`,
      headers: bearer(token),
    });
    assert.deepEqual((await status(t, token)).usage, { datasources: 0, users: 1 });
  });

  const tiers = [
    {
      tier: 'lite',
      features: { embedding_metrics: true, batch_confirm: false, audit_export: false, sample_data: false },
      quotas: { max_datasources: 2, max_users: 3 },
    },
    {
      tier: 'pro',
      features: { embedding_metrics: true, batch_confirm: true, audit_export: true, sample_data: false },
      quotas: { max_datasources: 25, max_users: 200 },
    },
    {
      tier: 'enterprise',
      features: { embedding_metrics: true, batch_confirm: true, audit_export: true, sample_data: false },
      quotas: { max_datasources: null, max_users: null },
    },
  ] as const;
  for (const { tier, features, quotas } of tiers) {
    it(`imports a signed ${tier} license and reports it`, async () => {
      const now = t.clock.now();
      const expiresAt = new Date(now.getTime() + 100 * DAY - 1000).toISOString();
      const file = issueLicense(vendor, now, {
        sku_tier: tier,
        customer_name: `${tier} customer`,
        expires_at: expiresAt,
        quotas,
      });
      const response = await importLicense(t.app, token, file);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(json(response), { sku_tier: tier, expires_at: expiresAt });

      const body = await status(t, token);
      assert.equal(body.sku_tier, tier);
      assert.equal(body.license_status, 'active');
      assert.equal(body.computed_status, 'active');
      assert.equal(body.expires_at, expiresAt);
      assert.equal(body.customer_name, `${tier} customer`);
      assert.deepEqual(body.quotas, quotas);
      assert.deepEqual(body.features_enabled, features);
      assert.equal(body.is_expired, false);
      assert.equal(body.days_remaining, 100);
      const me = json<{ sku_tier: string }>(
        await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) }),
      );
      assert.equal(me.sku_tier, tier);
    });
  }

  it('reports a perpetual license with expires_at and days_remaining null, and lets payload features override the tier', async () => {
    const file = issueLicense(vendor, t.clock.now(), {
      sku_tier: 'lite',
      expires_at: null,
      features: { batch_confirm: true },
    });
    const response = await importLicense(t.app, token, file);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(json(response), { sku_tier: 'lite', expires_at: null });
    const body = await status(t, token);
    assert.equal(body.expires_at, null);
    assert.equal(body.days_remaining, null);
    assert.equal(body.is_expired, false);
    assert.equal(body.features_enabled.batch_confirm, true);
    assert.equal(body.features_enabled.audit_export, false);
  });

  it('audit-logs every successful import', async () => {
    const entries = await auditEntries(t, 'license.imported');
    assert.equal(entries.length, 4);
    const last = entries[entries.length - 1];
    assert.equal(last?.actor_username, 'admin');
    assert.equal(last?.target_type, 'license');
    assert.equal(last?.details.sku_tier, 'lite');
    assert.equal(last?.details.filename, 'acme.service-license');
    assert.equal(typeof last?.details.previous_license_id, 'string');
  });
});

describeEachDatabase('license import refusals', (kind) => {
  let t: TestApp;
  let token: string;
  let good: string;
  before(async () => {
    t = await buildTestApp(kind, { env });
    token = await adminToken(t.app);
    good = issueLicense(vendor, t.clock.now(), {
      sku_tier: 'pro',
      customer_name: 'Good Corp',
      quotas: { max_datasources: 7, max_users: 70 },
    });
    assert.equal((await importLicense(t.app, token, good)).statusCode, 200);
  });
  after(async () => t.close());

  async function assertGoodLicenseInForce(): Promise<void> {
    const body = await status(t, token);
    assert.equal(body.sku_tier, 'pro');
    assert.equal(body.customer_name, 'Good Corp');
    assert.deepEqual(body.quotas, { max_datasources: 7, max_users: 70 });
  }

  async function assertRefused(
    response: Awaited<ReturnType<typeof importLicense>>,
    httpStatus: number,
    code: string,
    reason: string | null,
  ): Promise<string> {
    assert.equal(response.statusCode, httpStatus, response.body);
    const body = problem(response);
    assert.equal(body.code, code);
    await assertGoodLicenseInForce();
    if (reason !== null) {
      const failures = await auditEntries(t, 'license.import_failed');
      assert.equal(failures[failures.length - 1]?.details.reason, reason);
      assert.equal(failures[failures.length - 1]?.actor_username, 'admin');
    }
    return body.detail;
  }

  function flipByteInBody(text: string, index: number): string {
    const lines = text.split('\n');
    const line = lines[1] ?? '';
    const position = Math.min(index, line.length - 1);
    const replacement = line[position] === 'A' ? 'B' : 'A';
    lines[1] = line.slice(0, position) + replacement + line.slice(position + 1);
    return lines.join('\n');
  }

  it('refuses a file with one flipped byte', async () => {
    await assertRefused(await importLicense(t.app, token, flipByteInBody(good, 10)), 400, 'license_invalid', 'format');
    await assertRefused(await importLicense(t.app, token, flipByteInBody(good, 40)), 400, 'license_invalid', null);
  });

  it('refuses a license signed with another key', async () => {
    const forged = issueLicense(keyPair(), t.clock.now(), {
      sku_tier: 'enterprise',
      quotas: { max_datasources: null, max_users: null },
    });
    const detail = await assertRefused(await importLicense(t.app, token, forged), 400, 'license_invalid', 'signature');
    assert.match(detail, /signature/);
  });

  it('refuses a truncated file and garbage', async () => {
    await assertRefused(
      await importLicense(t.app, token, good.slice(0, Math.floor(good.length / 2))),
      400,
      'license_invalid',
      'format',
    );
    await assertRefused(await importLicense(t.app, token, randomBytes(2000)), 400, 'license_invalid', 'format');
    await assertRefused(await importLicense(t.app, token, ''), 400, 'license_invalid', 'format');
  });

  it('refuses a valid file whose name does not end in .service-license', async () => {
    const other = issueLicense(vendor, t.clock.now(), { sku_tier: 'enterprise' });
    const detail = await assertRefused(
      await importLicense(t.app, token, other, 'acme.txt'),
      400,
      'license_invalid',
      'extension',
    );
    assert.match(detail, /\.service-license/);
    await assertRefused(
      await importLicense(t.app, token, other, 'acme.service-license.txt'),
      400,
      'license_invalid',
      'extension',
    );
  });

  it('answers a 10 MB upload with 413', async () => {
    const detail = await assertRefused(
      await importLicense(t.app, token, Buffer.alloc(10 * 1024 * 1024, 0x41)),
      413,
      'payload_too_large',
      'too_large',
    );
    assert.match(detail, /64 KiB/);
    // Just over the limit is refused too; a file of exactly 64 KiB is read (and refused as a license).
    await assertRefused(
      await importLicense(t.app, token, Buffer.alloc(64 * 1024 + 1, 0x41)),
      413,
      'payload_too_large',
      'too_large',
    );
    await assertRefused(
      await importLicense(t.app, token, Buffer.alloc(64 * 1024, 0x41)),
      400,
      'license_invalid',
      'format',
    );
  });

  it('answers a multipart body without a file part with 400 validation_failed', async () => {
    for (const parts of [
      [{ name: 'license', filename: 'acme.service-license', content: good }],
      [{ name: 'file', content: good }],
      [{ name: 'comment', content: 'hello' }],
    ]) {
      const body = multipart(parts);
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/license/import',
        headers: { ...bearer(token), ...body.headers },
        payload: body.payload,
      });
      await assertRefused(response, 400, 'validation_failed', 'missing_file');
    }
  });

  it('refuses an expired license, saying so', async () => {
    const now = t.clock.now();
    const expired = issueLicense(vendor, new Date(now.getTime() - 40 * DAY), {
      expires_at: new Date(now.getTime() - DAY).toISOString(),
    });
    const detail = await assertRefused(await importLicense(t.app, token, expired), 400, 'license_invalid', 'expired');
    assert.match(detail, /expired/);
  });

  it('refuses a license that is not yet valid, saying so', async () => {
    const now = t.clock.now();
    const future = issueLicense(vendor, now, { not_before: new Date(now.getTime() + 2 * DAY).toISOString() });
    const detail = await assertRefused(
      await importLicense(t.app, token, future),
      400,
      'license_invalid',
      'not_yet_valid',
    );
    assert.match(detail, /not yet valid/);
  });

  it('answers a body that is not multipart with 415', async () => {
    const asJson = await t.app.inject({
      method: 'POST',
      url: '/api/v1/license/import',
      headers: bearer(token),
      payload: { file: good },
    });
    await assertRefused(asJson, 415, 'unsupported_media_type', null);
    const asText = await t.app.inject({
      method: 'POST',
      url: '/api/v1/license/import',
      headers: { ...bearer(token), 'content-type': 'text/plain' },
      payload: good,
    });
    await assertRefused(asText, 415, 'unsupported_media_type', null);
    const none = await t.app.inject({ method: 'POST', url: '/api/v1/license/import', headers: bearer(token) });
    await assertRefused(none, 415, 'unsupported_media_type', null);
  });

  it('answers a malformed multipart body with 400', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/license/import',
      headers: { ...bearer(token), 'content-type': 'multipart/form-data' },
      payload: 'no boundary here',
    });
    await assertRefused(response, 400, 'validation_failed', 'missing_file');
  });

  it('audit-logs every failed import in its own transaction', async () => {
    const failures = await auditEntries(t, 'license.import_failed');
    assert.ok(failures.length >= 15, `got ${failures.length}`);
    const reasons = new Set(failures.map((f) => f.details.reason));
    for (const reason of ['format', 'signature', 'extension', 'too_large', 'missing_file', 'expired', 'not_yet_valid'])
      assert.ok(reasons.has(reason), reason);
    assert.equal((await auditEntries(t, 'license.imported')).length, 1);
  });
});

describeEachDatabase('license access', (kind) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(kind, { env });
  });
  after(async () => t.close());

  it('is for superadmins only: no token 401, admin and observer 403', async () => {
    const file = issueLicense(vendor, t.clock.now());
    const anonymousStatus = await t.app.inject({ method: 'GET', url: '/api/v1/license/status' });
    assert.equal(anonymousStatus.statusCode, 401);
    assert.equal(problem(anonymousStatus).code, 'unauthorized');
    const body = multipart([{ name: 'file', filename: 'a.service-license', content: file }]);
    const anonymousImport = await t.app.inject({
      method: 'POST',
      url: '/api/v1/license/import',
      headers: body.headers,
      payload: body.payload,
    });
    assert.equal(anonymousImport.statusCode, 401);

    for (const role of ['admin', 'observer'] as const) {
      const user = await createUser(t.app, [role]);
      const read = await t.app.inject({ method: 'GET', url: '/api/v1/license/status', headers: bearer(user.token) });
      assert.equal(read.statusCode, 403);
      assert.equal(problem(read).code, 'forbidden');
      const write = await importLicense(t.app, user.token, file);
      assert.equal(write.statusCode, 403);
      assert.equal(problem(write).code, 'forbidden');
    }
    const token = await adminToken(t.app);
    assert.equal((await status(t, token)).sku_tier, 'trial_mock', 'the refused imports changed nothing');
    assert.equal(
      (await auditEntries(t, 'license.import_failed')).length,
      0,
      'requests refused before the handler are not import attempts',
    );
  });

  it('documents both endpoints in OpenAPI, the import as multipart', async () => {
    const doc = json<{
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> }; security?: unknown }>>;
    }>(await t.app.inject({ method: 'GET', url: '/openapi.json' }));
    assert.ok(doc.paths['/api/v1/license/status']?.get);
    const post = doc.paths['/api/v1/license/import']?.post;
    assert.ok(post?.requestBody?.content['multipart/form-data']);
    assert.deepEqual(post?.security, [{ bearer: [] }]);
  });
});
