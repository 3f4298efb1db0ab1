/**
 * Bounded reads spread over a large table with a single integer primary key: a few random key ranges instead of
 * always the first rows, each an index range scan of bound / RANGES rows. Never a full scan: MIN/MAX of a
 * primary key is answered from the index.
 */
import { randomInt } from 'node:crypto';

const RANGES = 4;

export interface RangeReader {
  bound: number;
  /** `[MIN(pk), MAX(pk)]` as the driver returns them. */
  minMax(): Promise<readonly unknown[]>;
  /** `start` is the decimal text of an integer key. */
  range(start: string, limit: number): Promise<unknown[][]>;
  add(rows: unknown[][]): void;
  full(): boolean;
}

function asBigInt(v: unknown): bigint | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string' && /^-?\d{1,19}$/.test(v)) return BigInt(v);
  return undefined;
}

/** Returns false (and reads nothing) when the key is not an integer, so the caller falls back to a head read. */
export async function readPrimaryKeyRanges(reader: RangeReader): Promise<boolean> {
  const [lo, hi] = await reader.minMax();
  const min = asBigInt(lo);
  const max = asBigInt(hi);
  if (min === undefined || max === undefined || max <= min) return false;
  const span = max - min;
  const starts: bigint[] = [];
  for (let i = 0; i < RANGES; i++) {
    // randomInt takes at most 2^48 - 1: scale a 48-bit draw onto wider key spans.
    const draw = BigInt(randomInt(0, 2 ** 48 - 1));
    starts.push(min + (span * draw) / BigInt(2 ** 48 - 1));
  }
  starts.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const per = Math.max(1, Math.floor(reader.bound / RANGES));
  for (const start of starts) {
    if (reader.full()) break;
    reader.add(await reader.range(start.toString(), per));
  }
  return true;
}
