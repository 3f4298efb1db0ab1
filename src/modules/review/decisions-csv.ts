/**
 * Reading the decisions file a reviewer edits in a spreadsheet: csv-parse, RFC 4180, a header row.
 * Pure: it turns text into rows numbered as a spreadsheet numbers them (the header is row 1), or names what is wrong.
 * The rules of the decisions themselves (ids, tags, levels, reasons) are the review service's.
 */
import { parse } from 'csv-parse/sync';
import { CsvError } from 'csv-parse';
import type { ProblemFieldError } from '../../http/errors.js';

export const MAX_DECISION_ROWS = 10_000;

/** The columns a decision reads; `id` (the export's name for it) is accepted for `field_id`. */
export const DECISION_COLUMNS = ['field_id', 'action', 'chain_path', 'level', 'reason'] as const;
type DecisionColumn = (typeof DECISION_COLUMNS)[number];

/** One data row as written, cells trimmed of the export's formula guard; `row` counts the header as row 1. */
export interface DecisionRow {
  row: number;
  field_id: string;
  action: string;
  chain_path: string;
  level: string;
  reason: string;
}

export type ParsedDecisions =
  { ok: true; rows: DecisionRow[] } | { ok: false; detail: string; errors: ProblemFieldError[] };

/** A problem about one row of the file. */
export function rowError(row: number, message: string): ProblemFieldError {
  return { path: `/rows/${row}`, row, message };
}

/**
 * The export prefixes a cell that starts with =, +, -, @, tab or CR with an apostrophe so a spreadsheet shows it as
 * text; a cell coming back with that prefix is read as it was before.
 */
function unguard(cell: string): string {
  return /^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell;
}

/**
 * Parses the file. Columns other than the decision's are allowed when they are the export's (so an exported file with
 * `action` and `reason` added comes back as it is) and ignored; any other column, a missing `field_id`/`id` or
 * `action` column, malformed CSV or more than MAX_DECISION_ROWS data rows is a problem of the whole file (row 1 for
 * the header). A row with more cells than the header is a problem of that row. Rows whose cells are all empty are
 * skipped.
 */
export function parseDecisionsCsv(text: string, exportColumns: readonly string[]): ParsedDecisions {
  let records: string[][];
  try {
    records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: false });
  } catch (error) {
    if (error instanceof CsvError) {
      const record =
        typeof (error as CsvError & { records?: number }).records === 'number'
          ? (error as CsvError & { records: number }).records + 1
          : undefined;
      const where = record === undefined ? 'the file' : `row ${record}`;
      return {
        ok: false,
        detail: `The file is not valid CSV (RFC 4180) near ${where}: ${error.message}`,
        errors: [rowError(record ?? 1, error.message)],
      };
    }
    throw error;
  }
  const [header, ...data] = records;
  if (!header || header.every((cell) => cell.trim() === '')) {
    return {
      ok: false,
      detail: 'The file is empty: a header row field_id,action,chain_path,level,reason and at least one row are needed',
      errors: [rowError(1, 'no header row')],
    };
  }
  const names = header.map((cell) => cell.trim().toLowerCase());
  const index = new Map<DecisionColumn, number>();
  const headerErrors: string[] = [];
  names.forEach((name, i) => {
    const column = (name === 'id' ? 'field_id' : name) as DecisionColumn;
    if ((DECISION_COLUMNS as readonly string[]).includes(column)) {
      if (index.has(column)) headerErrors.push(`column ${column} appears twice`);
      else index.set(column, i);
    } else if (!exportColumns.includes(name)) {
      headerErrors.push(
        `unknown column "${header[i]}" (expected ${DECISION_COLUMNS.join(', ')}; other columns of an export are ignored)`,
      );
    }
  });
  if (!index.has('field_id')) headerErrors.push('no field_id (or id) column');
  if (!index.has('action')) headerErrors.push('no action column');
  if (headerErrors.length > 0) {
    return {
      ok: false,
      detail: `The header row is not a decisions header: ${headerErrors.join('; ')}`,
      errors: headerErrors.map((m) => rowError(1, m)),
    };
  }
  if (data.length > MAX_DECISION_ROWS) {
    return {
      ok: false,
      detail: `At most ${MAX_DECISION_ROWS.toLocaleString('en')} rows per file; this one has ${data.length.toLocaleString('en')}`,
      errors: [rowError(1, 'too many rows')],
    };
  }

  const rows: DecisionRow[] = [];
  const errors: ProblemFieldError[] = [];
  const cell = (record: string[], column: DecisionColumn): string => {
    const i = index.get(column);
    return i === undefined ? '' : unguard(record[i] ?? '');
  };
  data.forEach((record, i) => {
    const row = i + 2;
    if (record.every((c) => c.trim() === '')) return;
    if (record.length > header.length && record.slice(header.length).some((c) => c.trim() !== '')) {
      errors.push(
        rowError(
          row,
          `has ${record.length} cells but the header has ${header.length} (a comma in a cell must be inside quotes)`,
        ),
      );
      return;
    }
    rows.push({
      row,
      field_id: cell(record, 'field_id').trim(),
      action: cell(record, 'action').trim().toLowerCase(),
      chain_path: cell(record, 'chain_path').trim(),
      level: cell(record, 'level').trim(),
      reason: cell(record, 'reason'),
    });
  });
  if (errors.length > 0)
    return { ok: false, detail: `${errors.length} row(s) are malformed; nothing was applied`, errors };
  if (rows.length === 0)
    return { ok: false, detail: 'The file has a header but no decision rows', errors: [rowError(2, 'no rows')] };
  return { ok: true, rows };
}
