// Quality benchmark, "self-classified" mode (issue 25): does the outlier score find the classifier's OWN mistakes?
// The catalog is the labelled public schemas of bench/classify/public (each schema one data source; the labels are
// the truth), imported through the real FieldsService WITHOUT a classification, so the service's classifier decides
// every field as a new user's import or scan would. After the metrics worker drains, a field counts as wrong when the
// classifier's tag is not one its label accepts, or its level is two or more steps from the label's default level.
// Printed per half of bench/classify's hash split (development: may be tuned on; held-out: only ever measured):
// outlier AUROC and precision@k (k = number wrong), how many wrong fields are severity high, how many carry a
// suggestion and how many of those are right; the classifier's own confidence ranked the same way for comparison.
// Then a seeded third of the wrong fields is confirmed with its correction (the labelled tag at its default level),
// the worker drained again, and the same printed for the fields not corrected.
// Run: npx tsx bench/quality/self-classified.ts   Knobs: QUALITY_CORRECT_SEED (default 25), QUALITY_HALVES
// (default "development,held-out"), QUALITY_KEEP_SHARE (default 0: a reviewer who also confirms this seeded share of
// the fields the classifier got right, as they are, in the same pass; the figures are then of the fields not reviewed).
import type { Database } from '../../src/db/database.js';
import type { Caller } from '../../src/http/access.js';
import type { OutlierInput } from '../../src/modules/metrics/outlier-model.js';
import type { SuggestionInput } from '../../src/modules/metrics/suggestion.js';
import { freshDirs, loadPublicSets, type BenchField, type Half } from '../classify/sets.js';
import { mulberry32 } from '../support/random.js';
import { auroc, axesFigures, formatAxesFigures, precisionAtK, type AxesFigures } from './measures.js';
import { AXIS_KEYS } from '../../src/modules/metrics/axes.js';
import { addBenchDataSource, openQualityApp } from './setup.js';

export type { Half };

/** One labelled field of the catalog with the service's id for it. */
export interface SelfField {
  id: string;
  half: Half;
  source: string;
  truth: BenchField;
  /** Chain path and default level of the first labelled leaf: the correction a reviewer makes. */
  truthPath: string;
  truthLevel: string;
}

/** What the service holds for a field after the worker drained. */
export interface FieldState {
  tagPath: string;
  level: string;
  outlier: number;
  severity: string;
  confidence: number | null;
  suggestedPath: string | null;
  suggestedLevel: string | null;
  suggestedConfidence: number | null;
  confirmed: boolean;
  /** The six axis scores as stored (null before the worker measured the field). */
  axes: Record<string, number> | null;
}

export interface SelfClassifiedCatalog {
  fields: SelfField[];
  read(): Promise<Map<string, FieldState>>;
  /** Confirms each field with its labelled classification (the reviewer's correction) and drains the worker. */
  correct(ids: readonly string[]): Promise<void>;
  /** Confirms each field as it is (the reviewer keeps the classifier's answer); the caller drains the worker. */
  keep(ids: readonly string[]): Promise<void>;
  /** The worker's record of every stored field's model input (when asked for). */
  featureLog: Map<string, OutlierInput> | null;
  /** The worker's record of every stored suggestion's source, outlier score and share of the support (when asked for). */
  suggestionLog: Map<string, { by: string; score: number; share: number }> | null;
  /** The worker's record of every field's suggestion input, with or without a suggestion (when asked for). */
  suggestionInputLog: Map<string, SuggestionInput> | null;
  rank(level: string): number;
  database: Database;
  close(): Promise<void>;
}

const leafOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** Imports every public-schema set without classifications and drains the metrics worker. */
export async function importSelfClassified(options: { record?: boolean } = {}): Promise<SelfClassifiedCatalog> {
  const { app, database, close } = await openQualityApp(
    options.record
      ? (worker) => {
          worker.featureLog = new Map();
          worker.suggestionLog = new Map();
          worker.suggestionInputLog = new Map();
        }
      : undefined,
  );
  try {
    const tags = await database.db.selectFrom('tags').select(['id', 'chain_path', 'default_level']).execute();
    const tagByPath = new Map(tags.map((t) => [t.chain_path, t]));
    const pathById = new Map(tags.map((t) => [t.id, t.chain_path]));
    const levels = app.services.taxonomy.listLevels().map((l) => l.code);
    const rank = (level: string): number => levels.indexOf(level);
    const fields: SelfField[] = [];
    for (const set of loadPublicSets()) {
      const datasourceId = await addBenchDataSource(database, set.source);
      for (let s = 0; s < set.fields.length; s += 5000) {
        const part = set.fields.slice(s, s + 5000);
        const res = await app.services.fields.importFields(
          { id: null, username: 'system', requestId: null },
          {
            datasource_id: datasourceId,
            fields: part.map(({ input }) => ({
              table_name: input.table_name,
              field_name: input.field_name,
              ...(input.data_type ? { data_type: input.data_type } : {}),
              ...(input.comment ? { comment: input.comment } : {}),
              ...(input.sample_values ? { sample_values: input.sample_values.map(String) } : {}),
            })),
          },
        );
        res.field_ids.forEach((id, j) => {
          const truth = part[j] as BenchField;
          const truthPath = (truth.labels as readonly string[])[0] as string;
          const tag = tagByPath.get(truthPath);
          if (!tag) throw new Error(`no tag ${truthPath}`);
          fields.push({ id, half: set.half, source: set.source, truth, truthPath, truthLevel: tag.default_level });
        });
      }
    }
    await app.services.metricsWorker.drain(600_000);
    const admin = await database.db
      .selectFrom('users')
      .select(['id', 'username'])
      .where('username', '=', 'admin')
      .executeTakeFirstOrThrow();
    const caller: Caller = {
      id: admin.id,
      username: admin.username,
      email: 'admin@example.com',
      roles: ['superadmin'],
      requestId: 'bench-self-classified',
    };
    const byId = new Map(fields.map((f) => [f.id, f]));
    return {
      fields,
      featureLog: app.services.metricsWorker.featureLog,
      suggestionLog: app.services.metricsWorker.suggestionLog,
      suggestionInputLog: app.services.metricsWorker.suggestionInputLog,
      rank,
      database,
      async read() {
        const rows = await database.db
          .selectFrom('fields')
          .select([
            'id',
            'tag_id',
            'level',
            'outlier_score',
            'severity',
            'classification_confidence',
            'suggested_tag_id',
            'suggested_level',
            'suggested_confidence',
            'review_status',
          ])
          .execute();
        const metricRows = await database.db
          .selectFrom('field_metrics')
          .select(['field_id', ...AXIS_KEYS.map((k) => `score_${k}` as const)])
          .execute();
        const axesById = new Map(
          metricRows.map((m) => [m.field_id, Object.fromEntries(AXIS_KEYS.map((k) => [k, m[`score_${k}`]]))]),
        );
        return new Map(
          rows.map((r) => [
            r.id,
            {
              tagPath: pathById.get(r.tag_id) ?? '',
              level: r.level,
              outlier: r.outlier_score ?? 0,
              severity: r.severity ?? 'low',
              confidence: r.classification_confidence,
              suggestedPath: r.suggested_tag_id === null ? null : (pathById.get(r.suggested_tag_id) ?? null),
              suggestedLevel: r.suggested_level,
              suggestedConfidence: r.suggested_confidence,
              confirmed: r.review_status === 'confirmed',
              axes: axesById.get(r.id) ?? null,
            },
          ]),
        );
      },
      async correct(ids) {
        for (const id of ids) {
          const f = byId.get(id) as SelfField;
          await app.services.review.confirmField(caller, id, {
            classification_chain_path: f.truthPath,
            lock_level: f.truthLevel,
          });
        }
        await app.services.metricsWorker.drain(600_000);
      },
      async keep(ids) {
        for (const id of ids) await app.services.review.confirmField(caller, id, {});
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Whether a classification is wrong for the labelled field: a tag its label does not accept, or a level 2+ steps off. */
export function isWrong(f: SelfField, tagPath: string, level: string, rank: (level: string) => number): boolean {
  if (!f.truth.accept.includes(leafOf(tagPath))) return true;
  return Math.abs(rank(level) - rank(f.truthLevel)) >= 2;
}

export interface HalfFigures {
  fields: number;
  wrong: number;
  auroc: number;
  pAtK: number;
  /** The classifier's own confidence ranked the same way (1 − confidence), for comparison. */
  confidenceAuroc: number;
  confidencePAtK: number;
  high: number;
  highPrecision: number;
  wrongHigh: number;
  wrongSuggested: number;
  wrongSuggestedRight: number;
  suggestedRightOfAll: number;
  axes: AxesFigures;
}

/** The figures over the given fields (each with its state). */
export function figures(
  list: ReadonlyArray<{ f: SelfField; s: FieldState }>,
  rank: (level: string) => number,
): HalfFigures {
  const wrong = list.map(({ f, s }) => isWrong(f, s.tagPath, s.level, rank));
  const scores = list.map(({ s }) => s.outlier);
  const doubt = list.map(({ s }) => 1 - (s.confidence ?? 1));
  const k = wrong.filter(Boolean).length;
  const wrongOnes = list.filter((_, i) => wrong[i]);
  const suggested = wrongOnes.filter(({ s }) => s.suggestedPath !== null);
  const right = suggested.filter(
    ({ f, s }) => !isWrong(f, s.suggestedPath as string, s.suggestedLevel as string, rank),
  );
  const high = list.filter(({ s }) => s.severity === 'high');
  return {
    fields: list.length,
    wrong: k,
    auroc: auroc(scores, wrong),
    pAtK: precisionAtK(scores, wrong, k),
    confidenceAuroc: auroc(doubt, wrong),
    confidencePAtK: precisionAtK(doubt, wrong, k),
    high: high.length,
    highPrecision: high.length
      ? list.filter(({ s }, i) => s.severity === 'high' && wrong[i]).length / high.length
      : Number.NaN,
    wrongHigh: wrongOnes.filter(({ s }) => s.severity === 'high').length,
    wrongSuggested: suggested.length,
    wrongSuggestedRight: right.length,
    suggestedRightOfAll: k ? right.length / k : Number.NaN,
    axes: axesFigures(
      list.map(({ s }) => s.axes ?? {}),
      wrong,
    ),
  };
}

const fmt = (x: number): string => (Number.isNaN(x) ? '—' : x.toFixed(3));

export function printFigures(title: string, rows: ReadonlyArray<[string, HalfFigures]>): void {
  console.log(`\n${title}`);
  console.log(
    '| half | fields | wrong | outlier AUROC | P@k | 1 − confidence AUROC / P@k | wrong at high | high (share wrong) | wrong with a suggestion | right suggestions (share of wrong) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const [half, r] of rows) {
    console.log(
      `| ${half} | ${r.fields} | ${r.wrong} | ${fmt(r.auroc)} | ${fmt(r.pAtK)} | ${fmt(r.confidenceAuroc)} / ${fmt(r.confidencePAtK)} | ${r.wrongHigh} | ${r.high} (${fmt(r.highPrecision)}) | ${r.wrongSuggested} | ${r.wrongSuggestedRight} (${fmt(r.suggestedRightOfAll)}) |`,
    );
  }
  for (const [half, r] of rows) console.log(`${half} axes: ${formatAxesFigures(r.axes)}`);
}

/**
 * A seeded share (a third unless said) of the given fields — the reviewer's corrections of the wrong ones — drawn in the
 * order of their names (ids are random).
 */
export function drawCorrections(
  wrong: ReadonlyArray<Pick<SelfField, 'id' | 'source' | 'truth'>>,
  seed: number,
  share = 1 / 3,
): Set<string> {
  const rng = mulberry32(seed);
  const key = (f: Pick<SelfField, 'source' | 'truth'>): string =>
    `${f.source}\u0000${f.truth.input.table_name}\u0000${f.truth.input.field_name}`;
  const order = [...wrong]
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
    .map((f) => ({ id: f.id, r: rng() }));
  order.sort((a, b) => a.r - b.r);
  return new Set(order.slice(0, Math.round(wrong.length * share)).map((o) => o.id));
}

/**
 * The reviewer's corrections: of the fields the classifier got wrong in `before` (among those `among` keeps), a seeded
 * third (drawCorrections) is confirmed with its labelled classification; answers the wrong fields, the corrected ids
 * and the catalog read again once the worker has drained.
 */
export async function correctSeededThird(
  catalog: SelfClassifiedCatalog,
  before: ReadonlyMap<string, FieldState>,
  seed: number,
  among: (f: SelfField) => boolean = () => true,
): Promise<{ wrong: SelfField[]; corrected: Set<string>; after: Map<string, FieldState> }> {
  const wrong = catalog.fields.filter((f) => {
    const s = before.get(f.id) as FieldState;
    return among(f) && isWrong(f, s.tagPath, s.level, catalog.rank);
  });
  const corrected = drawCorrections(wrong, seed);
  await catalog.correct([...corrected]);
  return { wrong, corrected, after: await catalog.read() };
}

async function main(): Promise<void> {
  const seed = Number(process.env.QUALITY_CORRECT_SEED ?? 25);
  const halves = (
    process.env.QUALITY_HALVES ?? (freshDirs().length > 0 ? 'development,held-out,fresh' : 'development,held-out')
  ).split(',') as Half[];
  const t0 = performance.now();
  const catalog = await importSelfClassified();
  try {
    const { fields, rank } = catalog;
    console.log(
      `self-classified: ${fields.length} fields from ${new Set(fields.map((f) => f.source)).size} public schemas, imported and drained in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    const before = await catalog.read();
    const rows = (state: Map<string, FieldState>, skip: ReadonlySet<string>): Array<[string, HalfFigures]> =>
      halves.map((half) => [
        half,
        figures(
          fields
            .filter((f) => f.half === half && !skip.has(f.id))
            .map((f) => ({ f, s: state.get(f.id) as FieldState })),
          rank,
        ),
      ]);
    printFigures("Before corrections (the classifier's own answers)", rows(before, new Set()));
    // A reviewer who also keeps some of the right answers (confirms them as they are) in the same pass.
    const keepShare = Number(process.env.QUALITY_KEEP_SHARE ?? 0);
    const right = fields.filter((f) => {
      const s = before.get(f.id) as FieldState;
      return halves.includes(f.half) && !isWrong(f, s.tagPath, s.level, rank);
    });
    const kept = keepShare > 0 ? drawCorrections(right, seed + 1, keepShare) : new Set<string>();
    await catalog.keep([...kept]);
    const { wrong, corrected, after } = await correctSeededThird(catalog, before, seed, (f) => halves.includes(f.half));
    printFigures(
      `After a reviewer corrects ${corrected.size} of the ${wrong.length} wrong fields (seed ${seed})${kept.size > 0 ? ` and keeps ${kept.size} of the ${right.length} right ones` : ''}; the figures of the fields not reviewed`,
      rows(after, new Set([...corrected, ...kept])),
    );
  } finally {
    await catalog.close();
  }
}

if (process.argv[1]?.endsWith('self-classified.ts')) await main();
