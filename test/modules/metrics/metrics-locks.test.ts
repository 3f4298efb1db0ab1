import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { adminToken, bearer, buildTestApp, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource, importOk, manyFields } from '../fields/factories.js';

/**
 * The metrics writer and the reviewers write the same field rows. A reviewer holding rows while the worker stores
 * metrics must neither make the worker wait (a lock cycle between the two was a PostgreSQL deadlock answered 500) nor
 * lose the metrics of the rows it held: they are recomputed after its change.
 */
describeEachDatabase('metrics writer and reviewers on the same rows', (kind) => {
  let t: TestApp | undefined;
  after(async () => t?.close());

  it('stores metrics without waiting for rows a reviewer holds, and recomputes those after the review commits', async () => {
    t = await buildTestApp(kind);
    const admin = await adminToken(t.app);
    const ids = (await importOk(t.app, admin, await createDatasource(t.app, admin), manyFields(40, 'lock'))).field_ids;
    const held = ids.filter((_, i) => i % 2 === 0);
    const worker = t.app.services.metricsWorker;
    const fields = t.app.services.fieldReviewState;

    let storedWhileHeld = -1;
    await t.database.db.transaction().execute(async (trx) => {
      // A batch-confirm in flight: it holds half of the rows (in id order, as every writer of fields locks them).
      assert.equal((await fields.lockReviewStates(trx, held)).length, held.length);
      if (kind === 'postgres') {
        // Another connection: the worker must get through without waiting for this transaction.
        await worker.computeNow(ids);
        const rows = await t!.database.db.selectFrom('field_metrics').select('field_id').execute();
        storedWhileHeld = rows.length;
      }
      await fields.confirmFields(trx, held, {
        tag_id: 1,
        level: 'L2',
        reviewed_at: new Date().toISOString(),
        reviewed_by: 'test',
      });
    });
    if (kind === 'postgres') {
      // The rows nobody held were stored; the held ones were skipped, not waited for.
      assert.equal(storedWhileHeld, ids.length - held.length);
    }
    // After the review commits, its change makes the held rows stale, and they are computed like the others.
    await worker.drain();
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/classify/metrics/status', headers: bearer(admin) });
    assert.equal(JSON.parse(res.body).pending, 0);
    const stored = await t.database.db.selectFrom('field_metrics').select('field_id').execute();
    assert.equal(stored.length, ids.length);
    const mirrored = await t.database.db.selectFrom('fields').select('outlier_score').where('id', 'in', ids).execute();
    assert.ok(mirrored.every((r) => r.outlier_score !== null));
  });
});
