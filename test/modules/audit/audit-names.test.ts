/**
 * The audit log as a person reads it: each target's name beside its id (list and both export formats), and filters a
 * person can type — an action prefix (`field.*`), the actor's user name, the target's name — exact about wildcards.
 */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { after, before, it } from 'node:test';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource, importOk } from '../fields/factories.js';
import { confirm, defer } from '../review/factories.js';
import { recordEvents } from './factories.js';
import { prefixUpperBound } from '../../../src/modules/audit/audit.repository.js';

interface Entry {
  seq: number;
  actor_id: string | null;
  actor_username: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_name: string | null;
  target_datasource: string | null;
  hash: string;
  prev_hash: string;
}
interface Page {
  items: Entry[];
  next_cursor: string | null;
}

describeEachDatabase('audit log names and filters', (kind) => {
  let t: TestApp;
  let admin: string;
  let reviewer: { id: string; username: string; token: string };
  let sourceId: string;
  let emailId: string;
  let phoneId: string;
  let goneUser: { id: string; username: string };

  before(async () => {
    t = await buildTestApp(kind);
    admin = await adminToken(t.app);
    reviewer = await createUser(t.app, ['operator'], { username: 'dana.reviewer' });
    sourceId = await createDatasource(t.app, admin, 'Pagila');
    const imported = await importOk(t.app, admin, sourceId, [
      {
        table_name: 'public.customer',
        field_name: 'email',
        data_type: 'text',
        classification_chain_path: 'Technical/Record ID',
      },
      {
        table_name: 'public.customer',
        field_name: 'phone',
        data_type: 'text',
        classification_chain_path: 'Technical/Record ID',
      },
    ]);
    [emailId, phoneId] = imported.field_ids as [string, string];
    assert.equal((await confirm(t.app, reviewer.token, emailId)).statusCode, 200);
    assert.equal((await defer(t.app, reviewer.token, phoneId, { reason: 'ask the owner' })).statusCode, 200);
    const gone = await createUser(t.app, ['observer'], { username: 'temp.worker' });
    goneUser = { id: gone.id, username: gone.username };
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/api/v1/users/${gone.id}`, headers: bearer(admin) })).statusCode,
      204,
    );
    // Actions whose names hold LIKE's wildcards, to show they are taken literally.
    await recordEvents(t, [
      { action: 'test_event', targetType: 'thing', targetId: 'a' },
      { action: 'testXevent', targetType: 'thing', targetId: 'b' },
      { action: 'pct%done', targetType: 'thing', targetId: 'c' },
      { action: 'pctXdone', targetType: 'thing', targetId: 'd' },
      { action: 'fieldwork.started', targetType: 'thing', targetId: 'e' },
    ]);
  });
  after(async () => t.close());

  const list = async (query: string): Promise<Entry[]> => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/audit-logs?limit=500&${query}`,
      headers: bearer(admin),
    });
    assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
    return json<Page>(response).items;
  };

  it("shows a field's schema.table.column and its data source beside the id", async () => {
    const [confirmed] = await list('action=field.confirmed');
    assert.equal(confirmed?.target_id, emailId);
    assert.equal(confirmed?.target_name, 'public.customer.email');
    assert.equal(confirmed?.target_datasource, 'Pagila');
    assert.equal(confirmed?.actor_username, 'dana.reviewer');
  });

  it('names users and data sources, now and after they are gone', async () => {
    const [created] = await list(`action=user.created&target_id=${reviewer.id}`);
    assert.equal(created?.target_name, 'dana.reviewer');
    const [source] = await list(`action=datasource.created&target_id=${sourceId}`);
    assert.equal(source?.target_name, 'Pagila');
    assert.equal(source?.target_datasource, null);
    // A deleted user: the name the entries recorded.
    const deleted = await list(`target_id=${goneUser.id}`);
    assert.deepEqual(
      deleted.map((e) => [e.action, e.target_name]),
      [
        ['user.deleted', 'temp.worker'],
        ['auth.login', 'temp.worker'],
        ['user.created', 'temp.worker'],
      ],
    );
  });

  it('reads names when the entry is read: a renamed data source shows its new name, the chain is untouched', async () => {
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/datasources/${sourceId}`,
      headers: bearer(admin),
      payload: { name: 'Pagila DVD rental' },
    });
    assert.equal(renamed.statusCode, 200);
    const [confirmed] = await list('action=field.confirmed');
    assert.equal(confirmed?.target_datasource, 'Pagila DVD rental');
    assert.equal((await t.app.services.auditLog.verifyChain()).ok, true);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/datasources/${sourceId}`,
      headers: bearer(admin),
      payload: { name: 'Pagila' },
    });
    assert.equal(patched.statusCode, 200);
  });

  it('filters by action prefix: field.* is every field action and nothing else', async () => {
    const fieldActions = await list('action=field.*');
    assert.deepEqual(new Set(fieldActions.map((e) => e.action)), new Set(['field.confirmed', 'field.deferred']));
    assert.equal(fieldActions.length, 2);
    const users = await list('action=user.*');
    assert.ok(users.length >= 3 && users.every((e) => e.action.startsWith('user.')));
    // An exact action stays exact.
    assert.deepEqual(
      (await list('action=field.')).map((e) => e.action),
      [],
    );
    // Paged, a prefix still gives every entry once, newest first.
    const all = await list('action=user.*');
    const paged: number[] = [];
    let cursor: string | null = null;
    do {
      const response: LightMyRequestResponse = await t.app.inject({
        method: 'GET',
        url: `/api/v1/audit-logs?action=user.*&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        headers: bearer(admin),
      });
      const page: Page = json<Page>(response);
      paged.push(...page.items.map((e) => e.seq));
      cursor = page.next_cursor;
    } while (cursor !== null);
    assert.deepEqual(
      paged,
      all.map((e) => e.seq),
    );
    assert.deepEqual(
      paged,
      [...paged].sort((a, b) => b - a),
    );
    // `*` alone is no filter.
    assert.equal((await list('action=*')).length, (await list('')).length);
  });

  it('takes _ and % in the action filter literally', async () => {
    assert.deepEqual(
      (await list('action=test_*')).map((e) => e.action),
      ['test_event'],
    );
    assert.deepEqual(
      (await list('action=test_event')).map((e) => e.action),
      ['test_event'],
    );
    assert.deepEqual(
      (await list(`action=${encodeURIComponent('pct%*')}`)).map((e) => e.action),
      ['pct%done'],
    );
    assert.deepEqual(
      (await list(`action=${encodeURIComponent('pct%done')}`)).map((e) => e.action),
      ['pct%done'],
    );
    assert.deepEqual(
      (await list(`action=${encodeURIComponent('%*')}`)).map((e) => e.action),
      [],
    );
  });

  it('compares actions byte by byte, so the prefix range is exact under any database locale', async () => {
    if (kind === 'postgres') {
      // Migration 0017: the "C" collation on audit_log.action, whatever the database's default locale.
      const { rows } = await sql<{
        collation_name: string | null;
      }>`select collation_name from information_schema.columns
        where table_schema = current_schema() and table_name = 'audit_log' and column_name = 'action'`.execute(
        t.database.db,
      );
      assert.equal(rows[0]?.collation_name, 'C');
    }
    // Punctuation right after the prefix's last character sorts by its code, not by a locale's loose rules.
    await recordEvents(t, [
      { action: 'zz.a', targetType: null, targetId: null },
      { action: 'zz-a', targetType: null, targetId: null },
      { action: 'zz/a', targetType: null, targetId: null },
      { action: 'zza', targetType: null, targetId: null },
    ]);
    assert.deepEqual(
      (await list('action=zz.*')).map((e) => e.action),
      ['zz.a'],
    );
    assert.deepEqual((await list('action=zz*')).map((e) => e.action).sort(), ['zz-a', 'zz.a', 'zz/a', 'zza']);
  });

  it('refuses a * that is not at the end', async () => {
    for (const action of ['field*.confirmed', '*.confirmed', 'field.**']) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/v1/audit-logs?action=${encodeURIComponent(action)}`,
        headers: bearer(admin),
      });
      assert.equal(response.statusCode, 400, action);
      assert.equal(problem(response).code, 'validation_failed');
      assert.equal(problem(response).errors?.[0]?.path, '/query/action');
    }
  });

  it('filters by the actor by user name', async () => {
    const byName = await list('actor=dana.reviewer');
    assert.deepEqual(
      new Set(byName.map((e) => e.action)),
      new Set(['auth.login', 'field.confirmed', 'field.deferred']),
    );
    assert.ok(byName.every((e) => e.actor_id === reviewer.id));
    assert.deepEqual(await list('actor=dana'), [], 'a user name is matched whole');
    // A user that is gone: the entries written under the name.
    const gone = await list('actor=temp.worker');
    assert.deepEqual(
      gone.map((e) => [e.action, e.actor_id]),
      [['auth.login', goneUser.id]],
    );
    assert.deepEqual(await list('actor=nobody.here'), []);
  });

  it("filters by the target's name, case-insensitive and literal", async () => {
    const email = await list('target=CUSTOMER.EMAIL');
    assert.deepEqual(
      email.map((e) => [e.action, e.target_id]),
      [['field.confirmed', emailId]],
    );
    // A field matches by its data source's name too; the data source's own entries match by its name.
    const pagila = await list('target=pagila');
    assert.deepEqual(new Set(pagila.map((e) => e.target_id)), new Set([emailId, phoneId, sourceId]));
    const users = await list('target=dana.reviewer');
    assert.ok(users.length >= 1 && users.every((e) => e.target_type === 'user' && e.target_id === reviewer.id));
    // _ and % are not wildcards: no name holds "c_stomer" or a %.
    assert.deepEqual(await list('target=c_stomer'), []);
    assert.deepEqual(await list(`target=${encodeURIComponent('%')}`), []);
  });

  it('exports the names in NDJSON and CSV', async () => {
    const ndjson = await t.app.inject({
      method: 'GET',
      url: '/api/v1/audit-logs/export?action=field.*',
      headers: bearer(admin),
    });
    assert.equal(ndjson.statusCode, 200);
    const lines = ndjson.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Entry);
    assert.deepEqual(
      lines.map((e) => [e.action, e.target_name, e.target_datasource]),
      [
        ['field.confirmed', 'public.customer.email', 'Pagila'],
        ['field.deferred', 'public.customer.phone', 'Pagila'],
      ],
    );
    const csv = await t.app.inject({
      method: 'GET',
      url: '/api/v1/audit-logs/export?format=csv&target=customer.email',
      headers: bearer(admin),
    });
    const [header, row] = csv.body
      .trim()
      .split('\r\n')
      .map((r) => r.split(','));
    assert.ok(header && row);
    assert.equal(row[header.indexOf('target_name')], 'public.customer.email');
    assert.equal(row[header.indexOf('target_datasource')], 'Pagila');
    assert.equal(row[header.indexOf('target_id')], emailId);
  });
});

it('the prefix bound is the next text after every text starting with the prefix', () => {
  assert.equal(prefixUpperBound('field.'), 'field/');
  assert.equal(prefixUpperBound('a'), 'b');
  assert.equal(prefixUpperBound('x\u{10ffff}'), 'y');
  assert.equal(prefixUpperBound('\u{10ffff}'), undefined);
  assert.equal(prefixUpperBound('a\ud7ff'), 'a\ue000');
  assert.equal(prefixUpperBound('é'), 'ê');
});
