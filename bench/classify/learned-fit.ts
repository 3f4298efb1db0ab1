// Fitting the learned name factor (bench/classify/learned-factor.ts, an experiment outside the classifier): a
// multinomial logistic regression with L2 against the classifier's own points, by stochastic gradient descent in a
// fixed, seeded order, so the same examples always give the same parameters. Read by bench/classify/fit-learned.ts.
import type { createEmbedder } from '../../src/embeddings/embedder.js';
import {
  candidateTotals,
  type ClassifierContext,
  type ClassifierTag,
  type ClassifyInput,
} from '../../src/modules/classifier/classifier.js';
import { typeAllows, type TypeFamily } from '../../src/modules/classifier/data-type-gate.js';
import { flattenTaxonomy } from '../../src/modules/taxonomy/default-taxonomy.js';
import {
  isNameFeature,
  learnedFeatures,
  learnedPoints,
  type LearnedModel,
  type LearnedModelData,
  type LearnedPoints,
} from './learned-factor.js';
import type { BenchField } from './sets.js';

type Embedder = ReturnType<typeof createEmbedder>;

export interface LearnedExample {
  readonly features: readonly string[];
  /** The labelled leaf (its built-in name). */
  readonly leaf: string;
  /** Every leaf that counts as right for it (the label's category, as the bench scores it). */
  readonly accept: readonly string[];
  /** The other factors' points per leaf the declared type allows (the model learns a correction to them). */
  readonly offsets: ReadonlyArray<{ leaf: string; total: number }>;
  /** The declared type's family: leaves it rules out take no part. */
  readonly family: TypeFamily;
  /** The labelled set it comes from (the own set, or one public schema). */
  readonly source: string;
}

export interface LearnedFitOptions {
  /** Features seen in fewer examples are dropped. */
  readonly minCount: number;
  /** Features seen in fewer sources are dropped: one schema's own conventions are not learned. */
  readonly minSources: number;
  readonly epochs: number;
  readonly learningRate: number;
  readonly l2: number;
  /** Stored weights below this magnitude are dropped (the file stays small). */
  readonly keepAbove: number;
  readonly weight: number;
  readonly fittedOn: string;
}

export const LEARNED_FIT_DEFAULTS: Omit<LearnedFitOptions, 'weight' | 'fittedOn'> = {
  minCount: 2,
  minSources: 3,
  epochs: 12,
  learningRate: 0.2,
  l2: 0.1,
  keepAbove: 0.05,
};

/** Points given to the type's default tag, which wins when nothing else speaks. */
const FALLBACK_OFFSET = 0.05;

/**
 * One example per labelled field: its features, its first label's leaf, and what the other factors give (read with a
 * context whose learned factor is off, and the field's embedding when there is one).
 */
export function learnedExamples(
  ctx: ClassifierContext,
  fields: readonly BenchField[],
  embeddings: readonly Float32Array[] | null,
  source: string,
): LearnedExample[] {
  return fields.flatMap((f, i) => {
    const label = f.labels?.[0];
    if (label === undefined) return [];
    const input = embeddings ? { ...f.input, embedding: embeddings[i] } : f.input;
    const { totals, family, fallback } = candidateTotals(input, ctx);
    const offsets = totals.some((t) => t.leaf === fallback)
      ? totals
      : [...totals, { leaf: fallback, total: FALLBACK_OFFSET }];
    return [
      {
        features: learnedFeatures(ctx.matcher, f.input),
        leaf: label.slice(label.lastIndexOf('/') + 1),
        accept: f.accept,
        offsets,
        family,
        source,
      },
    ];
  });
}

/** A deterministic permutation (a fixed-seed linear congruential generator): the same order on every run. */
function shuffled(n: number, seed: number): Int32Array {
  const order = Int32Array.from({ length: n }, (_, i) => i);
  let s = seed >>> 0;
  for (let i = n - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    const t = order[i] as number;
    order[i] = order[j] as number;
    order[j] = t;
  }
  return order;
}

const round = (x: number, digits: number): number => {
  const k = 10 ** digits;
  const r = Math.round(x * k) / k;
  return Object.is(r, -0) ? 0 : r;
};

/** Fits the model; the result is a plain object, identical for identical examples and options. */
export function fitLearnedModel(
  examples: readonly LearnedExample[],
  options: Partial<LearnedFitOptions> & Pick<LearnedFitOptions, 'weight' | 'fittedOn'>,
): LearnedModelData {
  const o = { ...LEARNED_FIT_DEFAULTS, ...options };
  const leaves = [...new Set(examples.flatMap((e) => [e.leaf, ...e.offsets.map((x) => x.leaf)]))].sort();
  const classOf = new Map(leaves.map((l, i) => [l, i]));
  const counts = new Map<string, number>();
  const sources = new Map<string, Set<string>>();
  for (const e of examples)
    for (const f of e.features) {
      counts.set(f, (counts.get(f) ?? 0) + 1);
      const s = sources.get(f) ?? new Set<string>();
      s.add(e.source);
      sources.set(f, s);
    }
  const kept = [...counts.entries()]
    .filter(([f, n]) => n >= o.minCount && (sources.get(f) as Set<string>).size >= o.minSources)
    .map(([f]) => f)
    .sort();
  const featureIndex = new Map(kept.map((f, i) => [f, i]));
  const C = leaves.length;
  // Per family, the classes the type allows (a ruled-out leaf never wins, so it takes no part in the softmax).
  const allowedByFamily = new Map<TypeFamily, Int32Array>();
  const allowedFor = (family: TypeFamily): Int32Array => {
    let a = allowedByFamily.get(family);
    if (!a) {
      a = Int32Array.from(leaves.flatMap((l, c) => (typeAllows(l, family) ? [c] : [])));
      allowedByFamily.set(family, a);
    }
    return a;
  };
  const rows = examples.flatMap((e) => {
    const allowed = allowedFor(e.family);
    const yes = new Uint8Array(C);
    for (const a of e.accept) {
      const c = classOf.get(a);
      if (c !== undefined && allowed.includes(c)) yes[c] = 1;
    }
    if (!yes.includes(1)) return [];
    const offset = new Float64Array(C);
    for (const x of e.offsets) offset[classOf.get(x.leaf) as number] = x.total;
    // The correction only counts where the name has a feature seen in fitting, as at run time.
    if (!e.features.some((x) => featureIndex.has(x) && isNameFeature(x))) return [];
    const f = Int32Array.from(e.features.filter((x) => featureIndex.has(x)).map((x) => featureIndex.get(x) as number));
    return [{ yes, allowed, offset, f }];
  });
  const W = new Float64Array(kept.length * C);
  const bias = new Float64Array(C);
  const z = new Float64Array(C);
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    const lr = o.learningRate / (1 + epoch * 0.5);
    for (const idx of shuffled(rows.length, 7919 + epoch)) {
      const row = rows[idx] as (typeof rows)[number];
      let max = -Infinity;
      for (const c of row.allowed) {
        let v = (row.offset[c] as number) + (bias[c] as number);
        for (const f of row.f) v += W[f * C + c] as number;
        z[c] = v;
        if (v > max) max = v;
      }
      // Loss: −log of the probability of the leaves that count as right; gradient p_c − p_c·[c right] / P(right).
      let sum = 0;
      let right = 0;
      for (const c of row.allowed) {
        z[c] = Math.exp((z[c] as number) - max);
        sum += z[c] as number;
        if (row.yes[c] === 1) right += z[c] as number;
      }
      for (const c of row.allowed) {
        const p = (z[c] as number) / sum;
        const g = p - (row.yes[c] === 1 ? (z[c] as number) / right : 0);
        bias[c] = (bias[c] as number) - lr * g;
        for (const f of row.f) {
          const k = f * C + c;
          W[k] = (W[k] as number) - lr * (g + o.l2 * (W[k] as number));
        }
      }
    }
  }
  const features: Record<string, string> = {};
  kept.forEach((f, i) => {
    const pairs: string[] = [];
    for (let c = 0; c < C; c++) {
      const w = W[i * C + c] as number;
      if (Math.abs(w) >= o.keepAbove) pairs.push(`${c}:${round(w, 2)}`);
    }
    if (pairs.length > 0) features[f] = pairs.join(' ');
  });
  return {
    fitted_on: o.fittedOn,
    weight: o.weight,
    leaves,
    bias: [...bias].map((b) => round(b, 3)),
    features,
  };
}

/** The default taxonomy's tags as the bench gives them to the classifier (ids from 1, with their anchor embeddings). */
export async function benchTags(embedder: Embedder | null): Promise<ClassifierTag[]> {
  const flat = flattenTaxonomy();
  const anchors = embedder
    ? await embedder.embedTexts(
        flat.map((t) => [t.name, t.chain_path.split('/').join(' '), t.description, t.keywords.join(', ')].join('. ')),
      )
    : null;
  return flat.map((t, i) => ({
    id: i + 1,
    chain_path: t.chain_path,
    default_level: t.default_level,
    keywords: t.keywords,
    anchor: anchors ? (anchors[i] as Float32Array) : null,
  }));
}

/** The fields' embeddings, as import computes them. */
export async function embedBenchFields(embedder: Embedder, fields: readonly BenchField[]): Promise<Float32Array[]> {
  return embedder.embedFields(
    fields.map((f) => ({
      table_name: f.input.table_name,
      field_name: f.input.field_name,
      comment: f.input.comment ?? null,
      data_type: f.input.data_type ?? null,
    })),
  );
}

/**
 * The tag the classifier would choose with the learned factor added to its points: its candidates' totals (the type
 * gate applied), the model's corrections, the best positive total, else the type's default — as `scoreField` ranks.
 */
export function classifyWithLearned(
  ctx: ClassifierContext,
  model: LearnedModel | null,
  input: ClassifyInput,
): { leaf: string; learned: LearnedPoints[] } {
  const { totals, family, fallback } = candidateTotals(input, ctx);
  const byLeaf = new Map(totals.map((t) => [t.leaf, t.total]));
  const learned = model
    ? learnedPoints(model, learnedFeatures(ctx.matcher, input), (leaf) => (byLeaf.get(leaf) ?? 0) > 0)
    : [];
  for (const p of learned) if (typeAllows(p.leaf, family)) byLeaf.set(p.leaf, (byLeaf.get(p.leaf) ?? 0) + p.score);
  let best = fallback;
  let top = 0;
  for (const [leaf, total] of byLeaf)
    if (total > top) {
      top = total;
      best = leaf;
    }
  return { leaf: best, learned };
}
