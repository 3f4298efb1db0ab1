import { Type, type Static } from 'typebox';
import { Timestamp, Uuid } from '../../http/schemas.js';

const Count = Type.Integer({ minimum: 0 });

export const InventoryResponse = Type.Object({
  generated_at: Timestamp,
  levels: Type.Array(Type.Object({ code: Type.String(), name: Type.String() }), {
    description: 'The configured levels, least sensitive first: the keys and the order of the by_level counts',
  }),
  totals: Type.Object({ fields: Count, confirmed: Count, unreviewed: Count, deferred: Count }),
  by_level: Type.Array(Type.Object({ level: Type.String(), fields: Count, confirmed: Count }), {
    description:
      'Every configured level (least sensitive first, zero counts included), then any stored level no longer configured',
  }),
  by_datasource: Type.Array(
    Type.Object({
      datasource_id: Uuid,
      name: Type.String(),
      is_sample: Type.Boolean(),
      fields: Count,
      confirmed: Count,
      by_level: Type.Record(Type.String(), Count, {
        description: 'Fields per level code; every configured level is present',
      }),
      high_risk: Type.Integer({
        minimum: 0,
        description: 'Unreviewed fields whose severity is high: likely misclassified and not yet checked by a person',
      }),
    }),
    { description: 'Every data source (empty ones included), by name' },
  ),
  by_tag: Type.Array(
    Type.Object({
      tag_id: Type.Integer(),
      chain_path: Type.String(),
      fields: Count,
      by_level: Type.Record(Type.String(), Count, {
        description: 'Fields of the tag per level code; every configured level is present',
      }),
    }),
    { description: 'Tags that classify at least one field, most fields first (ties by chain path)' },
  ),
});
export type InventoryResponse = Static<typeof InventoryResponse>;
