/**
 * Re-evaluation: when the classifier or the taxonomy changes, the fields the classifier classified — neither
 * confirmed nor locked, and not given by an import or a reviewer — are classified again in the background, through
 * a work queue shared by every instance (`reclassify_queue`). Without their samples (never stored), the classifier
 * weighs the stored summary of their formats instead. A field whose classification changes goes back to
 * `unreviewed`; each batch that changes any writes one `fields.reclassified` audit entry with its counts. The metrics
 * follow through the change log. The same queue refreshes every other field's classifier view (fields.predicted_*,
 * which the outlier model weighs) made with another classifier or taxonomy, or never made, or whose label gap is
 * unknown (the label changed since it was measured). The version it works
 * for includes the embedder's: a field embedded by another embedder (a new built-in version, another provider) is
 * embedded again from its stored names, type, comment and format signature — what an import embeds — before it is
 * classified, and the metrics follow.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Rounds } from '../../background/rounds.js';
import type { Clock } from '../../clock.js';
import { decodeVector, encodeVector, yieldLocksAfter, type Database } from '../../db/database.js';
import type { Embedder } from '../../embeddings/embedder.js';
import { getSetting, putSetting } from '../../db/settings.js';
import type { Claim, WorkQueue } from '../../db/work-queue.js';
import { SYSTEM_ACTOR, type AuditService } from '../audit/audit.service.js';
import type { ClassifierService } from '../classifier/classifier.service.js';
import { summaryFromFingerprint } from '../classifier/index.js';
import * as repo from './fields.repository.js';

/** The classifier and taxonomy version the fields were last enqueued for (shared by all instances). */
const ENQUEUED_FOR = 'classifier.reclassify_enqueued_for';
const BATCH = 500;
/** How long a re-evaluation waits for a row a writer holds before giving up until the next round. */
const LOCK_WAIT_MS = 250;

export interface ReclassifyWorkerDeps {
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  audit: AuditService;
  queue: WorkQueue;
  classifier: Pick<ClassifierService, 'classify' | 'versionKey'>;
  embedder: Pick<Embedder, 'embedFields' | 'version'>;
}

export class ReclassifyWorker {
  private readonly worker = randomUUID();
  private readonly rounds: Rounds;

  constructor(private readonly deps: ReclassifyWorkerDeps) {
    this.rounds = new Rounds('re-classification', deps.log, () => this.round());
  }

  /** Starts the background rounds. */
  start(intervalMs = 2000): void {
    this.rounds.start(intervalMs);
  }

  async stop(): Promise<void> {
    await this.rounds.stop();
  }

  /** Works until every field classified with an older classifier or taxonomy has been classified again. */
  async drain(): Promise<void> {
    await this.rounds.runNow();
  }

  private async round(): Promise<void> {
    const key = await this.deps.classifier.versionKey();
    await this.enqueueOutdated(key);
    for (;;) {
      const claims = await this.deps.queue.claim(
        this.worker,
        // eslint-disable-next-line no-restricted-properties -- queue claims expire on real time, never before the injected clock says so
        new Date(Math.max(this.deps.clock.now().getTime(), Date.now())),
        BATCH,
      );
      if (claims.length === 0) return;
      await this.reclassify(claims);
      if (this.rounds.stopped) return;
    }
  }

  /** Once per classifier and taxonomy version (any instance): queues the fields the classifier classified with another. */
  private async enqueueOutdated(key: string): Promise<void> {
    const db = this.deps.database.db;
    if ((await getSetting(db, ENQUEUED_FOR)) === key) return;
    await db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.reclassify');
      if ((await getSetting(trx, ENQUEUED_FOR)) === key) return;
      await repo.enqueueOutdatedClassifications(trx, key, this.deps.clock.now().toISOString(), randomUUID());
      const now = this.deps.clock.now();
      await putSetting(trx, ENQUEUED_FOR, key, now);
    });
    await this.deps.queue.analyze();
  }

  /** The stored column names of each row's table, by data source and table: the classifier's context, as on import. */
  private async tableColumns(rows: readonly repo.ReclassificationRow[]): Promise<Map<string, Map<string, string[]>>> {
    const tables = new Map<string, string[]>();
    for (const r of rows) {
      const list = tables.get(r.datasource_id);
      if (list) list.push(r.table_name);
      else tables.set(r.datasource_id, [r.table_name]);
    }
    const out = new Map<string, Map<string, string[]>>();
    for (const [datasourceId, names] of tables)
      out.set(datasourceId, await repo.listTableColumnNames(this.deps.database.db, datasourceId, names));
    return out;
  }

  /**
   * The embedding of each row by the current embedder: the stored one when the current embedder made it, else made
   * again from what an import embeds (names, type, comment, format signature). Only the new ones are in `fresh`.
   */
  private async embeddings(
    rows: readonly repo.ReclassificationRow[],
  ): Promise<{ vectors: Float32Array[]; fresh: Map<string, Float32Array> }> {
    const { embedder } = this.deps;
    const current = (r: repo.ReclassificationRow) => r.embedding !== null && r.embedder_version === embedder.version;
    const stale = rows.filter((r) => !current(r));
    const made =
      stale.length === 0
        ? []
        : await embedder.embedFields(
            stale.map((r) => ({
              table_name: r.table_name,
              field_name: r.field_name,
              comment: r.comment,
              data_type: r.data_type,
              format_signature: r.format_signature,
            })),
          );
    const fresh = new Map(stale.map((r, i) => [r.id, made[i] as Float32Array]));
    return {
      vectors: rows.map((r) => fresh.get(r.id) ?? decodeVector(r.embedding as Uint8Array)),
      fresh,
    };
  }

  private async reclassify(claims: readonly Claim[]): Promise<void> {
    const rows = await repo.findForReclassification(
      this.deps.database.db,
      claims.map((c) => c.key),
    );
    const { vectors, fresh } = await this.embeddings(rows);
    const columns = await this.tableColumns(rows);
    const { results, decisions, labelGaps, versionKey } = await this.deps.classifier.classify(
      rows.map((r, i) => ({
        table_columns: columns.get(r.datasource_id)?.get(r.table_name) ?? null,
        table_name: r.table_name,
        field_name: r.field_name,
        data_type: r.data_type,
        comment: r.comment,
        value_summary: summaryFromFingerprint(r.value_summary),
        embedding: vectors[i] as Float32Array,
        datasource_id: r.datasource_id,
        held_value_rule: heldValueRule(r),
        // A field the classifier may classify again is measured against its new classification, any other against its label.
        label_tag_id: r.reclassifiable ? null : r.tag_id,
      })),
    );
    await this.deps.database.db.transaction().execute(async (trx) => {
      await yieldLocksAfter(trx, LOCK_WAIT_MS);
      const now = this.deps.clock.now().toISOString();
      let changed = 0;
      for (const row of rows) {
        const embedding = fresh.get(row.id);
        if (embedding)
          await repo.replaceEmbedding(
            trx,
            row.id,
            row.embedder_version,
            encodeVector(embedding),
            this.deps.embedder.version,
          );
      }
      for (const [i, row] of rows.entries()) {
        const result = results[i];
        const decision = decisions[i];
        const labelGap = labelGaps[i];
        if (!result || !decision || labelGap === undefined) continue;
        if (!row.reclassifiable) {
          await repo.applyPrediction(trx, row, {
            tag_id: result.tag_id,
            level: result.level,
            confidence: result.confidence,
            label_gap: labelGap,
            predicted_with: versionKey,
          });
          continue;
        }
        const updated = await repo.applyReclassification(trx, row.id, {
          source: decision.source,
          tag_id: decision.tag_id,
          level: decision.level,
          confidence: decision.confidence,
          evidence: JSON.stringify(decision.evidence),
          predicted: { tag_id: result.tag_id, level: result.level, confidence: result.confidence, label_gap: labelGap },
          classified_with: versionKey,
          updated_at: now,
        });
        if (updated === 'changed') changed++;
      }
      if (changed > 0) {
        await this.deps.audit.record(trx, SYSTEM_ACTOR, {
          action: 'fields.reclassified',
          targetType: 'field',
          targetId: null,
          details: { fields: rows.filter((r) => r.reclassifiable).length, changed, classified_with: versionKey },
        });
      }
      await this.deps.queue.complete(trx, claims);
    });
  }
}

/**
 * The rule that decided a field (its evidence names it: `rule <name>`), so that a re-evaluation, which has no samples,
 * keeps a value part that held on the samples of the field's last import or scan (rule-matcher.ts).
 */
function heldValueRule(
  row: Pick<repo.ReclassificationRow, 'classification_source' | 'classification_evidence' | 'updated_at'>,
): { name: string; since: string } | null {
  if (row.classification_source !== 'rule' || row.classification_evidence === null) return null;
  try {
    const evidence = JSON.parse(row.classification_evidence) as Array<{ factor?: unknown; detail?: unknown }>;
    const item = Array.isArray(evidence)
      ? evidence.find((e) => e.factor === 'rule' && typeof e.detail === 'string' && e.detail.startsWith('rule '))
      : undefined;
    return item ? { name: (item.detail as string).slice('rule '.length), since: row.updated_at } : null;
  } catch {
    return null;
  }
}
