import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { LightMyRequestResponse } from 'fastify';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource, importOk } from '../fields/factories.js';
import { importLicense, issueLicense, keyPair } from '../license/license.helpers.js';
import { auditSeq, entriesSince, getField, newFields, reviewColumns } from './factories.js';

const vendor = keyPair();
const RECORD_ID = 'Technical/Record ID';
const EMAIL = 'Personal/Contact/Email address';
const HEADER = 'field_id,action,chain_path,level,reason';

describeEachDatabase('decisions upload', (kind) => {
  let t: TestApp;
  let admin: string;
  let reviewer: { id: string; token: string };
  let source: string;

  before(async () => {
    t = await buildTestApp(kind, { env: { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem } });
    admin = await adminToken(t.app);
    reviewer = await createUser(t.app, ['operator']);
    source = await createDatasource(t.app, admin);
  });
  after(async () => t.close());

  const upload = (
    csv: string,
    token = reviewer.token,
    contentType = 'text/csv; charset=utf-8',
  ): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/fields/decisions',
      headers: { ...bearer(token), 'content-type': contentType },
      payload: csv,
    });
  const lines = (...rows: string[]) => `${[HEADER, ...rows].join('\r\n')}\r\n`;

  /** Asserts a refused upload changed no field and wrote no audit entry; returns its problem body. */
  async function refusedWithNothingApplied(ids: string[], csv: string, status = 400) {
    const before = await reviewColumns(t.database, ids);
    const seq = await auditSeq(t.database);
    const response = await upload(csv);
    assert.equal(response.statusCode, status, response.body);
    const body = problem(response);
    assert.deepEqual(await reviewColumns(t.database, ids), before, 'no field changed');
    assert.equal(await auditSeq(t.database), seq, 'no audit entry written');
    return body;
  }

  it('round trip: export → add action and reason in a spreadsheet → upload applies every row, one audit entry per field', async () => {
    // Names that the export guards or quotes, to show they come back intact.
    const names = ['=cmd', 'plain', 'with,comma', '-minus', '@at'];
    const ids = (
      await importOk(
        t.app,
        admin,
        source,
        names.map((n) => ({
          table_name: 'people',
          field_name: n,
          data_type: 'text',
          classification_chain_path: RECORD_ID,
          level: 'L2',
        })),
      )
    ).field_ids;
    const exported = await t.app.inject({
      method: 'GET',
      url: `/api/v1/fields/export?format=csv&datasource_id=${source}`,
      headers: bearer(reviewer.token),
    });
    assert.equal(exported.statusCode, 200);
    const rows = parse<Record<string, string>>(exported.body, { columns: true });
    assert.equal(rows.length, names.length);
    // The reviewer's edits: confirm two as they are, re-classify one, defer one (reason with a comma, a quote, a line
    // break and a leading "="), leave one undecided.
    const edit = new Map<string, Record<string, string>>([
      ['=cmd', { action: 'confirm' }],
      ['plain', { action: 'confirm' }],
      ['with,comma', { action: 'confirm', chain_path: EMAIL, level: 'L4' }],
      ['-minus', { action: 'defer', reason: '=ask "the owner", then\nsee ticket 12' }],
    ]);
    const edited = rows.map((r) => {
      const name = r.field_name!.replace(/^'/, '');
      return { ...r, action: '', reason: '', ...edit.get(name) };
    });
    const csv = stringify(edited, {
      header: true,
      columns: [...Object.keys(rows[0]!), 'action', 'reason'],
      record_delimiter: 'windows',
      escape_formulas: true,
    });
    const seq = await auditSeq(t.database);

    const response = await upload(csv);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(json(response), { confirmed: 3, deferred: 1, ignored: 1 });

    const byName = new Map(names.map((n, i) => [n, ids[i]!]));
    const cmd = await getField(t.app, admin, byName.get('=cmd')!);
    assert.deepEqual(
      [cmd.review_status, cmd.classification_chain_path, cmd.level, cmd.lock_level],
      ['confirmed', RECORD_ID, 'L2', 'L2'],
    );
    const changed = await getField(t.app, admin, byName.get('with,comma')!);
    assert.deepEqual(
      [changed.review_status, changed.classification_chain_path, changed.level, changed.lock_level],
      ['confirmed', EMAIL, 'L4', 'L4'],
    );
    const deferred = await getField(t.app, admin, byName.get('-minus')!);
    assert.equal(deferred.review_status, 'deferred');
    assert.equal(deferred.classification_chain_path, RECORD_ID);
    assert.equal((await getField(t.app, admin, byName.get('@at')!)).review_status, 'unreviewed');
    const reason = await t.database.db
      .selectFrom('fields')
      .select('review_reason')
      .where('id', '=', byName.get('-minus')!)
      .executeTakeFirstOrThrow();
    assert.equal(
      reason.review_reason,
      '=ask "the owner", then\nsee ticket 12',
      'the export guard is taken off, the rest kept',
    );

    const entries = await entriesSince(t.database, seq);
    assert.deepEqual(entries.map((e) => e.action).sort(), [
      'field.confirmed',
      'field.confirmed',
      'field.confirmed',
      'field.deferred',
    ]);
    assert.ok(entries.every((e) => e.actor_id === reviewer.id && e.details.upload === true));
    const change = entries.find((e) => e.target_id === byName.get('with,comma'));
    assert.deepEqual((change?.details.after as { chain_path: string; level: string }).chain_path, EMAIL);
    assert.deepEqual((change?.details.before as { level: string }).level, 'L2');
    assert.ok((await t.app.services.auditLog.verifyChain()).ok);
  });

  it('a file with bad rows: 400 naming every bad row with its number and reason, nothing applied', async () => {
    const ids = await newFields(t.app, admin, 5, RECORD_ID, source);
    const [a, b, c, d, e] = ids as [string, string, string, string, string];
    const body = await refusedWithNothingApplied(
      ids,
      lines(
        `${a},confirm,,,`, // row 2: fine
        `not-a-uuid,confirm,,,`, // row 3
        `${randomUUID()},confirm,,,`, // row 4: no such field
        `${b},approve,,,`, // row 5
        `${c},confirm,No/Such/Tag,,`, // row 6
        `${c.toUpperCase()},confirm,,L9,`, // row 7: repeats row 6's field, and an unknown level
        `${d},defer,,,`, // row 8: no reason
        `${a.replace(/^./, 'f')},confirm,,,looks good`, // row 9: a reason on a confirm (and maybe no such field)
        `${e},defer,${EMAIL},,"moved"`, // row 10: a defer that would change the tag
        `${d},defer,,,"   "`, // row 11: repeats row 8's field; only spaces
      ),
    );
    assert.equal(body.code, 'validation_failed');
    assert.match(body.detail, /nothing was applied/);
    const rows = body.errors!.map((e) => e.row);
    assert.deepEqual(rows, [3, 4, 5, 6, 7, 8, 9, 10, 11], JSON.stringify(body.errors));
    const message = (row: number) => body.errors!.find((e) => e.row === row)!.message;
    assert.match(message(3), /not a field id/);
    assert.match(message(4), /no field has the id/);
    assert.match(message(5), /"approve" is not confirm or defer/);
    assert.match(message(6), /chain_path names no existing tag/);
    assert.match(message(7), /repeats the field of row 6/);
    assert.match(message(7), /level is not a configured level/);
    assert.match(message(8), /a defer needs a reason/);
    assert.match(message(9), /a confirm takes none/);
    assert.match(message(10), /a defer keeps the classification/);
    assert.match(message(11), /repeats the field of row 8/);
    assert.ok(body.errors!.every((e) => e.path === `/rows/${e.row}`));
  });

  it('refuses a malformed file as a whole: bad CSV, a foreign header, no rows, too many rows, another content type', async () => {
    const ids = await newFields(t.app, admin, 1, RECORD_ID, source);
    const id = ids[0]!;
    const unclosed = await refusedWithNothingApplied(ids, lines(`${id},confirm,,,"never closed`));
    assert.match(unclosed.detail, /not valid CSV/);
    const header = await refusedWithNothingApplied(ids, `field_id,action,colour\r\n${id},confirm,red\r\n`);
    assert.deepEqual(
      header.errors!.map((e) => [e.row, e.message]),
      [
        [
          1,
          'unknown column "colour" (expected field_id, action, chain_path, level, reason; other columns of an export are ignored)',
        ],
      ],
    );
    const noAction = await refusedWithNothingApplied(ids, `field_id,reason\r\n${id},x\r\n`);
    assert.match(noAction.detail, /no action column/);
    const empty = await refusedWithNothingApplied(ids, `${HEADER}\r\n`);
    assert.match(empty.detail, /no decision rows/);
    const extraCells = await refusedWithNothingApplied(ids, lines(`${id},defer,,,wait, for the owner`));
    assert.deepEqual(
      extraCells.errors!.map((e) => e.row),
      [2],
    );
    const tooMany = await refusedWithNothingApplied(
      ids,
      lines(...Array.from({ length: 10_001 }, () => `${id},confirm,,,`)),
    );
    assert.match(tooMany.detail, /At most 10,000 rows/);
    // Over the service's body limit (FIELDLENS_BODY_LIMIT, 8 MiB by default), as for every other body: 413.
    const huge = await refusedWithNothingApplied(
      ids,
      lines(...Array.from({ length: 5000 }, () => `${id},defer,,,"${'x'.repeat(1900)}"`)),
      413,
    );
    assert.equal(huge.code, 'payload_too_large');
    const asJson = await t.app.inject({
      method: 'POST',
      url: '/api/v1/fields/decisions',
      headers: bearer(reviewer.token),
      payload: { field_id: id },
    });
    assert.equal(asJson.statusCode, 415);
    assert.equal(problem(asJson).code, 'unsupported_media_type');
    const nothing = await upload('');
    assert.equal(nothing.statusCode, 400);
    assert.equal(problem(nothing).code, 'validation_failed');
  });

  describe('access', () => {
    it('needs field:review: 401 without a token, 403 for an observer, nothing applied', async () => {
      const ids = await newFields(t.app, admin, 1, RECORD_ID, source);
      const observer = await createUser(t.app, ['observer']);
      const csv = lines(`${ids[0]},confirm,,,`);
      const anonymous = await t.app.inject({
        method: 'POST',
        url: '/api/v1/fields/decisions',
        headers: { 'content-type': 'text/csv' },
        payload: csv,
      });
      assert.equal(problem(anonymous).code, 'unauthorized');
      const refused = await upload(csv, observer.token);
      assert.equal(refused.statusCode, 403);
      assert.equal(problem(refused).code, 'forbidden');
      assert.equal((await getField(t.app, admin, ids[0]!)).review_status, 'unreviewed');
    });

    it('needs the license feature batch_confirm (403 feature_disabled, nothing applied)', async () => {
      const ids = await newFields(t.app, admin, 1, RECORD_ID, source);
      const imported = await importLicense(t.app, admin, issueLicense(vendor, t.clock.now(), { sku_tier: 'lite' }));
      assert.equal(imported.statusCode, 200, imported.body);
      const body = await refusedWithNothingApplied(ids, lines(`${ids[0]},confirm,,,`), 403);
      assert.equal(body.code, 'feature_disabled');
    });
  });
});
