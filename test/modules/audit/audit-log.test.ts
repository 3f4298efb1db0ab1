import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { recordEvents, someEvents, TEST_ACTOR } from './factories.js';

interface Entry {
  seq: number;
  at: string;
  actor_id: string | null;
  actor_username: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
  hash: string;
  prev_hash: string;
}
interface Page {
  items: Entry[];
  next_cursor: string | null;
}

/** Minimal RFC 4180 parser (quoted cells, doubled quotes, CRLF inside quotes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 1;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

describeEachDatabase('audit log read side', (kind) => {
  let t: TestApp;
  let admin: string;
  let startedAt: string;

  before(async () => {
    t = await buildTestApp(kind);
    admin = await adminToken(t.app);
    startedAt = t.clock.now().toISOString();
    t.clock.advance(1000);
    await recordEvents(t, someEvents(7));
    t.clock.advance(60_000);
    await recordEvents(t, [
      {
        action: 'test.other',
        targetType: 'thing',
        targetId: 'special',
        details: { note: 'line one\nline "two", done' },
      },
      { action: '=cmd|calc', targetType: 'thing', targetId: '+danger', details: {} },
    ]);
  });
  after(async () => t.close());

  const list = (query: string, token = admin) =>
    t.app.inject({ method: 'GET', url: `/api/v1/audit-logs${query}`, headers: bearer(token) });

  it('lists entries newest first with every chained field', async () => {
    const response = await list('');
    assert.equal(response.statusCode, 200);
    const page = json<Page>(response);
    assert.equal(page.next_cursor, null);
    const seqs = page.items.map((e) => e.seq);
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => b - a),
    );
    const newest = page.items[0]!;
    assert.equal(newest.action, '=cmd|calc');
    assert.equal(newest.actor_id, TEST_ACTOR.id);
    assert.equal(newest.actor_username, 'tester');
    assert.match(newest.hash, /^[0-9a-f]{64}$/);
    assert.equal(newest.prev_hash, page.items[1]!.hash);
    assert.deepEqual(page.items[1]!.details, { note: 'line one\nline "two", done' });
  });

  it('filters by action, actor, target and time window', async () => {
    const byAction = json<Page>(await list('?action=test.event'));
    assert.equal(byAction.items.length, 7);
    assert.ok(byAction.items.every((e) => e.action === 'test.event'));

    const byTarget = json<Page>(await list('?target_id=special'));
    assert.deepEqual(
      byTarget.items.map((e) => e.action),
      ['test.other'],
    );

    const byActor = json<Page>(await list(`?actor_id=${TEST_ACTOR.id}`));
    assert.equal(byActor.items.length, 9);
    const logins = json<Page>(await list('?action=auth.login'));
    assert.ok(logins.items.length >= 1, 'the admin login is there');
    assert.ok(logins.items.every((e) => e.action === 'auth.login' && e.actor_username === 'admin'));

    // The 7 events were written 1 s after start, the last two 61 s after; until is exclusive.
    const early = new Date(Date.parse(startedAt) + 1000).toISOString();
    const late = new Date(Date.parse(startedAt) + 61_000).toISOString();
    const window = json<Page>(
      await list(`?since=${encodeURIComponent(early)}&until=${encodeURIComponent(late)}&actor_id=${TEST_ACTOR.id}`),
    );
    assert.equal(window.items.length, 7);
    const fromLate = json<Page>(await list(`?since=${encodeURIComponent(late)}`));
    assert.deepEqual(
      fromLate.items.map((e) => e.action),
      ['=cmd|calc', 'test.other'],
    );
  });

  it('pages with a keyset cursor without gaps or repeats', async () => {
    const all = json<Page>(await list('?limit=500')).items.map((e) => e.seq);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page = json<Page>(await list(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`));
      assert.ok(page.items.length <= 3);
      seen.push(...page.items.map((e) => e.seq));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 100);
    assert.deepEqual(seen, all);
    assert.equal(pages, Math.ceil(all.length / 3));
  });

  it('refuses bad query input with a 400 problem', async () => {
    for (const query of [
      '?limit=0',
      '?limit=501',
      '?cursor=bm9wZQ',
      '?since=yesterday',
      '?actor_id=not-a-uuid',
      '?colour=red',
    ]) {
      const response = await list(query);
      assert.equal(response.statusCode, 400, query);
      assert.equal(problem(response).code, 'validation_failed', query);
    }
  });

  it('needs audit:read', async () => {
    const observer = await createUser(t.app, ['observer']);
    const operator = await createUser(t.app, ['operator']);
    for (const token of [observer.token, operator.token]) {
      const response = await list('', token);
      assert.equal(response.statusCode, 403);
      assert.equal(problem(response).code, 'forbidden');
      const exported = await t.app.inject({ method: 'GET', url: '/api/v1/audit-logs/export', headers: bearer(token) });
      assert.equal(exported.statusCode, 403);
    }
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/audit-logs' });
    assert.equal(anonymous.statusCode, 401);
  });

  it('offers no way to change or remove an entry', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      for (const url of ['/api/v1/audit-logs', '/api/v1/audit-logs/1']) {
        const response = await t.app.inject({ method, url, headers: bearer(admin), payload: {} });
        assert.ok([404, 405].includes(response.statusCode), `${method} ${url} → ${response.statusCode}`);
      }
    }
    const verified = await t.app.services.auditLog.verifyChain();
    assert.equal(verified.ok, true);
  });

  it('exports NDJSON oldest first as a download, each line a full entry', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/audit-logs/export', headers: bearer(admin) });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/x-ndjson/);
    assert.match(
      String(response.headers['content-disposition']),
      /^attachment; filename="fieldlens-audit-.*\.ndjson"$/,
    );
    const lines = response.body.split('\n');
    assert.equal(lines.pop(), '', 'ends with a newline');
    const entries = lines.map((line) => JSON.parse(line) as Entry);
    const listed = json<Page>(await list('?limit=500')).items.reverse();
    assert.deepEqual(entries, listed, 'same entries as the list, oldest first');
    for (let i = 1; i < entries.length; i += 1) assert.equal(entries[i]!.prev_hash, entries[i - 1]!.hash);

    const filtered = await t.app.inject({
      method: 'GET',
      url: '/api/v1/audit-logs/export?action=test.event&format=ndjson',
      headers: bearer(admin),
    });
    const targets = filtered.body
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as Entry).target_id);
    assert.deepEqual(targets, ['t-0', 't-1', 't-2', 't-3', 't-4', 't-5', 't-6']);
  });

  it('exports CSV with correct quoting and neutralised formulas', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/audit-logs/export?format=csv',
      headers: bearer(admin),
    });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/csv/);
    assert.match(String(response.headers['content-disposition']), /\.csv"$/);
    const rows = parseCsv(response.body);
    const header = rows.shift()!;
    assert.deepEqual(header, [
      'seq',
      'at',
      'actor_id',
      'actor_username',
      'action',
      'target_type',
      'target_id',
      'target_name',
      'target_datasource',
      'request_id',
      'details',
      'prev_hash',
      'hash',
    ]);
    const col = (name: string) => header.indexOf(name);
    const listed = json<Page>(await list('?limit=500')).items.reverse();
    assert.equal(rows.length, listed.length);
    assert.ok(rows.every((row) => row.length === header.length));

    const other = rows.find((row) => row[col('target_id')] === 'special')!;
    assert.deepEqual(JSON.parse(other[col('details')]!), { note: 'line one\nline "two", done' });
    const formula = rows.find((row) => row[col('action')]!.includes('cmd'))!;
    assert.equal(formula[col('action')], "'=cmd|calc");
    assert.equal(formula[col('target_id')], "'+danger");
    assert.deepEqual(
      rows.map((row) => Number(row[col('seq')])),
      listed.map((e) => e.seq),
    );
  });

  it('streams a large export in pages, in order, without losing entries', async () => {
    await recordEvents(t, someEvents(2500, 'bulk.event'));
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/audit-logs/export?action=bulk.event',
      headers: bearer(admin),
    });
    const targets = response.body
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as Entry).target_id);
    assert.equal(targets.length, 2500);
    assert.equal(targets[0], 't-0');
    assert.equal(targets[2499], 't-2499');
    assert.equal(new Set(targets).size, 2500);
  });
});
