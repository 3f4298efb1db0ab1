import { Type, type Static } from 'typebox';
import { Timestamp, Uuid } from '../../http/schemas.js';

const Filters = {
  action: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'An exact action (field.confirmed), or a prefix ending in * (field.* is every action starting with field.). No other character is a wildcard: % and _ are literal',
    }),
  ),
  actor_id: Type.Optional(Uuid),
  actor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'A user name, whole: the entries of the user who holds it now; when no user holds it (deleted), the entries written under it' }),
  ),
  target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Exact target id (a field UUID, a tag id …)' })),
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
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'next_cursor of the previous page' })),
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
  target_datasource: Nullable(Type.String({ description: "The data source of a field or scan target, by its current name; null otherwise" })),
  request_id: Nullable(Type.String()),
  details: Type.Object({}, { additionalProperties: true }),
  hash: Type.String({ description: 'SHA-256 (hex) of prev_hash and the canonical JSON of the entry' }),
  prev_hash: Type.String(),
});

export const AuditListResponse = Type.Object({
  items: Type.Array(AuditEntry),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
