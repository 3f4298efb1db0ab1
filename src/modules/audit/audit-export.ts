/**
 * Text formats of the audit export. NDJSON carries every hashed field unchanged (an external verifier can
 * recompute the chain from it) plus the target's name, which is read, not hashed; CSV is for people and
 * spreadsheets, so cells that a spreadsheet would run as a formula are neutralised.
 */
import type { AuditLogEntryRow } from './audit.repository.js';

export type { AuditLogEntryRow };

export type ExportFormat = 'ndjson' | 'csv';

export const EXPORT_COLUMNS = [
  'seq',
  'at',
  'actor_id',
  'actor_username',
  'action',
  'target_type',
  'target_id',
  'target_name',
  'target_datasource',
  'request_id',
  'details',
  'prev_hash',
  'hash',
] as const;

/** The API shape of an entry: details as an object, the target's name beside its id. */
export function toEntryResponse(row: AuditLogEntryRow) {
  const details = parseDetails(row.details);
  return {
    seq: Number(row.seq),
    at: row.at,
    actor_id: row.actor_id,
    actor_username: row.actor_username,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    target_name: row.target_name ?? recordedName(row, details),
    target_datasource: row.target_datasource ?? (row.target_type === 'scan' ? text(details.datasource) : null),
    request_id: row.request_id,
    details,
    hash: row.hash,
    prev_hash: row.prev_hash,
  };
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * The name an entry itself recorded, for a target that no longer exists (a deleted user or data source, a field a scan
 * removed): the writers put it in `details` under these keys, or, for a user acting on itself, as the actor.
 */
function recordedName(
  row: Pick<AuditLogEntryRow, 'target_type' | 'target_id' | 'actor_id' | 'actor_username'>,
  details: Record<string, unknown>,
): string | null {
  switch (row.target_type) {
    case 'user':
      // A login names its user as the actor, not in details.
      return (
        text(details.username) ?? (row.target_id !== null && row.target_id === row.actor_id ? row.actor_username : null)
      );
    case 'datasource':
      return text(details.name);
    case 'tag':
      return text(details.chain_path);
    case 'field': {
      const table = text(details.table_name);
      const field = text(details.field_name);
      return table && field ? `${table}.${field}` : null;
    }
    default:
      return null;
  }
}

function parseDetails(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value };
  } catch {
    // A row edited outside the service may hold anything; show it rather than fail the whole page.
    return { unparsable: text };
  }
}

/** One NDJSON line (JSON.stringify escapes \n, so one entry is always one line). */
export function ndjsonLine(row: AuditLogEntryRow): string {
  return `${JSON.stringify(toEntryResponse(row))}\n`;
}

export function csvHeader(): string {
  return `${EXPORT_COLUMNS.join(',')}\r\n`;
}

/** One CSV record (RFC 4180, CRLF line ends). */
export function csvRow(row: AuditLogEntryRow): string {
  const entry = toEntryResponse(row);
  const cells: Array<string | number | null> = [
    Number(row.seq),
    row.at,
    row.actor_id,
    row.actor_username,
    row.action,
    row.target_type,
    row.target_id,
    entry.target_name,
    entry.target_datasource,
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
