// The compact word-vector file shipped in assets/ (format documented in docs/embeddings.md).
// Little-endian layout:
//   0  'FLWV'                       magic
//   4  u32 format version (1)
//   8  u32 dimensions
//  12  u32 word count
//  16  u32 n-gram bucket count (power of two)
//  20  u32 byte length of the word list
//  24  u32 byte length of the recipe label
//  28  word list (UTF-8, '\n'-separated, most frequent first), recipe label (UTF-8), zero padding to 4
//      f32 scale per word, f32 scale per bucket
//      i8 word vectors (count × dims), i8 bucket vectors (buckets × dims); value = int8 × scale
import { readFileSync, statSync } from 'node:fs';

const MAGIC = 0x56574c46; // 'FLWV' read as little-endian u32
const FORMAT_VERSION = 1;
const HEADER_BYTES = 28;

export interface WordVectorData {
  dimensions: number;
  /** Vocabulary, most frequent first; the index is the row in `wordVectors`. */
  words: string[];
  wordScales: Float32Array;
  wordVectors: Int8Array;
  bucketCount: number;
  bucketScales: Float32Array;
  bucketVectors: Int8Array;
  /** Free-form description of how the file was produced (vocab size, post-processing…). */
  recipe: string;
}

/** Default location of the shipped file; resolves the same from src/embeddings (tsx) and dist/embeddings (tsc). */
export const DEFAULT_WORD_VECTORS_URL = new URL('../../assets/word-vectors-100d.bin', import.meta.url);

/** Quantise one row to int8 with a per-row scale (max |x| ↦ 127). */
export function quantizeRow(row: ArrayLike<number>, out: Int8Array, offset: number): number {
  let max = 0;
  for (let i = 0; i < row.length; i++) max = Math.max(max, Math.abs(row[i] as number));
  const scale = max > 0 ? max / 127 : 1;
  for (let i = 0; i < row.length; i++) out[offset + i] = Math.round((row[i] as number) / scale);
  return scale;
}

/** Serialise word vectors to the binary layout above. */
export function encodeWordVectors(data: WordVectorData): Buffer {
  const wordBytes = Buffer.from(data.words.join('\n'), 'utf8');
  const recipeBytes = Buffer.from(data.recipe, 'utf8');
  const textEnd = HEADER_BYTES + wordBytes.length + recipeBytes.length;
  const scalesAt = (textEnd + 3) & ~3;
  const vectorsAt = scalesAt + 4 * (data.words.length + data.bucketCount);
  const total = vectorsAt + data.dimensions * (data.words.length + data.bucketCount);
  const buf = Buffer.alloc(total);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(FORMAT_VERSION, 4);
  buf.writeUInt32LE(data.dimensions, 8);
  buf.writeUInt32LE(data.words.length, 12);
  buf.writeUInt32LE(data.bucketCount, 16);
  buf.writeUInt32LE(wordBytes.length, 20);
  buf.writeUInt32LE(recipeBytes.length, 24);
  wordBytes.copy(buf, HEADER_BYTES);
  recipeBytes.copy(buf, HEADER_BYTES + wordBytes.length);
  const scales = new Float32Array(buf.buffer, buf.byteOffset + scalesAt, data.words.length + data.bucketCount);
  scales.set(data.wordScales, 0);
  scales.set(data.bucketScales, data.words.length);
  const vectors = new Int8Array(buf.buffer, buf.byteOffset + vectorsAt, total - vectorsAt);
  vectors.set(data.wordVectors, 0);
  vectors.set(data.bucketVectors, data.wordVectors.length);
  return buf;
}

/** Parse the binary layout above; throws on a wrong magic, version or size. */
export function decodeWordVectors(bytes: Uint8Array): WordVectorData {
  // Float32Array views need a 4-byte aligned base: use the bytes in place when they are (readFileSync
  // gives a fresh, aligned buffer), otherwise copy once.
  let ab: ArrayBuffer;
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) {
    ab = bytes.buffer;
  } else {
    ab = new ArrayBuffer(bytes.byteLength);
    new Uint8Array(ab).set(bytes);
  }
  const view = new DataView(ab);
  if (ab.byteLength < HEADER_BYTES || view.getUint32(0, true) !== MAGIC) throw new Error('word vector file: bad magic');
  const version = view.getUint32(4, true);
  if (version !== FORMAT_VERSION) throw new Error(`word vector file: unsupported format version ${version}`);
  const dimensions = view.getUint32(8, true);
  const wordCount = view.getUint32(12, true);
  const bucketCount = view.getUint32(16, true);
  const wordBytes = view.getUint32(20, true);
  const recipeBytes = view.getUint32(24, true);
  if (bucketCount === 0 || (bucketCount & (bucketCount - 1)) !== 0)
    throw new Error('word vector file: bucket count must be a power of two');
  const decoder = new TextDecoder();
  const textEnd = HEADER_BYTES + wordBytes + recipeBytes;
  const scalesAt = (textEnd + 3) & ~3;
  const vectorsAt = scalesAt + 4 * (wordCount + bucketCount);
  const expected = vectorsAt + dimensions * (wordCount + bucketCount);
  if (ab.byteLength !== expected) throw new Error(`word vector file: size ${ab.byteLength}, expected ${expected}`);
  const words = wordCount === 0 ? [] : decoder.decode(new Uint8Array(ab, HEADER_BYTES, wordBytes)).split('\n');
  if (words.length !== wordCount) throw new Error('word vector file: word list does not match the word count');
  return {
    dimensions,
    words,
    recipe: decoder.decode(new Uint8Array(ab, HEADER_BYTES + wordBytes, recipeBytes)),
    wordScales: new Float32Array(ab, scalesAt, wordCount),
    bucketScales: new Float32Array(ab, scalesAt + 4 * wordCount, bucketCount),
    wordVectors: new Int8Array(ab, vectorsAt, wordCount * dimensions),
    bucketVectors: new Int8Array(ab, vectorsAt + wordCount * dimensions, bucketCount * dimensions),
    bucketCount,
  };
}

/** Read and parse a word-vector file (synchronous: the file is a few MB and read once at start-up). */
export function loadWordVectors(path: URL | string = DEFAULT_WORD_VECTORS_URL): WordVectorData {
  return decodeWordVectors(readFileSync(path));
}

/** Size in bytes of a word-vector file. */
export function wordVectorFileSize(path: URL | string = DEFAULT_WORD_VECTORS_URL): number {
  return statSync(path).size;
}
