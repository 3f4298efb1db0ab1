/**
 * The classifier as the other modules use it: the pure classifier (classifier.ts) over the current taxonomy, its
 * context built once per taxonomy version, the tag anchors and the configured levels supplied, and the organisation's
 * confirmed fields nearest to each field found by the metrics' replica of the catalog (so every confirmation teaches
 * it), and the organisation's own rules on top: the first matching rule decides a field instead of the classifier.
 * No database of its own; sample values stay in memory.
 */
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import {
  buildClassifierContext,
  CLASSIFIER_VERSION,
  labelGap,
  scoreField,
  type Classification,
  type ClassifierContext,
  type ClassifyInput,
  type ConfirmedNeighbour,
} from './classifier.js';

/**
 * Finds, for each unit embedding, the confirmed fields nearest to it (empty lists when it cannot tell yet), leaving
 * out the field each one is (its data source, table and column), whose own confirmation is not the classifier's view.
 */
export type ConfirmedNeighbourFinder = (
  embeddings: readonly Float32Array[],
  selves: ReadonlyArray<FieldIdentity | null>,
) => Promise<ConfirmedNeighbour[][]>;

/** Which field a classification is about: its data source, table and column. */
export interface FieldIdentity {
  readonly datasource_id: string | null;
  readonly table_name: string;
  readonly field_name: string;
}

/** What a rule is matched against. */
export interface RuleField {
  readonly datasource_id: string | null;
  readonly table_name: string;
  readonly field_name: string;
  readonly data_type?: string | null;
  readonly comment?: string | null;
  readonly sample_values?: readonly unknown[] | null;
  /**
   * Without samples (a re-evaluation): the rule that decided the field on its samples at its last import or scan, and
   * when the field was last written. That rule's value part is taken to hold still, unless the rule changed since.
   */
  readonly held_value_rule?: { readonly name: string; readonly since: string } | null;
}

/** An organisation's rule as the classifier applies it (the rules module compiles them). */
export interface DecidingRule {
  readonly id: string;
  readonly name: string;
  readonly tag_id: number;
  readonly level: string | null;
}

export interface ClassifierServiceDeps {
  taxonomy: Pick<TaxonomyService, 'tagAnchors' | 'listLevels' | 'configuredLevel'>;
  confirmedNeighbours: ConfirmedNeighbourFinder;
  /** The enabled rules (the first that matches a field decides it), and their version. */
  rules: { activeRules(): Promise<{ version: string; rules: { decide(field: RuleField): DecidingRule | undefined } }> };
}

export interface ClassifyRequest extends ClassifyInput {
  /** The field's unit embedding (the same embedder as the tag anchors). */
  readonly embedding: Float32Array;
  /** The field's data source (rules may be scoped to sources); null: none known. */
  readonly datasource_id?: string | null;
  /** See RuleField.held_value_rule. */
  readonly held_value_rule?: RuleField['held_value_rule'];
  /**
   * The tag the field is labelled with when the caller gives it (an import's classification, a stored field's tag):
   * its label gap is measured against it. Absent or null: against the tag the field is classified as (the decision).
   */
  readonly label_tag_id?: number | null;
}

/** How a field is classified: by the classifier, or by the first rule that matches it. */
export interface Decision extends Classification {
  readonly source: 'classifier' | 'rule';
}

export class ClassifierService {
  private cached: { version: string; context: Promise<ClassifierContext> } | undefined;

  constructor(private readonly deps: ClassifierServiceDeps) {}

  /** What the classification depends on besides the field: the classifier, the taxonomy and the rules (fields classified with another are re-evaluated). */
  async versionKey(): Promise<string> {
    const [anchors, rules] = await Promise.all([this.deps.taxonomy.tagAnchors(), this.deps.rules.activeRules()]);
    return key(anchors.index.version, anchors.embedderVersion, rules.version);
  }

  /**
   * Classifies the fields (in order), each with its confirmed neighbours; levels are configured level codes.
   * `results` is the classifier's own view of each field (kept as its prediction, which the outlier model weighs);
   * `decisions` what a field the classifier decides is classified as — a matching rule's tag and level, else that view.
   * `labelGaps` how many points the field's label (`label_tag_id`, else its decision's tag) trails the classifier's own
   * answer by: 0 when the classifier names it (so always 0 for a field the classifier decides), for a rule's tag the
   * gap to it.
   */
  async classify(requests: readonly ClassifyRequest[]): Promise<{
    results: Classification[];
    decisions: Decision[];
    labelGaps: number[];
    versionKey: string;
  }> {
    const [anchors, rules] = await Promise.all([this.deps.taxonomy.tagAnchors(), this.deps.rules.activeRules()]);
    const versionKey = key(anchors.index.version, anchors.embedderVersion, rules.version);
    if (requests.length === 0) return { results: [], decisions: [], labelGaps: [], versionKey };
    const [context, confirmed] = await Promise.all([
      this.context(),
      this.deps.confirmedNeighbours(
        requests.map((r) => r.embedding),
        requests.map((r) => ({
          datasource_id: r.datasource_id ?? null,
          table_name: r.table_name,
          field_name: r.field_name,
        })),
      ),
    ]);
    const scored = requests.map((request, i) => scoreField({ ...request, confirmed: confirmed[i] ?? [] }, context));
    const results = scored.map(
      ({ raw_score: _raw, corroborated: _corroborated, points: _points, ...result }): Classification => ({
        ...result,
        level: this.deps.taxonomy.configuredLevel(result.level),
      }),
    );
    const decisions = requests.map((request, i): Decision => {
      const own = results[i] as Classification;
      const rule = rules.rules.decide({ ...request, datasource_id: request.datasource_id ?? null });
      const tag = rule ? anchors.index.byId.get(rule.tag_id) : undefined;
      if (!rule || !tag) return { ...own, source: 'classifier' };
      return {
        tag_id: tag.id,
        chain_path: tag.chain_path,
        level: this.deps.taxonomy.configuredLevel(rule.level ?? tag.default_level),
        confidence: 1,
        evidence: [{ factor: 'rule', score: 1, detail: `rule ${rule.name}` }],
        source: 'rule',
      };
    });
    const labelGaps = requests.map((request, i) =>
      labelGap(
        (scored[i] as (typeof scored)[number]).points,
        request.label_tag_id ?? (decisions[i] as Decision).tag_id,
      ),
    );
    return { results, decisions, labelGaps, versionKey };
  }

  private async context(): Promise<ClassifierContext> {
    const anchors = await this.deps.taxonomy.tagAnchors();
    const version = anchors.index.version;
    if (this.cached?.version !== version) {
      const levels = this.deps.taxonomy.listLevels().map((l) => l.code);
      const context = Promise.resolve(
        buildClassifierContext(
          anchors.index.tags.map((tag, i) => ({
            id: tag.id,
            chain_path: tag.chain_path,
            builtin_path: tag.builtin_path,
            default_level: tag.default_level,
            keywords: tag.keywords,
            anchor: unit(anchors.vectors[i]),
          })),
          { levels },
        ),
      );
      this.cached = { version, context };
    }
    return this.cached.context;
  }
}

function unit(v: Float32Array | undefined): Float32Array | null {
  if (!v) return null;
  let n = 0;
  for (let i = 0; i < v.length; i++) n += (v[i] as number) * (v[i] as number);
  if (n === 0) return null;
  const s = 1 / Math.sqrt(n);
  return Float32Array.from(v, (x) => x * s);
}

function key(tagsVersion: string, embedderVersion: string, rulesVersion: string): string {
  return `${CLASSIFIER_VERSION}|tags:${tagsVersion}|embedder:${embedderVersion}|rules:${rulesVersion}`;
}
