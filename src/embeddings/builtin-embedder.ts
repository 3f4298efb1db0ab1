// Offline embedder: weighted mean of word vectors (from the shipped file) over the tokens of a field's
// name, comment, table, data type and format signature. Unknown words are split into known words when
// possible (`firstname`), otherwise get a vector from hashed character n-grams (`custmr`).
import type { Embedder, FieldEmbeddingInput } from './embedder.js';
import { formatSignatureWords } from './format-signature.js';
import { ABBREVIATIONS } from '../text/abbreviations.js';
import { forEachNgramBucket } from './ngrams.js';
import { isCjkToken, tokenizeDataType, tokenizeIdentifier, tokenizeText } from './tokenizer.js';
import { loadWordVectors, type WordVectorData } from './word-vectors.js';

/** Bump when the tokenizer, lexicon, weights or vector file change: stored embeddings are then recomputed. */
export const BUILTIN_VERSION = 'builtin-wv100-v2';

/** Relative weight of each part of a field; each part's tokens are averaged and normalised first. */
export const FIELD_WEIGHTS = { field: 1.0, comment: 0.45, table: 0.25, dataType: 0.15, format: 0.3 } as const;

// Memo sizes: bounded so a million-field catalog cannot grow memory without limit (~0.5 KB per entry).
const TOKEN_CACHE = 30_000;
const PART_CACHE = { f: 30_000, c: 10_000, t: 10_000, d: 2_000, s: 2_000, x: 10_000 } as const;
// Share of the expanded word in the vector of an abbreviated unknown token (rest: its n-grams).
const ABBREVIATION_WEIGHT = 0.7;
// Only the most frequent words are considered as expansions of an abbreviation.
const ABBREVIATION_VOCAB = 30_000;
// Two-letter pieces allowed when splitting compounds; other pieces must have ≥ 3 letters so that
// `custmr` is not "explained" as cu+st+mr.
const SHORT_PIECES = new Set([
  'id',
  'no',
  'at',
  'on',
  'by',
  'to',
  'of',
  'ip',
  'is',
  'in',
  'up',
  'dt',
  'cd',
  'nm',
  'ts',
]);

interface Vocabulary {
  index: Map<string, number>;
  data: WordVectorData;
  logSize: number;
}

function normalizeInPlace(v: Float32Array | Float64Array): boolean {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += (v[i] as number) * (v[i] as number);
  if (!(n > 0) || !Number.isFinite(n)) return false;
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv;
  return true;
}

/** Small bounded memo: cleared wholesale when full (cheap, and catalogs repeat names heavily). */
class Memo<V> {
  private map = new Map<string, V>();
  constructor(private readonly limit: number) {}
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  set(key: string, value: V): void {
    if (this.map.size >= this.limit) this.map.clear();
    this.map.set(key, value);
  }
}

export class BuiltinEmbedder implements Embedder {
  readonly version = BUILTIN_VERSION;
  readonly dimensions: number;
  private readonly vocab: Vocabulary;
  private readonly tokenVectors = new Memo<Float32Array | null>(TOKEN_CACHE);
  private readonly partVectors = {
    f: new Memo<Float32Array | null>(PART_CACHE.f),
    c: new Memo<Float32Array | null>(PART_CACHE.c),
    t: new Memo<Float32Array | null>(PART_CACHE.t),
    d: new Memo<Float32Array | null>(PART_CACHE.d),
    s: new Memo<Float32Array | null>(PART_CACHE.s),
    x: new Memo<Float32Array | null>(PART_CACHE.x),
  };
  private readonly acc: Float64Array;
  private readonly fallback: Float32Array;

  constructor(data: WordVectorData = loadWordVectors()) {
    this.dimensions = data.dimensions;
    const index = new Map<string, number>();
    data.words.forEach((w, i) => index.set(w, i));
    this.vocab = { index, data, logSize: Math.log(data.words.length + 1) };
    this.acc = new Float64Array(this.dimensions);
    // Returned for inputs with no usable token at all: a fixed, valid unit vector.
    this.fallback = new Float32Array(this.dimensions).fill(1 / Math.sqrt(this.dimensions));
  }

  /** Unit vector for one token, or null for tokens that carry no meaning (bare digits). */
  tokenVector(token: string): Float32Array | null {
    const cached = this.tokenVectors.get(token);
    if (cached !== undefined) return cached;
    const v = this.computeTokenVector(token);
    this.tokenVectors.set(token, v);
    return v;
  }

  private computeTokenVector(token: string): Float32Array | null {
    if (/^[0-9]+$/.test(token)) return null;
    const dims = this.dimensions;
    const out = new Float32Array(dims);
    const row = this.vocab.index.get(token);
    if (row !== undefined) {
      this.addWordRow(out, row, 1);
      normalizeInPlace(out);
      return out;
    }
    // A near-complete spelling (`addres`, `phne`) is that word, not a compound of two rarer ones.
    const truncated = this.abbreviatedWord(token, 2);
    if (truncated !== undefined) {
      this.addWordRow(out, truncated, 1);
      normalizeInPlace(out);
      return out;
    }
    const pieces = isCjkToken(token) ? null : this.splitCompound(token);
    if (pieces) {
      for (const p of pieces) this.addWordRow(out, this.vocab.index.get(p) as number, 1 / pieces.length);
      if (normalizeInPlace(out)) return out;
    }
    const { bucketVectors, bucketScales, bucketCount } = this.vocab.data;
    forEachNgramBucket(token, bucketCount - 1, (b) => {
      const s = bucketScales[b] as number;
      const off = b * dims;
      for (let i = 0; i < dims; i++) out[i] = (out[i] as number) + s * (bucketVectors[off + i] as number);
    });
    if (!normalizeInPlace(out)) return null;
    // Schema abbreviations drop letters (`custmr`, `prdct`): when the token is a subsequence of a common
    // word with the same first letter, lean on that word and keep the n-gram vector as a minor part.
    const expansion = this.abbreviatedWord(token);
    if (expansion !== undefined) {
      for (let i = 0; i < dims; i++) out[i] = (out[i] as number) * (1 - ABBREVIATION_WEIGHT);
      this.addWordRow(out, expansion, ABBREVIATION_WEIGHT);
      normalizeInPlace(out);
    }
    return out;
  }

  /** Row of the most frequent vocabulary word that `token` abbreviates by dropping letters, if any. */
  abbreviatedWord(token: string, maxExtraLetters = Infinity): number | undefined {
    if (token.length < 4 || !/^[a-z]+$/.test(token)) return undefined;
    const candidates = this.byFirstLetter().get(token.charCodeAt(0));
    if (!candidates) return undefined;
    const maxLen = Math.min(Math.floor(token.length * 2.2), token.length + maxExtraLetters);
    for (const row of candidates) {
      const word = this.vocab.data.words[row] as string;
      if (word.length <= token.length || word.length > maxLen) continue;
      let j = 1;
      for (let i = 1; i < word.length && j < token.length; i++) if (word.charCodeAt(i) === token.charCodeAt(j)) j++;
      if (j === token.length) return row;
    }
    return undefined;
  }

  private firstLetterIndex: Map<number, number[]> | undefined;

  private byFirstLetter(): Map<number, number[]> {
    if (this.firstLetterIndex) return this.firstLetterIndex;
    const index = new Map<number, number[]>();
    const words = this.vocab.data.words;
    // Rows are in frequency order, so each list is too; rare words make poor expansions.
    for (let row = 0; row < Math.min(words.length, ABBREVIATION_VOCAB); row++) {
      const w = words[row] as string;
      if (w.length < 3) continue;
      const c = w.charCodeAt(0);
      let list = index.get(c);
      if (!list) index.set(c, (list = []));
      list.push(row);
    }
    this.firstLetterIndex = index;
    return index;
  }

  private addWordRow(out: Float32Array, row: number, weight: number): void {
    const { wordVectors, wordScales } = this.vocab.data;
    const dims = this.dimensions;
    const s = (wordScales[row] as number) * weight;
    const off = row * dims;
    for (let i = 0; i < dims; i++) out[i] = (out[i] as number) + s * (wordVectors[off + i] as number);
  }

  /**
   * Split a run-together word (`firstname`, `createdon`, `custid`) into 2–4 known words with the
   * cheapest Zipf cost (as in wordninja), expanding abbreviations; null if no clean split exists.
   */
  splitCompound(token: string): string[] | null {
    const n = token.length;
    if (n < 5 || n > 40 || !/^[a-z]+$/.test(token)) return null;
    const best = new Float64Array(n + 1).fill(Infinity);
    const back = new Int32Array(n + 1);
    const parts = new Int32Array(n + 1);
    best[0] = 0;
    for (let end = 1; end <= n; end++) {
      for (let start = Math.max(0, end - 20); start < end; start++) {
        if (best[start] === Infinity || (parts[start] as number) >= 4) continue;
        const piece = token.slice(start, end);
        const c = this.pieceCost(piece);
        if (c === Infinity) continue;
        const total = (best[start] as number) + c;
        if (total < (best[end] as number)) {
          best[end] = total;
          back[end] = start;
          parts[end] = (parts[start] as number) + 1;
        }
      }
    }
    if (best[n] === Infinity || (parts[n] as number) < 2) return null;
    const pieces: string[] = [];
    for (let end = n; end > 0; end = back[end] as number) pieces.unshift(token.slice(back[end] as number, end));
    const words: string[] = [];
    for (const p of pieces) {
      const exp = ABBREVIATIONS[p];
      const list = exp === undefined ? [p] : exp.replace(/^!/, '').split(' ');
      for (const w of list) if (this.vocab.index.has(w) && !SHORT_STOP.has(w)) words.push(w);
    }
    return words.length > 0 ? words : null;
  }

  private pieceCost(piece: string): number {
    if (piece.length < 2 || (piece.length === 2 && !SHORT_PIECES.has(piece))) return Infinity;
    const rank = this.vocab.index.get(piece);
    // Zipf cost: log(rank · log N); abbreviations count as moderately common words. Rare words are
    // refused as pieces: they explain almost any string (`addres` = add + res).
    if (rank !== undefined && rank < ABBREVIATION_VOCAB) return Math.log((rank + 1) * this.vocab.logSize);
    if (ABBREVIATIONS[piece] !== undefined) return Math.log(5000 * this.vocab.logSize);
    return Infinity;
  }

  /** Normalised mean of the token vectors of one part, or null if none of its tokens has a vector. */
  private partVector(
    kind: keyof typeof PART_CACHE,
    text: string,
    tokenize: (s: string) => string[],
  ): Float32Array | null {
    const memo = this.partVectors[kind];
    const cached = memo.get(text);
    if (cached !== undefined) return cached;
    const out = new Float32Array(this.dimensions);
    let any = false;
    for (const t of tokenize(text)) {
      const v = this.tokenVector(t);
      if (!v) continue;
      any = true;
      for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) + (v[i] as number);
    }
    const result = any && normalizeInPlace(out) ? out : null;
    memo.set(text, result);
    return result;
  }

  private addPart(v: Float32Array | null, weight: number): boolean {
    if (!v) return false;
    const acc = this.acc;
    for (let i = 0; i < acc.length; i++) acc[i] = (acc[i] as number) + weight * (v[i] as number);
    return true;
  }

  private finish(): Float32Array {
    const out = new Float32Array(this.dimensions);
    for (let i = 0; i < out.length; i++) out[i] = this.acc[i] as number;
    return normalizeInPlace(out) ? out : this.fallback.slice();
  }

  /** Synchronous core of embedFields, for callers that batch themselves. */
  embedFieldsSync(inputs: readonly FieldEmbeddingInput[]): Float32Array[] {
    const w = FIELD_WEIGHTS;
    const result: Float32Array[] = new Array(inputs.length);
    for (let k = 0; k < inputs.length; k++) {
      const f = inputs[k] as FieldEmbeddingInput;
      this.acc.fill(0);
      this.addPart(this.partVector('f', f.field_name ?? '', tokenizeIdentifier), w.field);
      if (f.comment) this.addPart(this.partVector('c', f.comment, tokenizeText), w.comment);
      this.addPart(this.partVector('t', f.table_name ?? '', tokenizeIdentifier), w.table);
      if (f.data_type) this.addPart(this.partVector('d', f.data_type, tokenizeDataType), w.dataType);
      if (f.format_signature) this.addPart(this.partVector('s', f.format_signature, formatSignatureWords), w.format);
      result[k] = this.finish();
    }
    return result;
  }

  /** Synchronous core of embedTexts. */
  embedTextsSync(texts: readonly string[]): Float32Array[] {
    return texts.map((t) => {
      this.acc.fill(0);
      this.addPart(this.partVector('x', t ?? '', tokenizeText), 1);
      return this.finish();
    });
  }

  async embedFields(inputs: FieldEmbeddingInput[]): Promise<Float32Array[]> {
    return this.embedFieldsSync(inputs);
  }

  async embedTexts(texts: string[]): Promise<Float32Array[]> {
    return this.embedTextsSync(texts);
  }
}

// Stop words a compound split may produce (`createdat` → created + at).
const SHORT_STOP = new Set(['at', 'on', 'by', 'to', 'of', 'is', 'in']);
