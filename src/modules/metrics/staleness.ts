/**
 * Staleness in one place: which fields' metrics a committed change affects, derived after commit from the catalog
 * change log (written by triggers on `fields` and `tags`), never by the writers. Any instance's worker expands the
 * changes not yet expanded and enqueues what they affect in one transaction with marking them expanded; two
 * instances expanding the same change only enqueue the same fields twice (an upsert), so no lock is needed.
 *
 * A change to field F (insert, delete, new tag, level, embedding or review status) affects:
 * - F itself, when it still exists;
 * - every field whose stored metrics name F as its nearest field (exact, through an index);
 * - the nearest neighbours of F's embedding now and, when the replica kept it, of F's previous one (their
 *   neighbour disagreement and nearest-field ratio weigh F);
 * - a rotating sample of PEERS_PER_CHANGE fields of F's tag and level, before and after (their peer axes, centroid
 *   and tag margins move with F);
 * - F's twins (fields with the same embedding), up to TWINS_PER_CHANGE: a confirmed twin weighs for or against each;
 * - when F's review changed (confirmed, reopened, removed while confirmed), the self-classified fields of its naming
 *   pattern (same data source, same first word of the name), up to TWINS_PER_CHANGE a pattern, found in one pass over
 *   the replica's slots per batch: its review weighs for or against the classifier's answers there;
 * a new or changed tag T affects the fields of T and the neighbours of T's anchor (tag margins compare anchors).
 *
 * `pending` counts the queue and the changes not yet expanded, so it is never 0 while a committed change has not
 * reached the metrics, across restarts too (the log is in the database).
 */
import { yieldLocksAfter, type Database } from '../../db/database.js';
import type { WorkQueue } from '../../db/work-queue.js';
import type { Clock } from '../../clock.js';
import type { FieldCatalogReader } from '../fields/field-catalog-reader.service.js';
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import type { CatalogReplica } from './catalog-replica.js';
import type { CatalogState, GroupState } from './catalog-state.js';
import * as repo from './metrics.repository.js';
import { normalize } from './vectors.js';
import { randomUUID } from 'node:crypto';

/** How long the metrics' background transactions wait for a row lock a writer holds before giving up until the next round. */
export const BACKGROUND_LOCK_WAIT_MS = 250;
/** Neighbours re-enqueued per changed field (the neighbourhood the metrics weigh, plus the field itself). */
export const NEIGHBOURS_K = 10;
/** Peers re-enqueued per affected tag or level on a change (rotating, so repeated changes reach different peers). */
export const PEERS_PER_CHANGE = 32;
/** Twins (fields with the same embedding) re-enqueued per changed field, besides its nearest neighbours. */
export const TWINS_PER_CHANGE = 1000;
/** Changes expanded per transaction. */
const BATCH = 2000;
/** Fields per neighbour-search request to the index threads. */
const SEARCH_CHUNK = 200;
/**
 * When more changes than this share of the catalog wait (a bulk load, an upgrade), the whole catalog is enqueued
 * instead of expanding them one by one: it would come to the same, at the cost of a search per change.
 */
const WHOLESALE_SHARE = 0.2;

export interface StalenessDeps {
  database: Database;
  clock: Clock;
  queue: WorkQueue;
  replica: CatalogReplica;
  fields: Pick<FieldCatalogReader, 'existingIds'>;
  taxonomy: Pick<TaxonomyService, 'tagAnchors'>;
}

export class Staleness {
  constructor(private readonly deps: StalenessDeps) {}

  /** Fields waiting for recomputation: queued, or affected by a change not yet expanded into the queue. */
  async pending(): Promise<number> {
    return repo.countStale(this.deps.database.db);
  }

  /** Expands every committed change not yet expanded; returns how many it expanded. */
  async expandAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.expandBatch();
      if (n === 0) return total;
      total += n;
    }
  }

  private async expandBatch(): Promise<number> {
    const db = this.deps.database.db;
    const changes = await repo.readUnexpanded(db, BATCH);
    if (changes.length === 0) return 0;
    // The replica must have applied these changes (the new embeddings), keeping the previous ones for below.
    const state = await this.deps.replica.ensure();
    if (changes.length === BATCH && (await repo.countUnexpanded(db)) > WHOLESALE_SHARE * Math.max(state.size, 1))
      return this.expandWholesale();

    const affected = new Set<string>();
    const queries: Float32Array[] = [];
    const tags = new Set<number>();
    const levels = new Set<string>();
    const changedFields = new Set<string>();
    const changedTags = new Set<number>();
    for (const c of changes) {
      if (c.field_id === null) {
        if (c.tag_id !== null) changedTags.add(c.tag_id);
        continue;
      }
      changedFields.add(c.field_id);
      for (const t of [c.tag_id, c.old_tag_id]) if (t !== null) tags.add(t);
      for (const l of [c.level, c.old_level]) if (l !== null) levels.add(l);
    }
    for (const id of changedFields) {
      affected.add(id);
      const before = this.deps.replica.takeDeparted(id);
      if (before) queries.push(before);
      const slot = state.slot(id);
      if (slot !== undefined) {
        queries.push(state.embedding(slot));
        // Its twins (same embedding) beyond the nearest 10: a confirmed twin speaks for or against each of them.
        for (const twin of state.twinsOf(slot, TWINS_PER_CHANGE)) {
          const tid = state.idOf(twin);
          if (tid !== undefined) affected.add(tid);
        }
      }
    }
    // The naming patterns whose reviews the replica saw change (confirmations, reopenings, removals) since the last batch.
    for (const peer of state.patternPeers(state.takeTouchedPatterns(), TWINS_PER_CHANGE)) {
      const pid = state.idOf(peer);
      if (pid !== undefined) affected.add(pid);
    }
    for (const id of await repo.fieldsNamingNearest(db, [...changedFields])) affected.add(id);
    if (changedTags.size > 0) {
      const anchors = await this.deps.taxonomy.tagAnchors();
      anchors.index.tags.forEach((tag, i) => {
        const vector = anchors.vectors[i];
        if (!changedTags.has(tag.id) || !vector || vector.length !== state.dimensions) return;
        queries.push(normalize(vector));
        const members = state.tags.get(tag.id)?.members;
        for (let j = 0; j < (members?.size ?? 0); j++) {
          const fid = state.idOf(members!.at(j));
          if (fid !== undefined) affected.add(fid);
        }
      });
    }
    for (let i = 0; i < queries.length; i += SEARCH_CHUNK) {
      for (const found of await state.search(queries.slice(i, i + SEARCH_CHUNK), NEIGHBOURS_K + 1)) {
        for (const key of found.keys) {
          const id = state.idOf(key);
          if (id !== undefined) affected.add(id);
        }
      }
    }
    for (const t of tags) samplePeers(state, state.tags.get(t), affected);
    for (const l of levels) samplePeers(state, state.levelGroup(l), affected);

    const now = this.deps.clock.now().toISOString();
    await db.transaction().execute(async (trx) => {
      await yieldLocksAfter(trx, BACKGROUND_LOCK_WAIT_MS);
      // Only fields that exist as this transaction sees them (the queue refers to them).
      const live = await this.deps.fields.existingIds([...affected], trx);
      await this.deps.queue.enqueue(trx, live, now);
      await repo.markExpanded(
        trx,
        changes.map((c) => c.seq),
      );
    });
    return changes.length;
  }

  /** Enqueues the whole catalog and marks every change up to the newest expanded. */
  private async expandWholesale(): Promise<number> {
    const db = this.deps.database.db;
    const { max } = await repo.changeBounds(db);
    const before = await repo.countUnexpanded(db);
    await db.transaction().execute(async (trx) => {
      await yieldLocksAfter(trx, BACKGROUND_LOCK_WAIT_MS);
      await repo.enqueueAll(trx, this.deps.clock.now().toISOString(), randomUUID());
      await repo.markExpandedUpTo(trx, max);
    });
    await this.deps.queue.analyze();
    return before;
  }
}

/** Adds a rotating sample of a group's members (different ones each time, so repeated changes refresh different peers). */
function samplePeers(state: CatalogState, group: GroupState | undefined, into: Set<string>): void {
  const n = group?.members.size ?? 0;
  if (!group || n === 0) return;
  const start = Math.floor(Math.random() * n);
  for (let j = 0; j < Math.min(n, PEERS_PER_CHANGE); j++) {
    const id = state.idOf(group.members.at((start + j) % n));
    if (id !== undefined) into.add(id);
  }
}
