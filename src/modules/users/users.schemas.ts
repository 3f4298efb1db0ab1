import { Type, type Static } from 'typebox';
import { IdParams, RoleGrant, RoleName, Timestamp, Uuid } from '../../http/schemas.js';

export const Username = Type.String({
  minLength: 3,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$',
  description: '3–64 letters, digits, ".", "_", "@" or "-"; unique regardless of case',
});
export const Email = Type.String({ format: 'email', maxLength: 254 });
export const Password = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: '12–256 characters, any Unicode; common passwords are refused',
});

export const UserResponse = Type.Object({
  id: Uuid,
  username: Type.String(),
  email: Type.String(),
  roles: Type.Array(RoleGrant),
  disabled: Type.Boolean(),
  created_at: Timestamp,
});
export type UserResponse = Static<typeof UserResponse>;

export const UserListResponse = Type.Object({ items: Type.Array(UserResponse) });

export const CreateUserBody = Type.Object(
  {
    username: Username,
    password: Password,
    email: Email,
    roles: Type.Array(RoleName, { minItems: 1, maxItems: 6, uniqueItems: true }),
  },
  { additionalProperties: false },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    email: Type.Optional(Email),
    roles: Type.Optional(Type.Array(RoleName, { minItems: 1, maxItems: 6, uniqueItems: true })),
    disabled: Type.Optional(Type.Boolean()),
    password: Type.Optional(Password),
    current_password: Type.Optional(
      Type.String({ maxLength: 1024, description: 'Required when changing your own password' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const UserIdParams = IdParams;
