// An experiment, not part of the classifier (docs/classifier.md, "A learned name factor: tried, not kept"): a small
// multinomial logistic regression over the words of a column's name (as the name rules read them: split,
// abbreviations expanded, translated), its head, the table's words and the declared type's family, fitted on
// FieldLens's own labelled set and the public schemas' development half (bench/classify/fit-learned.ts; never the
// held-out half) against the points the classifier's factors give: it learns where they miss. It says nothing when no
// word of the name was seen in fitting. Measured here, outside the classifier, it did not pass the bar for keeping.
import { typeFamily, type TypeFamily } from '../../src/modules/classifier/data-type-gate.js';
import type { NameMatcher } from '../../src/modules/classifier/name-evidence.js';

/** The fitted parameters, as bench/classify/learned-fit.ts returns them (plain data: compared byte for byte). */
export interface LearnedModelData {
  /** What it was fitted on, for the reader of the file. */
  readonly fitted_on: string;
  /** Multiplies the fitted corrections; chosen on the development half leave-one-source-out. */
  readonly weight: number;
  /** Leaf names (built-in names), the classes in order. */
  readonly leaves: readonly string[];
  /** Per-class intercept. */
  readonly bias: readonly number[];
  /** Feature → `classIndex:weight` pairs joined by spaces (only weights that matter are kept). */
  readonly features: Readonly<Record<string, string>>;
}

/** The model read for scoring: per feature, the classes it speaks for and how much. */
export interface LearnedModel {
  readonly weight: number;
  readonly leaves: readonly string[];
  readonly bias: Float64Array;
  readonly features: ReadonlyMap<string, { readonly cls: Int32Array; readonly w: Float64Array }>;
}

/** Corrections smaller than this (in points, before the weight) are left out; at most this many leaves are raised. */
const MIN_POINTS = 0.25;
const MAX_RAISED = 3;

/** Parses the stored parameters once (per context). */
export function loadLearnedModel(data: LearnedModelData): LearnedModel {
  const features = new Map<string, { cls: Int32Array; w: Float64Array }>();
  for (const [f, enc] of Object.entries(data.features)) {
    const pairs = enc.split(' ').filter((p) => p !== '');
    const cls = new Int32Array(pairs.length);
    const w = new Float64Array(pairs.length);
    pairs.forEach((p, i) => {
      const k = p.indexOf(':');
      cls[i] = Number(p.slice(0, k));
      w[i] = Number(p.slice(k + 1));
    });
    features.set(f, { cls, w });
  }
  return { weight: data.weight, leaves: data.leaves, bias: Float64Array.from(data.bias), features };
}

export interface LearnedFeatureInput {
  readonly table_name: string;
  readonly field_name: string;
  readonly data_type?: string | null;
}

/** Features whose presence lets the factor speak: they come from the column's own name. */
export function isNameFeature(f: string): boolean {
  return f.startsWith('w:') || f.startsWith('h:') || f.startsWith('b:');
}

/**
 * The features of one column: `w:` each word of the name, `b:` each pair of adjacent words, `h:` the head (last word),
 * `s:` the first word of a longer name, `t:` each word of the table, `y:` the declared type's family and `hy:` the head
 * with the family (an integer `…_id` is a key, a text one often the identifier itself).
 */
export function learnedFeatures(matcher: NameMatcher, input: LearnedFeatureInput): string[] {
  const col = matcher.words(typeof input.field_name === 'string' ? input.field_name : '');
  const table = matcher.words(typeof input.table_name === 'string' ? input.table_name : '');
  const family: TypeFamily = typeFamily(input.data_type ?? null);
  const out = new Set<string>();
  for (const w of col) out.add(`w:${w}`);
  for (let i = 0; i + 1 < col.length; i++) out.add(`b:${col[i] as string}_${col[i + 1] as string}`);
  const head = col[col.length - 1];
  if (head !== undefined) {
    out.add(`h:${head}`);
    out.add(`hy:${head}|${family}`);
  }
  if (col.length >= 2) out.add(`s:${col[0] as string}`);
  for (const w of table) out.add(`t:${w}`);
  out.add(`y:${family}`);
  return [...out];
}

/** One leaf's learned points (in the classifier's points: a log-odds contribution), with the features that decided. */
export interface LearnedPoints {
  readonly leaf: string;
  readonly score: number;
  readonly because: string[];
}

/**
 * The model's correction to the other factors' points, per leaf: it was fitted against what they give (softmax over
 * their totals plus its own), so it raises the leaves the words point to where the rules miss them and lowers a rule's
 * leaf where such words seldom mean it. Raises at most three leaves; lowers only leaves that already have points.
 * Nothing when no feature of the name itself was seen in fitting.
 */
export function learnedPoints(
  model: LearnedModel,
  features: readonly string[],
  isCandidate: (leaf: string) => boolean,
): LearnedPoints[] {
  const known = features.filter((f) => model.features.has(f));
  if (model.weight <= 0 || !known.some(isNameFeature)) return [];
  const z = Float64Array.from(model.bias);
  for (const f of known) {
    const row = model.features.get(f) as { cls: Int32Array; w: Float64Array };
    for (let i = 0; i < row.cls.length; i++) {
      const k = row.cls[i] as number;
      z[k] = (z[k] as number) + (row.w[i] as number);
    }
  }
  const raised: Array<{ c: number; v: number }> = [];
  const out: LearnedPoints[] = [];
  for (let c = 0; c < z.length; c++) {
    const v = z[c] as number;
    if (v >= MIN_POINTS) raised.push({ c, v });
    else if (v <= -MIN_POINTS && isCandidate(model.leaves[c] as string))
      out.push({
        leaf: model.leaves[c] as string,
        score: model.weight * v,
        because: decidingFeatures(model, known, c, -1),
      });
  }
  raised.sort((a, b) => b.v - a.v || a.c - b.c);
  for (const { c, v } of raised.slice(0, MAX_RAISED))
    out.unshift({
      leaf: model.leaves[c] as string,
      score: model.weight * v,
      because: decidingFeatures(model, known, c, 1),
    });
  return out;
}

/** The (at most three) features that moved this class most in the given direction (1 up, -1 down), strongest first. */
function decidingFeatures(model: LearnedModel, known: readonly string[], c: number, sign: 1 | -1): string[] {
  const scored: Array<{ f: string; w: number }> = [];
  for (const f of known) {
    const row = model.features.get(f) as { cls: Int32Array; w: Float64Array };
    for (let i = 0; i < row.cls.length; i++)
      if (row.cls[i] === c && sign * (row.w[i] as number) > 0) scored.push({ f, w: sign * (row.w[i] as number) });
  }
  scored.sort((a, b) => b.w - a.w || (a.f < b.f ? -1 : 1));
  return scored.slice(0, 3).map((s) => s.f);
}

/** A feature as a reviewer reads it: `'email' (name)`, `'customer' (table)`, `type integer`. */
export function describeFeature(f: string): string {
  const k = f.indexOf(':');
  const kind = f.slice(0, k);
  const v = f.slice(k + 1).slice(0, 40);
  switch (kind) {
    case 'w':
      return `'${v}' in the name`;
    case 'b':
      return `'${v.replace('_', ' ')}' in the name`;
    case 'h':
      return `name ending in '${v}'`;
    case 's':
      return `name starting with '${v}'`;
    case 't':
      return `'${v}' in the table name`;
    case 'hy': {
      const [head, family] = v.split('|');
      return `name ending in '${head ?? ''}' on a ${family ?? ''} type`;
    }
    default:
      return `declared type ${v}`;
  }
}
