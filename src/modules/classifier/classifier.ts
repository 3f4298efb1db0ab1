// The field classifier: pure functions over what it is given. A context is built once per taxonomy; each field is
// then scored against every leaf tag from independent evidence factors (name, table, comment, data type, sample
// values, the organisation's confirmed neighbours, the embedding anchor), the best allowed leaf wins, and its
// confidence is calibrated. Technical and public tags are real answers: a column with nothing sensitive in it
// gets one of them. No I/O, no logging; sample values are read in memory and never copied into the output.
import { calibrate, CALIBRATION, CALIBRATION_NAME_ONLY, rawConfidence } from './calibration.js';
import { declaredClass, TYPE_PRIOR, typeAllows, typeFamily, type TypeFamily } from './data-type-gate.js';
import { KIND_PHRASE, summarizeValues, type ValueKind, type ValueSummary } from './detectors.js';
import { HEALTH_WORDS, PERSON_WORDS, RULES } from './lexicon.js';
import {
  buildPhrases,
  NameMatcher,
  nameEvidence,
  tableColumnsSignal,
  type NameMatch,
  type TableColumnsSignal,
} from './name-evidence.js';
import { KIND_RULES } from './value-evidence.js';

/** Bumped whenever the classifier's output can change for the same input, so stored results are re-evaluated. */
export const CLASSIFIER_VERSION = 'fieldlens-classifier-1.5.11';

export type EvidenceFactor =
  'name' | 'table' | 'context' | 'comment' | 'data_type' | 'values' | 'confirmed_fields' | 'anchor' | 'rule';

export interface Evidence {
  readonly factor: EvidenceFactor;
  /** Points this factor added to (positive) or took from (negative) the chosen tag, or a ruled-out one. */
  readonly score: number;
  /** A short sentence for a reviewer. Never contains a sample value. */
  readonly detail: string;
  /**
   * Set on the evidence of a runner-up: the chain path of the tag it spoke for, so a reviewer sees what lost and why
   * (`Quantity`: the name; it lost to `Status flag`: 25 of 25 samples are booleans). Absent: the chosen tag.
   */
  readonly for?: string;
}

/** A table's column signal, read once per column-name array (callers pass one array per table). */
const columnSignals = new WeakMap<
  readonly string[],
  { matcher: ClassifierContext['matcher']; signal: TableColumnsSignal }
>();
function columnsSignal(ctx: ClassifierContext, names: readonly string[] | null | undefined): TableColumnsSignal | null {
  if (!Array.isArray(names) || names.length < 2) return null;
  const hit = columnSignals.get(names);
  if (hit && hit.matcher === ctx.matcher) return hit.signal;
  const signal = tableColumnsSignal(ctx.matcher, names);
  columnSignals.set(names, { matcher: ctx.matcher, signal });
  return signal;
}

/** Runner-up tags shown with their evidence, and positive items of evidence shown per runner-up (plus its worst negative). */
const RUNNERS_UP = 2;
const RUNNER_UP_ITEMS = 2;

export interface ClassifierTag {
  readonly id: number;
  readonly chain_path: string;
  readonly default_level: string;
  /** A string array, or the JSON text of one as stored. */
  readonly keywords?: readonly string[] | string | null;
  /** Unit-length anchor embedding of the tag, when the caller has one. */
  readonly anchor?: Float32Array | null;
  /** A built-in tag's chain path in the default taxonomy: the rules know it by that name after a rename. */
  readonly builtin_path?: string | null;
}

export interface ConfirmedNeighbour {
  /** Cosine similarity in [-1, 1] between this field's embedding and the confirmed field's. */
  readonly similarity: number;
  readonly tag_id: number;
  readonly level?: string | null;
}

export interface ClassifierContext {
  readonly version: string;
  readonly leaves: ReadonlyArray<ContextLeaf>;
  readonly byName: ReadonlyMap<string, ContextLeaf>;
  readonly byId: ReadonlyMap<number, ContextLeaf>;
  readonly matcher: NameMatcher;
  readonly levelRank: ReadonlyMap<string, number>;
  /** The organisation's confirmed fields nearest to the one being classified (found by the caller). */
  readonly confirmed?: readonly ConfirmedNeighbour[];
}

export interface ContextLeaf {
  readonly id: number;
  /** The leaf's name as the built-in word lists know it (its shipped name, for a renamed built-in tag). */
  readonly name: string;
  /** The leaf's name as the taxonomy has it now: what evidence sentences say. */
  readonly label: string;
  readonly chain_path: string;
  readonly default_level: string;
  readonly anchor: Float32Array | null;
}

export interface ClassifyInput {
  readonly table_name: string;
  readonly field_name: string;
  readonly data_type?: string | null;
  readonly comment?: string | null;
  readonly sample_values?: readonly unknown[] | null;
  /** The formats of samples seen earlier (summaryFromFingerprint of a stored fingerprint), when there are none now. */
  readonly value_summary?: ValueSummary | null;
  /** Unit-length embedding of the field (same embedder as the tag anchors). */
  readonly embedding?: Float32Array | null;
  /**
   * The names of the columns of the field's table, its own included, when the caller knows them: the other columns
   * are context (a `name` among `email` and `phone` is a person's). Pass the same array for every field of a table:
   * it is read once per table.
   */
  readonly table_columns?: readonly string[] | null;
}

export interface Classification {
  readonly tag_id: number;
  readonly chain_path: string;
  readonly level: string;
  readonly confidence: number;
  readonly evidence: Evidence[];
}

/** Where an added default tag is missing from an older database, the nearest older tag stands in. */
const FALLBACK: Readonly<Record<string, string>> = {
  'Object name': 'Public product description',
  'Sort order': 'Metric value',
  // Added with 1.2.0; before, these columns went to the tags that stand in.
  Age: 'Date of birth',
  'Marital status': 'Category',
  'Time zone': 'Configuration setting',
  'File reference': 'URL',
  // Added with 1.3.1.
  'Photo of a person': 'File reference',
  'Biometric template': 'Hash or checksum',
};

const DEFAULT_LEVELS = ['L1', 'L2', 'L3', 'L4', 'L5'];

function parseKeywords(k: ClassifierTag['keywords']): string[] {
  if (!k) return [];
  if (typeof k !== 'string') return [...k];
  try {
    const v: unknown = JSON.parse(k);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Builds the classifier's view of a taxonomy: its leaf tags by name and id, the name rules plus each custom
 * leaf's own keywords, and the level order (least sensitive first; default L1–L5). Build once per taxonomy version.
 */
export function buildClassifierContext(
  tags: readonly ClassifierTag[],
  options: { levels?: readonly string[]; version?: string } = {},
): ClassifierContext {
  const paths = new Set(tags.map((t) => t.chain_path));
  const parents = new Set<string>();
  for (const p of paths) {
    const i = p.lastIndexOf('/');
    if (i > 0) parents.add(p.slice(0, i));
  }
  const leaves: ContextLeaf[] = [];
  const byName = new Map<string, ContextLeaf>();
  const byId = new Map<number, ContextLeaf>();
  const known = new Set(RULES.map(([leaf]) => leaf));
  const extra: Array<[string, string]> = [];
  for (const t of tags) {
    if (parents.has(t.chain_path)) continue;
    const known_as = t.builtin_path ?? t.chain_path;
    const name = known_as.slice(known_as.lastIndexOf('/') + 1);
    const leaf: ContextLeaf = {
      id: t.id,
      name,
      label: t.chain_path.slice(t.chain_path.lastIndexOf('/') + 1),
      chain_path: t.chain_path,
      default_level: t.default_level,
      anchor: t.anchor ?? null,
    };
    leaves.push(leaf);
    byId.set(t.id, leaf);
    if (!byName.has(name)) byName.set(name, leaf);
    // Tags the rules do not know (an organisation's own) are found by their name and keywords.
    if (!known.has(name)) {
      const words = [name, ...parseKeywords(t.keywords)]
        .map((k) =>
          k
            .toLowerCase()
            .replace(/[^\p{L}\p{N}]+/gu, ' ')
            .trim(),
        )
        .filter((k) => k.length > 1);
      if (words.length > 0)
        extra.push([name, words.map((w) => `${w}*${(2.6 + 0.8 * (w.split(' ').length - 1)).toFixed(1)}`).join('|')]);
    }
  }
  const phrases = buildPhrases(extra);
  const matcher = new NameMatcher(phrases.map((p) => ({ ...p, words: p.words.flatMap((w) => w.split(' ')) })));
  // Custom keywords are canonicalised like names so `Kundennummer` keywords match `kundennummer` columns.
  const levels = options.levels ?? DEFAULT_LEVELS;
  return {
    version: options.version ?? CLASSIFIER_VERSION,
    leaves,
    byName,
    byId,
    matcher,
    levelRank: new Map(levels.map((l, i) => [l, i])),
  };
}

/** The context with the confirmed neighbours of one field attached. */
export function withConfirmed(ctx: ClassifierContext, confirmed: readonly ConfirmedNeighbour[]): ClassifierContext {
  return { ...ctx, confirmed };
}

interface Candidate {
  leaf: ContextLeaf;
  total: number;
  evidence: Evidence[];
}

const round = (x: number): number => Math.round(x * 100) / 100;

/** Weight of one confirmed neighbour's vote: nothing below 0.8 similarity, full at 1. */
function voteWeight(similarity: number): number {
  const x = (similarity - 0.8) / 0.2;
  return x <= 0 ? 0 : Math.min(1, x * x);
}

const CONFIRMED_WEIGHT = 7;
/** Vote weight (sum over the confirmed neighbours) at which confirmations count fully. */
const VOTES_FOR_FULL = 1.5;
const ANCHOR_WEIGHT = 0.45;
/** Below this cosine an anchor only adds to a tag other evidence speaks for. */
const ANCHOR_ALONE_MIN = 0.5;

function resolveLeaf(ctx: ClassifierContext, name: string): ContextLeaf | undefined {
  const direct = ctx.byName.get(name);
  if (direct) return direct;
  return Object.hasOwn(FALLBACK, name) ? ctx.byName.get(FALLBACK[name] as string) : undefined;
}

/** Classifies one field from the evidence it carries; see docs/classifier.md for the factors. */
export function classifyField(
  input: ClassifyInput & { readonly confirmed?: readonly ConfirmedNeighbour[] },
  ctx: ClassifierContext,
): Classification {
  const { raw_score: _raw, corroborated: _corroborated, points: _points, ...out } = scoreField(input, ctx);
  return out;
}

type AddEvidence = (leafName: string, factor: EvidenceFactor, score: number, detail: string) => void;
type Votes = Map<number, { weight: number; count: number; best: number }>;

/** The candidate tags of one field, each with its total and evidence; `add` credits a leaf by its name. */
function candidateBook(ctx: ClassifierContext): {
  cands: Map<number, Candidate>;
  cand: (leaf: ContextLeaf) => Candidate;
  add: AddEvidence;
} {
  const cands = new Map<number, Candidate>();
  const cand = (leaf: ContextLeaf): Candidate => {
    let c = cands.get(leaf.id);
    if (!c) {
      c = { leaf, total: 0, evidence: [] };
      cands.set(leaf.id, c);
    }
    return c;
  };
  const add: AddEvidence = (leafName, factor, score, detail) => {
    const leaf = resolveLeaf(ctx, leafName);
    if (!leaf) return;
    const c = cand(leaf);
    c.total += score;
    c.evidence.push({ factor, score: round(score), detail });
  };
  return { cands, cand, add };
}

/**
 * Name, table and comment. The strongest of name and table counts fully, the other a little (they often say the same
 * thing twice); the comment adds a smaller share. Returns whether any leaf was named, and the table's words.
 */
function addNameEvidence(
  ctx: ClassifierContext,
  input: ClassifyInput,
  add: AddEvidence,
): { named: boolean; tableWords: string[] } {
  const { matches, tableWords } = nameEvidence(ctx.matcher, {
    ...input,
    columns: columnsSignal(ctx, input.table_columns),
  });
  const perLeaf = new Map<string, { name?: NameMatch; table?: NameMatch; comment?: NameMatch }>();
  for (const m of matches) {
    const e = perLeaf.get(m.leaf) ?? {};
    // The other columns resolve a generic name as the table's name does: the stronger of the two counts.
    const slot = m.factor === 'context' ? 'table' : m.factor;
    const cur = e[slot];
    if (!cur || cur.score < m.score) e[slot] = m;
    perLeaf.set(m.leaf, e);
  }
  for (const [leafName, e] of perLeaf) {
    const n = e.name?.score ?? 0;
    const t = e.table?.score ?? 0;
    if (e.name && e.table) {
      if (n >= t) {
        add(leafName, 'name', n, e.name.detail);
        add(leafName, e.table.factor, 0.3 * t, e.table.detail);
      } else {
        add(leafName, e.table.factor, t, e.table.detail);
        add(leafName, 'name', 0.3 * n, e.name.detail);
      }
    } else if (e.name) add(leafName, 'name', n, e.name.detail);
    else if (e.table) add(leafName, e.table.factor, t, e.table.detail);
    if (e.comment) add(leafName, 'comment', e.comment.score * (n > 0 || t > 0 ? 0.5 : 1), e.comment.detail);
  }
  // A name whose every reading the declared type rules out (`last_passwd_gen` in a timestamp column) says nothing the
  // column can hold: the type speaks as it does for an unnamed column.
  const family = typeFamily(input.data_type);
  const named = [...perLeaf.keys()].some((leafName) => {
    const leaf = resolveLeaf(ctx, leafName);
    return leaf !== undefined && typeAllows(leaf.name, family);
  });
  return { named, tableWords };
}

/** The declared type: a weak prior when it is telling (boolean → flag, timestamp → time), or the class it names. */
function addDeclaredType(
  ctx: ClassifierContext,
  dataType: string | null | undefined,
  family: TypeFamily,
  named: boolean,
  add: AddEvidence,
): void {
  // A MySQL-style tiny integer holds flags and small enumerations far more often than measures.
  const numericDefault = TINY_INTEGER.test(dataType ?? '') ? 'Status flag' : 'Metric value';
  // A one-character text that nothing names holds a yes/no or a one-letter state (`Y`/`N`).
  const textDefault = SHORT_TEXT_TYPE.test(dataType ?? '') ? 'Status flag' : undefined;
  const prior =
    TYPE_PRIOR[family] ??
    (!named && (family === 'integer' || family === 'decimal') ? numericDefault : undefined) ??
    (!named && family === 'text' ? textDefault : undefined);
  if (prior !== undefined)
    add(
      prior,
      'data_type',
      named ? 0.3 : 0.9,
      `declared type ${family} suggests ${(resolveLeaf(ctx, prior)?.label ?? prior).toLowerCase()}`,
    );
  // An ORM relation typed by its entity (`office: Office`) holds a reference to that row; an enumeration's class
  // (`gateway: GatewayType`) a category. Not when the class names personal data itself (`address: Address`).
  const cls = family === 'unknown' || family === 'text' ? declaredClass(dataType) : null;
  if (cls !== null && !namesPersonalData(ctx, cls.name)) {
    if (cls.kind === 'entity')
      add(
        'Foreign key',
        'data_type',
        named ? 1.2 : 3.0,
        `declared type '${cls.name.slice(0, 40)}' is another entity: a reference to it`,
      );
    else
      add(
        'Category',
        'data_type',
        named ? 1.0 : 2.0,
        `declared type '${cls.name.slice(0, 40)}' is a list of named values`,
      );
  }
}

/** Confirmed neighbours vote, weighted by similarity: each confirmation teaches the classifier. */
function addConfirmedVotes(
  ctx: ClassifierContext,
  confirmed: readonly ConfirmedNeighbour[],
  cand: (leaf: ContextLeaf) => Candidate,
): Votes {
  const votes: Votes = new Map();
  for (const c of confirmed) {
    const w = voteWeight(c.similarity);
    if (w <= 0 || !ctx.byId.has(c.tag_id)) continue;
    const v = votes.get(c.tag_id) ?? { weight: 0, count: 0, best: 0 };
    v.weight += w;
    v.count++;
    v.best = Math.max(v.best, c.similarity);
    votes.set(c.tag_id, v);
  }
  if (votes.size === 0) return votes;
  const totalWeight = [...votes.values()].reduce((s, v) => s + v.weight, 0);
  for (const [tagId, v] of votes) {
    const leaf = ctx.byId.get(tagId) as ContextLeaf;
    // The tag's share of the votes, and never more than its own weight over VOTES_FOR_FULL: one confirmed field at
    // similarity 0.85 cannot outvote the name and the samples, two near-identical ones can (unanimous near-twins weigh most).
    const score = CONFIRMED_WEIGHT * (v.weight / Math.max(VOTES_FOR_FULL, totalWeight));
    const c = cand(leaf);
    c.total += score;
    c.evidence.push({
      factor: 'confirmed_fields',
      score: round(score),
      detail: `${v.count} confirmed field${v.count === 1 ? '' : 's'} nearby (similarity up to ${v.best.toFixed(2)}) ${v.count === 1 ? 'is' : 'are'} ${leaf.label}`,
    });
  }
  return votes;
}

/** The data-type gate removes tags that cannot hold this type; the best and second of the others. */
function rankCandidates(
  cands: ReadonlyMap<number, Candidate>,
  family: TypeFamily,
): { best: Candidate | undefined; second: Candidate | undefined; allowed: Candidate[]; ruledOut: Evidence[] } {
  const ruledOut: Evidence[] = [];
  let best: Candidate | undefined;
  let second: Candidate | undefined;
  const allowed: Candidate[] = [];
  for (const c of cands.values()) {
    if (!typeAllows(c.leaf.name, family)) {
      if (c.total > 0)
        ruledOut.push({
          factor: 'data_type',
          score: round(-c.total),
          detail: `declared type ${family} rules out ${c.leaf.label}`,
        });
      continue;
    }
    allowed.push(c);
    if (!best || c.total > best.total) {
      second = best;
      best = c;
    } else if (!second || c.total > second.total) second = c;
  }
  return { best, second, allowed, ruledOut };
}

/** Every factor's points per candidate tag, before the type gate ranks them. */
function gatherCandidates(
  input: ClassifyInput & { readonly confirmed?: readonly ConfirmedNeighbour[] },
  ctx: ClassifierContext,
): {
  cands: Map<number, Candidate>;
  family: TypeFamily;
  values: ValueSummary;
  votes: Votes;
  confirmed: readonly ConfirmedNeighbour[];
  tableWords: string[];
} {
  const { cands, cand, add } = candidateBook(ctx);
  const { named, tableWords } = addNameEvidence(ctx, input, add);
  // Sample values: the majority kind proves its tag and marks down the tags it contradicts.
  const family = typeFamily(input.data_type);
  const values =
    input.sample_values && input.sample_values.length > 0
      ? summarizeValues(input.sample_values)
      : (input.value_summary ?? summarizeValues(undefined));
  applyValues(values, add, cands);
  applyOwnKey(input, cands);
  addDeclaredType(ctx, input.data_type, family, named, add);
  const confirmed = input.confirmed ?? ctx.confirmed ?? [];
  const votes = addConfirmedVotes(ctx, confirmed, cand);
  // Embedding anchor: a small pull towards the tags whose anchors are nearest, one factor among many.
  // A guess from the embedding alone may put a column under sensitive data only in a table that holds people's data
  // (a table of people or a health table, by its name or by its other columns).
  const signal = columnsSignal(ctx, input.table_columns);
  const aboutPeople =
    tableWords.some((w) => PERSON_WORDS.has(w) || HEALTH_WORDS.has(w)) || (signal !== null && signal.person.size >= 2);
  if (input.embedding)
    applyAnchors(
      ctx,
      input.embedding,
      cand,
      (leaf) => (cands.get(leaf.id)?.total ?? 0) > 0,
      (leaf) => aboutPeople || !SENSITIVE_ROOTS.has(leaf.chain_path.split('/')[0] as string),
    );
  return { cands, family, values, votes, confirmed, tableWords };
}

/**
 * The points every factor gives each tag the declared type allows, by the tag's built-in name, and the tag that wins
 * when none has points (the type's default): what `scoreField` ranks, for experiments that add a factor outside the
 * classifier (bench/classify/fit-learned.ts) without changing what it answers.
 */
export function candidateTotals(
  input: ClassifyInput & { readonly confirmed?: readonly ConfirmedNeighbour[] },
  ctx: ClassifierContext,
): { totals: Array<{ leaf: string; total: number }>; family: TypeFamily; fallback: string } {
  const { cands, family, values } = gatherCandidates(input, ctx);
  const totals = [...cands.values()]
    .filter((c) => c.total !== 0 && typeAllows(c.leaf.name, family))
    .map((c) => ({ leaf: c.leaf.name, total: c.total }));
  return { totals, family, fallback: fallback(ctx, family, values).leaf.name };
}

/**
 * The points of the tags `scoreField` ranked: the winner's (0 when nothing had points and the type's default won) and
 * every tag the declared type allows that got any, by tag id.
 */
export interface CandidatePoints {
  readonly winner: number;
  readonly winnerTagId: number;
  readonly byTag: ReadonlyMap<number, number>;
}

/**
 * How many points the tag `tagId` trails the classifier's winner by (docs/metrics.md, "label gap"): 0 when the winner
 * is that tag; a tag the type rules out or that got no points counts 0 points (so the gap is the winner's points);
 * never below 0. Not clipped: the outlier model clips it.
 */
export function labelGap(points: CandidatePoints, tagId: number): number {
  if (tagId === points.winnerTagId) return 0;
  return Math.max(0, points.winner - (points.byTag.get(tagId) ?? 0));
}

/** The label gap of one field for a given tag: `labelGap` over a fresh `scoreField` (for callers with one tag to ask). */
export function labelGapOf(
  input: ClassifyInput & { readonly confirmed?: readonly ConfirmedNeighbour[] },
  ctx: ClassifierContext,
  tagId: number,
): number {
  return labelGap(scoreField(input, ctx).points, tagId);
}

/**
 * `classifyField` plus the raw (uncalibrated) confidence score, for fitting and checking the calibration, and the
 * points of the ranked tags (`labelGap` reads them: one classification answers both).
 */
export function scoreField(
  input: ClassifyInput & { readonly confirmed?: readonly ConfirmedNeighbour[] },
  ctx: ClassifierContext,
): Classification & { raw_score: number; corroborated: boolean; points: CandidatePoints } {
  if (ctx.leaves.length === 0) throw new Error('classifier context has no tags');
  const { cands, family, values, votes, confirmed, tableWords } = gatherCandidates(input, ctx);

  const ranked = rankCandidates(cands, family);
  const { allowed, ruledOut } = ranked;
  let { best, second } = ranked;
  if (!best || best.total <= 0) {
    best = fallback(ctx, family, values);
    second = undefined;
  }
  const top = best.total;
  const runnerUp = second && second.total > 0 ? second.total : 0;
  const raw = rawConfidence(top, runnerUp);
  // Names alone are read with less certainty than names the samples, the declared type or the organisation's own
  // confirmations bear out: each case has its own calibration (docs/classifier.md, "Confidence").
  const corroborated = isCorroborated(best, ruledOut);
  const confidence = Math.round(calibrate(raw, corroborated ? CALIBRATION : CALIBRATION_NAME_ONLY) * 1000) / 1000;

  const level = contextLevel(ctx, best, tableWords, chooseLevel(ctx, best, values, votes, confirmed));
  const winner = best;
  const forWinner = winner.evidence
    .filter((e) => e.score !== 0 || winner.total <= 0)
    .sort((a, b) => Math.abs(b.score) - Math.abs(a.score));
  const evidence = [
    ...forWinner,
    ...level.evidence,
    ...ruledOut.sort((a, b) => a.score - b.score).slice(0, 2),
    ...runnersUpEvidence(winner, allowed),
  ];
  return {
    tag_id: winner.leaf.id,
    chain_path: winner.leaf.chain_path,
    level: level.level,
    confidence,
    evidence: scrubSamples(evidence, input.sample_values),
    raw_score: raw,
    corroborated,
    points: {
      winner: Math.max(0, winner.total),
      winnerTagId: winner.leaf.id,
      byTag: new Map(allowed.map((c) => [c.leaf.id, c.total])),
    },
  };
}

/** `tinyint(4)`, `TINYINT UNSIGNED`, `unsignedTinyInteger`: a tiny integer (a `tinyint(1)` is already a boolean). */
const TINY_INTEGER = /tiny_?int/i;
/** `char(1)`, `varchar(1)`, `character(1)`: a text of one character. */
const SHORT_TEXT_TYPE = /^\s*(n?char|n?varchar|varchar2|character(\s+varying)?)\s*\(\s*1\s*\)/i;

/** Roots whose tags are sensitive data (the bench's personal / not-personal decision reads the same roots). */
const SENSITIVE_ROOTS: ReadonlySet<string> = new Set([
  'Personal',
  'Credentials & secrets',
  'Financial',
  'Health',
  'Location',
]);
/** Roots whose tags are data about a person; a class named after one (`Address`, `PhoneNumber`) holds that data. */
const PERSONAL_ROOTS: ReadonlySet<string> = new Set(['Personal', 'Credentials & secrets', 'Health', 'Location']);
function namesPersonalData(ctx: ClassifierContext, className: string): boolean {
  return ctx.matcher.match(ctx.matcher.words(className)).some((m) => {
    if (m.phrase.weight < 2.4) return false;
    const leaf = resolveLeaf(ctx, m.phrase.leaf);
    return leaf !== undefined && PERSONAL_ROOTS.has(leaf.chain_path.split('/')[0] as string);
  });
}

/** The strongest evidence for and against the best runners-up (the candidates the chosen tag beat), each marked with its tag. */
function runnersUpEvidence(best: Candidate, allowed: readonly Candidate[]): Evidence[] {
  const out: Evidence[] = [];
  const others = allowed
    .filter((c) => c !== best && c.total > 0)
    .sort((a, b) => b.total - a.total)
    .slice(0, RUNNERS_UP);
  for (const c of others) {
    // What spoke for it, and what cost it the most (the samples that contradict a name, say).
    const items = [
      ...c.evidence
        .filter((e) => e.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, RUNNER_UP_ITEMS),
      ...c.evidence
        .filter((e) => e.score < 0)
        .sort((a, b) => a.score - b.score)
        .slice(0, 1),
    ];
    for (const e of items) out.push({ factor: e.factor, score: e.score, detail: e.detail, for: c.leaf.chain_path });
  }
  return out;
}

/**
 * Whether evidence besides the words of the name bears the answer out: the samples or confirmed neighbours speak for
 * it, the declared type suggests it, or the type ruled out a real competitor. A text type and no samples is names alone.
 */
function isCorroborated(best: Candidate, ruledOut: readonly Evidence[]): boolean {
  for (const e of best.evidence) {
    if (e.score > 0 && (e.factor === 'values' || e.factor === 'confirmed_fields' || e.factor === 'data_type'))
      return true;
  }
  return ruledOut.some((e) => e.score <= -1);
}

/** Tags of measured quantities. */
const MEASURE_LEAVES: ReadonlySet<string> = new Set([
  'Monetary amount',
  'Price',
  'Account balance',
  'Salary',
  'Quantity',
  'Metric value',
]);

/**
 * A column with a key of its own beside it (`country_total` and `country_total_id`) names the row that key points to
 * — a label kept next to its key — and measures nothing: measure tags lose what the words gave them.
 */
function applyOwnKey(input: ClassifyInput, cands: Map<number, Candidate>): void {
  const cols = input.table_columns;
  if (!Array.isArray(cols) || typeof input.field_name !== 'string' || input.field_name === '') return;
  const norm = (x: string): string => x.toLowerCase().replace(/[^a-z0-9]/g, '');
  const ownKey = `${norm(input.field_name)}id`;
  const sibling = cols.slice(0, 400).find((c) => typeof c === 'string' && norm(c) === ownKey);
  if (sibling === undefined) return;
  for (const c of cands.values()) {
    if (c.total <= 0 || !MEASURE_LEAVES.has(c.leaf.name)) continue;
    const penalty = -c.total;
    c.total = 0;
    c.evidence.push({
      factor: 'context',
      score: round(penalty),
      detail: `column has its own key '${sibling.slice(0, 40)}' beside it: it names a row, it measures nothing`,
    });
  }
}

function applyValues(
  values: ValueSummary,
  add: (leaf: string, f: EvidenceFactor, s: number, d: string) => void,
  cands: Map<number, Candidate>,
): void {
  if (values.considered === 0) return;
  const kind = values.majority;
  if (kind === null) return;
  const rule = KIND_RULES[kind];
  const count = values.counts.get(kind) ?? 0;
  const share = values.majorityShare;
  const phrase = KIND_PHRASE[kind];
  const strength = Math.min(1, (share - 0.3) / 0.5) * Math.min(1, 0.5 + values.considered / 10);
  if (rule.proves) {
    const [leaf, score] = rule.proves;
    add(leaf, 'values', score * strength, `${count} of ${values.considered} non-null samples are ${phrase}`);
  }
  if (rule.compatible !== null && share >= 0.6) {
    for (const c of cands.values()) {
      if (c.total <= 0 || rule.compatible.has(c.leaf.name) || rule.proves?.[0] === c.leaf.name) continue;
      const penalty = -Math.min(c.total * 0.6, 3.5) * strength;
      c.total += penalty;
      c.evidence.push({
        factor: 'values',
        score: round(penalty),
        detail: `${count} of ${values.considered} non-null samples are ${phrase}, unlike ${c.leaf.label.toLowerCase()}`,
      });
    }
  }
}

function applyAnchors(
  ctx: ClassifierContext,
  embedding: Float32Array,
  cand: (leaf: ContextLeaf) => Candidate,
  spokenFor: (leaf: ContextLeaf) => boolean,
  mayStandAlone: (leaf: ContextLeaf) => boolean,
): void {
  const sims: Array<{ leaf: ContextLeaf; sim: number }> = [];
  for (const leaf of ctx.leaves) {
    const a = leaf.anchor;
    if (!a || a.length !== embedding.length) continue;
    let dot = 0;
    for (let i = 0; i < a.length; i++) dot += (a[i] as number) * (embedding[i] as number);
    sims.push({ leaf, sim: dot });
  }
  if (sims.length < 4) return;
  sims.sort((x, y) => y.sim - x.sim);
  const ref = (sims[3] as { sim: number }).sim;
  const span = (sims[0] as { sim: number }).sim - ref;
  if (span <= 1e-6) return;
  for (const { leaf, sim } of sims.slice(0, 3)) {
    const score = ANCHOR_WEIGHT * ((sim - ref) / span);
    if (score <= 0.05) continue;
    // A weak anchor is a guess: it may add to a tag something else speaks for, never bring one in on its own (a
    // store's integer `sid` once became a national id number, L5, on a cosine of 0.39 and nothing else).
    if (!spokenFor(leaf) && (sim < ANCHOR_ALONE_MIN || !mayStandAlone(leaf))) continue;
    const c = cand(leaf);
    c.total += score;
    c.evidence.push({
      factor: 'anchor',
      score: round(score),
      detail: `embedding is among the nearest to the ${leaf.label} anchor (cosine ${sim.toFixed(2)})`,
    });
  }
}

/** Nothing spoke: the type's usual technical tag, else a generic technical one, with low confidence. */
function fallback(ctx: ClassifierContext, family: TypeFamily, values: ValueSummary): Candidate {
  const byType = TYPE_PRIOR[family];
  const name = byType ?? (family === 'integer' || family === 'decimal' ? 'Metric value' : 'Object name');
  const leaf = resolveLeaf(ctx, name) ?? resolveLeaf(ctx, 'Configuration setting') ?? (ctx.leaves[0] as ContextLeaf);
  const why = values.considered > 0 ? 'samples show no known format' : 'no samples';
  return {
    leaf,
    total: 0,
    evidence: [
      { factor: 'name', score: 0, detail: `no rule matches the name and ${why}: a technical default for review` },
    ],
  };
}

/** The tag's default level, unless confirmations or a sensitive minority of the samples say otherwise. */
function chooseLevel(
  ctx: ClassifierContext,
  best: Candidate,
  values: ValueSummary,
  votes: ReadonlyMap<number, { weight: number; count: number; best: number }>,
  confirmed: readonly ConfirmedNeighbour[],
): { level: string; evidence: Evidence[]; reviewed: boolean } {
  let level = best.leaf.default_level;
  const evidence: Evidence[] = [];
  let reviewed = false;
  const rank = (l: string): number => ctx.levelRank.get(l) ?? -1;
  // Near-identical confirmed fields of the same tag carry the level reviewers chose for it.
  if (votes.has(best.leaf.id)) {
    const levelVotes = new Map<string, number>();
    for (const c of confirmed) {
      if (c.tag_id !== best.leaf.id || !c.level || c.similarity < 0.9 || !ctx.levelRank.has(c.level)) continue;
      levelVotes.set(c.level, (levelVotes.get(c.level) ?? 0) + voteWeight(c.similarity));
    }
    const top = [...levelVotes.entries()].sort((a, b) => b[1] - a[1] || rank(b[0]) - rank(a[0]))[0];
    reviewed = top !== undefined;
    if (top && top[0] !== level) {
      evidence.push({
        factor: 'confirmed_fields',
        score: 0,
        detail: `level ${top[0]} as reviewers set it on near-identical confirmed fields`,
      });
      level = top[0];
    }
  }
  // A minority of card numbers, e-mails or secrets in a column is still a leak: raise the level to theirs.
  if (values.considered >= 2) {
    for (const [kind, count] of values.counts) {
      const rule = KIND_RULES[kind as ValueKind];
      if (!rule.sensitive || !rule.proves) continue;
      if (count < 2 || count / values.considered < 0.1) continue;
      const leaf = resolveLeaf(ctx, rule.proves[0]);
      if (!leaf || leaf.id === best.leaf.id) continue;
      if (rank(leaf.default_level) > rank(level)) {
        evidence.push({
          factor: 'values',
          score: 0,
          detail: `${count} of ${values.considered} samples are ${KIND_PHRASE[kind as ValueKind]}: level raised to ${leaf.default_level}`,
        });
        level = leaf.default_level;
      }
    }
  }
  return { level, evidence, reviewed };
}

/** Tables of places an organisation runs: their contact details are the organisation's own, published ones. */
const ESTABLISHMENT_WORDS: ReadonlySet<string> = new Set(
  'office store shop branch warehouse site facility depot agency'.split(' '),
);
const ESTABLISHMENT_CONTACTS: ReadonlySet<string> = new Set(['Email address', 'Phone number', 'Postal address']);

/**
 * What the table says about the level: an office's or a store's address, phone and e-mail are published (the least
 * sensitive level), and free-text notes in a health table can hold what a diagnosis holds (its level). Near-identical
 * confirmed fields of the tag that carry a level have the last word, also when it is the tag's default.
 */
function contextLevel(
  ctx: ClassifierContext,
  best: Candidate,
  table: readonly string[],
  chosen: { level: string; evidence: Evidence[]; reviewed: boolean },
): { level: string; evidence: Evidence[] } {
  if (chosen.reviewed) return chosen;
  const rank = (l: string): number => ctx.levelRank.get(l) ?? -1;
  const has = (set: ReadonlySet<string>): boolean => table.some((w) => set.has(w));
  if (ESTABLISHMENT_CONTACTS.has(best.leaf.name) && has(ESTABLISHMENT_WORDS) && !has(PERSON_WORDS)) {
    const lowest = [...ctx.levelRank.entries()].sort((a, b) => a[1] - b[1])[0]?.[0];
    if (lowest !== undefined && rank(lowest) < rank(chosen.level)) {
      return {
        level: lowest,
        evidence: [
          ...chosen.evidence,
          {
            factor: 'table',
            score: 0,
            detail: `${best.leaf.label.toLowerCase()} of a place (table '${table.join(' ')}'), not of a person: level ${lowest}`,
          },
        ],
      };
    }
  }
  if (best.leaf.name === 'Internal notes' && has(HEALTH_WORDS)) {
    const diagnosis = resolveLeaf(ctx, 'Diagnosis');
    if (diagnosis && rank(diagnosis.default_level) > rank(chosen.level)) {
      return {
        level: diagnosis.default_level,
        evidence: [
          ...chosen.evidence,
          {
            factor: 'table',
            score: 0,
            detail: `free-text notes in a health table (table '${table.join(' ')}') can hold diagnoses: level ${diagnosis.default_level}`,
          },
        ],
      };
    }
  }
  return chosen;
}

/** Belt and braces: a detail that happens to contain a sample value is replaced, so none is ever echoed. */
function scrubSamples(evidence: Evidence[], samples: readonly unknown[] | null | undefined): Evidence[] {
  if (!samples || samples.length === 0) return evidence;
  const needles: string[] = [];
  for (const s of samples.slice(0, 200)) {
    if (typeof s === 'string' || typeof s === 'number' || typeof s === 'bigint') {
      const v = String(s).trim().toLowerCase();
      if (v.length >= 3) needles.push(v);
    }
  }
  if (needles.length === 0) return evidence;
  return evidence.map((e) => {
    const d = e.detail.toLowerCase();
    return needles.some((n) => d.includes(n))
      ? { ...e, detail: `${e.factor.replace('_', ' ')} evidence (wording withheld: it would repeat a sample value)` }
      : e;
  });
}
