/**
 * A small work queue shared by every instance through the database: one row per pending item, claimed by a worker,
 * completed when done, claimed again by another worker when its claimant died. The metrics worker uses it for stale
 * fields; any background job (scans, re-classification) can use it with a table of the same shape:
 *
 *   <key> text primary key, token text not null, enqueued_at text not null, claimed_by text, claimed_at text
 *   + a partial index on (enqueued_at, <key>) where claimed_at is null (claims read it in order)
 *   + a partial index on (claimed_at) where claimed_at is not null (abandoned claims are few)
 *
 * The rules:
 * - enqueue gives each entry a new token and releases any claim on it, so an item changed while being worked on is
 *   worked on again: complete() deletes only entries whose token is still the one claimed;
 * - claim takes abandoned claims (older than `abandonedAfterMs`) first, then the oldest unclaimed entries; on
 *   PostgreSQL it reads them `FOR UPDATE SKIP LOCKED`, so a claim never waits for an entry a writer is re-enqueueing
 *   (and two workers never claim one entry), on SQLite the single writer serialises claims anyway;
 * - every statement works on keys in sorted order and in chunks, so concurrent writers lock entries in one order.
 */
import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { Database, Queryable } from './database.js';

export interface WorkQueueOptions {
  /** The queue's table (see the shape above). */
  table: string;
  /** Its key column. */
  key: string;
  /** A claim older than this is taken to be abandoned by a crashed instance. */
  abandonedAfterMs: number;
}

export interface Claim {
  key: string;
  token: string;
}

/** Keys per statement: well under both dialects' parameter limits. */
const CHUNK = 500;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export class WorkQueue {
  private readonly table: RawBuilder<unknown>;
  private readonly key: RawBuilder<unknown>;

  constructor(
    private readonly database: Database,
    private readonly options: WorkQueueOptions,
  ) {
    this.table = sql.table(options.table);
    this.key = sql.ref(options.key);
  }

  /** Adds the keys (or re-adds them with a new token, releasing any claim), in the caller's transaction when given. */
  async enqueue(db: Queryable, keys: Iterable<string>, now: string): Promise<void> {
    const token = randomUUID();
    for (const part of chunks([...new Set(keys)].sort())) {
      const rows = sql.join(part.map((k) => sql`(${k}, ${token}, ${now}, null, null)`));
      await sql`insert into ${this.table} (${this.key}, token, enqueued_at, claimed_by, claimed_at) values ${rows}
        on conflict (${this.key}) do update set token = excluded.token, enqueued_at = excluded.enqueued_at, claimed_by = null, claimed_at = null`.execute(
        db,
      );
    }
  }

  /**
   * Claims up to `limit` entries for `worker`: abandoned claims first, then the oldest unclaimed entries. Each part
   * reads the keys it wants in index order, then claims them by key; the UPDATE repeats the condition, so an entry
   * claimed by another worker in between is left to it.
   */
  async claim(worker: string, now: Date, limit: number): Promise<Claim[]> {
    const nowIso = now.toISOString();
    const abandonedBefore = new Date(now.getTime() - this.options.abandonedAfterMs).toISOString();
    return this.database.db.transaction().execute(async (trx) => {
      const abandoned = await this.claimWhere(
        trx,
        worker,
        nowIso,
        limit,
        sql`claimed_at is not null and claimed_at < ${abandonedBefore}`,
      );
      if (abandoned.length >= limit) return abandoned;
      return abandoned.concat(
        await this.claimWhere(trx, worker, nowIso, limit - abandoned.length, sql`claimed_at is null`),
      );
    });
  }

  private async claimWhere(
    db: Queryable,
    worker: string,
    now: string,
    limit: number,
    condition: RawBuilder<unknown>,
  ): Promise<Claim[]> {
    const lock = this.database.kind === 'postgres' ? sql`for update skip locked` : sql``;
    const wanted = await sql<{
      key: string;
    }>`select ${this.key} as key from ${this.table} where ${condition} order by enqueued_at, ${this.key} limit ${limit} ${lock}`.execute(
      db,
    );
    const out: Claim[] = [];
    for (const part of chunks(wanted.rows.map((r) => r.key))) {
      const claimed = await sql<Claim>`update ${this.table} set claimed_by = ${worker}, claimed_at = ${now}
        where ${condition} and ${this.key} in (${sql.join(part)}) returning ${this.key} as key, token`.execute(db);
      out.push(...claimed.rows);
    }
    return out;
  }

  /** Deletes the claimed entries that were not re-enqueued meanwhile (their token is still the one claimed). */
  async complete(db: Queryable, claims: readonly Claim[]): Promise<void> {
    const byToken = new Map<string, string[]>();
    for (const c of claims) {
      const keys = byToken.get(c.token);
      if (keys) keys.push(c.key);
      else byToken.set(c.token, [c.key]);
    }
    for (const [token, keys] of byToken) {
      for (const part of chunks(keys.sort())) {
        if (this.database.kind === 'sqlite') {
          await sql`delete from ${this.table} where token = ${token} and ${this.key} in (${sql.join(part)})`.execute(
            db,
          );
          continue;
        }
        // An entry locked by a writer is being re-enqueued (new token): it must stay anyway, so it is skipped rather
        // than waited for (waiting, while this transaction holds rows that writer may need, can deadlock).
        await sql`delete from ${this.table} where ${this.key} in (
            select ${this.key} from ${this.table} where token = ${token} and ${this.key} in (${sql.join(part)}) for update skip locked)
          and token = ${token}`.execute(db);
      }
    }
  }

  /** Gives claims back unworked (they are claimed again at once, by any worker), unless re-enqueued meanwhile. */
  async release(db: Queryable, claims: readonly Claim[]): Promise<void> {
    for (const part of chunks([...claims].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)))) {
      for (const c of part) {
        await sql`update ${this.table} set claimed_by = null, claimed_at = null where ${this.key} = ${c.key} and token = ${c.token}`.execute(
          db,
        );
      }
    }
  }

  /** Entries waiting or claimed. */
  async count(db: Queryable): Promise<number> {
    const result = await sql<{ n: number | string }>`select count(*) as n from ${this.table}`.execute(db);
    return Number(result.rows[0]?.n ?? 0);
  }

  /**
   * Refreshes PostgreSQL's statistics of the queue after a bulk enqueue: without them the planner takes the table for
   * small and sorts the whole queue on every claim instead of reading the partial index in order (see
   * docs/benchmarks.md). SQLite needs no statistics for it.
   */
  async analyze(): Promise<void> {
    if (this.database.kind === 'postgres') await sql`analyze ${this.table}`.execute(this.database.db);
  }
}
