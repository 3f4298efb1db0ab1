/**
 * The review workflow: confirm one field, confirm a batch to one classification, defer a field with a reason.
 * Every change is audit-logged in its own transaction, one entry per field. The field rows are written through the
 * fields service (the owner of the table); the metrics follow from the database's change log after commit.
 *
 * Transitions of review_status: unreviewed | confirmed | deferred → confirmed (confirm, batch-confirm);
 * unreviewed | confirmed | deferred → deferred (defer). Confirm always locks the classification.
 */
import validator from 'validator';
import type { Clock } from '../../clock.js';
import type { Database, Tx } from '../../db/database.js';
import type { Caller } from '../../http/access.js';
import { AppError, notFound, type ProblemFieldError } from '../../http/errors.js';
import { EXPORT_COLUMNS } from '../fields/fields.schemas.js';
import { parseDecisionsCsv, rowError, type DecisionRow } from './decisions-csv.js';
import type { AuditLogService } from '../audit/audit-log.service.js';
import type { AuditEvent, AuditService } from '../audit/audit.service.js';
import type { FieldCatalogReader } from '../fields/field-catalog-reader.service.js';
import type { FieldReviewState, ReviewState } from '../fields/field-review-state.service.js';
import type { LicenseGate } from '../license/license.gate.js';
import type { TagIndex, TaxonomyService } from '../taxonomy/taxonomy.service.js';
import type { WebhookEvent, WebhookEvents } from '../webhooks/webhooks.service.js';
import { DEFER_REASON_PATTERN, MAX_DEFER_REASON } from './review.schemas.js';
import type {
  BatchConfirmBody,
  BatchConfirmResponse,
  ConfirmResponse,
  DecisionBody,
  DecisionsResponse,
  DeferBody,
  DeferResponse,
  ProgressBucket,
  ReviewProgressQuery,
  ReviewProgressResponse,
} from './review.schemas.js';

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

/** One checked row of an uploaded decisions file, ready to apply. */
interface PlannedDecision {
  row: number;
  id: string;
  action: 'confirm' | 'defer';
  tagId: number | null;
  level: string | null;
  chainPath: string;
  reason: string;
}

const DEFER_REASON = new RegExp(DEFER_REASON_PATTERN, 'u');

/** Review writes are serialised: the audit chain serialises their commits anyway, and it rules out lock-order deadlocks between batches. */
const REVIEW_LOCK = 'fieldlens.review';

export class ReviewService {
  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      audit: AuditService;
      fields: Pick<FieldReviewState, 'lockReviewStates' | 'confirmFields' | 'deferField'>;
      /** What the progress over time is read from (read-only). */
      catalog: Pick<FieldCatalogReader, 'confirmedByDay' | 'countFields'>;
      auditLog: Pick<AuditLogService, 'countActionsByDay'>;
      taxonomy: Pick<TaxonomyService, 'tagIndex' | 'resolveClassification' | 'resolveWith'>;
      license: Pick<LicenseGate, 'assertFeature'>;
      /** field.confirmed and field.level_changed go out through it, in the confirming transaction. */
      webhooks?: WebhookEvents;
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
      await this.applyConfirmations(trx, caller, [{ state, decision }], {});
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
      await this.applyConfirmations(
        trx,
        caller,
        toConfirm.map((state) => ({ state, decision })),
        { batch: true },
      );
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
      await this.deps.fields.deferField(trx, fieldId, {
        reason: body.reason,
        reviewed_at: deferredAt,
        reviewed_by: caller.id,
      });
      await this.deps.audit.record(trx, caller, deferredEvent(state, body.reason, {}));
    });
    return { field_id: fieldId, review_status: 'deferred', reason: body.reason, deferred_at: deferredAt };
  }

  /**
   * Applies the decisions of an uploaded CSV (feature batch_confirm): every row is checked first — the
   * file's shape, ids, actions, tags, levels, reasons, repeated fields, fields that do not exist — and any bad row is a
   * 400 naming every bad row (nothing applied); otherwise every row is applied in one transaction, each confirmation
   * and deferral exactly as the single-field endpoints make it, with its own audit entry (details `upload: true`).
   */
  async applyDecisions(caller: Caller, csv: string): Promise<DecisionsResponse> {
    await this.deps.license.assertFeature('batch_confirm');
    const parsed = parseDecisionsCsv(csv, EXPORT_COLUMNS);
    if (!parsed.ok) throw new AppError('validation_failed', parsed.detail, { errors: parsed.errors });
    // Read outside the review transaction: on SQLite a second query on the database handle would wait for it forever.
    const index = await this.deps.taxonomy.tagIndex();
    const pathOf = (tagId: number) => index.byId.get(tagId)?.chain_path ?? null;
    const { planned, errors, ignored } = this.checkDecisionRows(parsed.rows, index);
    return this.deps.database.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, REVIEW_LOCK);
      // Under the review lock: what the fields are now, which is what each decision is checked against and applied to.
      const states = new Map(
        (
          await this.deps.fields.lockReviewStates(
            trx,
            planned.map((p) => p.id),
          )
        ).map((s) => [s.id, s]),
      );
      errors.push(...checkAgainstFields(planned, states, pathOf));
      if (errors.length > 0) {
        errors.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
        throw new AppError(
          'validation_failed',
          `${errors.length} row(s) of the file cannot be applied; nothing was applied`,
          { errors },
        );
      }
      return { ...(await this.applyPlannedDecisions(trx, caller, planned, states, pathOf)), ignored };
    });
  }

  /**
   * The check of an uploaded file that needs no field: ids, actions, tags, levels, reasons, repeated fields. Rows
   * without an action are counted as ignored; every other row is either planned or named in errors.
   */
  private checkDecisionRows(
    rows: DecisionRow[],
    index: TagIndex,
  ): { planned: PlannedDecision[]; errors: ProblemFieldError[]; ignored: number } {
    const errors: ProblemFieldError[] = [];
    const firstRowOf = new Map<string, number>();
    const planned: PlannedDecision[] = [];
    let ignored = 0;
    for (const row of rows) {
      const problems: string[] = [];
      const id = row.field_id.toLowerCase();
      if (row.action === '') {
        // An exported row nobody decided: left alone, but a half-filled row is a mistake worth naming.
        if (row.reason.trim() !== '') errors.push(rowError(row.row, 'has a reason but no action (confirm or defer)'));
        else ignored += 1;
        continue;
      }
      if (!validator.isUUID(id)) problems.push(`field_id "${row.field_id}" is not a field id (a UUID)`);
      else if (firstRowOf.has(id)) problems.push(`repeats the field of row ${firstRowOf.get(id)}`);
      else firstRowOf.set(id, row.row);
      if (row.action !== 'confirm' && row.action !== 'defer')
        problems.push(`action "${row.action}" is not confirm or defer`);
      const resolveErrors: ProblemFieldError[] = [];
      const resolved = this.deps.taxonomy.resolveWith(
        index,
        { chain_path: row.chain_path === '' ? null : row.chain_path, level: row.level === '' ? null : row.level },
        { tag_id: 'field_id', chain_path: 'chain_path', level: 'level' },
        resolveErrors,
      );
      for (const e of resolveErrors) problems.push(`${e.path} ${e.message}`);
      const reason = row.reason.replace(/\r\n?/g, '\n');
      problems.push(...reasonProblems(row.action, reason));
      if (problems.length > 0) {
        errors.push(rowError(row.row, problems.join('; ')));
        continue;
      }
      planned.push({
        row: row.row,
        id,
        action: row.action as 'confirm' | 'defer',
        tagId: resolved.tag?.id ?? null,
        level: resolved.level,
        chainPath: row.chain_path,
        reason,
      });
    }
    return { planned, errors, ignored };
  }

  /** Applies checked decisions to the locked fields: the confirmations, then the deferrals, each with its audit entry. */
  private async applyPlannedDecisions(
    trx: Tx,
    caller: Caller,
    planned: PlannedDecision[],
    states: Map<string, ReviewState>,
    pathOf: (tagId: number) => string | null,
  ): Promise<{ confirmed: number; deferred: number }> {
    const confirmations = planned
      .filter((p) => p.action === 'confirm')
      .map((p) => ({
        state: states.get(p.id) as ReviewState,
        decision: {
          tagId: p.tagId,
          level: p.level,
          pathOf,
          body: { classification_chain_path: p.chainPath === '' ? null : p.chainPath, lock_level: p.level },
        },
      }));
    await this.applyConfirmations(trx, caller, confirmations, { upload: true });
    const deferredAt = this.deps.clock.now().toISOString();
    const deferrals: AuditEvent[] = [];
    for (const p of planned) {
      if (p.action !== 'defer') continue;
      const state = states.get(p.id) as ReviewState;
      await this.deps.fields.deferField(trx, p.id, {
        reason: p.reason,
        reviewed_at: deferredAt,
        reviewed_by: caller.id,
      });
      deferrals.push(deferredEvent(state, p.reason, { upload: true }));
    }
    if (deferrals.length > 0) await this.deps.audit.record(trx, caller, deferrals);
    return { confirmed: confirmations.length, deferred: deferrals.length };
  }

  /** Resolves tag id / path / level through the catalog; 422 when they name nothing or disagree. */
  /**
   * Review progress over time: per day or week, the decisions recorded (from the audit log) and how much of the current
   * catalog was confirmed by then (from the fields' confirmation times). Read-only.
   */
  async progress(query: ReviewProgressQuery): Promise<ReviewProgressResponse> {
    const starts = bucketStarts(this.deps.clock.now(), query.bucket, query.days);
    const first = starts[0] as string;
    const [decisions, confirmedByDay, total] = await Promise.all([
      this.deps.auditLog.countActionsByDay(['field.confirmed', 'field.deferred'], new Date(`${first}T00:00:00.000Z`)),
      this.deps.catalog.confirmedByDay(),
      this.deps.catalog.countFields(),
    ]);
    const indexOf = (day: string) => {
      // The last bucket whose start is on or before the day (starts are sorted, days are YYYY-MM-DD text).
      let i = starts.length - 1;
      while (i > 0 && (starts[i] as string) > day) i -= 1;
      return i;
    };
    const buckets = starts.map((start) => ({
      start,
      confirmed: 0,
      deferred: 0,
      confirmed_fields: 0,
      confirmed_share: 0,
    }));
    for (const d of decisions) {
      const bucket = buckets[indexOf(d.day)];
      if (!bucket) continue;
      if (d.action === 'field.confirmed') bucket.confirmed += d.n;
      else bucket.deferred += d.n;
    }
    // Confirmed fields by the end of each bucket: those confirmed before the first bucket, then each bucket's own.
    const own = buckets.map(() => 0);
    let before = 0;
    let confirmed = 0;
    for (const c of confirmedByDay) {
      confirmed += c.n;
      if (c.day < first) before += c.n;
      else own[indexOf(c.day)] = (own[indexOf(c.day)] ?? 0) + c.n;
    }
    let running = before;
    for (const [i, bucket] of buckets.entries()) {
      running += own[i] ?? 0;
      bucket.confirmed_fields = running;
      bucket.confirmed_share = total > 0 ? Math.min(1, running / total) : 0;
    }
    return { bucket: query.bucket, fields_total: total, fields_confirmed: confirmed, buckets };
  }

  private async resolveDecision(body: DecisionBody): Promise<Decision> {
    const resolved = await this.deps.taxonomy.resolveClassification({
      tag_id: body.classification_tag_id ?? null,
      chain_path: body.classification_chain_path ?? null,
      level: body.lock_level ?? null,
    });
    // Read outside the review transaction: on SQLite a second query on the database handle would wait for it forever.
    const index = await this.deps.taxonomy.tagIndex();
    return {
      tagId: resolved.tag?.id ?? null,
      level: resolved.level,
      body,
      pathOf: (tagId) => index.byId.get(tagId)?.chain_path ?? null,
    };
  }

  /**
   * Confirms each field to its decision (the same rules for one field, a batch and an uploaded file); one audit entry
   * per field, with `extra` in its details (batch: true, upload: true).
   */
  private async applyConfirmations(
    trx: Tx,
    caller: Caller,
    items: ReadonlyArray<{ state: ReviewState; decision: Decision }>,
    extra: Record<string, unknown>,
  ): Promise<void> {
    if (items.length === 0) return;
    const now = this.deps.clock.now().toISOString();

    // One UPDATE per distinct target (tag, level): a batch with one decision is usually a single statement.
    const groups = new Map<string, { tagId: number; level: string; ids: string[] }>();
    const events: AuditEvent[] = [];
    const hooks: WebhookEvent[] = [];
    for (const { state, decision } of items) {
      const { pathOf } = decision;
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
      const after: ClassificationSnapshot = {
        tag_id: tagId,
        chain_path: pathOf(tagId),
        level,
        review_status: 'confirmed',
        locked: true,
      };
      events.push({
        action: 'field.confirmed',
        targetType: 'field',
        targetId: state.id,
        details: { before, after, decision: decisionDetails(decision.body), ...extra },
      });
      const data = {
        field_id: state.id,
        chain_path: after.chain_path,
        level,
        previous: { chain_path: before.chain_path, level: before.level, review_status: before.review_status },
        by: caller.username,
      };
      hooks.push({ type: 'field.confirmed', data });
      if (level !== state.level) hooks.push({ type: 'field.level_changed', data });
    }
    for (const group of groups.values()) {
      await this.deps.fields.confirmFields(trx, group.ids, {
        tag_id: group.tagId,
        level: group.level,
        reviewed_at: now,
        reviewed_by: caller.id,
      });
    }
    await this.deps.audit.record(trx, caller, events);
    await this.deps.webhooks?.emit(trx, hooks);
  }
}

/** The audit entry of a deferral: the review state and reason before and after. */
/** What is wrong with a row's reason for its action: a confirm takes none, a defer needs a valid one. */
function reasonProblems(action: string, reason: string): string[] {
  if (action === 'confirm' && reason.trim() !== '')
    return ['reason is for a defer; a confirm takes none (leave it empty)'];
  if (action !== 'defer') return [];
  // Counted in code points, as the single defer's schema counts them.
  const length = [...reason].length;
  if (length === 0 || length > MAX_DEFER_REASON || !DEFER_REASON.test(reason)) {
    return [
      `a defer needs a reason of 1–${MAX_DEFER_REASON} characters, not only spaces, without control characters other than tab and line break`,
    ];
  }
  return [];
}

/** The check of planned decisions against the fields as they are under the review lock. */
function checkAgainstFields(
  planned: PlannedDecision[],
  states: Map<string, ReviewState>,
  pathOf: (tagId: number) => string | null,
): ProblemFieldError[] {
  const errors: ProblemFieldError[] = [];
  for (const p of planned) {
    const state = states.get(p.id);
    if (!state) errors.push(rowError(p.row, `no field has the id ${p.id}`));
    // A deferral keeps the classification: the exported chain_path and level may stay in the row, a change may not.
    else if (
      p.action === 'defer' &&
      ((p.tagId !== null && p.tagId !== state.tag_id) || (p.level !== null && p.level !== state.level))
    ) {
      errors.push(
        rowError(
          p.row,
          `a defer keeps the classification (${pathOf(state.tag_id) ?? state.tag_id}, ${state.level}): leave chain_path and level as they are, or confirm instead`,
        ),
      );
    }
  }
  return errors;
}

function deferredEvent(state: ReviewState, reason: string, extra: Record<string, unknown>): AuditEvent {
  return {
    action: 'field.deferred',
    targetType: 'field',
    targetId: state.id,
    details: {
      before: { review_status: state.review_status, reason: state.review_reason },
      after: { review_status: 'deferred', reason },
      ...extra,
    },
  };
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

/** First days (UTC, YYYY-MM-DD) of the buckets covering the last `days` days up to `now`, oldest first. */
export function bucketStarts(now: Date, bucket: ProgressBucket, days: number): string[] {
  const DAY = 86_400_000;
  const today = Math.floor(now.getTime() / DAY) * DAY;
  let start = today - (days - 1) * DAY;
  // ISO weeks start on Monday: getUTCDay() is 0 on Sunday.
  if (bucket === 'week') start -= ((new Date(start).getUTCDay() + 6) % 7) * DAY;
  const step = bucket === 'week' ? 7 * DAY : DAY;
  const out: string[] = [];
  for (let t = start; t <= today; t += step) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}
