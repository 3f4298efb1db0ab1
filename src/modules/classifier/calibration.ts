// Calibrated confidence: the classifier's raw margin (how far the winning tag is ahead of the runner-up, plus a
// little of its absolute score) is turned into "share of fields with this margin that are classified right" by an
// isotonic (monotone, pool-adjacent-violators) fit on FieldLens's own labelled set and the development half of the
// public-schema sets (bench/classify). The held-out half and the shared external sets are never used to fit it;
// they only measure it.

/** Monotone step points (raw score → probability right), ascending in both. */
export type CalibrationTable = ReadonlyArray<readonly [number, number]>;

/** Fitted by `npx tsx bench/classify.ts --fit` on the own set and the public development half; re-fit when the rules change. */
export const CALIBRATION: CalibrationTable = [
  // Fitted 2026-11-26 on the 1,059 fields (252 of the own set, 807 of the development half) whose answer samples,
  // type or confirmations bear out. Until 1.4 it was fitted on the own set alone, whose rules were written against
  // it, and on schemas no one had seen it was 6–26 points over-confident (docs/benchmarks.md).
  [0.178, 0.333],
  [0.891, 0.471],
  [1.396, 0.733],
  [1.85, 0.867],
  [2.397, 0.867],
  [2.719, 0.983],
  [3.178, 0.989],
  [4.373, 0.99],
  [11.789, 0.99],
];

/**
 * For answers that rest on the words of the name alone (no samples, no telling type, no confirmations): fitted on
 * the own set read that way (every field's type and samples withheld), the own-set fields that are not corroborated
 * as they are, and the development half's fields that are not, in blocks of about 20.
 */
export const CALIBRATION_NAME_ONLY: CalibrationTable = [
  // Fitted 2026-11-26 (849 + 597 + 2,403 points). Where nothing speaks (score 0) the technical default is almost
  // never the labelled tag: a confidence near 0 says "unclassified, look at it".
  [0, 0.004],
  [0.12, 0.15],
  [0.397, 0.244],
  [0.589, 0.35],
  [0.714, 0.35],
  [0.816, 0.579],
  [0.899, 0.617],
  [1.075, 0.659],
  [1.294, 0.705],
  [1.606, 0.79],
  [2.265, 0.829],
  [2.889, 0.864],
  [2.943, 0.9],
  [3.348, 0.906],
  [3.984, 0.924],
  [4.158, 0.939],
  [4.244, 0.977],
  [4.655, 0.984],
  [5.34, 0.99],
  [6.203, 0.99],
];

/** The raw confidence score from the winner's and the runner-up's totals. */
export function rawConfidence(top: number, second: number): number {
  return Math.max(0, top - Math.max(0, second)) + 0.2 * Math.max(0, top);
}

/** Probability right for a raw score: linear between the fitted points, flat outside them. */
export function calibrate(raw: number, table: CalibrationTable = CALIBRATION): number {
  if (table.length === 0) return 0.5;
  const firstPoint = table[0] as readonly [number, number];
  if (raw <= firstPoint[0]) return firstPoint[1];
  // A raw score of exactly 0 (nothing spoke for the answer: the technical default) is a state of its own, not the low
  // end of a scale: any positive score is read from the first positive block on, never drawn down towards it.
  let from = 1;
  if (firstPoint[0] === 0 && table.length > 1) {
    const second = table[1] as readonly [number, number];
    if (raw <= second[0]) return second[1];
    from = 2;
  }
  for (let i = from; i < table.length; i++) {
    const [x1, y1] = table[i] as readonly [number, number];
    if (raw <= x1) {
      const [x0, y0] = table[i - 1] as readonly [number, number];
      return x1 === x0 ? y1 : y0 + ((y1 - y0) * (raw - x0)) / (x1 - x0);
    }
  }
  return (table[table.length - 1] as readonly [number, number])[1];
}

/**
 * Isotonic regression of correctness on raw score (pool adjacent violators), returned as step points at the
 * mean raw score of each pooled block; blocks hold about `minBlock` fields (at least half of it) so a handful cannot
 * make a step, and equal scores are never split between blocks.
 */
export function fitIsotonic(points: ReadonlyArray<{ raw: number; right: boolean }>, minBlock = 25): CalibrationTable {
  const sorted = [...points].sort((a, b) => a.raw - b.raw);
  // Start from blocks of `minBlock` consecutive points, never splitting equal scores; a large group of equal scores
  // (the fields nothing spoke for all score 0) is a block of its own rather than averaged with its neighbours.
  const blocks: Array<{ sumX: number; sumY: number; n: number }> = [];
  let i = 0;
  while (i < sorted.length) {
    const b = { sumX: 0, sumY: 0, n: 0 };
    while (i < sorted.length) {
      let j = i;
      while (j < sorted.length && (sorted[j] as { raw: number }).raw === (sorted[i] as { raw: number }).raw) j++;
      const group = j - i;
      // A large group of equal scores starts a block of its own.
      if (b.n > 0 && group >= minBlock / 2) break;
      for (let k = i; k < j; k++) {
        const p = sorted[k] as { raw: number; right: boolean };
        b.sumX += p.raw;
        b.sumY += p.right ? 1 : 0;
        b.n++;
      }
      i = j;
      if (b.n >= minBlock || group >= minBlock / 2) break;
    }
    if (b.n < minBlock / 2 && blocks.length > 0) {
      const prev = blocks[blocks.length - 1] as { sumX: number; sumY: number; n: number };
      prev.sumX += b.sumX;
      prev.sumY += b.sumY;
      prev.n += b.n;
    } else blocks.push(b);
    while (blocks.length >= 2) {
      const a = blocks[blocks.length - 2] as { sumX: number; sumY: number; n: number };
      const c = blocks[blocks.length - 1] as { sumX: number; sumY: number; n: number };
      if (a.sumY / a.n <= c.sumY / c.n) break;
      a.sumX += c.sumX;
      a.sumY += c.sumY;
      a.n += c.n;
      blocks.pop();
    }
  }
  // Capped at 0.99 (no rule set is never wrong); inside a run of equal steps only its ends are kept.
  const pts = blocks.map(
    (b) =>
      [Math.round((b.sumX / b.n) * 1000) / 1000, Math.min(0.99, Math.round((b.sumY / b.n) * 1000) / 1000)] as const,
  );
  return pts.filter(
    (p, i) =>
      i === 0 ||
      i === pts.length - 1 ||
      !((pts[i - 1] as readonly number[])[1] === p[1] && (pts[i + 1] as readonly number[])[1] === p[1]),
  );
}
