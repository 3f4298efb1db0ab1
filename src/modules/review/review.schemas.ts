import { Type, type Static } from 'typebox';
import { PlainText, Timestamp, Uuid } from '../../http/schemas.js';

export const MAX_BATCH_FIELDS = 500;
export const MAX_DEFER_REASON = 2000;
/** A deferral's reason: at least one visible character; line breaks and tabs allowed, other control characters not. */
export const DEFER_REASON_PATTERN = '^(?=[\\s\\S]*\\S)[^\\u0000-\\u0008\\u000b-\\u001f\\u007f]*$';

export const FieldIdParams = Type.Object({ field_id: Uuid });
export type FieldIdParams = Static<typeof FieldIdParams>;

const decision = {
  classification_tag_id: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), Type.Null()], {
      description: "The tag to confirm; null or absent: the field's current tag (or the tag of the path)",
    }),
  ),
  classification_chain_path: Type.Optional(
    Type.Union([PlainText({ minLength: 1, maxLength: 2000 }), Type.Null()], {
      description:
        'Tag names from the root joined by "/", e.g. "Personal/Contact/Email"; must name the same tag as classification_tag_id when both are given',
    }),
  ),
  lock_level: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
      description:
        "A configured level code (GET /api/v1/classification/levels) that becomes the field's level; null or absent: the current level is kept",
    }),
  ),
};

export const DecisionBody = Type.Object(decision, { additionalProperties: false });
export type DecisionBody = Static<typeof DecisionBody>;

export const BatchConfirmBody = Type.Object(
  {
    ...decision,
    field_ids: Type.Array(Uuid, {
      minItems: 1,
      maxItems: MAX_BATCH_FIELDS,
      description: '1–500 field ids; a repeated id is answered once',
    }),
  },
  { additionalProperties: false },
);
export type BatchConfirmBody = Static<typeof BatchConfirmBody>;

export const ConfirmResponse = Type.Object({
  status: Type.Enum(['confirmed']),
  field_id: Uuid,
  review_status: Type.Enum(['confirmed']),
});
export type ConfirmResponse = Static<typeof ConfirmResponse>;

export const BatchConfirmResponse = Type.Object({
  confirmed: Type.Array(Uuid, { description: 'Fields confirmed by this call, in request order' }),
  skipped: Type.Array(Type.Object({ field_id: Uuid, reason: Type.Enum(['unchanged']) }), {
    description: 'Fields already confirmed, locked, with exactly this classification: nothing written',
  }),
  errors: Type.Array(Type.Object({ field_id: Uuid, code: Type.Enum(['not_found']), message: Type.String() })),
});
export type BatchConfirmResponse = Static<typeof BatchConfirmResponse>;

export const DeferBody = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: MAX_DEFER_REASON,
      // At least one visible character; line breaks and tabs allowed, other control characters not.
      pattern: DEFER_REASON_PATTERN,
      description:
        'Why the decision is deferred: 1–2000 characters, not only whitespace; line breaks and tabs allowed, other control characters not',
    }),
  },
  { additionalProperties: false },
);
export type DeferBody = Static<typeof DeferBody>;

export const DeferResponse = Type.Object({
  field_id: Uuid,
  review_status: Type.Enum(['deferred']),
  reason: Type.String(),
  deferred_at: Timestamp,
});
export type DeferResponse = Static<typeof DeferResponse>;

export const PROGRESS_BUCKETS = ['day', 'week'] as const;
export type ProgressBucket = (typeof PROGRESS_BUCKETS)[number];

export const ReviewProgressQuery = Type.Object(
  {
    bucket: Type.Enum(PROGRESS_BUCKETS, {
      default: 'day',
      description: 'day: UTC calendar days; week: ISO weeks (Monday to Sunday, UTC)',
    }),
    days: Type.Integer({
      minimum: 1,
      maximum: 366,
      default: 30,
      description: 'How far back: the buckets covering the last `days` days, today included',
    }),
  },
  { additionalProperties: false },
);
export type ReviewProgressQuery = Static<typeof ReviewProgressQuery>;

export const ReviewProgressBucket = Type.Object({
  start: Type.String({ format: 'date', description: 'First day of the bucket (UTC, YYYY-MM-DD)' }),
  confirmed: Type.Integer({
    minimum: 0,
    description: 'Confirmations recorded in the bucket (audit entries field.confirmed: each field of a batch counts)',
  }),
  deferred: Type.Integer({
    minimum: 0,
    description: 'Deferrals recorded in the bucket (audit entries field.deferred)',
  }),
  confirmed_fields: Type.Integer({
    minimum: 0,
    description: 'Fields of the current catalog that were confirmed by the end of the bucket and still are',
  }),
  confirmed_share: Type.Number({
    minimum: 0,
    maximum: 1,
    description: 'confirmed_fields / fields_total (0 for an empty catalog)',
  }),
});

export const ReviewProgressResponse = Type.Object({
  bucket: Type.Enum(PROGRESS_BUCKETS),
  fields_total: Type.Integer({ minimum: 0 }),
  fields_confirmed: Type.Integer({ minimum: 0 }),
  buckets: Type.Array(ReviewProgressBucket, { description: 'Oldest first; the last one holds today' }),
});
export type ReviewProgressResponse = Static<typeof ReviewProgressResponse>;

export const DecisionsResponse = Type.Object({
  confirmed: Type.Integer({
    minimum: 0,
    description: 'Rows applied as confirmations (one field.confirmed audit entry each)',
  }),
  deferred: Type.Integer({
    minimum: 0,
    description: 'Rows applied as deferrals (one field.deferred audit entry each)',
  }),
  ignored: Type.Integer({
    minimum: 0,
    description: 'Rows left without an action (an exported row nobody decided): nothing written for them',
  }),
});
export type DecisionsResponse = Static<typeof DecisionsResponse>;
