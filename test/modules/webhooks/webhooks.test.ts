/**
 * Webhooks through the HTTP surface on both databases: CRUD with the secret shown once (never in a GET, the audit log
 * or the logs), signed delivery to a real receiver on 127.0.0.1 (signature checked independently), retries with
 * backoff, failure after 24 h, redirects not followed, the 10 s timeout, events from a real confirmation, a restart
 * delivering what the previous instance queued, and the SSRF refusals with the two switches off.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, beforeEach, it } from 'node:test';
import { ManualClock } from '../../../src/clock.js';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { createTestDatabase, describeEachDatabase } from '../../helpers/databases.js';
import { auditActions } from '../fields/factories.js';
import { newFields } from '../review/factories.js';
import { startReceiver, verifySignature, type Receiver } from './receiver.js';

const SECRET_KEY = randomBytes(32).toString('base64');
const METRICS_ENV = { FIELDLENS_METRICS: 'on', FIELDLENS_METRICS_TOKEN: 'metrics-token-of-the-webhook-tests' };
const OPEN_ENV = {
  FIELDLENS_SECRET_KEY: SECRET_KEY,
  FIELDLENS_WEBHOOK_ALLOW_HTTP: 'on',
  FIELDLENS_WEBHOOK_ALLOW_PRIVATE: 'on',
};

interface Webhook {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  created_at: string;
  secret?: string;
}
interface Delivery {
  id: string;
  event: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

describeEachDatabase('webhooks', (kind) => {
  let t: TestApp;
  let token: string;
  let receiver: Receiver;

  before(async () => {
    t = await buildTestApp(kind, {
      env: { ...OPEN_ENV, ...METRICS_ENV },
      clock: new ManualClock(new Date('2026-03-02T09:00:00.000Z')),
    });
    token = await adminToken(t.app);
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });
  beforeEach(async () => {
    // The tests move the clock by hours: a fresh access token for each.
    token = await adminToken(t.app);
    receiver.received.length = 0;
    receiver.answers = [];
    receiver.fallback = { status: 204 };
  });

  const create = async (body: Record<string, unknown>): Promise<Webhook> => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(token),
      payload: body,
    });
    assert.equal(response.statusCode, 201, response.body);
    return json<Webhook>(response);
  };
  // Read through the service where the clock has moved past the token's life; the route itself is read in 'pages'.
  const deliveries = async (id: string, query = ''): Promise<{ items: Delivery[]; next_cursor: string | null }> => {
    if (query === '') return t.app.services.webhooks.listDeliveries(id, {});
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/webhooks/${id}/deliveries${query}`,
      headers: bearer(token),
    });
    assert.equal(response.statusCode, 200, response.body);
    return json(response);
  };
  const sendTest = async (id: string): Promise<Delivery> => {
    const response = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, headers: bearer(token) });
    assert.equal(response.statusCode, 202, response.body);
    return json<Delivery>(response);
  };
  const drain = () => t.app.services.webhookWorker.drain();
  const remove = async (id: string) => {
    token = await adminToken(t.app);
    const response = await t.app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${id}`, headers: bearer(token) });
    assert.equal(response.statusCode, 204, response.body);
  };

  it('creates, lists, changes and deletes webhooks; the secret is shown once and audited never', async () => {
    const created = await create({
      url: `${receiver.url}/hook/T0001/B0002/incoming-credential?token=url-credential`,
      events: ['field.confirmed', 'scan.failed'],
      description: 'pager',
    });
    assert.match(created.secret ?? '', /^whsec_[A-Za-z0-9+/]+={0,2}$/);
    assert.ok(Buffer.from((created.secret as string).slice(6), 'base64').length >= 24);
    assert.deepEqual(created.events, ['field.confirmed', 'scan.failed']);
    assert.equal(created.enabled, true);

    const list = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: bearer(token) });
    assert.equal(list.statusCode, 200);
    assert.ok(!list.body.includes(created.secret as string));
    const listed = json<{ items: Webhook[] }>(list).items.find((w) => w.id === created.id);
    assert.deepEqual(Object.keys(listed ?? {}).sort(), ['created_at', 'description', 'enabled', 'events', 'id', 'url']);

    // Stored sealed, not as the secret.
    const row = await t.database.db
      .selectFrom('webhooks')
      .select('secret')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.ok(!row.secret.includes((created.secret as string).slice(6)));

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/webhooks/${created.id}`,
      headers: bearer(token),
      payload: { enabled: false, events: ['scan.finished'] },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(json<Webhook>(patched).enabled, false);
    assert.deepEqual(json<Webhook>(patched).events, ['scan.finished']);
    assert.ok(!patched.body.includes('whsec_'));

    await remove(created.id);
    const gone = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/webhooks/${created.id}`,
      headers: bearer(token),
    });
    assert.equal(problem(gone).code, 'not_found');
    assert.equal(
      problem(
        await t.app.inject({
          method: 'PATCH',
          url: `/api/v1/webhooks/${created.id}`,
          headers: bearer(token),
          payload: { enabled: true },
        }),
      ).code,
      'not_found',
    );
    assert.equal(
      problem(
        await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${created.id}/deliveries`, headers: bearer(token) }),
      ).code,
      'not_found',
    );

    const entries = [
      ...(await auditActions(t.database, 'webhook.created')),
      ...(await auditActions(t.database, 'webhook.updated')),
      ...(await auditActions(t.database, 'webhook.deleted')),
    ].filter((e) => e.target_id === created.id);
    assert.equal(entries.length, 3);
    const secretPart = (created.secret as string).slice(6);
    for (const e of entries) {
      assert.ok(!JSON.stringify(e.details).includes(secretPart), 'no secret in the audit log');
      assert.ok(
        !JSON.stringify(e.details).includes('credential'),
        "nor the URL's path or query, which may hold the receiver's credential",
      );
    }
    assert.equal((entries[0]?.details.webhook as { url_origin: string }).url_origin, receiver.url);
    assert.ok(!t.logs.join('').includes(secretPart), 'no secret in the logs');
  });

  it('refuses bad bodies with 400 and changes nothing; other roles get 403', async () => {
    const before = (await auditActions(t.database, 'webhook.created')).length;
    for (const payload of [
      { url: `${receiver.url}/x`, events: [] },
      { url: `${receiver.url}/x`, events: ['webhook.test'] },
      { url: `${receiver.url}/x`, events: ['scan.finished'], secret: 'mine' },
      { url: 'not a url', events: ['scan.finished'] },
    ]) {
      const response = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: bearer(token), payload });
      assert.equal(problem(response).code, 'validation_failed', JSON.stringify(payload));
    }
    const withCredentials = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(token),
      payload: { url: 'http://user:pw@127.0.0.1:9/x', events: ['scan.finished'] },
    });
    assert.equal(problem(withCredentials).status, 400);
    assert.equal((await auditActions(t.database, 'webhook.created')).length, before);
    const dba = await createUser(t.app, ['dba']);
    assert.equal(
      problem(await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: bearer(dba.token) })).code,
      'forbidden',
    );
    assert.equal(problem(await t.app.inject({ method: 'GET', url: '/api/v1/webhooks' })).status, 401);
  });

  it('delivers a signed test event that the receiver verifies independently', async () => {
    const hook = await create({ url: `${receiver.url}/signed`, events: ['scan.finished'] });
    const queued = await sendTest(hook.id);
    assert.equal(queued.status, 'pending');
    await drain();
    assert.equal(receiver.received.length, 1);
    const [got] = receiver.received;
    assert.equal(got?.path, '/signed');
    assert.equal(got?.headers['webhook-id'], queued.id);
    assert.equal(got?.headers['content-type'], 'application/json');
    assert.equal(Number(got?.headers['webhook-timestamp']), Math.floor(t.clock.now().getTime() / 1000));
    assert.ok(
      verifySignature(hook.secret as string, got!.headers, got!.body),
      'the signature verifies with the secret shown at creation',
    );
    assert.ok(
      !verifySignature(`whsec_${randomBytes(32).toString('base64')}`, got!.headers, got!.body),
      'and not with another secret',
    );
    assert.ok(
      !verifySignature(hook.secret as string, got!.headers, got!.body.replace('webhook.test', 'webhook.tesT')),
      'and not for a changed body',
    );
    const body = JSON.parse(got!.body) as { type: string; timestamp: string; data: Record<string, unknown> };
    assert.equal(body.type, 'webhook.test');
    assert.equal(body.data.webhook_id, hook.id);
    assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
    const [logged] = (await deliveries(hook.id)).items;
    assert.equal(logged?.status, 'delivered');
    assert.equal(logged?.attempts, 1);
    assert.equal(logged?.last_status_code, 204);
    assert.ok(logged?.delivered_at);
    await remove(hook.id);
  });

  it('retries after a 500 within 30 s with the same message, then delivers', async () => {
    const hook = await create({ url: `${receiver.url}/flaky`, events: ['scan.finished'] });
    receiver.answers = [{ status: 500 }];
    const queued = await sendTest(hook.id);
    await drain();
    let [d] = (await deliveries(hook.id)).items;
    assert.equal(d?.status, 'pending');
    assert.equal(d?.attempts, 1);
    assert.equal(d?.last_status_code, 500);
    assert.equal(d?.last_error, 'HTTP 500', 'our words, not the receiver body');
    const wait = Date.parse(d?.next_attempt_at as string) - t.clock.now().getTime();
    assert.ok(wait >= 10_000 && wait <= 30_000, `first retry in ${wait} ms`);
    await drain();
    assert.equal(receiver.received.length, 1, 'not retried before it is due');
    t.clock.advance(30_000);
    await drain();
    [d] = (await deliveries(hook.id)).items;
    assert.equal(d?.status, 'delivered');
    assert.equal(d?.attempts, 2);
    assert.equal(receiver.received.length, 2);
    assert.equal(receiver.received[1]?.headers['webhook-id'], queued.id);
    assert.equal(receiver.received[1]?.body, receiver.received[0]?.body, 'a retry sends the same body');
    assert.ok(verifySignature(hook.secret as string, receiver.received[1]!.headers, receiver.received[1]!.body));
    await remove(hook.id);
  });

  it('backs off exponentially and marks the delivery failed after 24 h', async () => {
    const hook = await create({ url: `${receiver.url}/down`, events: ['scan.finished'] });
    receiver.fallback = { status: 503 };
    const start = t.clock.now().getTime();
    await sendTest(hook.id);
    const waits: number[] = [];
    for (let i = 0; i < 40; i++) {
      await drain();
      const [d] = (await deliveries(hook.id)).items;
      if (d?.status !== 'pending') break;
      const next = Date.parse(d.next_attempt_at as string);
      waits.push(next - t.clock.now().getTime());
      t.clock.set(new Date(next));
    }
    const [d] = (await deliveries(hook.id)).items;
    assert.equal(d?.status, 'failed');
    assert.equal(d?.next_attempt_at, null);
    assert.equal(d?.attempts, receiver.received.length);
    assert.ok(t.clock.now().getTime() - start <= 24 * 3600_000, 'the last attempt is within the 24 h window');
    // Growing waits: each at least the one before (up to the cap), the first within 30 s.
    assert.ok((waits[0] as number) <= 30_000);
    for (let i = 1; i < Math.min(waits.length, 6); i++)
      assert.ok((waits[i] as number) > (waits[i - 1] as number), `wait ${i} grows: ${waits.join(', ')}`);
    assert.ok(d!.attempts >= 8, `${d!.attempts} attempts in 24 h`);
    const count = receiver.received.length;
    t.clock.advance(48 * 3600_000);
    await drain();
    assert.equal(receiver.received.length, count, 'a failed delivery is not tried again');
    await remove(hook.id);
  });

  it('does not follow a redirect', async () => {
    const hook = await create({ url: `${receiver.url}/moved`, events: ['scan.finished'] });
    receiver.answers = [{ status: 302, headers: { location: `${receiver.url}/elsewhere` } }];
    await sendTest(hook.id);
    await drain();
    assert.deepEqual(
      receiver.received.map((r) => r.path),
      ['/moved'],
    );
    const [d] = (await deliveries(hook.id)).items;
    assert.equal(d?.status, 'pending');
    assert.equal(d?.last_status_code, 302);
    assert.match(d?.last_error ?? '', /redirect/);
    await remove(hook.id);
  });

  it('counts no answer within 10 s as a failed attempt', async () => {
    const hook = await create({ url: `${receiver.url}/slow`, events: ['scan.finished'] });
    receiver.answers = [{ status: 200, delayMs: 15_000 }];
    await sendTest(hook.id);
    const started = performance.now();
    await drain();
    const took = performance.now() - started;
    assert.ok(took >= 9_500 && took < 14_000, `gave up after ${Math.round(took)} ms`);
    const [d] = (await deliveries(hook.id)).items;
    assert.equal(d?.status, 'pending');
    assert.equal(d?.attempts, 1);
    assert.equal(d?.last_status_code, null);
    assert.match(d?.last_error ?? '', /10 s/);
    await remove(hook.id);
  });

  it('sends field.confirmed and field.level_changed from a real confirmation, only to subscribed enabled webhooks', async () => {
    const hook = await create({ url: `${receiver.url}/review`, events: ['field.confirmed', 'field.level_changed'] });
    const other = await create({ url: `${receiver.url}/scans-only`, events: ['scan.finished'] });
    const off = await create({ url: `${receiver.url}/off`, events: ['field.confirmed'], enabled: false });
    const [fieldId] = await newFields(t.app, token, 1, 'Technical/Record ID');
    const field = json<{ level: string }>(
      await t.app.inject({ method: 'GET', url: `/api/v1/fields/${fieldId}`, headers: bearer(token) }),
    );
    const newLevel = field.level === 'L4' ? 'L3' : 'L4';
    const confirmed = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${fieldId}/confirm`,
      headers: bearer(token),
      payload: { lock_level: newLevel },
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    // A confirmation that fails (unknown field) rolls back and queues nothing.
    const missing = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${randomUUID()}/confirm`,
      headers: bearer(token),
      payload: {},
    });
    assert.equal(missing.statusCode, 404);
    await drain();
    assert.deepEqual(
      receiver.received.map((r) => r.path),
      ['/review', '/review'],
    );
    const bodies = receiver.received.map(
      (r) =>
        JSON.parse(r.body) as { type: string; data: { field_id: string; level: string; previous: { level: string } } },
    );
    assert.deepEqual(bodies.map((b) => b.type).sort(), ['field.confirmed', 'field.level_changed']);
    for (const b of bodies) {
      assert.equal(b.data.field_id, fieldId);
      assert.equal(b.data.level, newLevel);
      assert.equal(b.data.previous.level, field.level);
    }
    for (const r of receiver.received) assert.ok(verifySignature(hook.secret as string, r.headers, r.body));
    assert.equal((await deliveries(other.id)).items.length, 0);
    assert.equal((await deliveries(off.id)).items.length, 0);
    // Confirming again at the same level: field.confirmed only.
    receiver.received.length = 0;
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${fieldId}/confirm`,
      headers: bearer(token),
      payload: { lock_level: newLevel },
    });
    await drain();
    assert.deepEqual(
      receiver.received.map((r) => (JSON.parse(r.body) as { type: string }).type),
      ['field.confirmed'],
    );
    for (const id of [hook.id, other.id, off.id]) await remove(id);
  });

  it('pages the delivery log newest first with a cursor', async () => {
    const hook = await create({ url: `${receiver.url}/pages`, events: ['scan.finished'] });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await sendTest(hook.id)).id);
      t.clock.advance(1000);
    }
    const first = await deliveries(hook.id, '?limit=2');
    assert.deepEqual(
      first.items.map((d) => d.id),
      [ids[4], ids[3]],
    );
    const second = await deliveries(hook.id, `?limit=2&cursor=${first.next_cursor}`);
    assert.deepEqual(
      second.items.map((d) => d.id),
      [ids[2], ids[1]],
    );
    const third = await deliveries(hook.id, `?limit=2&cursor=${second.next_cursor}`);
    assert.deepEqual(
      third.items.map((d) => d.id),
      [ids[0]],
    );
    assert.equal(third.next_cursor, null);
    // The five are pending (no drain yet): counted on /metrics, all instances' deliveries read from the database.
    const scraped = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: bearer(METRICS_ENV.FIELDLENS_METRICS_TOKEN),
    });
    const pending = /^fieldlens_webhook_deliveries\{status="pending"\} (\d+)$/m.exec(scraped.body);
    assert.equal(
      Number(pending?.[1]),
      5,
      scraped.body
        .split('\n')
        .filter((l) => l.includes('webhook'))
        .join('\n'),
    );
    assert.equal(
      problem(
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/webhooks/${hook.id}/deliveries?cursor=bogus`,
          headers: bearer(token),
        }),
      ).code,
      'validation_failed',
    );
    await remove(hook.id);
  });

  it('sends license.expiring once per threshold (14, 7, 1 days before)', async () => {
    const hook = await create({ url: `${receiver.url}/license`, events: ['license.expiring'] });
    const status = async () => t.app.services.license.getStatus();
    const expiresAt = Date.parse((await status()).expires_at as string);
    const at = (daysBefore: number) => t.clock.set(new Date(expiresAt - daysBefore * 86_400_000));
    at(13.5);
    await status();
    await status();
    at(6.9);
    await status();
    at(6.5);
    await status();
    at(0.5);
    await status();
    await drain();
    const days = receiver.received.map(
      (r) => (JSON.parse(r.body) as { data: { days_before: number } }).data.days_before,
    );
    assert.deepEqual(days, [14, 7, 1]);
    await remove(hook.id);
  });
});

describeEachDatabase('webhook URLs with the switches off (SSRF)', (kind) => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp(kind, { env: { FIELDLENS_SECRET_KEY: SECRET_KEY } });
    token = await adminToken(t.app);
  });
  after(async () => t.close());

  it('refuses loopback, private, link-local, metadata and mapped addresses, and names resolving to them, with 422', async () => {
    for (const url of [
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/hook',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[fd00::1]/hook',
      'https://0.0.0.0/hook',
      'https://localhost/hook',
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: bearer(token),
        payload: { url, events: ['scan.finished'] },
      });
      const body = problem(response);
      assert.equal(body.status, 422, `${url}: ${response.body}`);
      assert.match(body.detail, /public addresses only/);
    }
    const plain = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(token),
      payload: { url: 'http://example.com/hook', events: ['scan.finished'] },
    });
    assert.equal(problem(plain).status, 400);
    assert.match(problem(plain).detail, /https/);
    const list = json<{ items: unknown[] }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: bearer(token) }),
    );
    assert.equal(list.items.length, 0);
    assert.equal((await auditActions(t.database, 'webhook.created')).length, 0);
  });

  it('checks a changed URL like a new one, and checks again before each delivery', async () => {
    const receiver = await startReceiver();
    try {
      // A public address literal needs no DNS: allowed with the switches off.
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: bearer(token),
        payload: { url: 'https://93.184.216.34/hook', events: ['scan.finished'] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const hook = json<Webhook>(created);
      const patched = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/webhooks/${hook.id}`,
        headers: bearer(token),
        payload: { url: 'https://169.254.169.254/latest' },
      });
      assert.equal(problem(patched).status, 422);
      const listed = json<{ items: Webhook[] }>(
        await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: bearer(token) }),
      ).items;
      assert.equal(listed.find((w) => w.id === hook.id)?.url, 'https://93.184.216.34/hook', 'unchanged');

      // The stored URL now points at a loopback address (as a name re-resolved later would): the delivery refuses it.
      await t.database.db
        .updateTable('webhooks')
        .set({ url: receiver.url.replace('http:', 'https:') })
        .where('id', '=', hook.id)
        .execute();
      const queued = await t.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${hook.id}/test`,
        headers: bearer(token),
      });
      assert.equal(queued.statusCode, 202);
      await t.app.services.webhookWorker.drain();
      assert.equal(receiver.received.length, 0);
      const [d] = (await t.app.services.webhooks.listDeliveries(hook.id, {})).items;
      assert.equal(d?.status, 'pending');
      assert.equal(d?.attempts, 1);
      assert.match(d?.last_error ?? '', /^refused: .*127\.0\.0\.1, a loopback address/);
    } finally {
      await receiver.close();
    }
  });
});

describeEachDatabase('webhook delivery across a restart', (kind) => {
  it('a new instance on the same database delivers what the previous one queued', async () => {
    const receiver = await startReceiver();
    const testDatabase = await createTestDatabase(kind);
    try {
      const first = await buildTestApp(kind, { env: OPEN_ENV, testDatabase });
      const token = await adminToken(first.app);
      const created = json<Webhook>(
        await first.app.inject({
          method: 'POST',
          url: '/api/v1/webhooks',
          headers: bearer(token),
          payload: { url: `${receiver.url}/restart`, events: ['scan.finished'] },
        }),
      );
      const queued = json<Delivery>(
        await first.app.inject({ method: 'POST', url: `/api/v1/webhooks/${created.id}/test`, headers: bearer(token) }),
      );
      await first.close(); // stopped before its worker ran
      assert.equal(receiver.received.length, 0);

      const second = await buildTestApp(kind, { env: OPEN_ENV, testDatabase, workers: true });
      try {
        for (let i = 0; i < 100 && receiver.received.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
        assert.equal(receiver.received.length, 1, 'the started worker delivered it');
        assert.equal(receiver.received[0]?.headers['webhook-id'], queued.id);
        assert.ok(verifySignature(created.secret as string, receiver.received[0]!.headers, receiver.received[0]!.body));
      } finally {
        await second.close();
      }
    } finally {
      await testDatabase.dispose();
      await receiver.close();
    }
  });
});

describeEachDatabase('webhooks without a secret key', (kind) => {
  it('refuses to create a webhook (422 naming the setting) and stores nothing', async () => {
    const t = await buildTestApp(kind, {
      env: { FIELDLENS_WEBHOOK_ALLOW_HTTP: 'on', FIELDLENS_WEBHOOK_ALLOW_PRIVATE: 'on' },
    });
    try {
      const token = await adminToken(t.app);
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: bearer(token),
        payload: { url: 'http://127.0.0.1:9/x', events: ['scan.finished'] },
      });
      assert.equal(problem(response).status, 422);
      assert.match(problem(response).detail, /FIELDLENS_SECRET_KEY/);
      const count = await t.database.db
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 0);
    } finally {
      await t.close();
    }
  });
});

describeEachDatabase('webhook delivery with a slow receiver', (kind) => {
  it("a slow receiver holds up neither requests nor another webhook's deliveries", async () => {
    const slow = await startReceiver();
    const fast = await startReceiver();
    slow.fallback = { status: 204, delayMs: 4000 };
    const t = await buildTestApp(kind, { env: OPEN_ENV, workers: true });
    try {
      const token = await adminToken(t.app);
      const hook = async (url: string) =>
        json<Webhook>(
          await t.app.inject({
            method: 'POST',
            url: '/api/v1/webhooks',
            headers: bearer(token),
            payload: { url, events: ['field.confirmed'] },
          }),
        );
      await hook(`${slow.url}/slow`);
      await hook(`${fast.url}/fast`);
      const ids = await newFields(t.app, token, 20, 'Technical/Record ID');
      const started = performance.now();
      for (const id of ids) {
        const before = performance.now();
        const response = await t.app.inject({
          method: 'POST',
          url: `/api/v1/classify/fields/${id}/confirm`,
          headers: bearer(token),
          payload: {},
        });
        assert.equal(response.statusCode, 200);
        assert.ok(performance.now() - before < 2000, 'a confirmation does not wait for a receiver');
      }
      for (let i = 0; i < 60 && fast.received.length < ids.length; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(fast.received.length, ids.length, 'the fast receiver got every event');
      assert.ok(performance.now() - started < 3500, 'before the slow receiver answered its first request');
      assert.ok(
        slow.received.length > 0 && slow.received.length <= 16,
        `the slow receiver holds at most 16 attempts (${slow.received.length})`,
      );
    } finally {
      await t.close();
      await slow.close();
      await fast.close();
    }
  });
});
