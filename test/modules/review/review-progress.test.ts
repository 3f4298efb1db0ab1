/** GET /api/v1/review/progress: decisions per day or week from the audit log, and the confirmed share of the catalog over time. */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ManualClock } from '../../../src/clock.js';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { newFields } from './factories.js';

interface Progress {
  bucket: string;
  fields_total: number;
  fields_confirmed: number;
  buckets: Array<{
    start: string;
    confirmed: number;
    deferred: number;
    confirmed_fields: number;
    confirmed_share: number;
  }>;
}

const DAY = 86_400_000;

describeEachDatabase('review progress', (kind) => {
  let t: TestApp;
  let ids: string[];

  before(async () => {
    // Tuesday 10 February 2026; 2 March 2026 is a Monday.
    t = await buildTestApp(kind, { clock: new ManualClock(new Date('2026-02-10T09:00:00.000Z')) });
    ids = await newFields(t.app, await adminToken(t.app), 10);
    const decide = async (url: string, payload: object) => {
      const response = await t.app.inject({ method: 'POST', url, headers: bearer(await adminToken(t.app)), payload });
      assert.equal(response.statusCode, 200, response.body);
    };
    const [a, b, c, d, e, f] = ids as [string, string, string, string, string, string];
    // Before the window: F confirmed on 10 February.
    await decide(`/api/v1/classify/fields/${f}/confirm`, {});
    // Monday 2 March: A confirmed.
    t.clock.advance(20 * DAY);
    await decide(`/api/v1/classify/fields/${a}/confirm`, {});
    // Tuesday 3 March, just before midnight UTC: B, C and D confirmed in one batch, E deferred.
    t.clock.advance(DAY + 14 * 3600_000 + 59 * 60_000);
    await decide('/api/v1/classify/fields/batch-confirm', { field_ids: [b, c, d] });
    await decide(`/api/v1/classify/fields/${e}/defer`, { reason: 'ask the owner' });
    // Wednesday 4 March: D deferred after all (no longer confirmed).
    t.clock.advance(3600_000);
    await decide(`/api/v1/classify/fields/${d}/defer`, { reason: 'second thoughts' });
  });
  after(async () => t.close());

  const progress = async (query: string, token?: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/review/progress${query}`,
      headers: bearer(token ?? (await adminToken(t.app))),
    });
    assert.equal(response.statusCode, 200, response.body);
    return json<Progress>(response);
  };

  it('counts the decisions of each UTC day and the fields confirmed by the end of it, for any role', async () => {
    const observer = await createUser(t.app, ['observer']);
    const body = await progress('?days=3', observer.token);
    assert.equal(body.bucket, 'day');
    assert.equal(body.fields_total, 10);
    assert.equal(body.fields_confirmed, 4);
    // D, confirmed on the 3rd and deferred on the 4th, is no longer confirmed: its confirmation counts as a decision
    // on the 3rd, but not among the confirmed fields.
    assert.deepEqual(body.buckets, [
      { start: '2026-03-02', confirmed: 1, deferred: 0, confirmed_fields: 2, confirmed_share: 0.2 },
      { start: '2026-03-03', confirmed: 3, deferred: 1, confirmed_fields: 4, confirmed_share: 0.4 },
      { start: '2026-03-04', confirmed: 0, deferred: 1, confirmed_fields: 4, confirmed_share: 0.4 },
    ]);
  });

  it('groups by ISO week (Monday to Sunday) and defaults to the last 30 days by day', async () => {
    const weeks = await progress('?bucket=week&days=10');
    assert.deepEqual(
      weeks.buckets.map((b) => [b.start, b.confirmed, b.deferred, b.confirmed_fields]),
      [
        ['2026-02-23', 0, 0, 1],
        ['2026-03-02', 4, 2, 4],
      ],
    );
    const days = await progress('');
    assert.equal(days.buckets.length, 30);
    assert.equal(days.buckets.at(-1)?.start, '2026-03-04');
    assert.equal(days.buckets[0]?.start, '2026-02-03');
    assert.deepEqual(
      days.buckets.filter((b) => b.confirmed + b.deferred > 0).map((b) => b.start),
      ['2026-02-10', '2026-03-02', '2026-03-03', '2026-03-04'],
    );
  });

  it('answers 401 without a token or for a disabled user (every role holds field:read, so no role is refused)', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/api/v1/review/progress' });
    assert.equal(none.statusCode, 401);
    assert.equal(problem(none).code, 'unauthorized');
    const user = await createUser(t.app, ['observer']);
    const admin = await adminToken(t.app);
    const disabled = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${user.id}`,
      headers: bearer(admin),
      payload: { disabled: true },
    });
    assert.equal(disabled.statusCode, 200);
    const refused = await t.app.inject({ method: 'GET', url: '/api/v1/review/progress', headers: bearer(user.token) });
    assert.equal(refused.statusCode, 401);
  });

  it('refuses a bad query with 400 validation_failed', async () => {
    const admin = await adminToken(t.app);
    for (const query of ['?bucket=month', '?days=0', '?days=367', '?days=abc', '?since=2026-01-01']) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/v1/review/progress${query}`,
        headers: bearer(admin),
      });
      assert.equal(response.statusCode, 400, query);
      assert.equal(problem(response).code, 'validation_failed', query);
      assert.match(response.headers['content-type'] as string, /application\/problem\+json/);
    }
  });
});
