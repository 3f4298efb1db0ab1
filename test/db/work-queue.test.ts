import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { WorkQueue } from '../../src/db/work-queue.js';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../helpers/databases.js';

/** A queue table of the shape WorkQueue documents, apart from the app's own (no foreign keys to satisfy). */
async function createQueueTable(database: Database): Promise<void> {
  await sql`create table jobs_queue (job_id text primary key, token text not null, enqueued_at text not null, claimed_by text, claimed_at text)`.execute(
    database.db,
  );
}

const T0 = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);

describeEachDatabase('work queue', (kind) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let queue: WorkQueue;

  before(async () => {
    testDatabase = await createTestDatabase(kind);
    database = testDatabase.open();
    await createQueueTable(database);
    queue = new WorkQueue(database, { table: 'jobs_queue', key: 'job_id', abandonedAfterMs: 60_000 });
  });
  after(async () => {
    await database.close();
    await testDatabase.dispose();
  });
  beforeEach(async () => {
    await sql`delete from jobs_queue`.execute(database.db);
  });

  it('claims the oldest entries first, at most the limit, and never twice', async () => {
    await queue.enqueue(database.db, ['c'], at(2).toISOString());
    await queue.enqueue(database.db, ['a', 'b'], at(1).toISOString());
    const first = await queue.claim('w1', at(10), 2);
    assert.deepEqual(
      first.map((c) => c.key),
      ['a', 'b'],
    );
    const second = await queue.claim('w2', at(11), 5);
    assert.deepEqual(
      second.map((c) => c.key),
      ['c'],
    );
    assert.deepEqual(await queue.claim('w3', at(12), 5), []);
    assert.equal(await queue.count(database.db), 3);
  });

  it('completes only entries not re-enqueued since their claim', async () => {
    await queue.enqueue(database.db, ['a', 'b'], at(0).toISOString());
    const claims = await queue.claim('w1', at(1), 10);
    // b changes while w1 works on it: it gets a new token and is free to claim again.
    await queue.enqueue(database.db, ['b'], at(2).toISOString());
    await queue.complete(database.db, claims);
    assert.equal(await queue.count(database.db), 1);
    assert.deepEqual(
      (await queue.claim('w2', at(3), 10)).map((c) => c.key),
      ['b'],
    );
  });

  it('gives abandoned claims to another worker after the timeout, and not before', async () => {
    await queue.enqueue(database.db, ['a'], at(0).toISOString());
    assert.equal((await queue.claim('crashed', at(1), 10)).length, 1);
    assert.deepEqual(await queue.claim('w2', at(30_000), 10), []);
    const taken = await queue.claim('w2', at(61_002), 10);
    assert.deepEqual(
      taken.map((c) => c.key),
      ['a'],
    );
    await queue.complete(database.db, taken);
    assert.equal(await queue.count(database.db), 0);
  });

  it('releases claims for immediate reclaiming, unless re-enqueued meanwhile', async () => {
    await queue.enqueue(database.db, ['a'], at(0).toISOString());
    const claims = await queue.claim('w1', at(1), 10);
    await queue.release(database.db, claims);
    assert.deepEqual(
      (await queue.claim('w2', at(2), 10)).map((c) => c.key),
      ['a'],
    );
  });

  it("enqueues in the caller's transaction: a rollback leaves nothing queued", async () => {
    await assert.rejects(
      database.db.transaction().execute(async (trx) => {
        await queue.enqueue(trx, ['a', 'b'], at(0).toISOString());
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal(await queue.count(database.db), 0);
  });

  if (kind === 'postgres') {
    it('two instances claiming at once share the entries without overlap', async () => {
      const keys = Array.from({ length: 400 }, (_, i) => `k${String(i).padStart(4, '0')}`);
      await queue.enqueue(database.db, keys, at(0).toISOString());
      const other = testDatabase.open();
      try {
        const second = new WorkQueue(other, { table: 'jobs_queue', key: 'job_id', abandonedAfterMs: 60_000 });
        const got: string[][] = [[], []];
        await Promise.all(
          [queue, second].map(async (q, i) => {
            for (;;) {
              const claims = await q.claim(`w${i}`, at(1), 25);
              if (claims.length === 0) return;
              got[i]!.push(...claims.map((c) => c.key));
              await q.complete(i === 0 ? database.db : other.db, claims);
            }
          }),
        );
        const all = [...got[0]!, ...got[1]!].sort();
        assert.deepEqual(all, keys, 'every entry claimed exactly once');
        assert.ok(got[0]!.length > 0 && got[1]!.length > 0, 'both instances got work');
      } finally {
        await other.close();
      }
    });
  }
});
