import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource } from '../fields/factories.js';
import {
  auditSeq,
  batchConfirm,
  confirm,
  defer,
  entriesSince,
  getField,
  newFields,
  reviewColumns,
} from './factories.js';

const EMAIL = 'Personal/Contact/Email address';
const RECORD_ID = 'Technical/Record ID';

describeEachDatabase('review workflow', (kind) => {
  let t: TestApp;
  let admin: string;
  let reviewer: { id: string; token: string };
  let observer: { token: string };
  let source: string;
  let tags: Map<string, { id: number; default_level: string }>;

  before(async () => {
    t = await buildTestApp(kind);
    admin = await adminToken(t.app);
    reviewer = await createUser(t.app, ['operator']);
    observer = await createUser(t.app, ['observer']);
    source = await createDatasource(t.app, admin);
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/classification/tags', headers: bearer(admin) });
    tags = new Map(
      json<{ items: Array<{ id: number; chain_path: string; default_level: string }> }>(response).items.map((tag) => [
        tag.chain_path,
        tag,
      ]),
    );
  });
  after(async () => t.close());

  const tagId = (path: string) => tags.get(path)!.id;
  const fields = (count: number, path = RECORD_ID) => newFields(t.app, admin, count, path, source);
  const field = async (path = RECORD_ID) => (await fields(1, path))[0]!;
  const read = (id: string) => getField(t.app, admin, id);

  /** Asserts a refused call changed no field and wrote no audit entry. */
  async function assertNothingWritten(
    ids: string[],
    call: () => Promise<LightMyRequestResponse>,
    status: number,
    code: string,
  ) {
    const before = await reviewColumns(t.database, ids);
    const seq = await auditSeq(t.database);
    const response = await call();
    assert.equal(response.statusCode, status, response.body);
    assert.equal(problem(response).code, code);
    assert.deepEqual(await reviewColumns(t.database, ids), before, 'no field changed');
    assert.equal(await auditSeq(t.database), seq, 'no audit entry written');
  }

  describe('confirm', () => {
    it('confirms the current classification when the body names none, locks it and audits before/after', async () => {
      const id = await field();
      const original = await read(id);
      assert.equal(original.review_status, 'unreviewed');
      assert.equal(original.lock_level, null);
      const seq = await auditSeq(t.database);

      const response = await confirm(t.app, reviewer.token, id, {});
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(json(response), { status: 'confirmed', field_id: id, review_status: 'confirmed' });

      const after = await read(id);
      assert.equal(after.review_status, 'confirmed');
      assert.equal(after.classification_tag_id, original.classification_tag_id);
      assert.equal(after.level, original.level);
      assert.equal(after.lock_level, original.level, 'locked at the kept level');

      const entries = await entriesSince(t.database, seq);
      assert.equal(entries.length, 1);
      const [entry] = entries;
      assert.equal(entry!.action, 'field.confirmed');
      assert.equal(entry!.target_id, id);
      assert.equal(entry!.actor_id, reviewer.id);
      assert.deepEqual(entry!.details.before, {
        tag_id: original.classification_tag_id,
        chain_path: RECORD_ID,
        level: original.level,
        review_status: 'unreviewed',
        locked: false,
      });
      assert.deepEqual(entry!.details.after, {
        tag_id: original.classification_tag_id,
        chain_path: RECORD_ID,
        level: original.level,
        review_status: 'confirmed',
        locked: true,
      });
    });

    it('accepts a POST without any body', async () => {
      const id = await field();
      const response = await t.app.inject({
        method: 'POST',
        url: `/api/v1/classify/fields/${id}/confirm`,
        headers: bearer(reviewer.token),
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal((await read(id)).review_status, 'confirmed');
    });

    it('resolves a chain path alone to its tag', async () => {
      const id = await field();
      const response = await confirm(t.app, reviewer.token, id, { classification_chain_path: EMAIL });
      assert.equal(response.statusCode, 200, response.body);
      const after = await read(id);
      assert.equal(after.classification_tag_id, tagId(EMAIL));
      assert.equal(after.classification_chain_path, EMAIL);
    });

    it('takes a tag id alone, and a tag id with the path of the same tag', async () => {
      const [a, b] = await fields(2);
      assert.equal(
        (
          await confirm(t.app, reviewer.token, a!, {
            classification_tag_id: tagId(EMAIL),
            classification_chain_path: null,
            lock_level: null,
          })
        ).statusCode,
        200,
      );
      assert.equal((await read(a!)).classification_tag_id, tagId(EMAIL));
      const both = await confirm(t.app, reviewer.token, b!, {
        classification_tag_id: tagId(EMAIL),
        classification_chain_path: EMAIL,
      });
      assert.equal(both.statusCode, 200, both.body);
      assert.equal((await read(b!)).classification_chain_path, EMAIL);
    });

    it('sets the level from lock_level and keeps the tag', async () => {
      const id = await field();
      const before = await read(id);
      const response = await confirm(t.app, reviewer.token, id, { lock_level: 'L5' });
      assert.equal(response.statusCode, 200, response.body);
      const after = await read(id);
      assert.equal(after.level, 'L5');
      assert.equal(after.lock_level, 'L5');
      assert.equal(after.classification_tag_id, before.classification_tag_id);
    });

    it('refuses a decision that names nothing valid with 422 and writes nothing', async () => {
      const id = await field();
      const cases: Array<[string, unknown]> = [
        ['tag id and path disagree', { classification_tag_id: tagId(RECORD_ID), classification_chain_path: EMAIL }],
        ['unknown tag id', { classification_tag_id: 999_999 }],
        ['unknown path', { classification_chain_path: 'Nowhere/Nothing' }],
        ['unknown level', { lock_level: 'L9' }],
      ];
      for (const [name, body] of cases) {
        await assertNothingWritten([id], () => confirm(t.app, reviewer.token, id, body), 422, 'unprocessable').catch(
          (error: Error) => {
            throw new Error(`${name}: ${error.message}`);
          },
        );
      }
    });

    it('answers 404 for an unknown field and 400 for a bad UUID or a malformed body', async () => {
      const id = await field();
      await assertNothingWritten(
        [id],
        () => confirm(t.app, reviewer.token, '5b0c6a4e-2f7d-4c59-9b47-0c6b8f0c1d2e', {}),
        404,
        'not_found',
      );
      await assertNothingWritten(
        [id],
        () => confirm(t.app, reviewer.token, 'not-a-uuid', {}),
        400,
        'validation_failed',
      );
      await assertNothingWritten(
        [id],
        () => confirm(t.app, reviewer.token, id, { classification_tag_id: 'seven' }),
        400,
        'validation_failed',
      );
      await assertNothingWritten(
        [id],
        () => confirm(t.app, reviewer.token, id, { colour: 'red' }),
        400,
        'validation_failed',
      );
      await assertNothingWritten(
        [id],
        () =>
          t.app.inject({
            method: 'POST',
            url: `/api/v1/classify/fields/${id}/confirm`,
            headers: { ...bearer(reviewer.token), 'content-type': 'application/json' },
            payload: '{"lock_level": ',
          }),
        400,
        'validation_failed',
      );
    });
  });

  describe('transitions', () => {
    it('moves unreviewed → deferred → confirmed → deferred → deferred → confirmed → confirmed', async () => {
      const id = await field();
      const seq = await auditSeq(t.database);
      const status = async () => (await read(id)).review_status;
      assert.equal(await status(), 'unreviewed');
      assert.equal((await defer(t.app, reviewer.token, id, { reason: 'ask the data owner' })).statusCode, 200);
      assert.equal(await status(), 'deferred');
      assert.equal((await confirm(t.app, reviewer.token, id, { lock_level: 'L3' })).statusCode, 200);
      assert.equal(await status(), 'confirmed');
      assert.equal((await defer(t.app, reviewer.token, id, { reason: 'owner disagrees' })).statusCode, 200);
      assert.equal(await status(), 'deferred');
      assert.equal((await read(id)).lock_level, 'L3', 'deferral keeps the classification and its lock');
      assert.equal((await defer(t.app, reviewer.token, id, { reason: 'still waiting' })).statusCode, 200);
      assert.equal(await status(), 'deferred');
      assert.equal((await confirm(t.app, reviewer.token, id, {})).statusCode, 200);
      assert.equal(await status(), 'confirmed');
      assert.equal((await confirm(t.app, reviewer.token, id, {})).statusCode, 200);
      assert.equal(await status(), 'confirmed');
      const actions = (await entriesSince(t.database, seq)).map((e) => e.action);
      assert.deepEqual(actions, [
        'field.deferred',
        'field.confirmed',
        'field.deferred',
        'field.deferred',
        'field.confirmed',
        'field.confirmed',
      ]);
    });

    it('confirms an unreviewed field from unreviewed straight to confirmed', async () => {
      const id = await field();
      assert.equal((await confirm(t.app, admin, id, { classification_chain_path: RECORD_ID })).statusCode, 200);
      assert.equal((await read(id)).review_status, 'confirmed');
    });
  });

  describe('defer', () => {
    it('answers the deferral with its reason and time, and audits it', async () => {
      const id = await field();
      const before = await read(id);
      const seq = await auditSeq(t.database);
      t.clock.advance(5000);
      const reason = 'Owner on leave;\nrevisit in May\t(ticket 42)';
      const response = await defer(t.app, reviewer.token, id, { reason });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(json(response), {
        field_id: id,
        review_status: 'deferred',
        reason,
        deferred_at: t.clock.now().toISOString(),
      });
      const after = await read(id);
      assert.equal(after.classification_tag_id, before.classification_tag_id);
      assert.equal(after.level, before.level);
      const [entry] = await entriesSince(t.database, seq);
      assert.equal(entry!.action, 'field.deferred');
      assert.equal(entry!.target_id, id);
      assert.deepEqual(entry!.details, {
        before: { review_status: 'unreviewed', reason: null },
        after: { review_status: 'deferred', reason },
      });
    });

    it('accepts a 2000-character reason', async () => {
      const id = await field();
      const response = await defer(t.app, reviewer.token, id, { reason: 'x'.repeat(2000) });
      assert.equal(response.statusCode, 200, response.body);
    });

    it('refuses a missing, empty, blank, too long or control-character reason with 400 and writes nothing', async () => {
      const id = await field();
      for (const body of [
        {},
        { reason: '' },
        { reason: '   \n\t ' },
        { reason: 'y'.repeat(2001) },
        { reason: 'bell\u0007' },
        { reason: 'cr\rlf' },
        { reason: ['a', 'b'] },
      ]) {
        await assertNothingWritten([id], () => defer(t.app, reviewer.token, id, body), 400, 'validation_failed');
      }
      assert.equal((await read(id)).review_status, 'unreviewed');
    });

    it('answers 404 for an unknown field and 400 for a bad UUID', async () => {
      const id = await field();
      await assertNothingWritten(
        [id],
        () => defer(t.app, reviewer.token, '5b0c6a4e-2f7d-4c59-9b47-0c6b8f0c1d2e', { reason: 'x' }),
        404,
        'not_found',
      );
      await assertNothingWritten(
        [id],
        () => defer(t.app, reviewer.token, '1234', { reason: 'x' }),
        400,
        'validation_failed',
      );
    });
  });

  describe('batch-confirm', () => {
    it('answers good, unchanged, unknown and repeated ids each correctly, one audit entry per confirmed field', async () => {
      const ids = await fields(4);
      const [good1, good2, unchanged, relabel] = ids as [string, string, string, string];
      // Already confirmed with exactly the classification the batch will give: skipped.
      assert.equal(
        (await confirm(t.app, reviewer.token, unchanged, { classification_chain_path: EMAIL, lock_level: 'L4' }))
          .statusCode,
        200,
      );
      // Confirmed, but to another level: the batch changes it, so it is confirmed again.
      assert.equal(
        (await confirm(t.app, reviewer.token, relabel, { classification_chain_path: EMAIL, lock_level: 'L2' }))
          .statusCode,
        200,
      );
      const unknown = '5b0c6a4e-2f7d-4c59-9b47-0c6b8f0c1d2e';
      const seq = await auditSeq(t.database);

      const response = await batchConfirm(t.app, reviewer.token, {
        field_ids: [good1, unknown, unchanged, good2, good1, relabel],
        classification_chain_path: EMAIL,
        lock_level: 'L4',
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(json(response), {
        confirmed: [good1, good2, relabel],
        skipped: [{ field_id: unchanged, reason: 'unchanged' }],
        errors: [{ field_id: unknown, code: 'not_found', message: 'Field was not found' }],
      });
      for (const id of [good1, good2, relabel]) {
        const after = await read(id);
        assert.equal(after.review_status, 'confirmed');
        assert.equal(after.classification_tag_id, tagId(EMAIL));
        assert.equal(after.lock_level, 'L4');
      }
      const entries = await entriesSince(t.database, seq);
      assert.deepEqual(
        entries.map((e) => e.target_id),
        [good1, good2, relabel],
      );
      assert.ok(
        entries.every((e) => e.action === 'field.confirmed' && e.actor_id === reviewer.id && e.details.batch === true),
      );
      assert.equal(new Set(entries.map((e) => e.request_id)).size, 1, 'all from one request');
      assert.equal((entries[2]!.details.before as { level: string }).level, 'L2');
    });

    it("keeps each field's own tag and level when the decision names neither", async () => {
      const [a] = await fields(1, EMAIL);
      const [b] = await fields(1, RECORD_ID);
      const [levelA, levelB] = [(await read(a!)).level, (await read(b!)).level];
      const response = await batchConfirm(t.app, reviewer.token, { field_ids: [a, b] });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(json<{ confirmed: string[] }>(response).confirmed, [a, b]);
      assert.equal((await read(a!)).classification_chain_path, EMAIL);
      assert.equal((await read(b!)).classification_chain_path, RECORD_ID);
      assert.equal((await read(a!)).lock_level, levelA);
      assert.equal((await read(b!)).lock_level, levelB);
      const again = json<{ confirmed: string[]; skipped: unknown[] }>(
        await batchConfirm(t.app, reviewer.token, { field_ids: [a, b] }),
      );
      assert.deepEqual(again.confirmed, []);
      assert.equal(again.skipped.length, 2);
    });

    it('confirms 500 fields in one call', async () => {
      const ids = await fields(500);
      const seq = await auditSeq(t.database);
      const response = await batchConfirm(t.app, reviewer.token, { field_ids: ids, lock_level: 'L2' });
      assert.equal(response.statusCode, 200);
      assert.equal(json<{ confirmed: string[] }>(response).confirmed.length, 500);
      assert.equal(await auditSeq(t.database), seq + 500);
      const verified = await t.app.services.auditLog.verifyChain();
      assert.ok(verified.ok, JSON.stringify(verified));
    });

    it('refuses an invalid decision for the whole call with 422 and writes nothing', async () => {
      const ids = await fields(3);
      for (const decision of [
        { lock_level: 'L0' },
        { classification_tag_id: 999_999 },
        { classification_tag_id: tagId(EMAIL), classification_chain_path: RECORD_ID },
      ]) {
        await assertNothingWritten(
          ids,
          () => batchConfirm(t.app, reviewer.token, { field_ids: ids, ...decision }),
          422,
          'unprocessable',
        );
      }
    });

    it('refuses 0 or 501 ids, a bad UUID and a malformed body with 400 and writes nothing', async () => {
      const ids = await fields(2);
      const many = Array.from({ length: 501 }, () => ids[0]);
      for (const body of [
        { field_ids: [] },
        { field_ids: many },
        { field_ids: [ids[0], 'nope'] },
        {},
        { field_ids: ids, extra: 1 },
      ]) {
        await assertNothingWritten(ids, () => batchConfirm(t.app, reviewer.token, body), 400, 'validation_failed');
      }
    });
  });

  describe('access', () => {
    it('refuses the observer on all three with 403 and writes nothing', async () => {
      const id = await field();
      await assertNothingWritten([id], () => confirm(t.app, observer.token, id, {}), 403, 'forbidden');
      await assertNothingWritten(
        [id],
        () => batchConfirm(t.app, observer.token, { field_ids: [id] }),
        403,
        'forbidden',
      );
      await assertNothingWritten([id], () => defer(t.app, observer.token, id, { reason: 'no' }), 403, 'forbidden');
    });

    it('refuses a caller without a token with 401', async () => {
      const id = await field();
      const response = await t.app.inject({
        method: 'POST',
        url: `/api/v1/classify/fields/${id}/confirm`,
        payload: {},
      });
      assert.equal(response.statusCode, 401);
      assert.equal(problem(response).code, 'unauthorized');
    });
  });

  describe('concurrency', () => {
    it('20 concurrent confirms of different fields all land, and the audit chain stays intact', async () => {
      const ids = await fields(20);
      const seq = await auditSeq(t.database);
      const responses = await Promise.all(
        ids.map((id, i) =>
          i % 2 === 0
            ? confirm(t.app, reviewer.token, id, { lock_level: 'L3' })
            : defer(t.app, reviewer.token, id, { reason: `r${i}` }),
        ),
      );
      assert.deepEqual(
        responses.map((r) => r.statusCode),
        ids.map(() => 200),
      );
      const entries = await entriesSince(t.database, seq);
      assert.deepEqual(new Set(entries.map((e) => e.target_id)), new Set(ids));
      assert.deepEqual(
        entries.map((e) => e.seq),
        ids.map((_, i) => seq + i + 1),
      );
      const verified = await t.app.services.auditLog.verifyChain({ pageSize: 7 });
      assert.ok(verified.ok, JSON.stringify(verified));
    });

    it('concurrent batches over the same fields do not deadlock and confirm each field once', async () => {
      const ids = await fields(30);
      const reversed = [...ids].reverse();
      const seq = await auditSeq(t.database);
      const responses = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          batchConfirm(t.app, reviewer.token, { field_ids: i % 2 ? ids : reversed, lock_level: 'L4' }),
        ),
      );
      assert.deepEqual(
        responses.map((r) => r.statusCode),
        [200, 200, 200, 200],
      );
      const confirmed = responses.flatMap((r) => json<{ confirmed: string[] }>(r).confirmed);
      assert.deepEqual(new Set(confirmed), new Set(ids));
      assert.equal(confirmed.length, 30, 'the first batch confirms, the others find them unchanged');
      assert.equal(await auditSeq(t.database), seq + 30);
    });
  });
});
