// Issue 30 item 5: the scan writer and batch-confirm write the same field rows. The scan's upsert met existing rows
// in (table, field) order while reviews lock in id order: on PostgreSQL the two deadlocked (a 500 to the reviewer or a
// failed batch). Every writer of `fields` now locks in id order; this test forces the interleaving that deadlocked.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { adminToken, buildTestApp, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource, importOk } from '../fields/factories.js';
import { batchConfirm } from '../review/factories.js';

describeEachDatabase('scan writer and batch-confirm on the same fields', (kind) => {
  let t: TestApp;
  let token: string;

  before(async () => {
    t = await buildTestApp(kind);
    token = await adminToken(t.app);
  });
  after(async () => t.close());

  /** Waits until `n` sessions of the test database wait for a row lock (PostgreSQL). */
  async function waitersAtLeast(n: number): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const r = await sql<{
        n: string;
      }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(
        t.database.db,
      );
      if (Number(r.rows[0]?.n ?? 0) >= n) return;
      if (Date.now() > deadline) throw new Error(`fewer than ${n} sessions wait for a lock`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('a scan writing fields in key order and a batch-confirm in id order both finish: no deadlock, no 5xx', async () => {
    const datasourceId = await createDatasource(t.app, token);
    // Twelve fields: among them two whose key order is the reverse of their id order.
    const names = Array.from({ length: 12 }, (_, i) => ({
      table_name: `people_${String(i).padStart(2, '0')}`,
      field_name: 'email',
      data_type: 'text',
      classification_chain_path: 'Technical/Record ID',
    }));
    const ids = (await importOk(t.app, token, datasourceId, names)).field_ids;
    const byKey = names.map((n, i) => ({ key: n.table_name, id: ids[i]! }));
    let pair: [first: (typeof byKey)[number], second: (typeof byKey)[number]] | undefined;
    for (let i = 0; i < byKey.length && !pair; i++)
      for (let j = i + 1; j < byKey.length && !pair; j++)
        if (byKey[i]!.id > byKey[j]!.id) pair = [byKey[i]!, byKey[j]!];
    assert.ok(pair, 'two fields whose key order is the reverse of their id order');
    const [keyFirst, keySecond] = pair; // keyFirst has the higher id

    const fields = t.app.services.fieldScanWriter;
    // The scan found both columns changed (a new comment): prepared outside the transaction, as the runner does.
    const prepared = await fields.prepareScanFields(
      [keyFirst, keySecond].map((f) => ({
        table_name: f.key,
        field_name: 'email',
        data_type: 'text',
        comment: 'changed by the scan',
        sample_values: [],
      })),
    );

    if (kind === 'sqlite') {
      // One writer at a time: both complete whatever the order.
      await t.database.db
        .transaction()
        .execute((trx) => fields.applyScan(trx, datasourceId, prepared, 'lock-order-test-scan'));
      const res = await batchConfirm(t.app, token, {
        field_ids: [keyFirst.id, keySecond.id],
        classification_chain_path: 'Technical/Record ID',
      });
      assert.equal(res.statusCode, 200, res.body);
      return;
    }

    // A third session holds the higher-id row (the one the scan's key order meets first).
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = t.database.db.transaction().execute(async (trx) => {
      await trx.selectFrom('fields').select('id').where('id', '=', keyFirst.id).forNoKeyUpdate().execute();
      holding();
      await released;
    });
    await held;
    // The scan's batch write: with the old key-order upsert it waits for keyFirst before it holds keySecond; in id
    // order it takes keySecond, then waits for keyFirst.
    const scanWrite = t.database.db
      .transaction()
      .execute((trx) => fields.applyScan(trx, datasourceId, prepared, 'lock-order-test-scan'))
      .then(
        () => 'ok',
        (e: unknown) => `error ${(e as { code?: string }).code ?? String(e)}`,
      );
    await waitersAtLeast(1);
    // A reviewer confirms both (id order: keySecond, then keyFirst).
    const confirm = batchConfirm(t.app, token, {
      field_ids: [keyFirst.id, keySecond.id],
      classification_chain_path: 'Technical/Record ID',
    });
    await waitersAtLeast(2);
    release();
    await holder;
    const [scanResult, confirmResponse] = await Promise.all([scanWrite, confirm]);
    assert.equal(scanResult, 'ok', 'the scan batch was written');
    assert.equal(confirmResponse.statusCode, 200, confirmResponse.body);
    const rows = await t.database.db
      .selectFrom('fields')
      .select(['id', 'comment', 'review_status'])
      .where('id', 'in', [keyFirst.id, keySecond.id])
      .execute();
    for (const row of rows) {
      assert.equal(row.comment, 'changed by the scan');
      assert.equal(row.review_status, 'confirmed');
    }
  });
});
