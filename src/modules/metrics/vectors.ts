// Vector and number helpers of the metrics: dot products of unit vectors, normalisation, running sums, quantiles.
// Pure; no I/O.

/** Dot product (equals cosine for unit vectors). Four accumulators let V8 pipeline the loop. */
export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += a[i]! * b[i]!;
    s1 += a[i + 1]! * b[i + 1]!;
    s2 += a[i + 2]! * b[i + 2]!;
    s3 += a[i + 3]! * b[i + 3]!;
  }
  for (; i < n; i++) s0 += a[i]! * b[i]!;
  return s0 + s1 + s2 + s3;
}

/** Cosine similarity in [-1, 1]; 0 when either vector is zero (never NaN). */
export function cosine(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  if (aa === 0 || bb === 0) return 0;
  return clamp(ab / Math.sqrt(aa * bb), -1, 1);
}

/** Euclidean norm. */
export function norm(a: Float32Array): number {
  return Math.sqrt(dot(a, a));
}

/** Unit vector along `a` (a new array); the zero vector stays zero. */
export function normalize(a: Float32Array): Float32Array {
  return normalizeInto(new Float32Array(a.length), a);
}

/** Writes the unit vector along `a` into `out` and returns `out`; the zero vector stays zero. */
export function normalizeInto<T extends Float32Array>(out: T, a: Float32Array): T {
  const n = norm(a);
  for (let i = 0; i < a.length; i++) out[i] = n === 0 ? 0 : a[i]! / n;
  return out;
}

/** Unit mean direction of a set of vectors (the normalised sum); null for an empty set or a zero sum. */
export function meanUnit(vectors: readonly Float32Array[]): Float32Array | null {
  const first = vectors[0];
  if (!first) return null;
  const sum = new Float32Array(first.length);
  for (const v of vectors) addInto(sum, v, 1);
  // A sum that cancels out (up to float32 rounding) has no direction.
  return norm(sum) <= 1e-6 * vectors.length ? null : normalize(sum);
}

/** sum += sign · v, in place (per-tag / per-level running sums: O(d) per change). */
export function addInto(sum: Float32Array, v: Float32Array, sign: 1 | -1 = 1): void {
  const n = Math.min(sum.length, v.length);
  for (let i = 0; i < n; i++) sum[i]! += sign * v[i]!;
}

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

export function finiteOr(x: number, fallback: number): number {
  return Number.isFinite(x) ? x : fallback;
}

/** Linear-interpolation quantile (type 7) of an ascending array; p in [0,1]. */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}
