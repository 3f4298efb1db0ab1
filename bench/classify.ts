// Classifier benchmark: top-1 accuracy, false positives on explicit negatives, a column-name regex baseline in
// the style of piicatcher's name scanner, a calibration table and throughput, on FieldLens's own labelled set
// (bench/classify/own-set.txt) and on the shared external sets (read in place, never copied into the repository).
//
//   npx tsx bench/classify.ts            measure every set
//   npx tsx bench/classify.ts --fit      also fit the isotonic calibration on the own set and the public development
//                                        half (never the held-out half nor the shared sets) and print the tables
//   CALIBRATION_FORMS=1                  also compare forms of the calibration, development half leave-one-source-out
//   npx tsx bench/classify.ts --errors   list the misses of the own set and of the public schemas of the development half
//                                        (never the shared sets' nor the held-out half's: they stay held out)
//   npx tsx bench/classify.ts --check-labels   parse the public-schema sets (fresh ones too) and count them, classifying nothing
//   BENCH_FRESH=1 | fresh2               also measure a blind set (bench/classify/fresh/ or fresh2/) as a third part; its
//                                        misses are never listed (bench/classify/LABELLING.md, "Fresh sets")
//   CONFIRM_SHARES=0.1,0.25              also measure a reviewer's first pass: that share of each part confirmed, the
//                                        rest classified again with the confirmations voting
//   FIELDLENS_EXTERNAL_LABELS=/path      where the shared sets are (default ../shared/data/external-labels)
//
// Besides the cold figures it prints top-1 "with confirmations": each labelled field classified as if the organisation
// had confirmed every other labelled field of the same set (leave one out; the nearest CONFIRMED_NEIGHBOURS by
// embedding, as the service finds them), i.e. how far the classifier follows an organisation's own conventions.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEmbedder } from '../src/embeddings/embedder.js';
import {
  calibrate,
  CALIBRATION,
  CALIBRATION_NAME_ONLY,
  type CalibrationTable,
  fitIsotonic,
} from '../src/modules/classifier/calibration.js';
import {
  buildClassifierContext,
  scoreField,
  type ClassifierContext,
  type ConfirmedNeighbour,
} from '../src/modules/classifier/classifier.js';
import { flattenTaxonomy } from '../src/modules/taxonomy/default-taxonomy.js';
import { fitLogistic, linearPredictor } from './quality/logistic.js';
import {
  CATEGORY_LEAVES,
  freshDirs,
  loadOwnSet,
  loadPublicSets,
  SENSITIVE_ROOTS,
  withTableColumns,
  type BenchField,
  type Half,
} from './classify/sets.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const externalDir = process.env.FIELDLENS_EXTERNAL_LABELS ?? path.resolve(repoRoot, '../shared/data/external-labels');
const args = new Set(process.argv.slice(2));

interface ExternalRow {
  dataset?: string;
  table: string;
  column: string;
  data_type: string | null;
  sample_values?: unknown[];
  fieldlens_category: string | null;
  is_personal: boolean | null;
}

function loadExternal(file: string): BenchField[] {
  const rows = readFileSync(path.join(externalDir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ExternalRow);
  const dataset = new Map<BenchField, string>();
  const fields = rows.map((r) => {
    const f: BenchField = {
      input: {
        table_name: r.table,
        field_name: r.column,
        data_type: r.data_type,
        sample_values: r.sample_values ?? undefined,
      },
      accept: r.fieldlens_category ? (CATEGORY_LEAVES[r.fieldlens_category] ?? []) : [],
      negative: r.is_personal === false,
      sensitive: r.is_personal ?? undefined,
    };
    dataset.set(f, r.dataset ?? '');
    return f;
  });
  return withTableColumns(fields, (f) => `${dataset.get(f)}\u0000${f.input.table_name}`);
}

// ------------------------------------------------------------------------------------------------------------
// Baseline: column-name regexes in the style of piicatcher's ColumnNameRegexDetector (first match wins), mapped
// onto default leaves; no match = "not sensitive" (no tag).

const BASELINE: ReadonlyArray<readonly [RegExp, string]> = [
  [/^.*(firstname|fname|lastname|lname|fullname|maidenname|_name|nickname|name_suffix|name|person).*$/i, 'Full name'],
  [/^.*(email|e-mail|mail).*$/i, 'Email address'],
  [/^.*(date_of_birth|dateofbirth|dob|birthday|date_of_death|dateofdeath|birthdate).*$/i, 'Date of birth'],
  [/^.*(gender).*$/i, 'Gender'],
  [/^.*(nationality).*$/i, 'Country'],
  [/^.*(address|city|state|county|country|zone|borough).*$/i, 'Postal address'],
  [/^.*(zipcode|zip_code|postal|postal_code|zip).*$/i, 'Postal code'],
  [/^.*user(id|name|).*$/i, 'Username'],
  [/^.*pass.*$/i, 'Password hash'],
  [/^.*(ssn|social_number|social_security|social_security_number|social_security_no).*$/i, 'National ID number'],
  [/^.*(po_box|pobox).*$/i, 'Postal address'],
  [/^.*(credit_card|cc_number|cc_num|creditcard|credit_card_num|creditcardnumber).*$/i, 'Payment card number'],
  [/^.*(phone|phone_number|phone_no|phone_num|telephone|telephone_num|telephone_no).*$/i, 'Phone number'],
];

function baseline(field: string): string | null {
  for (const [re, leaf] of BASELINE) if (re.test(field)) return leaf;
  return null;
}

// ------------------------------------------------------------------------------------------------------------

/** As the metrics service gives the classifier: the confirmed fields among a field's 20 nearest. */
const CONFIRMED_NEIGHBOURS = 20;

/** The CONFIRMED_NEIGHBOURS confirmed fields most similar to `e` (unit embeddings: the dot is the cosine). */
function nearestConfirmed(
  e: Float32Array,
  confirmed: ReadonlyArray<{ e: Float32Array; tagId: number }>,
): ConfirmedNeighbour[] {
  return confirmed
    .map((c) => {
      let dot = 0;
      for (let d = 0; d < e.length; d++) dot += (e[d] as number) * (c.e[d] as number);
      return { similarity: dot, tag_id: c.tagId };
    })
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, CONFIRMED_NEIGHBOURS);
}

/**
 * Top-1 when every other labelled field of the set is confirmed (its tag = the first leaf its category accepts), and
 * the field's nearest confirmed fields vote: the classifier learning the organisation's conventions.
 */
function withConfirmations(
  fields: BenchField[],
  ctx: ClassifierContext,
  embeddings: Float32Array[],
  tagIdOf: ReadonlyMap<string, number>,
): { scored: number; right: number; changed: number } {
  const labelled = fields.flatMap((f, i) => (f.accept.length > 0 && tagIdOf.has(f.accept[0] as string) ? [i] : []));
  let right = 0;
  let changed = 0;
  for (const i of labelled) {
    const f = fields[i] as BenchField;
    const e = embeddings[i] as Float32Array;
    const near = nearestConfirmed(
      e,
      labelled
        .filter((j) => j !== i)
        .map((j) => ({
          e: embeddings[j] as Float32Array,
          tagId: tagIdOf.get((fields[j] as BenchField).accept[0] as string) as number,
        })),
    );
    const cold = scoreField({ ...f.input, embedding: e }, ctx);
    const taught = scoreField({ ...f.input, embedding: e, confirmed: near }, ctx);
    const leaf = taught.chain_path.slice(taught.chain_path.lastIndexOf('/') + 1);
    if (f.accept.includes(leaf)) right++;
    if (taught.tag_id !== cold.tag_id) changed++;
  }
  return { scored: labelled.length, right, changed };
}

interface SetResult {
  name: string;
  fields: number;
  scored: number;
  accuracy: number;
  baselineAccuracy: number;
  negatives: number;
  fpRate: number;
  baselineFpRate: number;
  /** Share of the fields whose source says whether they are sensitive for which the answer's root agrees. */
  sensitiveRight: number;
  calibration: Array<{ bucket: string; n: number; meanConfidence: number; right: number }>;
  confidences: Array<{ c: number; right: boolean }>;
  fieldsPerSecond: number;
  points: Array<{ raw: number; right: boolean; corroborated: boolean }>;
  misses: string[];
}

function runSet(
  name: string,
  fields: BenchField[],
  ctx: ClassifierContext,
  embeddings: Float32Array[] | null,
  throughputSeconds = 2,
): SetResult {
  const results = fields.map((f, i) =>
    scoreField(embeddings ? { ...f.input, embedding: embeddings[i] } : f.input, ctx),
  );
  let scored = 0;
  let right = 0;
  let baseRight = 0;
  let negatives = 0;
  let fp = 0;
  let baseFp = 0;
  const points: SetResult['points'] = [];
  const confs: Array<{ c: number; right: boolean }> = [];
  const misses: string[] = [];
  let decided = 0;
  let decidedRight = 0;
  results.forEach((r, i) => {
    const f = fields[i] as BenchField;
    const leaf = r.chain_path.slice(r.chain_path.lastIndexOf('/') + 1);
    const root = r.chain_path.split('/')[0] as string;
    if (f.sensitive !== undefined) {
      decided++;
      if (SENSITIVE_ROOTS.has(root) === f.sensitive) decidedRight++;
    }
    const base = baseline(f.input.field_name);
    if (f.accept.length > 0) {
      scored++;
      const ok = f.accept.includes(leaf);
      if (ok) right++;
      else
        misses.push(
          `${f.input.table_name}.${f.input.field_name} [${f.input.data_type ?? ''}] want ${f.accept[0]} got ${leaf} (${r.confidence}) :: ${r.evidence.map((e) => `${e.factor} ${e.score}`).join(', ')}${f.note ? ` (labeller's note, not read by the classifier: ${f.note})` : ''}`,
        );
      if (base !== null && f.accept.includes(base)) baseRight++;
      confs.push({ c: r.confidence, right: ok });
      points.push({ raw: r.raw_score, right: ok, corroborated: r.corroborated });
    }
    if (f.negative) {
      negatives++;
      if (SENSITIVE_ROOTS.has(root)) fp++;
      if (base !== null) baseFp++;
    }
  });
  // Throughput on one core: the same fields classified repeatedly for about two CPU-seconds, samples included.
  // Measured in this process's CPU time, so a machine shared with other work does not understate it.
  const inputs = fields.map((f, i) => (embeddings ? { ...f.input, embedding: embeddings[i] } : f.input));
  let n = 0;
  const c0 = process.cpuUsage();
  let elapsed = 0;
  while (elapsed < throughputSeconds * 1e9) {
    for (const inp of inputs) scoreField(inp, ctx);
    n += inputs.length;
    const c = process.cpuUsage(c0);
    elapsed = (c.user + c.system) * 1000;
  }
  const calibration = bucketize(confs);
  return {
    name,
    fields: fields.length,
    scored,
    accuracy: scored ? right / scored : NaN,
    baselineAccuracy: scored ? baseRight / scored : NaN,
    negatives,
    fpRate: negatives ? fp / negatives : NaN,
    baselineFpRate: negatives ? baseFp / negatives : NaN,
    sensitiveRight: decided ? decidedRight / decided : NaN,
    calibration,
    confidences: confs,
    fieldsPerSecond: elapsed > 0 ? n / (elapsed / 1e9) : NaN,
    points,
    misses,
  };
}

/** Confidence bucket → share right. */
function bucketize(confs: ReadonlyArray<{ c: number; right: boolean }>): SetResult['calibration'] {
  const buckets = [0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0001];
  const out: SetResult['calibration'] = [];
  for (let b = 0; b + 1 < buckets.length; b++) {
    const lo = buckets[b] as number;
    const hi = buckets[b + 1] as number;
    const inB = confs.filter((x) => x.c >= lo && x.c < hi);
    if (inB.length === 0) continue;
    out.push({
      bucket: `${lo.toFixed(2)}–${Math.min(1, hi).toFixed(2)}`,
      n: inB.length,
      meanConfidence: inB.reduce((s, x) => s + x.c, 0) / inB.length,
      right: inB.filter((x) => x.right).length / inB.length,
    });
  }
  return out;
}

/**
 * The public-schema sets, one row per source (schema) and one per half. Nothing is fitted on them (the calibration is
 * fitted on the own set), so each source's figure is already a leave-one-source-out figure; the held-out half is the
 * estimate for a schema no one has looked at. Misses are listed (--errors) for the development half only.
 */
async function printPublicSets(
  ctx: ClassifierContext,
  embedder: ReturnType<typeof createEmbedder>,
  withAnchor: boolean,
): Promise<PublicRow[]> {
  const sources = loadPublicSets();
  if (sources.length === 0) return [];
  const rows: PublicRow[] = [];
  const embedded: Array<{ source: string; half: Half; fields: BenchField[]; embeddings: Float32Array[] }> = [];
  for (const s of sources) {
    const embeddings = withAnchor
      ? await embedder.embedFields(
          s.fields.map((f) => ({
            table_name: f.input.table_name,
            field_name: f.input.field_name,
            comment: f.input.comment ?? null,
            data_type: f.input.data_type ?? null,
          })),
        )
      : null;
    rows.push({ source: s.source, half: s.half, r: runSet(s.source, s.fields, ctx, embeddings, 0) });
    if (embeddings) embedded.push({ source: s.source, half: s.half, fields: s.fields, embeddings });
  }
  console.log(
    `\nPublic schemas (${['public', ...freshDirs()].map((d) => `bench/classify/${d}`).join(', ')}; each schema a source, nothing fitted on any of them):`,
  );
  console.log(
    '| source | half | fields | top-1 | baseline top-1 | negatives | false positives | baseline FP | personal decision right |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  const line = (
    name: string,
    half: string,
    r: Pick<
      SetResult,
      'fields' | 'accuracy' | 'baselineAccuracy' | 'negatives' | 'fpRate' | 'baselineFpRate' | 'sensitiveRight'
    >,
  ): void =>
    console.log(
      `| ${name} | ${half} | ${r.fields} | ${fmt(r.accuracy)} | ${fmt(r.baselineAccuracy)} | ${r.negatives} | ${fmt(r.fpRate)} | ${fmt(r.baselineFpRate)} | ${fmt(r.sensitiveRight)} |`,
    );
  for (const { source, half, r } of rows) line(source, half, r);
  // 'all' stays the development and held-out halves together, as before the fresh sets existed.
  for (const half of ['development', 'held-out', 'fresh', 'all']) {
    const inHalf = rows.filter((x) => (half === 'all' ? x.half !== 'fresh' : x.half === half)).map((x) => x.r);
    if (inHalf.length === 0) continue;
    const sum = (f: (r: SetResult) => number): number => inHalf.reduce((a, r) => a + f(r), 0);
    const scored = sum((r) => r.scored);
    const negatives = sum((r) => r.negatives);
    const fields = sum((r) => r.fields);
    line(`**${half}** (${inHalf.length} sources)`, half, {
      fields,
      accuracy: sum((r) => r.accuracy * r.scored) / scored,
      baselineAccuracy: sum((r) => r.baselineAccuracy * r.scored) / scored,
      negatives,
      fpRate: negatives ? sum((r) => (r.negatives ? r.fpRate * r.negatives : 0)) / negatives : NaN,
      baselineFpRate: negatives ? sum((r) => (r.negatives ? r.baselineFpRate * r.negatives : 0)) / negatives : NaN,
      sensitiveRight: sum((r) => r.sensitiveRight * r.fields) / fields,
    });
  }
  // The same figures as counts (for step tables: a rule that moves one field shows as one field).
  for (const half of ['development', 'held-out', 'fresh']) {
    const inHalf = rows.filter((x) => x.half === half).map((x) => x.r);
    if (inHalf.length === 0) continue;
    const count = (f: (r: SetResult) => number): number => inHalf.reduce((a, r) => a + Math.round(f(r)), 0);
    console.log(
      `Counts, ${half}: top-1 ${count((r) => r.accuracy * r.scored)} of ${count((r) => r.scored)}, false positives ` +
        `${count((r) => (r.negatives ? r.fpRate * r.negatives : 0))} of ${count((r) => r.negatives)}, personal ` +
        `decision wrong on ${count((r) => (1 - r.sensitiveRight) * r.fields)} of ${count((r) => r.fields)}`,
    );
  }
  for (const half of ['fresh', 'held-out', 'development']) {
    const worst = rows
      .filter((x) => x.half === half)
      .sort((a, b) => a.r.accuracy - b.r.accuracy)
      .slice(0, 3);
    if (worst.length > 0)
      console.log(`Worst ${half} sources: ${worst.map((w) => `${w.source} (top-1 ${fmt(w.r.accuracy)})`).join(', ')}`);
  }
  for (const half of ['fresh', 'held-out', 'development']) {
    if (!rows.some((x) => x.half === half)) continue;
    printCalibration(
      `Calibration, public schemas, ${half} half, as shipped (scored fields)`,
      bucketize(rows.filter((x) => x.half === half).flatMap((x) => x.r.confidences)),
    );
  }
  if (process.env.CONFIRM_SHARES) printReviewersFirstPass(embedded, ctx, process.env.CONFIRM_SHARES);
  if (args.has('--errors')) {
    for (const { source, r } of rows.filter((x) => x.half === 'development')) {
      console.log(`\nMisses, ${source} (development half, ${r.misses.length}):`);
      for (const m of r.misses) console.log(`  ${m}`);
    }
  }
  return rows;
}

/**
 * `CONFIRM_SHARES=0.1,0.25`: what a reviewer's first pass over unfamiliar schemas buys at the next scan. In each part,
 * a seeded share of every source's labelled fields is confirmed at its label (the first leaf its category accepts);
 * every other labelled field is classified again with its nearest confirmed fields of the whole part voting (the
 * organisation's confirmations across its databases, as the service passes them), and its top-1 compared with the
 * cold answer. The draw is a hash of source, table, column and share: the same fields every run.
 */
function printReviewersFirstPass(
  embedded: ReadonlyArray<{ source: string; half: Half; fields: BenchField[]; embeddings: Float32Array[] }>,
  ctx: ClassifierContext,
  shares: string,
): void {
  const tagIdOf = new Map(ctx.leaves.map((l) => [l.chain_path.slice(l.chain_path.lastIndexOf('/') + 1), l.id]));
  console.log(
    `\nA reviewer's first pass (CONFIRM_SHARES=${shares}; top-1 of the fields not confirmed, the next scan):`,
  );
  console.log(
    '| part | confirmed share | confirmed | other fields | top-1 cold | top-1 with the confirmations | right → wrong |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const share of shares.split(',').map(Number)) {
    if (!(share > 0 && share < 1)) continue;
    for (const half of ['development', 'held-out', 'fresh'] as const) {
      const all = embedded
        .filter((x) => x.half === half)
        .flatMap((x) =>
          x.fields.flatMap((f, i) =>
            f.accept.length > 0 && tagIdOf.has(f.accept[0] as string)
              ? [{ source: x.source, f, e: x.embeddings[i] as Float32Array }]
              : [],
          ),
        );
      if (all.length === 0) continue;
      const drawn = (x: (typeof all)[number]): boolean =>
        (createHash('sha256')
          .update(`${x.source}\u0000${x.f.input.table_name}\u0000${x.f.input.field_name}\u0000${share}`)
          .digest()
          .readUInt32BE(0) as number) /
          2 ** 32 <
        share;
      const confirmed = all
        .filter(drawn)
        .map((c) => ({ e: c.e, tagId: tagIdOf.get(c.f.accept[0] as string) as number }));
      const others = all.filter((x) => !drawn(x));
      let cold = 0;
      let taught = 0;
      let lost = 0;
      for (const x of others) {
        const near = nearestConfirmed(x.e, confirmed);
        const leafOf = (r: { chain_path: string }): string => r.chain_path.slice(r.chain_path.lastIndexOf('/') + 1);
        const before = x.f.accept.includes(leafOf(scoreField({ ...x.f.input, embedding: x.e }, ctx)));
        const after = x.f.accept.includes(leafOf(scoreField({ ...x.f.input, embedding: x.e, confirmed: near }, ctx)));
        if (before) cold++;
        if (after) taught++;
        if (before && !after) lost++;
      }
      console.log(
        `| ${half} | ${share} | ${confirmed.length} | ${others.length} | ${fmt(cold / others.length)} | ${fmt(taught / others.length)} | ${lost} |`,
      );
    }
  }
}

interface PublicRow {
  source: string;
  half: Half;
  r: SetResult;
}

function printCalibration(title: string, rows: SetResult['calibration']): void {
  console.log(`\n${title}:`);
  console.log('| confidence | fields | mean confidence | share right | gap |');
  console.log('|---|---|---|---|---|');
  for (const c of rows)
    console.log(
      `| ${c.bucket} | ${c.n} | ${c.meanConfidence.toFixed(3)} | ${c.right.toFixed(3)} | ${((c.right - c.meanConfidence) * 100).toFixed(1)} pt${c.n >= 30 ? '' : ' (n<30)'} |`,
    );
}

function fmt(x: number): string {
  return Number.isNaN(x) ? '—' : x.toFixed(3);
}

async function main(): Promise<void> {
  if (args.has('--check-labels')) {
    // Parses the public-schema sets, the fresh ones too, and prints what they hold, without classifying anything (for
    // labellers, who must not see the classifier's answers: `npx tsx bench/classify.ts --check-labels`).
    process.env.BENCH_FRESH = 'all';
    let total = 0;
    for (const s of loadPublicSets()) {
      const sensitive = s.fields.filter((f) => f.sensitive).length;
      const tables = new Set(s.fields.map((f) => f.input.table_name)).size;
      console.log(`${s.source}: ${s.fields.length} columns in ${tables} tables, ${sensitive} sensitive (${s.half})`);
      total += s.fields.length;
    }
    console.log(`total: ${total} columns`);
    return;
  }
  const flat = flattenTaxonomy();
  const embedder = createEmbedder({ provider: 'builtin' });
  const anchorTexts = flat.map((t) =>
    [t.name, t.chain_path.split('/').join(' '), t.description, t.keywords.join(', ')].join('. '),
  );
  const anchors = args.has('--no-anchor') ? null : await embedder.embedTexts(anchorTexts);
  const tags = flat.map((t, i) => ({
    id: i + 1,
    chain_path: t.chain_path,
    default_level: t.default_level,
    keywords: t.keywords,
    anchor: anchors ? (anchors[i] as Float32Array) : null,
  }));
  const ctx = buildClassifierContext(tags);

  const own = loadOwnSet();
  // The same fields read by their names alone (types and samples withheld), as many external rows arrive: the set the
  // name-only calibration is fitted on.
  const ownNamesOnly = own.map((f) => ({ ...f, input: { ...f.input, data_type: null, sample_values: undefined } }));
  const sets: Array<[string, BenchField[]]> = [
    ['own set (bench/classify/own-set.txt)', own],
    ['own set, names only (types and samples withheld)', ownNamesOnly],
  ];
  for (const file of [
    'fides_db.jsonl',
    'datahub_classify.jsonl',
    'piicatcher_tests.jsonl',
    'openmetadata_tests.jsonl',
  ]) {
    if (existsSync(path.join(externalDir, file))) sets.push([file, loadExternal(file)]);
    else console.log(`(skipped ${file}: not found under ${externalDir})`);
  }

  const results: SetResult[] = [];
  const taught: Array<{ name: string; scored: number; right: number; changed: number }> = [];
  const tagIdOf = new Map(tags.map((t) => [t.chain_path.slice(t.chain_path.lastIndexOf('/') + 1), t.id]));
  for (const [name, fields] of sets) {
    const embeddings = anchors
      ? await embedder.embedFields(
          fields.map((f) => ({
            table_name: f.input.table_name,
            field_name: f.input.field_name,
            comment: f.input.comment ?? null,
            data_type: f.input.data_type ?? null,
          })),
        )
      : null;
    results.push(runSet(name, fields, ctx, embeddings));
    if (embeddings) taught.push({ name, ...withConfirmations(fields, ctx, embeddings, tagIdOf) });
  }

  console.log(
    `\nClassifier benchmark (${new Date().toISOString()}, node ${process.version}; one core, samples included${anchors ? ', embedding anchor on' : ''})\n`,
  );
  console.log(
    '| set | fields | scored | top-1 | baseline top-1 | negatives | false positives | baseline FP | personal decision right | fields/s |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.name} | ${r.fields} | ${r.scored} | ${fmt(r.accuracy)} | ${fmt(r.baselineAccuracy)} | ${r.negatives} | ${fmt(r.fpRate)} | ${fmt(r.baselineFpRate)} | ${fmt(r.sensitiveRight)} | ${Math.round(r.fieldsPerSecond).toLocaleString('en')} |`,
    );
  }
  const publicRows = await printPublicSets(ctx, embedder, anchors !== null);
  if (taught.length > 0) {
    console.log(
      `\nWith confirmations (every other labelled field of the set confirmed; the nearest ${CONFIRMED_NEIGHBOURS} vote):`,
    );
    console.log('| set | scored | top-1 cold | top-1 with confirmations | answers changed |');
    console.log('|---|---|---|---|---|');
    taught.forEach((t, i) =>
      console.log(
        `| ${t.name} | ${t.scored} | ${fmt((results[i] as SetResult).accuracy)} | ${fmt(t.scored ? t.right / t.scored : NaN)} | ${t.changed} |`,
      ),
    );
  }
  for (const r of results) printCalibration(`Calibration, ${r.name} (scored fields)`, r.calibration);
  const ownResult = results[0] as SetResult;
  const namesOnly = results[1] as SetResult;
  // Two tables: answers corroborated by samples, type or confirmations, and answers that rest on names alone (fitted
  // on the own set with types and samples withheld, and the fields not corroborated as they are). The shipped tables
  // are fitted on the whole own set and the public schemas' development half (isotonic, blocks of 30 / 20), never on
  // the held-out half nor the shared sets; leave-one-source-out on the public schemas shows them out of sample, and
  // `CALIBRATION_FORMS=1` compares other forms that way (docs/benchmarks.md, "Forms of the calibration").
  type Point = SetResult['points'][number];
  type Tables = { rich: CalibrationTable; thin: CalibrationTable };
  type Form = 'isotonic' | 'isotonic-100' | 'logistic';
  const devRows = publicRows.filter((x) => x.half === 'development');
  const fitTables = (publicPoints: readonly Point[], form: Form = 'isotonic', withOwnSet = true): Tables => {
    const own = withOwnSet ? ownResult.points : [];
    const rich = [...own, ...publicPoints].filter((p) => p.corroborated);
    // Both populations the name-only table serves: fields not corroborated, and (with the own set) the own set read by
    // names alone.
    const thin = [...(withOwnSet ? namesOnly.points : []), ...[...own, ...publicPoints].filter((p) => !p.corroborated)];
    if (form === 'logistic') return { rich: logisticTable(rich), thin: logisticTable(thin) };
    const blocks = form === 'isotonic-100' ? [100, 100] : [30, 20];
    return { rich: fitIsotonic(rich, blocks[0]), thin: fitIsotonic(thin, blocks[1]) };
  };
  const devPoints = (except?: string): Point[] => devRows.filter((x) => x.source !== except).flatMap((x) => x.r.points);
  const reread = (points: readonly Point[], t: Tables): Array<{ c: number; right: boolean }> =>
    points.map((p) => ({ c: calibrate(p.raw, p.corroborated ? t.rich : t.thin), right: p.right }));
  // Each development source read with the tables refitted without it.
  const devLeaveOneOut = (fit: (points: readonly Point[]) => Tables): Array<{ c: number; right: boolean }> =>
    devRows.flatMap((x) => reread(x.r.points, fit(devPoints(x.source))));
  if (process.env.CALIBRATION_FORMS === '1' && devRows.length > 0) {
    const forms: Array<[string, (points: readonly Point[]) => Tables]> = [
      ['isotonic, own set + development half (shipped)', (pts) => fitTables(pts)],
      ['isotonic, development half only', (pts) => fitTables(pts, 'isotonic', false)],
      ['isotonic in blocks of 100, own set + development half', (pts) => fitTables(pts, 'isotonic-100', true)],
      ['logistic in raw and log(1 + raw), own set + development half', (pts) => fitTables(pts, 'logistic', true)],
      ['logistic in raw and log(1 + raw), development half', (pts) => fitTables(pts, 'logistic', false)],
    ];
    for (const [label, fit] of forms) {
      const b = bucketize(devLeaveOneOut(fit));
      const n = b.reduce((sum, r) => sum + r.n, 0);
      const worst = Math.max(...b.filter((r) => r.n >= 30).map((r) => Math.abs(r.right - r.meanConfidence) * 100));
      const mean = (b.reduce((sum, r) => sum + r.n * Math.abs(r.right - r.meanConfidence), 0) / n) * 100;
      printCalibration(
        `Form: ${label}; development half, leave-one-source-out: worst gap ${worst.toFixed(1)} pt (n ≥ 30), weighted mean ${mean.toFixed(1)} pt`,
        b,
      );
    }
  }
  const full = fitTables(devPoints());
  printCalibration(
    'Calibration, own set, with the tables fitted on it and the development half (in sample)',
    bucketize(reread(ownResult.points, full)),
  );
  printCalibration(
    'Calibration, own set names only, with the tables fitted on it and the development half (in sample)',
    bucketize(reread(namesOnly.points, full)),
  );
  if (publicRows.length > 0) {
    // A held-out source was never in the fit, so the full fit is already its leave-one-out fit.
    printCalibration(
      'Calibration, public schemas, development half, leave-one-source-out (refit without the source, measured on it)',
      bucketize(devLeaveOneOut((pts) => fitTables(pts))),
    );
    printCalibration(
      'Calibration, public schemas, held-out half, with the tables fitted on the own set and the development half',
      bucketize(publicRows.filter((x) => x.half === 'held-out').flatMap((x) => reread(x.r.points, full))),
    );
  }
  const corroboratedShare = (r: SetResult): string =>
    `${r.points.filter((p) => p.corroborated).length} of ${r.points.length}`;
  console.log('\nScored fields whose answer is corroborated beyond the name (samples, type or confirmations):');
  for (const r of results) console.log(`  ${r.name}: ${corroboratedShare(r)}`);
  if (args.has('--errors')) {
    console.log(`\nOwn-set misses (${ownResult.misses.length}):`);
    for (const m of ownResult.misses) console.log(`  ${m}`);
  }
  if (args.has('--fit')) {
    const { rich, thin } = full;
    const pooled = [...ownResult.points, ...devPoints()];
    const fitted = `${pooled.filter((p) => p.corroborated).length} / ${namesOnly.points.length + pooled.filter((p) => !p.corroborated).length} points`;
    console.log(
      `\nIsotonic calibration fitted on the own set and the public development half (${fitted}; paste into src/modules/classifier/calibration.ts):`,
    );
    console.log(`CALIBRATION (corroborated answers): ${JSON.stringify(rich)}`);
    console.log(`CALIBRATION_NAME_ONLY (names alone): ${JSON.stringify(thin)}`);
    console.log(`(shipped: ${JSON.stringify(CALIBRATION)} / ${JSON.stringify(CALIBRATION_NAME_ONLY)})`);
  }
}

void main();

/**
 * A smooth calibration: logistic regression of "right" on the raw score and log(1 + raw), sampled into the step-point
 * table `calibrate` reads (the runtime is unchanged). A raw score of 0 (nothing spoke) keeps its own point.
 */
function logisticTable(points: ReadonlyArray<{ raw: number; right: boolean }>): CalibrationTable {
  const feats = (raw: number): number[] => [raw, Math.log1p(raw)];
  const w = fitLogistic(
    points.map((p) => feats(p.raw)),
    points.map((p) => p.right),
    1e-3,
  );
  const at = (raw: number): number => 1 / (1 + Math.exp(-linearPredictor(w, feats(raw))));
  const maxRaw = Math.max(...points.map((p) => p.raw));
  const zero = points.filter((p) => p.raw === 0);
  const table: Array<[number, number]> = [];
  if (zero.length > 0) table.push([0, Math.round((zero.filter((p) => p.right).length / zero.length) * 1000) / 1000]);
  for (let x = 0.05; x < maxRaw + 0.25; x += 0.25)
    table.push([Math.round(x * 1000) / 1000, Math.min(0.99, Math.round(at(x) * 1000) / 1000)]);
  return table;
}
