import { Type, type Static } from 'typebox';
import { PlainText } from '../../http/schemas.js';

/** A tag name: no "/" (it separates chain path segments), no control characters, no outer spaces. */
export const TagName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[^/\\s\\u0000-\\u001f\\u007f](?:[^/\\u0000-\\u001f\\u007f]*[^/\\s\\u0000-\\u001f\\u007f])?$',
  description: '1–100 characters; no "/", no control characters, no leading or trailing spaces',
});

export const LevelCode = Type.String({ minLength: 1, maxLength: 16, description: 'A configured level code, e.g. L3' });

export const LevelResponse = Type.Object({
  code: Type.String({ description: 'Level code used in fields and decisions' }),
  name: Type.String(),
  rank: Type.Integer({ minimum: 1, description: '1 = least sensitive' }),
});
export type LevelResponse = Static<typeof LevelResponse>;

export const LevelListResponse = Type.Object({ items: Type.Array(LevelResponse) });

export const TagResponse = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  parent_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  chain_path: Type.String({ description: 'Tag names from the root joined by "/"' }),
  default_level: Type.String({ description: 'Level given to fields classified with this tag when no level is named' }),
  description: Type.Union([Type.String(), Type.Null()]),
  keywords: Type.Array(Type.String()),
});
export type TagResponse = Static<typeof TagResponse>;

export const TagListResponse = Type.Object({ items: Type.Array(TagResponse) });

export const CreateTagBody = Type.Object(
  {
    name: TagName,
    parent_id: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    default_level: LevelCode,
    description: Type.Optional(Type.Union([PlainText({ maxLength: 1000 }), Type.Null()])),
    keywords: Type.Optional(Type.Array(PlainText({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
  },
  { additionalProperties: false },
);
export type CreateTagBody = Static<typeof CreateTagBody>;

export const UpdateTagBody = Type.Object(
  {
    name: Type.Optional(TagName),
    parent_id: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
        description: 'The new parent; null moves the tag to the root',
      }),
    ),
    default_level: Type.Optional(LevelCode),
    description: Type.Optional(Type.Union([PlainText({ maxLength: 1000 }), Type.Null()])),
    keywords: Type.Optional(Type.Array(PlainText({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateTagBody = Static<typeof UpdateTagBody>;

export const TagIdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });

export const DeleteTagQuery = Type.Object(
  {
    replace_with: Type.Optional(
      Type.Integer({ minimum: 1, description: 'The tag that the fields of the deleted tags move to' }),
    ),
  },
  { additionalProperties: false },
);
export type DeleteTagQuery = Static<typeof DeleteTagQuery>;
