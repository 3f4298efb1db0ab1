/**
 * The classifier as the other modules use it: the pure classifier (classifier.ts) over the current taxonomy, its
 * context built once per taxonomy version, the tag anchors and the configured levels supplied, and the organisation's
 * confirmed fields nearest to each field found by the metrics' replica of the catalog (so every confirmation teaches
 * it). No database of its own; sample values stay in memory.
 */
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import { buildClassifierContext, CLASSIFIER_VERSION, classifyField, type Classification, type ClassifierContext, type ClassifyInput, type ConfirmedNeighbour } from './classifier.js';

/** Finds, for each unit embedding, the confirmed fields nearest to it (empty lists when it cannot tell yet). */
export type ConfirmedNeighbourFinder = (embeddings: readonly Float32Array[]) => Promise<ConfirmedNeighbour[][]>;

export interface ClassifierServiceDeps {
  taxonomy: Pick<TaxonomyService, 'tagAnchors' | 'listLevels' | 'configuredLevel'>;
  confirmedNeighbours: ConfirmedNeighbourFinder;
}

export interface ClassifyRequest extends ClassifyInput {
  /** The field's unit embedding (the same embedder as the tag anchors). */
  readonly embedding: Float32Array;
}

export class ClassifierService {
  private cached: { version: string; context: Promise<ClassifierContext> } | undefined;

  constructor(private readonly deps: ClassifierServiceDeps) {}

  /** What the classification depends on besides the field: the classifier and the taxonomy (fields classified with another are re-evaluated). */
  async versionKey(): Promise<string> {
    const anchors = await this.deps.taxonomy.tagAnchors();
    return `${CLASSIFIER_VERSION}|tags:${anchors.index.version}|embedder:${anchors.embedderVersion}`;
  }

  /** Classifies the fields (in order), each with its confirmed neighbours; levels are configured level codes. */
  async classify(requests: readonly ClassifyRequest[]): Promise<{ results: Classification[]; versionKey: string }> {
    if (requests.length === 0) return { results: [], versionKey: await this.versionKey() };
    const [context, versionKey, confirmed] = await Promise.all([this.context(), this.versionKey(), this.deps.confirmedNeighbours(requests.map((r) => r.embedding))]);
    const results = requests.map((request, i) => {
      const result = classifyField({ ...request, confirmed: confirmed[i] ?? [] }, context);
      return { ...result, level: this.deps.taxonomy.configuredLevel(result.level) };
    });
    return { results, versionKey };
  }

  private async context(): Promise<ClassifierContext> {
    const anchors = await this.deps.taxonomy.tagAnchors();
    const version = anchors.index.version;
    if (this.cached?.version !== version) {
      const levels = this.deps.taxonomy.listLevels().map((l) => l.code);
      const context = Promise.resolve(
        buildClassifierContext(
          anchors.index.tags.map((tag, i) => ({ id: tag.id, chain_path: tag.chain_path, builtin_path: tag.builtin_path, default_level: tag.default_level, keywords: tag.keywords, anchor: unit(anchors.vectors[i]) })),
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
