/**
 * This instance's in-memory replica of the catalog (a CatalogState: embeddings, tags, levels, the nearest-neighbour
 * index), built from the database once and then kept in step by following the catalog change log that the triggers on
 * `fields` write. Every instance keeps its own; none of them is told by writers what changed.
 *
 * Following the log: changes are read in sequence order after the highest one applied. A sequence number can become
 * visible after higher ones (its transaction committed later): such gaps are re-checked for GAP_TTL_MS, then given up
 * (the transaction rolled back). A field's previous unit embedding is kept for a while after the replica replaced or
 * removed it (`departed`), so that the staleness expander can find the fields that were its neighbours.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import type { CatalogFieldRow, FieldCatalogReader } from '../fields/field-catalog-reader.service.js';
import { perAxis } from './axes.js';
import { CatalogState } from './catalog-state.js';
import * as repo from './metrics.repository.js';

/** From this many fields the index is split over `indexThreads` threads (below it one thread is plenty). */
const SHARD_FROM = 50_000;
/** Fields read into the catalog before the loader waits for the index threads to catch up (bounds their backlog). */
const LOAD_WINDOW = 50_000;
const PAGE = 5000;
/** A sequence number missing from the change log is re-checked for this long (a transaction still open), then given up (rolled back). */
const GAP_TTL_MS = 30_000;
const MAX_GAPS = 50_000;
/** Change-log rows kept; an instance further behind reloads everything. */
const KEEP_CHANGES = 2_000_000;
/** Previous embeddings of changed or removed fields kept for the staleness expander (~0.4 KB each at 100 dimensions). */
const MAX_DEPARTED = 20_000;

export interface CatalogReplicaDeps {
  database: Database;
  log: FastifyBaseLogger;
  fields: Pick<FieldCatalogReader, 'countFields' | 'catalogPage' | 'catalogRows'>;
  dimensions: number;
  /** Threads (index shards) for the nearest-neighbour index of a catalog of SHARD_FROM fields or more. */
  indexThreads: number;
}

export class CatalogReplica {
  private state: CatalogState | null = null;
  private loading: Promise<CatalogState> | null = null;
  private syncing: Promise<void> | null = null;
  /** Highest change-log sequence applied, and earlier ones not yet seen (maybe still uncommitted). */
  private maxSeen = 0;
  private gaps = new Map<number, number>();
  private lastBoundsCheck = 0;
  private readonly departed = new Map<string, Float32Array>();
  /** Wall time spent loading, since start (printed by bench/metrics). */
  loadMs = 0;

  constructor(private readonly deps: CatalogReplicaDeps) {}

  /** The replica as it stands, or null before the first load (minutes at a million fields). */
  get current(): CatalogState | null {
    return this.state;
  }

  /** The replica, loaded when needed and brought up to date with every committed change. */
  async ensure(): Promise<CatalogState> {
    if (this.state?.index.failure) {
      // An index thread died (out of memory, say): the index is incomplete. Build everything again.
      this.deps.log.error(
        { err: this.state.index.failure },
        'metrics nearest-neighbour index failed; reloading the catalog',
      );
      await this.discard();
    }
    if (this.state) {
      await this.sync();
      return this.state;
    }
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  /** The unit embedding a field had before the replica last replaced or removed it (once; null when not kept). */
  takeDeparted(id: string): Float32Array | null {
    const e = this.departed.get(id);
    if (e === undefined) return null;
    this.departed.delete(id);
    return e;
  }

  async close(): Promise<void> {
    await this.syncing?.catch(() => undefined);
    await this.loading?.catch(() => undefined);
    await this.discard();
  }

  private async discard(): Promise<void> {
    const old = this.state;
    this.state = null;
    this.departed.clear();
    await old?.close();
  }

  /** Builds the replica from the database. */
  private async load(): Promise<CatalogState> {
    // eslint-disable-next-line no-restricted-properties -- real time: load timing and how long a change-log gap has been open
    const started = performance.now();
    const db = this.deps.database.db;
    const bounds = await repo.changeBounds(db);
    // Sequence numbers just below the current maximum that are not visible yet may belong to open transactions.
    const seen = await repo.existingSeqs(db, Math.max(0, bounds.max - 1000), bounds.max);
    // eslint-disable-next-line no-restricted-properties -- real time: load timing and how long a change-log gap has been open
    const now = Date.now();
    this.gaps = new Map();
    for (let s = Math.max(1, bounds.max - 999); s <= bounds.max; s++) if (!seen.has(s)) this.gaps.set(s, now);
    this.maxSeen = bounds.max;
    // Sized for the catalog up front: growing the nearest-neighbour index later copies it.
    const count = await this.deps.fields.countFields();
    const state = new CatalogState(
      this.deps.dimensions,
      Math.ceil(count * 1.05) + 1024,
      count >= SHARD_FROM ? this.deps.indexThreads : 1,
    );
    try {
      await this.fill(state);
      // Loading changes no review: no pattern has new evidence.
      state.takeTouchedPatterns();
      // The index builds in its threads while the catalog is read; computing needs it complete.
      await state.index.applied();
    } catch (error) {
      await state.close();
      throw error;
    }
    this.state = state;
    await this.sync();
    // eslint-disable-next-line no-restricted-properties -- real time: load timing and how long a change-log gap has been open
    const ms = performance.now() - started;
    this.loadMs += ms;
    this.deps.log.info(
      { fields: state.size, indexThreads: state.index.shardCount, ms: Math.round(ms) },
      'metrics catalog loaded',
    );
    return state;
  }

  /** Reads the catalog and the remembered raw values into a new state (the index builds in its threads meanwhile). */
  private async fill(state: CatalogState): Promise<void> {
    let after: string | null = null;
    // Reading is ~10× faster than building: without a bound, the vectors waiting for the index threads would pile
    // up in their message queues (~0.4 GB at a million 100-d fields). At most two windows are in flight.
    let window: Promise<void> = Promise.resolve();
    let sent = 0;
    for (;;) {
      const page = await this.deps.fields.catalogPage(after, PAGE);
      for (const row of page) state.apply(row);
      sent += page.length;
      if (sent >= LOAD_WINDOW) {
        await window;
        window = state.index.applied();
        window.catch(() => undefined); // awaited at the next window, or by load()
        sent = 0;
      }
      if (page.length < PAGE) break;
      after = (page[page.length - 1] as CatalogFieldRow).id;
    }
    after = null;
    for (;;) {
      const page = await repo.listStoredRaw(this.deps.database.db, after, PAGE);
      for (const r of page) {
        const slot = state.slot(r.field_id);
        if (slot === undefined) continue;
        state.remember(slot, {
          raw: perAxis((k) => r[`raw_${k}`]),
          peer: r.peer_margin,
          anchor: r.anchor_margin,
        });
      }
      if (page.length < PAGE) break;
      after = (page[page.length - 1] as { field_id: string }).field_id;
    }
  }

  /** Applies every committed change to `fields` this instance has not seen yet. */
  async sync(): Promise<void> {
    if (!this.state) {
      await this.ensure();
      return;
    }
    this.syncing ??= this.syncOnce().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    const state = this.state as CatalogState;
    const db = this.deps.database.db;
    // eslint-disable-next-line no-restricted-properties -- real time: load timing and how long a change-log gap has been open
    const now = Date.now();
    if (now - this.lastBoundsCheck > 60_000) {
      this.lastBoundsCheck = now;
      const bounds = await repo.changeBounds(db);
      if (bounds.min > this.maxSeen + 1 && bounds.max > this.maxSeen) {
        // Changes this instance never saw were pruned: start over.
        await this.discard();
        await this.ensure();
        return;
      }
      if (bounds.max - KEEP_CHANGES > 0) await repo.pruneChanges(db, bounds.max - KEEP_CHANGES);
    }
    for (const [seq, since] of this.gaps) if (now - since > GAP_TTL_MS) this.gaps.delete(seq);
    for (;;) {
      const rows = await repo.readChanges(db, this.maxSeen, [...this.gaps.keys()], 20_000);
      if (rows.length === 0) return;
      const ids = new Set<string>();
      let newest = this.maxSeen;
      const found = new Set<number>();
      for (const r of rows) {
        if (r.field_id !== null) ids.add(r.field_id);
        found.add(r.seq);
        if (r.seq > newest) newest = r.seq;
      }
      for (const s of found) this.gaps.delete(s);
      for (let s = this.maxSeen + 1; s < newest && this.gaps.size < MAX_GAPS; s++)
        if (!found.has(s)) this.gaps.set(s, now);
      this.maxSeen = newest;
      const list = [...ids];
      const rowsNow = await this.deps.fields.catalogRows(list);
      const alive = new Set(rowsNow.map((r) => r.id));
      for (const id of list) this.keepDeparted(state, id);
      for (const row of rowsNow) state.apply(row);
      for (const id of list) if (!alive.has(id)) state.remove(id);
      if (rows.length < 20_000) return;
    }
  }

  private keepDeparted(state: CatalogState, id: string): void {
    const slot = state.slot(id);
    if (slot === undefined) return;
    this.departed.delete(id);
    this.departed.set(id, state.embedding(slot));
    if (this.departed.size > MAX_DEPARTED) this.departed.delete(this.departed.keys().next().value as string);
  }
}
