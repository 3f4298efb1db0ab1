/**
 * Sampled values normalised for the classifier. Raw values stay in memory only: nothing here logs, and error
 * paths never carry a value.
 */
import type { SampleValue } from './connector.js';

export function binaryDescriptor(bytes: number): string {
  return `<binary ${bytes} bytes>`;
}

/** Strings cut to `maxLength` characters (code points, so no half surrogate), numbers kept, the rest as text. */
export function normalizeValue(value: unknown, maxLength: number): SampleValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'string') return truncate(value, maxLength);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Uint8Array) return binaryDescriptor(value.byteLength);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'invalid date' : value.toISOString();
  try {
    return truncate(JSON.stringify(value) ?? String(value), maxLength);
  } catch {
    return truncate(String(value), maxLength);
  }
}

export function truncate(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const cut = text.slice(0, maxLength);
  // Do not leave a lone high surrogate at the end.
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** Collects up to `limit` non-null values per column from array rows (one array element per column). */
export class SampleCollector {
  readonly values = new Map<string, SampleValue[]>();
  rowsRead = 0;

  constructor(
    private readonly names: readonly string[],
    private readonly limit: number,
  ) {
    for (const n of names) this.values.set(n, []);
  }

  /** True once every column holds `limit` values, so further reads can stop. */
  get full(): boolean {
    for (const list of this.values.values()) if (list.length < this.limit) return false;
    return true;
  }

  add(row: readonly SampleValue[] | readonly (SampleValue | undefined)[]): void {
    this.rowsRead++;
    for (let i = 0; i < this.names.length; i++) {
      const v = row[i];
      if (v === undefined) continue;
      const list = this.values.get(this.names[i]!)!;
      if (list.length < this.limit) list.push(v);
    }
  }
}
