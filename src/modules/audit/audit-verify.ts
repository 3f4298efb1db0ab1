/**
 * The chain check behind `fieldlens audit verify`: walks every entry in seq order, in pages, inside one
 * read snapshot, and recomputes each hash. Reports the first entry that breaks the chain.
 */
import type { Database, Queryable } from '../../db/database.js';
import type { AuditLogRow } from '../../db/schema.js';
import { GENESIS_HASH, hashEntry } from './audit-chain.js';
import { readChainPage, readHead } from './audit.repository.js';

export type ChainBreakReason = 'seq_gap' | 'prev_hash_mismatch' | 'hash_mismatch' | 'head_mismatch';

export type ChainVerification =
  | { ok: true; entries: number; headSeq: number; headHash: string }
  | { ok: false; entries: number; seq: number; reason: ChainBreakReason; detail: string };

export interface VerifyOptions {
  /** Entries read per query; memory stays bounded by one page. */
  pageSize?: number;
  /** Called after each page with the number of entries checked so far. */
  onProgress?: (checked: number) => void;
}

/** Recomputes the whole chain and compares it with the stored head; never writes. */
export async function verifyAuditChain(database: Database, options: VerifyOptions = {}): Promise<ChainVerification> {
  const pageSize = options.pageSize ?? 1000;
  // One snapshot for the whole walk, so entries appended meanwhile neither break nor extend the check.
  const run = (trx: Queryable) => walkChain(trx, pageSize, options.onProgress);
  if (database.kind === 'postgres') {
    return database.db.transaction().setIsolationLevel('repeatable read').execute(run);
  }
  return database.db.transaction().execute(run);
}

async function walkChain(
  db: Queryable,
  pageSize: number,
  onProgress?: (checked: number) => void,
): Promise<ChainVerification> {
  const head = await readHead(db);
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  let checked = 0;
  for (;;) {
    const page = await readChainPage(db, expectedSeq - 1, pageSize);
    if (page.length === 0) break;
    for (const row of page) {
      const failure = checkEntry(row, expectedSeq, prevHash);
      if (failure) return { ok: false, entries: checked, ...failure };
      prevHash = row.hash;
      expectedSeq += 1;
      checked += 1;
    }
    onProgress?.(checked);
    if (page.length < pageSize) break;
  }
  const lastSeq = expectedSeq - 1;
  if (head.seq !== lastSeq || head.hash !== prevHash) {
    const detail =
      head.seq > lastSeq
        ? `audit_head says the chain ends at seq ${head.seq}, but the last entry is seq ${lastSeq}: entries at the end were removed`
        : head.seq < lastSeq
          ? `audit_head says the chain ends at seq ${head.seq}, but entries go on to seq ${lastSeq}: entries were added outside the service`
          : `audit_head hash ${head.hash} differs from the hash of the last entry (seq ${lastSeq})`;
    return {
      ok: false,
      entries: checked,
      seq: Math.min(head.seq, lastSeq) + (head.seq === lastSeq ? 0 : 1),
      reason: 'head_mismatch',
      detail,
    };
  }
  return { ok: true, entries: checked, headSeq: head.seq, headHash: head.hash };
}

function checkEntry(
  row: AuditLogRow,
  expectedSeq: number,
  prevHash: string,
): { seq: number; reason: ChainBreakReason; detail: string } | undefined {
  const seq = Number(row.seq);
  if (seq !== expectedSeq) {
    return {
      seq: expectedSeq,
      reason: 'seq_gap',
      detail: `entry seq ${expectedSeq} is missing: the next entry found is seq ${seq}`,
    };
  }
  if (row.prev_hash !== prevHash) {
    return {
      seq,
      reason: 'prev_hash_mismatch',
      detail: `entry seq ${seq} names prev_hash ${row.prev_hash}, but the entry before it hashes to ${prevHash}: an entry was changed, removed or moved`,
    };
  }
  const { hash: _stored, ...content } = row;
  const recomputed = hashEntry({ ...content, seq });
  if (recomputed !== row.hash) {
    return {
      seq,
      reason: 'hash_mismatch',
      detail: `entry seq ${seq} was altered: its content hashes to ${recomputed}, not the stored ${row.hash}`,
    };
  }
  return undefined;
}
