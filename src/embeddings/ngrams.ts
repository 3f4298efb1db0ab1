// Character n-gram hashing shared by the condense script (which fits the bucket vectors) and the
// runtime (which looks them up for words missing from the vocabulary). Both sides must agree exactly.

export const NGRAM_MIN = 3;
export const NGRAM_MAX = 5;

/** Call `visit(bucket)` for every 3–5-gram of `<word>` (fastText-style boundary marks), FNV-1a hashed. */
export function forEachNgramBucket(word: string, bucketMask: number, visit: (bucket: number) => void): void {
  const s = `<${word}>`;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    // FNV-1a over UTF-16 code units, extended one character at a time so each length reuses the prefix.
    let h = 0x811c9dc5;
    for (let j = i; j < n && j - i < NGRAM_MAX; j++) {
      h ^= s.charCodeAt(j);
      h = Math.imul(h, 0x01000193);
      if (j - i + 1 >= NGRAM_MIN) visit((h >>> 0) & bucketMask);
    }
  }
}
