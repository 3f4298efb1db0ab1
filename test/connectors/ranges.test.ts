// The random key ranges a large table is sampled from, on a fake table of integer keys.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readPrimaryKeyRanges, type RangeReader } from '../../src/connectors/ranges.js';

/** A table of keys min..max where only every `every`-th row has a value: the sample is full after `size` values. */
function table(min: number, max: number, size: number, bound: number, every = 1) {
  const reads: { start: number; limit: number }[] = [];
  const rows: number[] = [];
  let values = 0;
  const reader: RangeReader = {
    bound,
    size,
    minMax: async () => [min, max],
    range: async (start, limit) => {
      reads.push({ start: Number(start), limit });
      const out: unknown[][] = [];
      for (let k = Number(start); k <= max && out.length < limit; k++) out.push([k]);
      return out;
    },
    add: (got) => {
      for (const [k] of got) {
        rows.push(k as number);
        if ((k as number) % every === 0 && values < size) values++;
      }
    },
    full: () => values >= size,
  };
  return { reader, reads, rows };
}

describe('readPrimaryKeyRanges', () => {
  it('a dense table: one round of size / 4 rows from each of four ranges, nothing more', async () => {
    const t = table(1, 1_000_000, 100, 1000);
    assert.equal(await readPrimaryKeyRanges(t.reader), true);
    assert.deepEqual(
      t.reads.map((r) => r.limit),
      [25, 25, 25, 25],
    );
    assert.equal(t.rows.length, 100);
    const starts = t.reads.map((r) => r.start);
    assert.deepEqual(
      starts,
      [...starts].sort((a, b) => a - b),
      'ranges are read in key order',
    );
  });

  it('a sparse column: each range read on to bound / 4 rows until the sample is full, never beyond the bound', async () => {
    // One row in 20 has a value: at most 2 values per first-round range and 12 per second-round one, never 100.
    const t = table(1, 1_000_000, 100, 1000, 20);
    await readPrimaryKeyRanges(t.reader);
    assert.equal(t.reads.length, 8);
    assert.deepEqual(
      t.reads.slice(4).map((r) => r.limit),
      [250, 250, 250, 250],
    );
    assert.deepEqual(
      t.reads.slice(4).map((r) => r.start),
      t.reads.slice(0, 4).map((r) => r.start),
      'the second round continues the same ranges',
    );
    assert.equal(t.rows.length, 1000, 'the rows of the first round are not counted again');
  });

  it('stops the second round as soon as the sample is full', async () => {
    const t = table(1, 1_000_000, 100, 1000, 2);
    await readPrimaryKeyRanges(t.reader);
    // The first round's 100 rows give about 50 values; the first range read on (225 new rows) gives about 112.
    assert.equal(t.reads.length, 5);
  });

  it('a range cut short by the end of the table is not read again', async () => {
    const t = table(1, 3, 100, 1000, 1000);
    await readPrimaryKeyRanges(t.reader);
    assert.ok(t.reads.slice(4).length === 0, 'every first-round range ended before 25 rows');
    assert.ok(t.rows.every((k) => k >= 1 && k <= 3));
  });

  it('reads nothing when the key is not an integer or the table has one key', async () => {
    for (const [lo, hi] of [
      ['a', 'z'],
      [5, 5],
      [1.5, 9],
      [null, null],
    ]) {
      const t = table(0, 0, 100, 1000);
      t.reader.minMax = async () => [lo, hi];
      assert.equal(await readPrimaryKeyRanges(t.reader), false);
      assert.equal(t.reads.length, 0);
    }
  });

  it('keys beyond 2^53 are drawn and written exactly', async () => {
    const seen: string[] = [];
    await readPrimaryKeyRanges({
      bound: 1000,
      size: 100,
      minMax: async () => [9_223_372_036_854_775_000n, 9_223_372_036_854_775_807n],
      range: async (start) => {
        seen.push(start);
        return [];
      },
      add: () => undefined,
      full: () => false,
    });
    assert.equal(seen.length, 4);
    for (const s of seen) {
      const k = BigInt(s);
      assert.ok(k >= 9_223_372_036_854_775_000n && k <= 9_223_372_036_854_775_807n, s);
    }
  });
});
