import { createEmbedder } from '../../src/embeddings/embedder.js';
import { buildClassifierContext, scoreField } from '../../src/modules/classifier/classifier.js';
import { benchTags, embedBenchFields } from './learned-fit.js';
import { loadOwnSet } from './sets.js';
const embedder = createEmbedder({ provider: 'builtin' });
const tags = await benchTags(embedder);
const plain = buildClassifierContext(tags, { learned: null });
const ctx = buildClassifierContext(tags);
const namesOnly = process.argv.includes('--names');
const own = loadOwnSet().map((f) => namesOnly ? { ...f, input: { ...f.input, data_type: null, sample_values: undefined } } : f);
const E = await embedBenchFields(embedder, own);
const leaf = (p: string) => p.slice(p.lastIndexOf('/') + 1);
own.forEach((f, i) => {
  const a = scoreField({ ...f.input, embedding: E[i] }, plain);
  const b = scoreField({ ...f.input, embedding: E[i] }, ctx);
  const ra = f.accept.includes(leaf(a.chain_path)), rb = f.accept.includes(leaf(b.chain_path));
  if (ra !== rb) console.log(rb ? 'FIXED' : 'BROKE', `${f.input.table_name}.${f.input.field_name} [${f.input.data_type}] want ${f.accept[0]}: ${leaf(a.chain_path)} -> ${leaf(b.chain_path)} ::`, b.evidence.filter((e) => e.factor === 'learned').map((e) => `${e.score} ${e.for ?? ''} ${e.detail}`).join(' || '));
});
