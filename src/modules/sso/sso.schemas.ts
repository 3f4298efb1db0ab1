import { Type, type Static } from 'typebox';

export const ProvidersResponse = Type.Object({
  password: Type.Boolean({ description: 'Whether username and password sign-in is on (FIELDLENS_PASSWORD_LOGIN)' }),
  oidc: Type.Object({
    enabled: Type.Boolean({ description: 'Whether "Sign in with SSO" (OpenID Connect) is configured' }),
    name: Type.Union([Type.String(), Type.Null()], {
      description: 'What the sign-in button names (FIELDLENS_OIDC_NAME)',
    }),
  }),
});

/** The provider's redirect: `code` and `state`, or `error`; other parameters (`iss`, `session_state`) pass through. */
export const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 512 })),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: true },
);

export const SsoTokenBody = Type.Object(
  {
    code: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'The code from the console address after `#sso_code=`',
    }),
  },
  { additionalProperties: false },
);
export type SsoTokenBody = Static<typeof SsoTokenBody>;
