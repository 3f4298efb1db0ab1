/**
 * Bounded reads spread over a large table with a single integer primary key: a few random key ranges instead of
 * always the first rows. Never a full scan: MIN/MAX of a primary key is answered from the index.
 *
 * Two rounds, so that every range contributes to the sample: first size / RANGES rows from each range (a dense
 * table is done after it, its values drawn from all RANGES places); then, only while some column still lacks
 * values (sparse columns), each range read on up to bound / RANGES rows. Filling the sample from the lowest
 * range alone, as a single round would, draws a sample of one place and favours the head of the table.
 */
import { randomInt } from 'node:crypto';

const RANGES = 4;

export interface RangeReader {
  /** Rows read at most, over all ranges. */
  bound: number;
  /** Values wanted per column. */
  size: number;
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
  const first = Math.min(per, Math.max(1, Math.ceil(reader.size / RANGES)));
  const read: number[] = [];
  for (const start of starts) {
    const rows = await reader.range(start.toString(), first);
    read.push(rows.length);
    reader.add(rows);
  }
  for (let i = 0; i < starts.length && per > first; i++) {
    if (reader.full()) break;
    // A range that ended before `first` rows reached the end of the table: reading it again finds nothing more.
    if (read[i]! < first) continue;
    reader.add((await reader.range(starts[i]!.toString(), per)).slice(first));
  }
  return true;
}
