/**
 * Text formats of the field export. CSV goes through csv-stringify: RFC 4180 quoting (quotes doubled,
 * cells holding a comma, quote or line break quoted), CRLF record ends, a header row, and cells a spreadsheet would
 * run as a formula (a leading =, +, -, @, tab or CR) prefixed with ' (OWASP CSV injection). NDJSON is one JSON
 * object per line with the same keys.
 */
import { stringify } from 'csv-stringify/sync';
import type { FieldListRow } from './fields.repository.js';
import { EXPORT_COLUMNS, type ExportFormat, type FieldExportRecord } from './fields.schemas.js';

export const EXPORT_CONTENT_TYPES: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** Scores as the list shows them: 3 decimals. */
const round3 = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000);

/** A field as one export record; `datasourceName` names its data source. */
export function toExportRecord(row: FieldListRow, datasourceName: string): FieldExportRecord {
  return {
    id: row.id,
    datasource: datasourceName,
    table_name: row.table_name,
    field_name: row.field_name,
    data_type: row.data_type,
    chain_path: row.classification_chain_path,
    level: row.level,
    lock_level: row.locked === 1 ? row.level : null,
    review_status: row.review_status,
    classification_source: row.classification_source,
    classification_confidence:
      row.classification_source === 'classifier' ? round3(row.classification_confidence) : null,
    outlier_score: round3(row.outlier_score),
    severity: row.severity,
    suggested_chain_path: row.suggested_tag_id !== null ? row.suggested_chain_path : null,
    suggested_level: row.suggested_tag_id !== null ? row.suggested_level : null,
    updated_at: row.updated_at,
  };
}

const CSV_OPTIONS = {
  columns: [...EXPORT_COLUMNS],
  record_delimiter: 'windows',
  escape_formulas: true,
  // csv-stringify quotes a cell holding the record delimiter (CRLF) but not a lone LF or CR, which a spreadsheet would
  // still take as a line end: quote those too (a scanned identifier may hold one).
  quoted_match: /[\r\n]/,
  // Null (and undefined) as an empty cell, not the text "null".
  cast: { number: (value: number) => String(value) },
} as const;

/** The CSV header row. */
export function csvHeader(): string {
  return stringify([], { ...CSV_OPTIONS, header: true });
}

/** A page of records as CSV text (no header). */
export function csvRecords(records: readonly FieldExportRecord[]): string {
  return stringify(records as FieldExportRecord[], { ...CSV_OPTIONS, header: false });
}

/** A page of records as NDJSON (JSON.stringify escapes line breaks, so one record is one line). */
export function ndjsonRecords(records: readonly FieldExportRecord[]): string {
  let out = '';
  for (const record of records) out += `${JSON.stringify(record)}\n`;
  return out;
}

/** The format asked for: `format` when given, else the first of text/csv or application/x-ndjson the Accept header names, else CSV. */
export function negotiateExportFormat(format: ExportFormat | undefined, accept: string | undefined): ExportFormat {
  if (format !== undefined) return format;
  const types = (accept ?? '')
    .split(',')
    .map((part) => part.split(';')[0]?.trim().toLowerCase() ?? '')
    .filter((t) => t !== '');
  for (const type of types) {
    if (type === 'text/csv') return 'csv';
    if (type === 'application/x-ndjson' || type === 'application/ndjson') return 'ndjson';
  }
  return 'csv';
}
