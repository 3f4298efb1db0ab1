// Fits the classifier's learned factor and writes src/modules/classifier/learned-model.ts.
//
//   npx tsx bench/classify/fit-learned.ts            choose the weight, fit, write the model
//   npx tsx bench/classify/fit-learned.ts --dry-run  print the weight search and the file's size, write nothing
//
// Fitted on FieldLens's own labelled set and the public schemas' development half, never on the held-out half (the
// halves are drawn by bench/classify/sets.ts's hash of the file name) nor the shared external sets. The factor's weight
// (points per unit of probability) is chosen on the development half leave-one-source-out: each source is classified
// with the model refitted without it, as a schema no one has seen. Deterministic: the same sets give the same file.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { createEmbedder } from '../../src/embeddings/embedder.js';
import { buildClassifierContext, scoreField } from '../../src/modules/classifier/classifier.js';
import type { LearnedModelData } from '../../src/modules/classifier/learned-evidence.js';
import {
  benchTags,
  embedBenchFields,
  fitLearnedModel,
  learnedExamples,
  type LearnedExample,
} from './learned-fit.js';
import { loadOwnSet, loadPublicSets, SENSITIVE_ROOTS, type BenchField } from './sets.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(repoRoot, 'src/modules/classifier/learned-model.ts');
/** Candidate weights; 0 is the classifier without the factor. */
const WEIGHTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1];

export const FITTED_ON =
  'FieldLens own set (bench/classify/own-set.txt) and the public schemas development half (bench/classify/public, by the hash rule of bench/classify/sets.ts)';

/** Top-1, false positives and personal decisions of fields classified with one context. */
function measure(
  fields: readonly BenchField[],
  embeddings: readonly Float32Array[],
  ctx: ReturnType<typeof buildClassifierContext>,
): { scored: number; right: number; negatives: number; fp: number } {
  let scored = 0;
  let right = 0;
  let negatives = 0;
  let fp = 0;
  fields.forEach((f, i) => {
    const r = scoreField({ ...f.input, embedding: embeddings[i] }, ctx);
    const leaf = r.chain_path.slice(r.chain_path.lastIndexOf('/') + 1);
    if (f.accept.length > 0) {
      scored++;
      if (f.accept.includes(leaf)) right++;
    }
    if (f.negative) {
      negatives++;
      if (SENSITIVE_ROOTS.has(r.chain_path.split('/')[0] as string)) fp++;
    }
  });
  return { scored, right, negatives, fp };
}

async function main(): Promise<void> {
  const dryRun = process.argv.includes('--dry-run');
  const embedder = createEmbedder({ provider: 'builtin' });
  const tags = await benchTags(embedder);
  const plain = buildClassifierContext(tags, { learned: null });
  const own = loadOwnSet();
  const dev = loadPublicSets().filter((s) => s.half === 'development');
  const ownExamples = learnedExamples(plain, own, await embedBenchFields(embedder, own), 'own-set');
  const devEmbeddings = new Map<string, Float32Array[]>();
  for (const s of dev) devEmbeddings.set(s.source, await embedBenchFields(embedder, s.fields));
  const devExamples = new Map(
    dev.map((s) => [s.source, learnedExamples(plain, s.fields, devEmbeddings.get(s.source) as Float32Array[], s.source)]),
  );
  const trainingWithout = (except: string | null): LearnedExample[] => [
    ...ownExamples,
    ...dev.flatMap((s) => (s.source === except ? [] : (devExamples.get(s.source) as LearnedExample[]))),
  ];

  // Leave one source out: each development source against the model fitted without it, at every candidate weight.
  const totals = WEIGHTS.map(() => ({ scored: 0, right: 0, negatives: 0, fp: 0 }));
  for (const s of dev) {
    const embeddings = devEmbeddings.get(s.source) as Float32Array[];
    const without = fitLearnedModel(trainingWithout(s.source), { weight: 1, fittedOn: FITTED_ON });
    WEIGHTS.forEach((weight, k) => {
      const ctx = buildClassifierContext(tags, { learned: { ...without, weight } });
      const m = measure(s.fields, embeddings, ctx);
      const t = totals[k] as (typeof totals)[number];
      t.scored += m.scored;
      t.right += m.right;
      t.negatives += m.negatives;
      t.fp += m.fp;
    });
  }
  console.log('Development half, leave-one-source-out (each source against the model fitted without it):');
  console.log('| weight | top-1 | false positives |');
  console.log('|---|---|---|');
  WEIGHTS.forEach((w, k) => {
    const t = totals[k] as (typeof totals)[number];
    console.log(`| ${w} | ${(t.right / t.scored).toFixed(3)} | ${(t.fp / t.negatives).toFixed(3)} |`);
  });
  // The most right; between equals, the smaller weight (the factor speaks no louder than it must).
  let best = 0;
  WEIGHTS.forEach((_, k) => {
    if ((totals[k] as { right: number }).right > (totals[best] as { right: number }).right) best = k;
  });
  const weight = WEIGHTS[best] as number;
  console.log(`Chosen weight: ${weight}`);

  const model = fitLearnedModel(trainingWithout(null), { weight, fittedOn: FITTED_ON });
  const text = await renderModel(model);
  console.log(
    `Model: ${model.leaves.length} leaves, ${Object.keys(model.features).length} features, ${(Buffer.byteLength(text) / 1024).toFixed(0)} KB`,
  );
  if (!dryRun) {
    writeFileSync(OUT, text);
    console.log(`Written ${path.relative(repoRoot, OUT)}`);
  }
}

/** The model as a TypeScript module, formatted as the repository formats code. */
export async function renderModel(model: LearnedModelData): Promise<string> {
  const source = [
    '// Generated by bench/classify/fit-learned.ts from the own set and the public development half: do not edit by hand.',
    '// Refit after changing the name tokenizer or the labelled sets (docs/classifier.md, "Learned factor").',
    "import type { LearnedModelData } from './learned-evidence.js';",
    '',
    `export const LEARNED_MODEL: LearnedModelData = ${JSON.stringify(model)};`,
    '',
  ].join('\n');
  const config = (await prettier.resolveConfig(OUT)) ?? {};
  return prettier.format(source, { ...config, parser: 'typescript' });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) void main();
