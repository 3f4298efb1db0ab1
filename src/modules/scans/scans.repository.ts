/**
 * All SQL of the `scans` table. A scan row is also the job: workers claim it `FOR UPDATE SKIP LOCKED` (PostgreSQL;
 * SQLite's single writer serialises claims), and every worker write is fenced by `claimed_by`, so a worker whose
 * scan was taken over by another instance writes nothing more (its update touches no row).
 */
import { sql, type Updateable } from 'kysely';
import { isPostgres, isUniqueViolation, type Queryable, type Tx } from '../../db/database.js';
import type { NewScanRow, ScanRow, ScansTable } from '../../db/schema.js';
import { conflict } from '../../http/errors.js';

const ACTIVE = ['queued', 'running'] as const;

export async function insertScan(db: Queryable, row: NewScanRow): Promise<void> {
  try {
    await db.insertInto('scans').values(row).execute();
  } catch (error) {
    // The partial unique index: one queued or running scan per data source.
    if (isUniqueViolation(error)) throw conflict('This data source already has a queued or running scan');
    throw error;
  }
}

export async function findScan(db: Queryable, id: string): Promise<ScanRow | undefined> {
  return db.selectFrom('scans').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Reads and row-locks one scan until the transaction ends. */
export async function lockScan(trx: Tx, id: string): Promise<ScanRow | undefined> {
  const q = trx.selectFrom('scans').selectAll().where('id', '=', id);
  return (isPostgres(trx) ? q.forUpdate() : q).executeTakeFirst();
}

/** A data source's scans newest first, after the keyset (created_at, id) of the previous page. */
export async function listScans(
  db: Queryable,
  datasourceId: string,
  after: { created_at: string; id: string } | undefined,
  limit: number,
): Promise<ScanRow[]> {
  let q = db.selectFrom('scans').selectAll().where('datasource_id', '=', datasourceId);
  if (after) {
    q = q.where((eb) =>
      eb.or([
        eb('created_at', '<', after.created_at),
        eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)]),
      ]),
    );
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The newest scan of a data source (any status), for the schedule. */
export async function latestScan(db: Queryable, datasourceId: string): Promise<ScanRow | undefined> {
  return db
    .selectFrom('scans')
    .selectAll()
    .where('datasource_id', '=', datasourceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function hasActiveScan(db: Queryable, datasourceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('scans')
    .select('id')
    .where('datasource_id', '=', datasourceId)
    .where('status', 'in', ACTIVE)
    .executeTakeFirst();
  return row !== undefined;
}

export async function updateScan(db: Queryable, id: string, change: Updateable<ScansTable>): Promise<void> {
  await db.updateTable('scans').set(change).where('id', '=', id).execute();
}

/**
 * Claims the oldest queued scan, or a running one whose heartbeat is older than `staleBefore` (its instance died),
 * for `worker`: marks it running, bumps its attempts, and answers it as claimed. Undefined when there is none.
 */
export async function claimScan(
  trx: Tx,
  worker: string,
  now: string,
  staleBefore: string,
): Promise<ScanRow | undefined> {
  const lock = isPostgres(trx) ? sql`for update skip locked` : sql``;
  const wanted = await sql<{ id: string }>`select id from scans
    where status = 'queued' or (status = 'running' and (heartbeat_at is null or heartbeat_at < ${staleBefore}))
    order by created_at, id limit 1 ${lock}`.execute(trx);
  const id = wanted.rows[0]?.id;
  if (id === undefined) return undefined;
  return trx
    .updateTable('scans')
    .set((eb) => ({
      status: 'running',
      claimed_by: worker,
      heartbeat_at: now,
      attempts: eb('attempts', '+', 1),
      started_at: eb.fn.coalesce('started_at', sql<string>`${now}`),
    }))
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'queued'),
        eb.and([
          eb('status', '=', 'running'),
          eb.or([eb('heartbeat_at', 'is', null), eb('heartbeat_at', '<', staleBefore)]),
        ]),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
}

/**
 * A worker's write to the scan it runs: applied only while the scan is still running and claimed by `worker`.
 * Answers undefined when the claim is lost (taken over, the scan or its data source deleted), else whether a cancel
 * was asked for.
 */
export async function updateClaimed(
  db: Queryable,
  id: string,
  worker: string,
  change: Updateable<ScansTable>,
): Promise<{ cancel: boolean } | undefined> {
  const row = await db
    .updateTable('scans')
    .set(change)
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .where('status', '=', 'running')
    .returning('cancel_requested')
    .executeTakeFirst();
  return row === undefined ? undefined : { cancel: row.cancel_requested === 1 };
}

/** Gives a running scan's claim back (shutdown): claimable at once by any worker, and the attempt does not count. */
export async function releaseClaim(db: Queryable, id: string, worker: string): Promise<void> {
  await db
    .updateTable('scans')
    .set((eb) => ({ claimed_by: null, heartbeat_at: null, attempts: eb('attempts', '-', 1) }))
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .where('status', '=', 'running')
    .execute();
}

/** Scans by status, for monitoring. */
export async function countByStatus(db: Queryable): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('scans')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

/** The tables (by field table name) a scan has written so far: what a taken-over scan resumes by. */
export async function writtenTables(db: Queryable, scanId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('scan_tables').select('table_name').where('scan_id', '=', scanId).execute();
  return new Set(rows.map((r) => r.table_name));
}

/** Records tables as written by a scan, inside the transaction that writes their fields. */
export async function markTablesWritten(trx: Tx, scanId: string, tableNames: readonly string[]): Promise<void> {
  for (let i = 0; i < tableNames.length; i += 500) {
    const part = tableNames.slice(i, i + 500);
    await trx
      .insertInto('scan_tables')
      .values(part.map((table_name) => ({ scan_id: scanId, table_name })))
      .onConflict((oc) => oc.columns(['scan_id', 'table_name']).doNothing())
      .execute();
  }
}

/** Forgets a finished scan's written tables (kept only while it may be resumed). */
export async function forgetWrittenTables(trx: Tx, scanId: string): Promise<void> {
  await trx.deleteFrom('scan_tables').where('scan_id', '=', scanId).execute();
}
