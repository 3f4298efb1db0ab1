import assert from 'node:assert/strict';
import { it } from 'node:test';
import { adminToken, bearer, buildTestApp, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { LICENSE_CACHE_TTL_MS } from '../../../src/modules/license/license.service.js';
import { importLicense, issueLicense, keyPair } from './license.helpers.js';

const vendor = keyPair();
const env = { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem };

async function status(t: TestApp, token: string) {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/license/status', headers: bearer(token) });
  assert.equal(response.statusCode, 200, response.body);
  return json<{
    sku_tier: string;
    customer_name: string | null;
    usage: { datasources: number };
    features_enabled: Record<string, boolean>;
  }>(response);
}

async function datasources(t: TestApp, token: string) {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/datasources', headers: bearer(token) });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ items: Array<{ name: string; is_sample: boolean }> }>(response).items;
}

async function tierSeenBy(t: TestApp, token: string): Promise<string> {
  return json<{ sku_tier: string }>(
    await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) }),
  ).sku_tier;
}

describeEachDatabase('license across instances', (kind) => {
  it('takes effect on every instance: status and quotas at once, the tier and features within a second', async () => {
    const a = await buildTestApp(kind, { env });
    const b = await buildTestApp(kind, { env, testDatabase: a.testDatabase, clock: a.clock });
    try {
      const tokenA = await adminToken(a.app);
      const tokenB = await adminToken(b.app);
      assert.equal(await tierSeenBy(b, tokenB), 'trial_mock');
      const audit = await b.app.inject({
        method: 'GET',
        url: '/api/v1/audit-logs/export?format=ndjson',
        headers: bearer(tokenB),
      });
      assert.equal(audit.statusCode, 200, 'the trial includes audit_export');

      const lite = issueLicense(vendor, a.clock.now(), {
        sku_tier: 'lite',
        customer_name: 'Two Instances Ltd',
        quotas: { max_datasources: 0, max_users: 10 },
      });
      assert.equal((await importLicense(a.app, tokenA, lite)).statusCode, 200);

      const seen = await status(b, tokenB);
      assert.equal(seen.sku_tier, 'lite');
      assert.equal(seen.customer_name, 'Two Instances Ltd');
      const refused = await b.app.inject({
        method: 'POST',
        url: '/api/v1/datasources',
        headers: bearer(tokenB),
        payload: { name: 'x', type: 'mysql' },
      });
      assert.equal(problem(refused).code, 'quota_exceeded', 'the quota check reads the license inside its transaction');

      // Other reads may serve the cached state for at most LICENSE_CACHE_TTL_MS (measured on the injected monotonic
      // clock, so the test moves it instead of sleeping); once that has passed, any read is fresh.
      a.clock.advance(LICENSE_CACHE_TTL_MS + 10);
      assert.equal(await tierSeenBy(b, tokenB), 'lite');
      const exported = await b.app.inject({
        method: 'GET',
        url: '/api/v1/audit-logs/export?format=ndjson',
        headers: bearer(tokenB),
      });
      assert.equal(exported.statusCode, 403);
      assert.equal(problem(exported).code, 'feature_disabled');
      assert.match(problem(exported).detail, /audit_export/);
    } finally {
      await b.app.close();
      await b.database.close();
      await a.close();
    }
  });

  it('falls back to the trial when the stored license no longer verifies (edited in the database)', async () => {
    const t = await buildTestApp(kind, { env });
    try {
      const token = await adminToken(t.app);
      const file = issueLicense(vendor, t.clock.now(), { sku_tier: 'enterprise' });
      assert.equal((await importLicense(t.app, token, file)).statusCode, 200);
      const lines = file.split('\n');
      lines[2] = `${lines[2]?.slice(0, 5)}${lines[2]?.[5] === 'A' ? 'B' : 'A'}${lines[2]?.slice(6)}`;
      await t.database.db
        .updateTable('licenses')
        .set({ file_text: lines.join('\n') })
        .where('active', '=', 1)
        .execute();

      const other = await buildTestApp(kind, { env, testDatabase: t.testDatabase, clock: t.clock });
      try {
        assert.equal((await status(other, await adminToken(other.app))).sku_tier, 'trial_mock');
        assert.ok(other.logs.some((line) => line.includes('does not verify')));
      } finally {
        await other.app.close();
        await other.database.close();
      }
    } finally {
      await t.close();
    }
  });
});

describeEachDatabase('license and the sample data', (kind) => {
  it('keeps the sample data under a trial license and removes it, audit-logged, when a paid license is imported', async () => {
    const t = await buildTestApp(kind, { env: { ...env, FIELDLENS_SAMPLE_DATA: 'on' } });
    try {
      const token = await adminToken(t.app);
      const samples = (await datasources(t, token)).filter((d) => d.is_sample);
      assert.ok(samples.length >= 3, 'the trial starts with the sample catalog');
      assert.equal((await status(t, token)).usage.datasources, 0, 'sample data sources do not count');
      const own = await t.app.inject({
        method: 'POST',
        url: '/api/v1/datasources',
        headers: bearer(token),
        payload: { name: 'own', type: 'oracle' },
      });
      assert.equal(own.statusCode, 201);

      const signedTrial = issueLicense(vendor, t.clock.now(), { sku_tier: 'trial_mock' });
      assert.equal((await importLicense(t.app, token, signedTrial)).statusCode, 200);
      assert.equal(
        (await datasources(t, token)).filter((d) => d.is_sample).length,
        samples.length,
        'a trial license keeps them',
      );

      const pro = issueLicense(vendor, t.clock.now(), { sku_tier: 'pro' });
      assert.equal((await importLicense(t.app, token, pro)).statusCode, 200);
      assert.deepEqual(
        (await datasources(t, token)).map((d) => d.name),
        ['own'],
      );
      const removed = await t.database.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'sample_data.removed')
        .execute();
      assert.equal(removed.length, 1);
      const imported = await t.database.db
        .selectFrom('audit_log')
        .select(['seq', 'details'])
        .where('action', '=', 'license.imported')
        .orderBy('seq')
        .execute();
      const last = imported[imported.length - 1];
      assert.equal((JSON.parse(last?.details ?? '{}') as { removed_sample_data?: boolean }).removed_sample_data, true);
      assert.ok((removed[0]?.seq ?? 0) < (last?.seq ?? 0), 'removed in the import transaction, before its entry');
    } finally {
      await t.close();
    }
  });

  it('removes the sample data when a trial license switches sample_data off, and keeps it when the import fails', async () => {
    const t = await buildTestApp(kind, { env: { ...env, FIELDLENS_SAMPLE_DATA: 'on' } });
    try {
      const token = await adminToken(t.app);
      const count = (await datasources(t, token)).length;
      const forged = issueLicense(keyPair(), t.clock.now(), { sku_tier: 'pro' });
      assert.equal((await importLicense(t.app, token, forged)).statusCode, 400);
      assert.equal((await datasources(t, token)).length, count);

      const noSamples = issueLicense(vendor, t.clock.now(), {
        sku_tier: 'trial_mock',
        features: { sample_data: false },
      });
      assert.equal((await importLicense(t.app, token, noSamples)).statusCode, 200);
      assert.equal((await datasources(t, token)).length, 0);
      assert.equal((await status(t, token)).features_enabled.sample_data, false);
    } finally {
      await t.close();
    }
  });
});
