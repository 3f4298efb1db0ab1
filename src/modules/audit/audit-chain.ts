/**
 * The hash chain of the audit log: hash = SHA-256(prev_hash ‖ canonical JSON of the entry).
 * Canonical JSON = keys sorted at every depth, no whitespace, so the same entry always hashes alike.
 */
import { createHash } from 'node:crypto';
import type { AuditLogRow } from '../../db/schema.js';

export const GENESIS_HASH = '0'.repeat(64);

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Serialises a JSON value with object keys sorted at every depth. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
    return JSON.stringify(value ?? null);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The fields of an entry that the hash covers: the stored row without the hash itself. */
export type ChainedEntry = Omit<AuditLogRow, 'hash'>;

/** Computes an entry's hash from its content and the previous entry's hash. */
export function hashEntry(entry: ChainedEntry): string {
  const { prev_hash, ...content } = entry;
  return createHash('sha256').update(prev_hash).update(canonicalJson(content)).digest('hex');
}
