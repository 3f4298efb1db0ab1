/**
 * A full disk (issue 30, item 13), simulated on SQLite with a size limit on the database file (PRAGMA
 * max_page_count = the pages it has): writes fail with SQLITE_FULL as they do when the disk is full.
 * The real cause reaches the log (not SQLite's follow-up "cannot rollback"), the answers are 503 problem+json
 * with nothing half-written, and /readyz answers 503 while writes fail, 200 again once the window has passed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { isStorageFull } from '../../src/db/database.js';
import { STORAGE_FULL_WINDOW_MS } from '../../src/http/lifecycle.js';
import { adminToken, bearer, buildTestApp, json, problem, type TestApp } from '../helpers/app.js';

describe('a full disk [sqlite]', () => {
  let t: TestApp;
  let token: string;
  let sourceId: string;
  let fieldIds: string[];

  before(async () => {
    t = await buildTestApp('sqlite');
    token = await adminToken(t.app);
    const source = await t.app.inject({
      method: 'POST',
      url: '/api/v1/datasources',
      headers: bearer(token),
      payload: { name: 'full-disk', type: 'postgresql' },
    });
    sourceId = json<{ id: string }>(source).id;
    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/v1/fields/import',
      headers: bearer(token),
      payload: {
        datasource_id: sourceId,
        fields: Array.from({ length: 30 }, (_, i) => ({
          table_name: 'customers',
          field_name: `column_${i}`,
          data_type: 'text',
        })),
      },
    });
    fieldIds = json<{ field_ids: string[] }>(imported).field_ids;
  });
  after(() => t.close());

  const fieldCount = async () =>
    Number((await sql<{ n: number }>`select count(*) as n from fields`.execute(t.database.db)).rows[0]?.n);

  it('writes answer 503 (never 500), the log names SQLITE_FULL, /readyz is 503 while writes fail and 200 after', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(t.database.db)).rows[0]?.page_count;
    await sql.raw(`pragma max_page_count = ${pages}`).execute(t.database.db);
    const fieldsBefore = await fieldCount();

    // A large import (fails inside a statement) and single and batch decisions (some fail at a later statement,
    // after which SQLite has rolled the transaction back itself).
    const answers = [];
    for (let round = 0; round < 3; round += 1) {
      answers.push(
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/fields/import',
          headers: bearer(token),
          payload: {
            datasource_id: sourceId,
            fields: Array.from({ length: 2000 }, (_, i) => ({
              table_name: `t${i % 50}`,
              field_name: `a_long_column_name_${round}_${i}`,
              data_type: 'varchar(255)',
            })),
          },
        }),
      );
    }
    for (const id of fieldIds.slice(0, 10))
      answers.push(
        await t.app.inject({
          method: 'POST',
          url: `/api/v1/classify/fields/${id}/confirm`,
          headers: bearer(token),
          payload: {},
        }),
      );
    answers.push(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/classify/fields/batch-confirm',
        headers: bearer(token),
        payload: { field_ids: fieldIds.slice(10) },
      }),
    );

    assert.deepEqual(
      answers.filter((a) => a.statusCode >= 500 && a.statusCode !== 503).map((a) => `${a.statusCode} ${a.body}`),
      [],
      'no 500',
    );
    const refused = answers.filter((a) => a.statusCode === 503);
    assert.ok(refused.length >= 3, `the imports are refused (${answers.map((a) => a.statusCode).join(' ')})`);
    for (const answer of refused) {
      const body = problem(answer);
      assert.equal(body.code, 'unavailable');
      assert.match(body.detail, /disk is full/);
      assert.equal(answer.headers['retry-after'], '30');
    }
    assert.equal(await fieldCount(), fieldsBefore, 'no imported field was half-written');

    const errors = t.logs
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { code?: string; message?: string } })
      .filter((l) => l.level >= 50);
    assert.ok(
      errors.some((l) => l.err?.code === 'SQLITE_FULL' && /disk is full/.test(l.err.message ?? '')),
      'the real cause is logged',
    );
    assert.deepEqual(
      errors.filter((l) => /cannot rollback/.test(JSON.stringify(l))),
      [],
      'not masked by "cannot rollback"',
    );

    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.equal(problem(ready).code, 'unavailable');
    assert.match(problem(ready).detail, /disk full/);
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'the process is alive');
    assert.equal(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/fields?datasource_id=${sourceId}&limit=5`,
          headers: bearer(token),
        })
      ).statusCode,
      200,
      'reads still work',
    );

    // Space is freed: once the window has passed without another failed write, ready again, and writes succeed.
    await sql.raw('pragma max_page_count = 1073741823').execute(t.database.db);
    t.clock.advance(STORAGE_FULL_WINDOW_MS + 1000);
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    const confirm = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${fieldIds[0]}/confirm`,
      headers: bearer(token),
      payload: {},
    });
    assert.equal(confirm.statusCode, 200, confirm.body);
  });
});

describe('isStorageFull', () => {
  it('recognises SQLite SQLITE_FULL and PostgreSQL disk_full (53100), also as a cause, and nothing else', () => {
    const pgFull = new pg.DatabaseError(
      'could not extend file "base/16384/16400": No space left on device',
      0,
      'error',
    );
    pgFull.code = '53100';
    assert.equal(isStorageFull(pgFull), true);
    assert.equal(isStorageFull(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })), true);
    assert.equal(isStorageFull(new Error('wrapped', { cause: pgFull })), true);
    const tooMany = new pg.DatabaseError('too many connections', 0, 'error');
    tooMany.code = '53300';
    assert.equal(isStorageFull(tooMany), false);
    assert.equal(isStorageFull(Object.assign(new Error('constraint'), { code: 'SQLITE_CONSTRAINT_UNIQUE' })), false);
    assert.equal(isStorageFull(undefined), false);
  });
});
