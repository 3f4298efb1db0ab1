/** All SQL of the audit log. Append-only: nothing here updates or deletes an entry. */
import type { Database, Tx } from '../../db/database.js';
import type { AuditLogRow } from '../../db/schema.js';
import { hashEntry, type ChainedEntry } from './audit-chain.js';

export interface NewAuditEntry {
  at: string;
  actor_id: string | null;
  actor_username: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: string;
  request_id: string | null;
}

/**
 * Appends entries to the chain inside the caller's transaction. The chain head row is locked
 * (advisory lock + row update) so concurrent writers on PostgreSQL still form one unbroken chain.
 */
export async function appendEntries(database: Database, trx: Tx, entries: readonly NewAuditEntry[]): Promise<AuditLogRow[]> {
  if (entries.length === 0) return [];
  await database.lock(trx, 'fieldlens.audit_chain');
  const head = await trx.selectFrom('audit_head').select(['seq', 'hash']).where('id', '=', 1).executeTakeFirstOrThrow();
  let seq = Number(head.seq);
  let prevHash = head.hash;
  const rows: AuditLogRow[] = [];
  for (const entry of entries) {
    seq += 1;
    const chained: ChainedEntry = { ...entry, seq, prev_hash: prevHash };
    const hash = hashEntry(chained);
    rows.push({ ...chained, hash });
    prevHash = hash;
  }
  // Chunked so a 500-field batch stays under SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 200) {
    await trx.insertInto('audit_log').values(rows.slice(i, i + 200)).execute();
  }
  await trx.updateTable('audit_head').set({ seq, hash: prevHash }).where('id', '=', 1).execute();
  return rows;
}
