/**
 * The events other modules emit, end to end on both databases: scan.finished and scan.failed from real scans of SQLite
 * sources, and finding.high_risk from the metrics worker — only when an unreviewed field's severity becomes high, once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, it } from 'node:test';
import BetterSqlite from 'better-sqlite3';
import { adminToken, bearer, buildTestApp, json, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createScannable, scanNow, sqliteScanDir } from '../scans/helpers.js';
import { newFields } from '../review/factories.js';
import { startReceiver, verifySignature, type Receiver } from './receiver.js';

describeEachDatabase('webhook events from scans and metrics', (kind) => {
  let t: TestApp;
  let token: string;
  let receiver: Receiver;
  const dir = sqliteScanDir();

  before(async () => {
    t = await buildTestApp(kind, {
      env: {
        FIELDLENS_SECRET_KEY: randomBytes(32).toString('base64'),
        FIELDLENS_WEBHOOK_ALLOW_HTTP: 'on',
        FIELDLENS_WEBHOOK_ALLOW_PRIVATE: 'on',
        FIELDLENS_SCAN_SQLITE_DIR: dir,
        // Every measured field counts as high: the test is about the transition, not the outlier model.
        FIELDLENS_SEVERITY_HIGH: '0.000001',
        FIELDLENS_SEVERITY_MEDIUM: '0.0000005',
      },
    });
    receiver = await startReceiver();
  });
  beforeEach(async () => {
    token = await adminToken(t.app);
    receiver.received.length = 0;
  });
  after(async () => {
    await receiver.close();
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const subscribe = async (events: string[]): Promise<{ id: string; secret: string }> => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(token),
      payload: { url: `${receiver.url}/events`, events },
    });
    assert.equal(response.statusCode, 201, response.body);
    return json(response);
  };
  const unsubscribe = async (id: string) => {
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${id}`, headers: bearer(token) })).statusCode,
      204,
    );
  };
  const bodies = () =>
    receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });

  it('sends scan.finished with the counts and scan.failed with the error', async () => {
    const hook = await subscribe(['scan.finished', 'scan.failed']);
    const good = path.join(dir, 'good.db');
    const db = new BetterSqlite(good);
    db.exec(
      "CREATE TABLE customer (id integer primary key, email text, phone text); INSERT INTO customer VALUES (1, 'a@example.com', '+1 555 0100');",
    );
    db.close();
    const goodId = await createScannable(t.app, token, { kind: 'sqlite', database: good });
    const finished = await scanNow(t.app, token, goodId);
    assert.equal(finished.status, 'succeeded');

    const bad = path.join(dir, 'bad.db');
    new BetterSqlite(bad).close();
    const badId = await createScannable(t.app, token, { kind: 'sqlite', database: bad });
    fs.writeFileSync(bad, 'this is not a database file at all, just text that looks nothing like one');
    const failed = await scanNow(t.app, token, badId);
    assert.equal(failed.status, 'failed');

    await t.app.services.webhookWorker.drain();
    // Deliveries are sent in parallel: not necessarily in the order of the events.
    const got = bodies().sort((a, b) => (a.type === 'scan.finished' ? -1 : 1) - (b.type === 'scan.finished' ? -1 : 1));
    assert.deepEqual(
      got.map((b) => b.type),
      ['scan.finished', 'scan.failed'],
    );
    assert.equal(got[0]?.data.scan_id, finished.id);
    assert.equal(got[0]?.data.datasource_id, goodId);
    assert.equal(got[0]?.data.new, 3);
    assert.equal(got[1]?.data.scan_id, failed.id);
    assert.equal(typeof got[1]?.data.error, 'string');
    assert.ok(!receiver.received.some((r) => r.body.includes('a@example.com')), 'no sample value in an event');
    for (const r of receiver.received) assert.ok(verifySignature(hook.secret, r.headers, r.body));
    await unsubscribe(hook.id);
    for (const id of [goodId, badId])
      await t.app.inject({ method: 'DELETE', url: `/api/v1/datasources/${id}`, headers: bearer(token) });
  });

  it('sends finding.high_risk when an unreviewed field becomes high, once, and never for a confirmed field', async () => {
    const hook = await subscribe(['finding.high_risk']);
    const ids = await newFields(t.app, token, 6, 'Technical/Record ID');
    const confirmedId = ids[0] as string;
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/v1/classify/fields/${confirmedId}/confirm`,
          headers: bearer(token),
          payload: {},
        })
      ).statusCode,
      200,
    );
    await t.app.services.metricsWorker.drain();
    await t.app.services.webhookWorker.drain();

    const severities = new Map<string, string | null>();
    for (const id of ids)
      severities.set(
        id,
        json<{ severity: string | null }>(
          await t.app.inject({ method: 'GET', url: `/api/v1/fields/${id}`, headers: bearer(token) }),
        ).severity,
      );
    const highUnreviewed = ids.filter((id) => id !== confirmedId && severities.get(id) === 'high');
    assert.ok(highUnreviewed.length >= 3, `fields measured high: ${JSON.stringify([...severities])}`);
    const reported = bodies().map((b) => b.data.field_id as string);
    assert.deepEqual(
      [...reported].sort(),
      [...highUnreviewed].sort(),
      'one event per unreviewed field that became high',
    );
    assert.ok(!reported.includes(confirmedId), 'a confirmed field is not a finding');
    for (const b of bodies()) assert.equal(b.data.severity, 'high');

    // More fields make the first ones stale; measured again and still high, they are not reported again.
    receiver.received.length = 0;
    await newFields(t.app, token, 3, 'Technical/Record ID');
    await t.app.services.metricsWorker.drain();
    await t.app.services.webhookWorker.drain();
    const again = bodies().map((b) => b.data.field_id as string);
    assert.deepEqual(
      again.filter((id) => ids.includes(id)),
      [],
      'no second event while a field stays high',
    );
    await unsubscribe(hook.id);
  });
});
