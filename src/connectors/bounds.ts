/**
 * Scanned metadata bounded like imported metadata (the import's limits, src/modules/fields/fields.schemas.ts): a
 * table or column whose name is longer than 128 characters or holds a control or bidirectional-override character is
 * skipped (never stored), comments are cut to 4,000 characters and declared types to 128. The connectors cut comments
 * and types in their catalog query at one character more than kept (FETCH_*), so that a 4 MB comment never crosses the
 * network and this helper still sees that something was cut. Pure: no I/O, nothing logged.
 */
import type { CatalogTable, ColumnInfo } from './connector.js';

export const MAX_NAME_LENGTH = 128;
export const MAX_COMMENT_LENGTH = 4000;
export const MAX_TYPE_LENGTH = 128;
/** What a catalog query reads at most of a comment or a type: one character more than kept, to tell that it was cut. */
export const FETCH_COMMENT_LENGTH = MAX_COMMENT_LENGTH + 1;
export const FETCH_TYPE_LENGTH = MAX_TYPE_LENGTH + 1;

/* eslint-disable no-control-regex -- these patterns exist to find control characters */
/** C0 controls, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). */
const UNSAFE_IN_NAME = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
/** The same in comments and types, except tab, LF and CR (comments come from DDL and may span lines). */
const UNSAFE_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;
const UNSAFE_ANY = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;
/* eslint-enable no-control-regex */

export type MetadataNoteKind = 'table_skipped' | 'column_skipped' | 'comment_cut' | 'data_type_cut';

/** What the bound did to one table or column; `table` and `column` are display labels (see `nameLabel`), never raw. */
export interface MetadataNote {
  kind: MetadataNoteKind;
  table: string;
  column: string | null;
  reason: string;
}

/** Length in code points (as the import's schema counts), without building an array for a huge string. */
function codePoints(text: string, stopAfter: number): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) i++;
    if (++n > stopAfter) return n;
  }
  return n;
}

/** Why a name cannot be stored, or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if (codePoints(name, MAX_NAME_LENGTH) > MAX_NAME_LENGTH)
    return `the name has ${name.length} characters (at most ${MAX_NAME_LENGTH} are kept)`;
  if (UNSAFE_IN_NAME.test(name)) return 'the name holds control or bidirectional-override characters';
  return undefined;
}

/** A name as it may be shown and stored in a scan's notes: unsafe characters escaped as \u{…}, at most 80 characters. */
export function nameLabel(name: string): string {
  const head = name.length > 80 ? name.slice(0, 80) : name;
  const cutHead = /[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head;
  const escaped = cutHead.replace(UNSAFE_ANY, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`);
  return name.length > 80 ? `${escaped}… (${name.length} characters)` : escaped;
}

/** Cuts to `max` code units without leaving half a surrogate pair. */
function cut(text: string, max: number): string {
  const head = text.slice(0, max);
  return /[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head;
}

/** A comment or type cleaned (unsafe characters replaced by U+FFFD) and cut; `changed` says what happened. */
function boundText(text: string, max: number): { text: string; changed: string | undefined } {
  let out = text;
  const reasons: string[] = [];
  if (out.length > max) {
    out = cut(out, max);
    reasons.push(`cut to ${max} characters`);
  }
  const cleaned = out.replace(UNSAFE_IN_TEXT, '\ufffd');
  if (cleaned !== out) reasons.push('control or bidirectional-override characters replaced');
  return { text: cleaned, changed: reasons.length > 0 ? reasons.join('; ') : undefined };
}

export interface BoundedTable {
  /** The table with its storable columns and bounded comments and types; undefined when the table is skipped. */
  table: CatalogTable | undefined;
  notes: MetadataNote[];
}

/**
 * Bounds one listed table. `storedName` is the name its fields get (`schema.table`, or the bare name for SQLite): the
 * limit applies to it, as to an imported table name.
 */
export function boundCatalogTable(table: CatalogTable, storedName: string): BoundedTable {
  const tableLabel = nameLabel(storedName);
  const problem = nameProblem(table.schema) ?? nameProblem(table.name) ?? nameProblem(storedName);
  if (problem !== undefined)
    return { table: undefined, notes: [{ kind: 'table_skipped', table: tableLabel, column: null, reason: problem }] };
  const notes: MetadataNote[] = [];
  const columns: ColumnInfo[] = [];
  for (const column of table.columns) {
    const columnProblem = nameProblem(column.name);
    if (columnProblem !== undefined) {
      notes.push({ kind: 'column_skipped', table: tableLabel, column: nameLabel(column.name), reason: columnProblem });
      continue;
    }
    let { data_type, comment } = column;
    const type = boundText(data_type, MAX_TYPE_LENGTH);
    if (type.changed) {
      data_type = type.text;
      notes.push({
        kind: 'data_type_cut',
        table: tableLabel,
        column: column.name,
        reason: `declared type ${type.changed}`,
      });
    }
    if (comment !== null) {
      const bounded = boundText(comment, MAX_COMMENT_LENGTH);
      if (bounded.changed) {
        comment = bounded.text;
        notes.push({
          kind: 'comment_cut',
          table: tableLabel,
          column: column.name,
          reason: `comment ${bounded.changed}`,
        });
      }
    }
    columns.push(type.changed || comment !== column.comment ? { ...column, data_type, comment } : column);
  }
  let tableComment = table.comment;
  if (tableComment !== null) {
    const bounded = boundText(tableComment, MAX_COMMENT_LENGTH);
    if (bounded.changed) {
      tableComment = bounded.text;
      notes.push({ kind: 'comment_cut', table: tableLabel, column: null, reason: `table comment ${bounded.changed}` });
    }
  }
  // A primary key naming a skipped column cannot be used to read ranges: sampling then reads the first rows.
  const kept = new Set(columns.map((c) => c.name));
  const primaryKey = table.primary_key.every((k) => kept.has(k)) ? table.primary_key : [];
  return { table: { ...table, comment: tableComment, primary_key: primaryKey, columns }, notes };
}
