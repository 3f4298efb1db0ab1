import { Type, type Static } from 'typebox';
import { IdParams, StringEnum, Timestamp, Uuid } from '../../http/schemas.js';

export const SCAN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

/**
 * What a scan is doing: `queued`, `connecting`, `listing` (the catalog), then per batch of tables `sampling`,
 * `classifying` and `writing`, then `removing` (fields whose columns are gone), and `done`; `cancelling` while a
 * cancel waits for the worker.
 */
export const SCAN_PHASES = [
  'queued',
  'connecting',
  'listing',
  'sampling',
  'classifying',
  'writing',
  'removing',
  'cancelling',
  'done',
] as const;
export type ScanPhase = (typeof SCAN_PHASES)[number];

const Count = Type.Integer({ minimum: 0 });

export const SCAN_NOTE_KINDS = [
  'table_not_sampled',
  'table_not_stored',
  'table_skipped',
  'column_skipped',
  'comment_cut',
  'data_type_cut',
] as const;
export type ScanNoteKind = (typeof SCAN_NOTE_KINDS)[number];

export const ScanNote = Type.Object({
  kind: StringEnum(SCAN_NOTE_KINDS, {
    description:
      'table_not_sampled: catalogued from its metadata only (no values read); table_not_stored: the catalog refused its fields; table_skipped / column_skipped: a name over 128 characters or with control or bidirectional-override characters, not catalogued; comment_cut / data_type_cut: cut to 4,000 / 128 characters or cleaned',
  }),
  table: Type.String({
    description:
      'The table as its fields name it; unsafe characters escaped as \\u{…}, at most 80 characters and the full length',
  }),
  column: Type.Union([Type.String(), Type.Null()], {
    description: 'The column, for column notes; null for the table itself',
  }),
  reason: Type.String({ description: 'Why, in words: the cause and what was being done; never a value or a secret' }),
});
export type ScanNote = Static<typeof ScanNote>;

export const ScanNotes = Type.Object(
  {
    tables_not_sampled: Type.Integer({
      minimum: 0,
      description:
        'Tables whose values could not be read (a grant, a broken view, a timeout): classified from metadata only',
    }),
    tables_not_stored: Type.Integer({
      minimum: 0,
      description: 'Tables whose fields the catalog could not store; the rest of their batch was stored',
    }),
    tables_skipped: Type.Integer({ minimum: 0, description: 'Tables skipped for their name' }),
    columns_skipped: Type.Integer({ minimum: 0, description: 'Columns skipped for their name' }),
    metadata_cut: Type.Integer({ minimum: 0, description: 'Comments and declared types cut or cleaned' }),
    items: Type.Array(ScanNote, { description: 'The first 50 notes of each kind (the totals count all)' }),
  },
  {
    description:
      'What the scan could not take whole. A succeeded scan with notes did not see everything: each note names the table and why',
  },
);
export type ScanNotes = Static<typeof ScanNotes>;

export const ScanResponse = Type.Object({
  id: Uuid,
  datasource_id: Uuid,
  status: StringEnum(SCAN_STATUSES, { description: 'queued → running → succeeded | failed | cancelled' }),
  phase: StringEnum(SCAN_PHASES, { description: 'What the scan is doing (see docs/scanning.md)' }),
  progress: Type.Object({
    tables_done: Count,
    tables_total: Count,
    fields_done: Count,
    fields_total: Count,
  }),
  counts: Type.Object({
    new: Type.Integer({ minimum: 0, description: 'Columns found that were not in the catalog' }),
    changed: Type.Integer({ minimum: 0, description: 'Columns whose type, comment or value format changed' }),
    removed: Type.Integer({ minimum: 0, description: 'Fields removed because their column is gone' }),
    unchanged: Type.Integer({ minimum: 0, description: 'Columns found as the catalog holds them' }),
    classified: Type.Integer({
      minimum: 0,
      description: 'Fields the classifier classified (new, and changed ones no person decided)',
    }),
  }),
  notes: ScanNotes,
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the scan failed: the cause and what it was doing; never a secret or a value',
  }),
  requested_by: Type.Union([Uuid, Type.Null()], { description: 'The user who started it; null for a periodic scan' }),
  created_at: Timestamp,
  started_at: Type.Union([Timestamp, Type.Null()]),
  finished_at: Type.Union([Timestamp, Type.Null()]),
});
export type ScanResponse = Static<typeof ScanResponse>;

export const ScanListQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page' }),
    ),
  },
  { additionalProperties: false },
);
export type ScanListQuery = Static<typeof ScanListQuery>;

export const ScanListResponse = Type.Object({
  items: Type.Array(ScanResponse),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export type ScanListResponse = Static<typeof ScanListResponse>;

export const ScanIdParams = IdParams;

/** Starting or cancelling a scan takes no options: an empty object, or no body. */
export const EmptyBody = Type.Object(
  {},
  { additionalProperties: false, description: 'No options: send {} or no body' },
);
export type EmptyBody = Static<typeof EmptyBody>;
