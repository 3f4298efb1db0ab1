// The learned name factor, fitted and measured outside the classifier (docs/classifier.md, "A learned name factor:
// tried, not kept"). Nothing here changes what the classifier answers.
//
//   npx tsx bench/classify/fit-learned.ts
//
// Fitted on FieldLens's own labelled set and the public schemas' development half, never on the held-out half (the
// halves are drawn by bench/classify/sets.ts's hash of the file name) nor the shared external sets. The factor's weight
// is chosen on the development half leave-one-source-out: each source is classified with the model refitted without
// it, as a schema no one has seen. Then, at that weight, it prints the development half leave-one-source-out, the
// held-out half with the model fitted on the own set and the whole development half (measured, never chosen on), the
// own set (in the fit: not an estimate) and the throughput. Deterministic: the same sets give the same figures.
import { createEmbedder } from '../../src/embeddings/embedder.js';
import { buildClassifierContext, type ClassifierContext } from '../../src/modules/classifier/classifier.js';
import { loadLearnedModel, type LearnedModel } from './learned-factor.js';
import {
  benchTags,
  classifyWithLearned,
  embedBenchFields,
  fitLearnedModel,
  learnedExamples,
  type LearnedExample,
} from './learned-fit.js';
import { loadOwnSet, loadPublicSets, SENSITIVE_ROOTS, type BenchField } from './sets.js';

/** Candidate weights; 0 is the classifier without the factor. */
const WEIGHTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1];

const FITTED_ON = 'own set and public development half';

interface Tally {
  scored: number;
  right: number;
  negatives: number;
  fp: number;
  decided: number;
  decidedRight: number;
}
const tally = (): Tally => ({ scored: 0, right: 0, negatives: 0, fp: 0, decided: 0, decidedRight: 0 });

/** Top-1, false positives and personal decisions, the classifier's points plus the model's (null: none). */
function measure(
  ctx: ClassifierContext,
  model: LearnedModel | null,
  fields: readonly BenchField[],
  embeddings: readonly Float32Array[],
  into: Tally = tally(),
): Tally {
  const rootOf = new Map(ctx.leaves.map((l) => [l.name, l.chain_path.split('/')[0] as string]));
  fields.forEach((f, i) => {
    const { leaf } = classifyWithLearned(ctx, model, { ...f.input, embedding: embeddings[i] });
    const sensitive = SENSITIVE_ROOTS.has(rootOf.get(leaf) ?? '');
    if (f.accept.length > 0) {
      into.scored++;
      if (f.accept.includes(leaf)) into.right++;
    }
    if (f.negative) {
      into.negatives++;
      if (sensitive) into.fp++;
    }
    if (f.sensitive !== undefined) {
      into.decided++;
      if (sensitive === f.sensitive) into.decidedRight++;
    }
  });
  return into;
}

const fmt = (t: Tally): string =>
  `${(t.right / t.scored).toFixed(3)} | ${(t.fp / t.negatives).toFixed(3)} | ${(t.decidedRight / t.decided).toFixed(3)}`;

async function main(): Promise<void> {
  const embedder = createEmbedder({ provider: 'builtin' });
  const tags = await benchTags(embedder);
  const ctx = buildClassifierContext(tags);
  const own = loadOwnSet();
  const ownNamesOnly = own.map((f) => ({ ...f, input: { ...f.input, data_type: null, sample_values: undefined } }));
  const publicSets = loadPublicSets();
  const dev = publicSets.filter((s) => s.half === 'development');
  const heldOut = publicSets.filter((s) => s.half === 'held-out');
  const embeddingsOf = new Map<string, Float32Array[]>();
  for (const s of publicSets) embeddingsOf.set(s.source, await embedBenchFields(embedder, s.fields));
  const ownEmbeddings = await embedBenchFields(embedder, own);
  const ownNamesEmbeddings = await embedBenchFields(embedder, ownNamesOnly);
  const ownExamples = learnedExamples(ctx, own, ownEmbeddings, 'own-set');
  const devExamples = new Map(
    dev.map((s) => [s.source, learnedExamples(ctx, s.fields, embeddingsOf.get(s.source) ?? null, s.source)]),
  );
  const trainingWithout = (except: string | null): LearnedExample[] => [
    ...ownExamples,
    ...dev.flatMap((s) => (s.source === except ? [] : (devExamples.get(s.source) ?? []))),
  ];

  // Leave one source out: each development source against the model fitted without it, at every candidate weight.
  const totals = WEIGHTS.map(() => tally());
  for (const s of dev) {
    const without = fitLearnedModel(trainingWithout(s.source), { weight: 1, fittedOn: FITTED_ON });
    WEIGHTS.forEach((weight, k) =>
      measure(
        ctx,
        weight === 0 ? null : loadLearnedModel({ ...without, weight }),
        s.fields,
        embeddingsOf.get(s.source) ?? [],
        totals[k],
      ),
    );
  }
  console.log('Development half, leave-one-source-out (each source against the model fitted without it):');
  console.log('| weight | top-1 | false positives | personal decision right |');
  console.log('|---|---|---|---|');
  WEIGHTS.forEach((w, k) => console.log(`| ${w} | ${fmt(totals[k] as Tally)} |`));
  // The most right; between equals, the smaller weight (the factor speaks no louder than it must).
  let best = 0;
  WEIGHTS.forEach((_, k) => {
    if ((totals[k] as Tally).right > (totals[best] as Tally).right) best = k;
  });
  const weight = WEIGHTS[best] as number;
  const data = fitLearnedModel(trainingWithout(null), { weight, fittedOn: FITTED_ON });
  const model = loadLearnedModel(data);
  console.log(
    `\nChosen weight ${weight}; fitted on the own set and the whole development half: ${data.leaves.length} leaves, ${Object.keys(data.features).length} features, ${(JSON.stringify(data).length / 1024).toFixed(0)} KB as JSON.`,
  );

  console.log('\n| set | top-1 | false positives | personal decision right |');
  console.log('|---|---|---|---|');
  const row = (name: string, fields: readonly BenchField[], embeddings: readonly Float32Array[]): void => {
    console.log(`| ${name}, without | ${fmt(measure(ctx, null, fields, embeddings))} |`);
    console.log(`| ${name}, with | ${fmt(measure(ctx, model, fields, embeddings))} |`);
  };
  row('own set (in the fit)', own, ownEmbeddings);
  row('own set, names only', ownNamesOnly, ownNamesEmbeddings);
  console.log(`| public development half, without | ${fmt(totals[0] as Tally)} |`);
  console.log(`| public development half, leave-one-source-out, with | ${fmt(totals[best] as Tally)} |`);
  const heldWithout = tally();
  const heldWith = tally();
  const sourceRows: string[] = [];
  for (const s of heldOut) {
    const e = embeddingsOf.get(s.source) ?? [];
    const a = measure(ctx, null, s.fields, e);
    const b = measure(ctx, model, s.fields, e);
    for (const k of Object.keys(a) as Array<keyof Tally>) {
      heldWithout[k] += a[k];
      heldWith[k] += b[k];
    }
    sourceRows.push(
      `| ${s.source} | ${(a.right / a.scored).toFixed(3)} | ${(b.right / b.scored).toFixed(3)} | ${(((b.right - a.right) / a.scored) * 100).toFixed(1)} |`,
    );
  }
  console.log(`| public **held-out** half, without | ${fmt(heldWithout)} |`);
  console.log(`| public **held-out** half, with (fitted on own + development) | ${fmt(heldWith)} |`);
  console.log(
    '\nHeld-out sources (measured only):\n| source | top-1 without | top-1 with | points |\n|---|---|---|---|',
  );
  for (const r of sourceRows) console.log(r);

  // Throughput of the classifier's points plus the factor, one core, the own set with samples.
  const inputs = own.map((f, i) => ({ ...f.input, embedding: ownEmbeddings[i] }));
  for (const [name, m] of [
    ['without', null],
    ['with', model],
  ] as const) {
    let n = 0;
    const c0 = process.cpuUsage();
    let elapsed = 0;
    while (elapsed < 2e9) {
      for (const inp of inputs) classifyWithLearned(ctx, m, inp);
      n += inputs.length;
      const c = process.cpuUsage(c0);
      elapsed = (c.user + c.system) * 1000;
    }
    console.log(
      `fields/s ${name} the factor (own set, samples): ${Math.round(n / (elapsed / 1e9)).toLocaleString('en')}`,
    );
  }
}

void main();
