import { Type, type Static } from 'typebox';
import { PlainText, Timestamp, Uuid } from '../../http/schemas.js';
import { TYPE_FAMILIES } from './rule-matcher.js';

export const MAX_RULES = 200;
export const MAX_PATTERN = 1000;
export const MAX_VALUES_IN = 10_000;

const Pattern = Type.String({
  minLength: 1,
  maxLength: MAX_PATTERN,
  description: 'A regular expression (RE2 syntax), matched case-insensitively anywhere in the text; ≤ 1,000 characters',
});

export const RuleMatch = Type.Object(
  {
    column_name: Type.Optional(Pattern),
    table_name: Type.Optional(Pattern),
    comment: Type.Optional(Pattern),
    data_type_family: Type.Optional(
      Type.Array(Type.Enum([...TYPE_FAMILIES]), {
        minItems: 1,
        uniqueItems: true,
        description: 'The declared type is of one of these families',
      }),
    ),
    values: Type.Optional(
      Type.Object(
        {
          pattern: Type.Optional(Pattern),
          in: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
              minItems: 1,
              maxItems: MAX_VALUES_IN,
              description: 'Values (compared case-insensitively, trimmed)',
            }),
          ),
          min_share: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: 1,
              description: 'Share of the non-empty samples that must match (default 0.8)',
            }),
          ),
        },
        { additionalProperties: false, description: 'Judged on the samples of an import or scan, in memory only' },
      ),
    ),
  },
  { additionalProperties: false, description: 'Every part given must hold; at least one part' },
);
export type RuleMatch = Static<typeof RuleMatch>;

const ruleFields = {
  name: PlainText({ minLength: 1, maxLength: 100 }),
  description: Type.Optional(Type.Union([PlainText({ maxLength: 1000 }), Type.Null()])),
  tag_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
  level: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 16 }), Type.Null()], {
      description: "A configured level code; null: the tag's default level",
    }),
  ),
  priority: Type.Optional(
    Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'Higher first (default 0)' }),
  ),
  enabled: Type.Optional(Type.Boolean()),
  match: RuleMatch,
  datasource_ids: Type.Optional(
    Type.Union([Type.Array(Uuid, { minItems: 1, maxItems: 100, uniqueItems: true }), Type.Null()], {
      description: 'null: every data source',
    }),
  ),
};

export const CreateRuleBody = Type.Object(ruleFields, { additionalProperties: false });
export type CreateRuleBody = Static<typeof CreateRuleBody>;

export const UpdateRuleBody = Type.Partial(Type.Object(ruleFields, { additionalProperties: false }), {
  additionalProperties: false,
  minProperties: 1,
});
export type UpdateRuleBody = Static<typeof UpdateRuleBody>;

export const RuleResponse = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  tag_id: Type.Integer(),
  chain_path: Type.String(),
  level: Type.Union([Type.String(), Type.Null()]),
  priority: Type.Integer(),
  enabled: Type.Boolean(),
  match: RuleMatch,
  datasource_ids: Type.Union([Type.Array(Uuid), Type.Null()]),
  created_by: Type.Union([Uuid, Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type RuleResponse = Static<typeof RuleResponse>;

export const RuleListResponse = Type.Object({ items: Type.Array(RuleResponse) });

export const RuleIdParams = Type.Object({ id: Uuid });

export const PreviewRuleBody = Type.Object(
  {
    rule: CreateRuleBody,
    datasource_id: Type.Optional(Uuid),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 500, description: 'Items listed (default 50); matched counts them all' }),
    ),
  },
  { additionalProperties: false },
);
export type PreviewRuleBody = Static<typeof PreviewRuleBody>;

export const PreviewRuleResponse = Type.Object({
  matched: Type.Integer({
    minimum: 0,
    description:
      'Fields the rule would take, by name, table, comment and type (value parts are judged at the next import or scan)',
  }),
  items: Type.Array(
    Type.Object({
      field_id: Uuid,
      table_name: Type.String(),
      field_name: Type.String(),
      current_chain_path: Type.String(),
      current_level: Type.String(),
    }),
  ),
});
export type PreviewRuleResponse = Static<typeof PreviewRuleResponse>;
