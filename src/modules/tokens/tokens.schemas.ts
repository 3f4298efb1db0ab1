import { Type, type Static } from 'typebox';
import { PERMISSIONS } from '../../http/access.js';
import { PlainText, StringEnum, Timestamp, Uuid } from '../../http/schemas.js';

/** How many API tokens one user may hold (expired ones count until revoked). */
export const MAX_TOKENS_PER_USER = 50;

const PermissionName = StringEnum(PERMISSIONS, { description: 'Permission name' });

export const CreateTokenBody = Type.Object(
  {
    name: PlainText({ minLength: 1, maxLength: 100, description: 'What the token is for, e.g. "nightly scanner"' }),
    expires_in_days: Type.Integer({ minimum: 1, maximum: 365, description: 'Days until the token expires (1–365)' }),
    permissions: Type.Optional(
      Type.Array(PermissionName, {
        minItems: 1,
        uniqueItems: true,
        description:
          'A subset of your own permissions; omitted: all your permissions at use time (they follow your roles)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateTokenBody = Static<typeof CreateTokenBody>;

const tokenFields = {
  id: Uuid,
  name: Type.String(),
  prefix: Type.String({ description: '`flk_` and the first characters of the token, to recognise it' }),
  permissions: Type.Union([Type.Array(PermissionName), Type.Null()], {
    description:
      "The permissions the token was given (it uses them only while its user holds them); null: all the user's permissions at use time",
  }),
  expires_at: Timestamp,
};

export const TokenResponse = Type.Object({
  ...tokenFields,
  last_used_at: Type.Union([Timestamp, Type.Null()], {
    description: 'Last use, to the minute (recorded at most once a minute)',
  }),
  created_at: Timestamp,
});
export type TokenResponse = Static<typeof TokenResponse>;

export const CreatedTokenResponse = Type.Object({
  ...tokenFields,
  token: Type.String({
    description: 'The secret (`flk_` + 32 base62 characters). Shown only in this answer: it cannot be read again.',
  }),
  created_at: Timestamp,
});
export type CreatedTokenResponse = Static<typeof CreatedTokenResponse>;

export const TokenListResponse = Type.Object({ items: Type.Array(TokenResponse) });
export type TokenListResponse = Static<typeof TokenListResponse>;

export const TokenListQuery = Type.Object(
  { user_id: Type.Optional(Type.String({ format: 'uuid', description: "Another user's tokens (needs user:read)" })) },
  { additionalProperties: false },
);
export type TokenListQuery = Static<typeof TokenListQuery>;

export const TokenIdParams = Type.Object({ id: Uuid });
