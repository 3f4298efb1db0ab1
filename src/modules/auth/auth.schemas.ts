import { Type, type Static } from 'typebox';
import { PERMISSIONS } from '../../http/access.js';
import { RoleGrant, StringEnum, Uuid } from '../../http/schemas.js';

export const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const RefreshBody = Type.Object(
  { refresh_token: Type.String({ minLength: 1, maxLength: 512 }) },
  { additionalProperties: false },
);
export type RefreshBody = Static<typeof RefreshBody>;

export const LoginResponse = Type.Object({
  access_token: Type.String({ description: 'Bearer JWT for the Authorization header' }),
  refresh_token: Type.String({ description: 'Opaque token for POST /auth/refresh; rotated on every use' }),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'Lifetime of access_token in seconds' }),
});

export const RefreshResponse = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.String(),
  expires_in: Type.Integer(),
});

export const CurrentUserResponse = Type.Object({
  id: Uuid,
  username: Type.String(),
  email: Type.String(),
  roles: Type.Array(RoleGrant),
  permissions: Type.Array(StringEnum(PERMISSIONS)),
  sku_tier: Type.String({ description: 'Current license tier: trial_mock, lite, pro or enterprise' }),
});
