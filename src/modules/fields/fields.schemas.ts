import { Type, type Static } from 'typebox';
import { IdParams, PlainText, Timestamp, Uuid } from '../../http/schemas.js';

export const MAX_IMPORT_FIELDS = 5000;
export const REVIEW_STATUSES = ['unreviewed', 'confirmed', 'deferred'] as const;
export const SEVERITIES = ['low', 'medium', 'high'] as const;
export const FIELD_SORTS = ['outlier_score', 'name', 'updated_at', 'risk'] as const;
export const SCAN_CHANGES = ['new', 'changed', 'reclassified'] as const;
export const CHANGED_VIEWS = ['last_scan'] as const;
export const CLASSIFICATION_SOURCES = ['import', 'classifier', 'rule', 'reviewer'] as const;
/** Sources of a classification FieldLens gave itself: re-evaluated, rescanned and shown with evidence; nobody decided them. */
export const AUTOMATIC_SOURCES = ['classifier', 'rule'] as const;
export const isAutomaticSource = (source: string): boolean => (AUTOMATIC_SOURCES as readonly string[]).includes(source);
export const EVIDENCE_FACTORS = [
  'name',
  'table',
  'context',
  'comment',
  'data_type',
  'values',
  'confirmed_fields',
  'anchor',
  'rule',
] as const;

export const ClassificationEvidence = Type.Object({
  factor: Type.Enum(EVIDENCE_FACTORS),
  score: Type.Number({
    description: 'points this factor gave the chosen tag (negative: against it, or a tag it ruled out)',
  }),
  detail: Type.String({ description: 'a short sentence for the reviewer' }),
  for: Type.Optional(
    Type.String({
      description:
        'set on the evidence of a runner-up: the chain path of the tag it spoke for (the tag the chosen one beat); absent for the chosen tag',
    }),
  ),
});
export type FieldSort = (typeof FIELD_SORTS)[number];

const Name = (what: string) =>
  PlainText({ minLength: 1, maxLength: 128, description: `${what}: 1–128 characters, no control characters` });
/** Comments come from schema DDL and may span lines: tab, CR and LF are allowed, other control characters are not. */
const Comment = Type.String({ maxLength: 4000, pattern: '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$' });

export const ImportFieldItem = Type.Object(
  {
    table_name: Name('Table name'),
    field_name: Name('Field name'),
    data_type: Type.Optional(Type.Union([PlainText({ maxLength: 128 }), Type.Null()])),
    comment: Type.Optional(Type.Union([Comment, Type.Null()])),
    sample_values: Type.Optional(
      Type.Array(Type.String({ maxLength: 1000 }), {
        maxItems: 1000,
        description: 'Example values; only a signature of their format is kept, the values themselves are never stored',
      }),
    ),
    classification_tag_id: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    classification_chain_path: Type.Optional(Type.Union([PlainText({ minLength: 1, maxLength: 2000 }), Type.Null()])),
    level: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 16 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type ImportFieldItem = Static<typeof ImportFieldItem>;

export const ImportFieldsBody = Type.Object(
  {
    datasource_id: Uuid,
    fields: Type.Array(ImportFieldItem, { minItems: 1, maxItems: MAX_IMPORT_FIELDS }),
  },
  { additionalProperties: false },
);
export type ImportFieldsBody = Static<typeof ImportFieldsBody>;

export const ImportFieldsResponse = Type.Object({
  created: Type.Integer({ minimum: 0 }),
  updated: Type.Integer({ minimum: 0 }),
  field_ids: Type.Array(Uuid, { description: 'Id of each imported field, in input order' }),
});
export type ImportFieldsResponse = Static<typeof ImportFieldsResponse>;

export const SuggestedClassification = Type.Union(
  [
    Type.Object({
      tag_id: Type.Integer(),
      chain_path: Type.String(),
      level: Type.String(),
      confidence: Type.Number({
        minimum: 0,
        maximum: 1,
        description: 'how strongly the evidence favours it over the current classification',
      }),
    }),
    Type.Null(),
  ],
  {
    description:
      'A classification that fits the field better than its current one (accept it with one confirm call: classification_tag_id and lock_level), or null when the current one fits best or the metrics are not computed yet',
  },
);
export type SuggestedClassification = Static<typeof SuggestedClassification>;

export const FieldResponse = Type.Object({
  id: Uuid,
  datasource_id: Uuid,
  table_name: Type.String(),
  field_name: Type.String(),
  data_type: Type.Union([Type.String(), Type.Null()]),
  comment: Type.Union([Type.String(), Type.Null()]),
  classification_tag_id: Type.Integer(),
  classification_chain_path: Type.String(),
  level: Type.String(),
  lock_level: Type.Union([Type.String(), Type.Null()], {
    description: 'The level when a reviewer locked the classification, else null',
  }),
  review_status: Type.Enum(REVIEW_STATUSES),
  outlier_score: Type.Union([Type.Number(), Type.Null()], {
    description: 'From the stored metrics; null until computed',
  }),
  severity: Type.Union([Type.Enum(SEVERITIES), Type.Null()]),
  suggested_classification: SuggestedClassification,
  classification_source: Type.Enum(CLASSIFICATION_SOURCES, {
    description:
      'How the field got its classification: given by an import, chosen by the classifier, or confirmed by a reviewer',
  }),
  classification_confidence: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
    description:
      "The classifier's calibrated confidence (the share of its answers at this confidence that are right); null when given by an import or a reviewer",
  }),
  classification_evidence: Type.Array(ClassificationEvidence, {
    description:
      'What the classifier weighed, strongest first (empty when given by an import or a reviewer); never a sample value',
  }),
  scan_change: Type.Union([Type.Enum(SCAN_CHANGES), Type.Null()], {
    description:
      'What the last finished scan of its data source did to the field: new (found it), changed (its type, comment or value format changed), ' +
      'reclassified (changed, and its classification replaced by another tag or level); null when that scan did not touch it or it was never scanned',
  }),
  updated_at: Timestamp,
});
export type FieldResponse = Static<typeof FieldResponse>;

/** The list's filters, shared by the list and the export. */
const LIST_FILTERS = {
  datasource_id: Type.Optional(Uuid),
  review_status: Type.Optional(Type.Enum(REVIEW_STATUSES)),
  severity: Type.Optional(Type.Enum(SEVERITIES)),
  level: Type.Optional(Type.String({ minLength: 1, maxLength: 16 })),
  tag_id: Type.Optional(Type.Integer({ minimum: 1 })),
  q: Type.Optional(
    PlainText({ minLength: 1, maxLength: 128, description: 'Substring of the table or field name (case-insensitive)' }),
  ),
  changed: Type.Optional(
    Type.Enum(CHANGED_VIEWS, {
      description:
        'last_scan: only fields the last finished scan of their data source created, changed or re-classified (see scan_change)',
    }),
  ),
  include_sample: Type.Boolean({
    default: true,
    description: 'false leaves out the fields of the built-in sample data sources (is_sample)',
  }),
};

export const FieldListQuery = Type.Object(
  {
    ...LIST_FILTERS,
    sort: Type.Enum(FIELD_SORTS, {
      default: 'name',
      description:
        'name: field name ascending; outlier_score: most suspicious first, not-yet-scored last; updated_at: most recently changed first; ' +
        'risk: review order — likely-wrong fields first (severity high, then medium), under-classified before over-classified within each, then by outlier_score; not-yet-scored last',
    }),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'next_cursor of the previous page',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FieldListQuery = Static<typeof FieldListQuery>;

export const FieldListResponse = Type.Object({
  items: Type.Array(FieldResponse),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as cursor for the next page; null on the last page',
  }),
});
export type FieldListResponse = Static<typeof FieldListResponse>;

export const FieldIdParams = IdParams;

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const FieldExportQuery = Type.Object(
  {
    ...LIST_FILTERS,
    format: Type.Optional(
      Type.Enum(EXPORT_FORMATS, {
        description:
          'csv or ndjson; when absent, the Accept header decides (text/csv or application/x-ndjson), else csv',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FieldExportQuery = Static<typeof FieldExportQuery>;

/** The columns of an export (CSV header, NDJSON keys), in order. */
export const EXPORT_COLUMNS = [
  'id',
  'datasource',
  'table_name',
  'field_name',
  'data_type',
  'chain_path',
  'level',
  'lock_level',
  'review_status',
  'classification_source',
  'classification_confidence',
  'outlier_score',
  'severity',
  'suggested_chain_path',
  'suggested_level',
  'updated_at',
] as const;
export type FieldExportRecord = Record<(typeof EXPORT_COLUMNS)[number], string | number | null>;
