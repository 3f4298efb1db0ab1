import type { Readable } from 'node:stream';
import { Type, type Static } from 'typebox';
import { Timestamp, Uuid } from '../../http/schemas.js';
import { csvHeader, csvRow, ndjsonLine, type AuditLogEntryRow } from './audit-export.js';

const Filters = {
  action: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'An exact action (field.confirmed), or a prefix ending in * (field.* is every action starting with field.). No other character is a wildcard: % and _ are literal',
    }),
  ),
  actor_id: Type.Optional(Uuid),
  actor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'A user name, whole: the entries of the user who holds it now; when no user holds it (deleted), the entries written under it',
    }),
  ),
  target_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Exact target id (a field UUID, a tag id …)' }),
  ),
  target: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "Text the target's current name contains, case-insensitive, taken literally: a field's schema.table.column or its data source's name, a user name, a data source's name (also for its scans), a tag's chain path",
    }),
  ),
  since: Type.Optional({ ...Timestamp, description: 'Entries at or after this instant (inclusive)' }),
  until: Type.Optional({ ...Timestamp, description: 'Entries before this instant (exclusive)' }),
};

export const AuditListQuery = Type.Object(
  {
    ...Filters,
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'next_cursor of the previous page' }),
    ),
  },
  { additionalProperties: false },
);
export type AuditListQuery = Static<typeof AuditListQuery>;

export const AuditExportQuery = Type.Object(
  {
    ...Filters,
    format: Type.Enum(['ndjson', 'csv'], { default: 'ndjson' }),
  },
  { additionalProperties: false },
);
export type AuditExportQuery = Static<typeof AuditExportQuery>;

/** An entry of the log, for the examples of the export: each format's body as the export's own formatters write it. */
const EXAMPLE_ENTRY: AuditLogEntryRow = {
  seq: 1,
  at: '2026-11-20T08:00:00.000Z',
  actor_id: 'b5d8f1a3-6c2e-4f7b-a9d4-3e1c0b8a2f76',
  actor_username: 'dana.reviewer',
  action: 'field.confirmed',
  target_type: 'field',
  target_id: '3f6c2a1e-8b4d-4c7a-9e21-5d0b7f3a9c14',
  request_id: '4b1e9d2a-7c3f-4e8b-a5d6-1f0c9e2b8a47',
  details: '{"classification_tag_id":12,"level":"L3"}',
  prev_hash: '0'.repeat(64),
  hash: '9c1f0d6a4b7e2f8c3a5d1e9b0c7f4a2d6e8b1c3f5a7d9e0b2c4f6a8d1e3b5c7f',
  target_name: 'public.customers.email',
  target_datasource: 'crm',
};

/**
 * The export's body: a stream sent as is, in the asked format. The schema documents it for OpenAPI (a media type per
 * format, with an example) and is never a serializer.
 */
export const AuditExportBody = Type.Unsafe<Readable>({
  description: 'NDJSON (application/x-ndjson) or CSV (text/csv) body',
  content: {
    'application/x-ndjson': {
      schema: { type: 'string', description: 'One JSON entry per line (format=ndjson)' },
      example: ndjsonLine(EXAMPLE_ENTRY),
    },
    'text/csv': {
      schema: { type: 'string', description: 'RFC 4180 CSV with a header row (format=csv)' },
      example: csvHeader() + csvRow(EXAMPLE_ENTRY),
    },
  },
});

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const AuditEntry = Type.Object({
  seq: Type.Integer({ minimum: 1 }),
  at: Timestamp,
  actor_id: Nullable(Type.String()),
  actor_username: Nullable(Type.String()),
  action: Type.String(),
  target_type: Nullable(Type.String()),
  target_id: Nullable(Type.String()),
  target_name: Nullable(
    Type.String({
      description:
        "The target's name, read when the entry is read: a field's schema.table.column, a user name, a data source's name, a tag's chain path; for a target that is gone, the name the entry recorded; null when there is none",
    }),
  ),
  target_datasource: Nullable(
    Type.String({ description: 'The data source of a field or scan target, by its current name; null otherwise' }),
  ),
  request_id: Nullable(Type.String()),
  details: Type.Object({}, { additionalProperties: true }),
  hash: Type.String({ description: 'SHA-256 (hex) of prev_hash and the canonical JSON of the entry' }),
  prev_hash: Type.String(),
});

export const AuditListResponse = Type.Object({
  items: Type.Array(AuditEntry),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
