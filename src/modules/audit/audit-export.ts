/**
 * Text formats of the audit export. NDJSON carries every hashed field unchanged (an external verifier can
 * recompute the chain from it); CSV is for people and spreadsheets, so cells that a spreadsheet would run
 * as a formula are neutralised.
 */
import type { AuditLogRow } from '../../db/schema.js';

export type ExportFormat = 'ndjson' | 'csv';

export const EXPORT_COLUMNS = [
  'seq',
  'at',
  'actor_id',
  'actor_username',
  'action',
  'target_type',
  'target_id',
  'request_id',
  'details',
  'prev_hash',
  'hash',
] as const;

/** The API shape of an entry: details as an object. */
export function toEntryResponse(row: AuditLogRow) {
  return {
    seq: Number(row.seq),
    at: row.at,
    actor_id: row.actor_id,
    actor_username: row.actor_username,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    request_id: row.request_id,
    details: parseDetails(row.details),
    hash: row.hash,
    prev_hash: row.prev_hash,
  };
}

function parseDetails(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    // A row edited outside the service may hold anything; show it rather than fail the whole page.
    return { unparsable: text };
  }
}

/** One NDJSON line (JSON.stringify escapes \n, so one entry is always one line). */
export function ndjsonLine(row: AuditLogRow): string {
  return `${JSON.stringify(toEntryResponse(row))}\n`;
}

export function csvHeader(): string {
  return `${EXPORT_COLUMNS.join(',')}\r\n`;
}

/** One CSV record (RFC 4180, CRLF line ends). */
export function csvRow(row: AuditLogRow): string {
  const cells: Array<string | number | null> = [
    Number(row.seq),
    row.at,
    row.actor_id,
    row.actor_username,
    row.action,
    row.target_type,
    row.target_id,
    row.request_id,
    row.details,
    row.prev_hash,
    row.hash,
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** Quotes when needed; a leading =, +, -, @, tab or CR gets a ' so spreadsheets show it as text (OWASP CSV injection). */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}
