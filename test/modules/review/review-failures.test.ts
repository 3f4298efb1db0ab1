import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import type { Caller } from '../../../src/http/access.js';
import type { AuditEvent, AuditService } from '../../../src/modules/audit/audit.service.js';
import type { FieldReviewState } from '../../../src/modules/fields/field-review-state.service.js';
import { ReviewService } from '../../../src/modules/review/review.service.js';
import { importLicense, issueLicense, keyPair } from '../license/license.helpers.js';
import { createDatasource } from '../fields/factories.js';
import { auditSeq, batchConfirm, confirm, defer, newFields, reviewColumns } from './factories.js';

const vendor = keyPair();

describeEachDatabase('review failures', (kind) => {
  let t: TestApp;
  let admin: string;
  let caller: Caller;
  let source: string;

  before(async () => {
    t = await buildTestApp(kind, { env: { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem } });
    admin = await adminToken(t.app);
    const reviewer = await createUser(t.app, ['classifier_owner']);
    caller = {
      id: reviewer.id,
      username: reviewer.username,
      email: `${reviewer.username}@example.com`,
      roles: ['classifier_owner'],
      requestId: 'req-injected',
    };
    source = await createDatasource(t.app, admin);
  });
  after(async () => t.close());

  /** A ReviewService on the app's real services, with one dependency replaced to force a failure. */
  const reviewWith = (overrides: {
    fields?: Pick<FieldReviewState, 'lockReviewStates' | 'confirmFields' | 'deferField'>;
    audit?: Pick<AuditService, 'record'>;
  }) => {
    const { services } = t.app;
    return new ReviewService({
      database: t.database,
      clock: t.clock,
      // Only record() is used by the review service; the cast lets a test stand-in take its place.
      audit: (overrides.audit ?? services.audit) as AuditService,
      fields: overrides.fields ?? services.fieldReviewState,
      catalog: services.fieldCatalog,
      auditLog: services.auditLog,
      taxonomy: services.taxonomy,
      license: services.license,
    });
  };

  it('a failure writing the fields mid-batch leaves no field confirmed and no entry written', async () => {
    const ids = await newFields(t.app, admin, 50, undefined, source);
    const before = await reviewColumns(t.database, ids);
    const seq = await auditSeq(t.database);
    const real = t.app.services.fieldReviewState;
    const review = reviewWith({
      fields: {
        lockReviewStates: (trx, fieldIds) => real.lockReviewStates(trx, fieldIds),
        // Half the batch written, then the database connection fails.
        async confirmFields(trx, fieldIds, change) {
          await real.confirmFields(trx, fieldIds.slice(0, Math.floor(fieldIds.length / 2)), change);
          throw new Error('injected: connection lost mid-batch');
        },
        async deferField(trx, id, change) {
          await real.deferField(trx, id, change);
          throw new Error('injected: connection lost after the write');
        },
      },
    });
    await assert.rejects(review.batchConfirm(caller, { field_ids: ids, lock_level: 'L4' }), /injected/);
    await assert.rejects(review.confirmField(caller, ids[0]!, {}), /injected/);
    await assert.rejects(review.deferField(caller, ids[0]!, { reason: 'x' }), /injected/);
    assert.deepEqual(await reviewColumns(t.database, ids), before);
    assert.equal(await auditSeq(t.database), seq);
  });

  it("a failure after half of the batch's audit entries are appended rolls everything back", async () => {
    const ids = await newFields(t.app, admin, 40, undefined, source);
    const before = await reviewColumns(t.database, ids);
    const seq = await auditSeq(t.database);
    const real = t.app.services.audit;
    let appended = 0;
    const review = reviewWith({
      audit: {
        async record(trx, actor, events) {
          const list = Array.isArray(events) ? (events as readonly AuditEvent[]) : [events as AuditEvent];
          const half = list.slice(0, Math.floor(list.length / 2));
          await real.record(trx, actor, half);
          appended += half.length;
          throw new Error('injected: crash in the middle of the batch');
        },
      },
    });
    await assert.rejects(
      review.batchConfirm(caller, { field_ids: ids, classification_chain_path: 'Personal/Contact/Email address' }),
      /injected/,
    );
    assert.equal(appended, 20, 'half the entries were appended before the crash');
    assert.deepEqual(await reviewColumns(t.database, ids), before, 'no field confirmed');
    assert.equal(await auditSeq(t.database), seq, 'no entry kept');
    const verified = await t.app.services.auditLog.verifyChain();
    assert.ok(verified.ok, JSON.stringify(verified));
    // The chain goes on from the same head afterwards.
    assert.equal((await batchConfirm(t.app, admin, { field_ids: ids })).statusCode, 200);
    assert.equal(await auditSeq(t.database), seq + 40);
    assert.ok((await t.app.services.auditLog.verifyChain()).ok);
  });

  it('with a license that switches batch_confirm and audit_export off: 403 feature_disabled, single review still works', async () => {
    const ids = await newFields(t.app, admin, 2, undefined, source);
    const imported = await importLicense(t.app, admin, issueLicense(vendor, t.clock.now(), { sku_tier: 'lite' }));
    assert.equal(imported.statusCode, 200, imported.body);

    const seq = await auditSeq(t.database);
    const before = await reviewColumns(t.database, ids);
    const batch = await batchConfirm(t.app, admin, { field_ids: ids });
    assert.equal(batch.statusCode, 403);
    assert.equal(problem(batch).code, 'feature_disabled');
    const exported = await t.app.inject({ method: 'GET', url: '/api/v1/audit-logs/export', headers: bearer(admin) });
    assert.equal(exported.statusCode, 403);
    assert.equal(problem(exported).code, 'feature_disabled');
    assert.deepEqual(await reviewColumns(t.database, ids), before);
    assert.equal(await auditSeq(t.database), seq);

    assert.equal((await confirm(t.app, admin, ids[0]!, {})).statusCode, 200);
    assert.equal((await defer(t.app, admin, ids[1]!, { reason: 'lite can still defer' })).statusCode, 200);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/audit-logs', headers: bearer(admin) })).statusCode,
      200,
    );

    const enabled = await importLicense(
      t.app,
      admin,
      issueLicense(vendor, t.clock.now(), { sku_tier: 'lite', features: { batch_confirm: true, audit_export: true } }),
    );
    assert.equal(enabled.statusCode, 200, enabled.body);
    const allowed = await batchConfirm(t.app, admin, { field_ids: ids });
    assert.equal(allowed.statusCode, 200, allowed.body);
    assert.deepEqual(json<{ skipped: unknown[] }>(allowed).skipped, [{ field_id: ids[0], reason: 'unchanged' }]);
  });
});
