/**
 * The review workflow: confirm one field, confirm a batch to one classification, defer a field with a reason.
 * Every change is audit-logged in its own transaction, one entry per field. The field rows are written through the
 * fields service (the owner of the table); the metrics follow from the database's change log after commit.
 *
 * Transitions of review_status: unreviewed | confirmed | deferred → confirmed (confirm, batch-confirm);
 * unreviewed | confirmed | deferred → deferred (defer). Confirm always locks the classification.
 */
import type { Clock } from '../../clock.js';
import type { Database, Tx } from '../../db/database.js';
import type { Caller } from '../../http/access.js';
import { notFound } from '../../http/errors.js';
import type { AuditEvent, AuditService } from '../audit/audit.service.js';
import type { FieldsService, ReviewState } from '../fields/fields.service.js';
import type { LicenseGate } from '../license/license.gate.js';
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import type { BatchConfirmBody, BatchConfirmResponse, ConfirmResponse, DecisionBody, DeferBody, DeferResponse } from './review.schemas.js';

/** The decision after resolution: each null when the body left it out (then the field's own value is kept). */
interface Decision {
  tagId: number | null;
  level: string | null;
  body: DecisionBody;
  /** Chain path of a tag id, for the audit details (tags are only ever added, so a snapshot taken before the transaction holds). */
  pathOf: (tagId: number) => string | null;
}

interface ClassificationSnapshot {
  tag_id: number;
  chain_path: string | null;
  level: string;
  review_status: string;
  locked: boolean;
}

/** Review writes are serialised: the audit chain serialises their commits anyway, and it rules out lock-order deadlocks between batches. */
const REVIEW_LOCK = 'fieldlens.review';

export class ReviewService {
  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      audit: AuditService;
      fields: Pick<FieldsService, 'lockReviewStates' | 'confirmFields' | 'deferField'>;
      taxonomy: Pick<TaxonomyService, 'tagIndex' | 'resolveClassification'>;
      license: Pick<LicenseGate, 'assertFeature'>;
    },
  ) {}

  /** Confirms (and locks) one field's classification; 404 unknown field, 422 invalid decision. */
  async confirmField(caller: Caller, fieldId: string, body: DecisionBody): Promise<ConfirmResponse> {
    const decision = await this.resolveDecision(body);
    await this.deps.database.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, REVIEW_LOCK);
      const [state] = await this.deps.fields.lockReviewStates(trx, [fieldId]);
      if (!state) throw notFound('Field');
      // A repeated identical confirmation is still recorded: the reviewer attests the decision again.
      await this.applyConfirmations(trx, caller, [state], decision, false);
    });
    return { status: 'confirmed', field_id: fieldId, review_status: 'confirmed' };
  }

  /**
   * Confirms up to 500 fields to one decision in one transaction (feature batch_confirm). Unknown ids are
   * reported in errors, fields already confirmed to exactly this classification in skipped; an invalid
   * decision is a 422 for the whole call and nothing is written.
   */
  async batchConfirm(caller: Caller, body: BatchConfirmBody): Promise<BatchConfirmResponse> {
    await this.deps.license.assertFeature('batch_confirm');
    const { field_ids: requested, ...decisionBody } = body;
    const decision = await this.resolveDecision(decisionBody);
    const ids = [...new Set(requested)];
    return this.deps.database.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, REVIEW_LOCK);
      const states = new Map((await this.deps.fields.lockReviewStates(trx, ids)).map((s) => [s.id, s]));
      const result: BatchConfirmResponse = { confirmed: [], skipped: [], errors: [] };
      const toConfirm: ReviewState[] = [];
      for (const id of ids) {
        const state = states.get(id);
        if (!state) {
          result.errors.push({ field_id: id, code: 'not_found', message: 'Field was not found' });
        } else if (isUnchanged(state, decision)) {
          result.skipped.push({ field_id: id, reason: 'unchanged' });
        } else {
          toConfirm.push(state);
          result.confirmed.push(id);
        }
      }
      await this.applyConfirmations(trx, caller, toConfirm, decision, true);
      return result;
    });
  }

  /** Defers one field with the reviewer's reason; its classification and lock are left as they are. */
  async deferField(caller: Caller, fieldId: string, body: DeferBody): Promise<DeferResponse> {
    const deferredAt = this.deps.clock.now().toISOString();
    await this.deps.database.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, REVIEW_LOCK);
      const [state] = await this.deps.fields.lockReviewStates(trx, [fieldId]);
      if (!state) throw notFound('Field');
      await this.deps.fields.deferField(trx, fieldId, { reason: body.reason, reviewed_at: deferredAt, reviewed_by: caller.id });
      await this.deps.audit.record(trx, caller, {
        action: 'field.deferred',
        targetType: 'field',
        targetId: fieldId,
        details: {
          before: { review_status: state.review_status, reason: state.review_reason },
          after: { review_status: 'deferred', reason: body.reason },
        },
      });
    });
    return { field_id: fieldId, review_status: 'deferred', reason: body.reason, deferred_at: deferredAt };
  }

  /** Resolves tag id / path / level through the catalog; 422 when they name nothing or disagree. */
  private async resolveDecision(body: DecisionBody): Promise<Decision> {
    const resolved = await this.deps.taxonomy.resolveClassification({
      tag_id: body.classification_tag_id ?? null,
      chain_path: body.classification_chain_path ?? null,
      level: body.lock_level ?? null,
    });
    // Read outside the review transaction: on SQLite a second query on the database handle would wait for it forever.
    const index = await this.deps.taxonomy.tagIndex();
    return { tagId: resolved.tag?.id ?? null, level: resolved.level, body, pathOf: (tagId) => index.byId.get(tagId)?.chain_path ?? null };
  }

  private async applyConfirmations(trx: Tx, caller: Caller, states: readonly ReviewState[], decision: Decision, batch: boolean): Promise<void> {
    if (states.length === 0) return;
    const now = this.deps.clock.now().toISOString();
    const { pathOf } = decision;

    // One UPDATE per distinct target (tag, level): a batch with one decision is usually a single statement.
    const groups = new Map<string, { tagId: number; level: string; ids: string[] }>();
    const events: AuditEvent[] = [];
    for (const state of states) {
      const tagId = decision.tagId ?? state.tag_id;
      const level = decision.level ?? state.level;
      const key = `${tagId}\u0000${level}`;
      const group = groups.get(key) ?? { tagId, level, ids: [] };
      group.ids.push(state.id);
      groups.set(key, group);
      const before: ClassificationSnapshot = {
        tag_id: state.tag_id,
        chain_path: pathOf(state.tag_id),
        level: state.level,
        review_status: state.review_status,
        locked: state.locked === 1,
      };
      const after: ClassificationSnapshot = { tag_id: tagId, chain_path: pathOf(tagId), level, review_status: 'confirmed', locked: true };
      events.push({
        action: 'field.confirmed',
        targetType: 'field',
        targetId: state.id,
        details: { before, after, decision: decisionDetails(decision.body), ...(batch ? { batch: true } : {}) },
      });
    }
    for (const group of groups.values()) {
      await this.deps.fields.confirmFields(trx, group.ids, { tag_id: group.tagId, level: group.level, reviewed_at: now, reviewed_by: caller.id });
    }
    await this.deps.audit.record(trx, caller, events);
  }
}

/** Already confirmed and locked with exactly the classification this decision would give. */
function isUnchanged(state: ReviewState, decision: Decision): boolean {
  return (
    state.review_status === 'confirmed' &&
    state.locked === 1 &&
    state.tag_id === (decision.tagId ?? state.tag_id) &&
    state.level === (decision.level ?? state.level)
  );
}

function decisionDetails(body: DecisionBody) {
  return {
    classification_tag_id: body.classification_tag_id ?? null,
    classification_chain_path: body.classification_chain_path ?? null,
    lock_level: body.lock_level ?? null,
  };
}
