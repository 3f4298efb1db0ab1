import { Type, type Static } from 'typebox';
import { Timestamp, Uuid } from '../../http/schemas.js';
import { SuggestedClassification } from '../fields/fields.schemas.js';
import { AXES, perAxis } from './axes.js';

export const MAX_MINIBARS_FIELDS = 500;

const axes = (description: string, item: { minimum: number; maximum: number }) =>
  Type.Object(
    perAxis((k) => Type.Number({ ...item, description: AXES[k].description })),
    { description },
  );

export const AxisScores = axes(
  'Normalised scores in [0, 1]: the share of the catalog that fits worse on that axis (higher = fits better)',
  { minimum: 0, maximum: 1 },
);
export const RawAxisScores = axes('Raw cosine distances 1 − cos in [0, 2] (lower = closer)', {
  minimum: 0,
  maximum: 2,
});

export const MinibarsBody = Type.Object(
  {
    field_ids: Type.Array(Uuid, {
      minItems: 1,
      maxItems: MAX_MINIBARS_FIELDS,
      description: '1–500 field ids; a repeated id is answered once',
    }),
  },
  { additionalProperties: false },
);
export type MinibarsBody = Static<typeof MinibarsBody>;

export const FieldMetricItem = Type.Object({
  field_id: Uuid,
  scores: AxisScores,
  raw_scores: RawAxisScores,
  category_similarity: Type.Number({
    minimum: -1,
    maximum: 1,
    description: "cosine similarity to the anchor of the field's tag",
  }),
  centroid_similarity: Type.Number({
    minimum: -1,
    maximum: 1,
    description: 'cosine similarity to the mean of the other fields at its level',
  }),
  mean_similarity: Type.Number({
    minimum: -1,
    maximum: 1,
    description: 'mean cosine similarity to the other fields of the submitted list (1 for a list of one)',
  }),
  outlier_score: Type.Number({
    minimum: 0,
    maximum: 1,
    description: 'how likely the classification is wrong; higher = more suspicious',
  }),
  severity: Type.Enum(['low', 'medium', 'high'], {
    description: 'outlier_score bucketed by the configured thresholds',
  }),
  nearest_field_id: Type.Union([Uuid, Type.Null()], { description: 'the nearest other field in the catalog' }),
  nearest_field_name: Type.Union([Type.String(), Type.Null()], { description: 'its name as table.field' }),
  reason: Type.String({ description: 'one or two sentences naming the strongest evidence' }),
  suggested_classification: SuggestedClassification,
  unusual_level: Type.Union(
    [
      Type.Object({
        level: Type.String({ description: "the field's level" }),
        peers_at_level: Type.Integer({ minimum: 0, description: "the tag's other fields at that level" }),
        peers: Type.Integer({ minimum: 0, description: "the tag's other fields" }),
        usual_level: Type.String({ description: "the tag's most common level" }),
      }),
      Type.Null(),
    ],
    {
      description:
        "Set when few of the tag's other fields are at the field's level or one step from it, against its most common level (and no reviewer confirmed that level for the tag): the four tag bars (category_anchor, peer_mean, lower_quartile, farthest) are then scaled down by how rare the level is among the tag's fields (docs/metrics.md). Null otherwise, or while the instance loads its catalog.",
    },
  ),
});
export type FieldMetricItem = Static<typeof FieldMetricItem>;

export const MinibarsResponse = Type.Object({
  items: Type.Array(FieldMetricItem),
  baseline_scores: axes('Mean of each axis score over the returned items (0 when none)', { minimum: 0, maximum: 1 }),
  field_count: Type.Integer({ minimum: 0, description: 'number of items' }),
  missing_field_ids: Type.Array(Uuid, { description: 'requested ids that name no field' }),
});
export type MinibarsResponse = Static<typeof MinibarsResponse>;

export const MetricsStatusResponse = Type.Object({
  pending: Type.Integer({
    minimum: 0,
    description: 'fields whose stored metrics are older than a change that affects them',
  }),
  fields: Type.Integer({ minimum: 0, description: 'fields in the catalog' }),
  last_updated_at: Type.Union([Timestamp, Type.Null()], {
    description: 'when metrics were last written; null before the first',
  }),
});
export type MetricsStatusResponse = Static<typeof MetricsStatusResponse>;
