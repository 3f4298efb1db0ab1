/**
 * The one access table (docs/security.md). Every route names the permission it needs in its config;
 * a route that names none does not start (see http/authentication.ts): deny by default.
 */
export const ROLES = ['superadmin', 'admin', 'dba', 'operator', 'classifier_owner', 'observer'] as const;
export type Role = (typeof ROLES)[number];

export const ACCESS_TABLE = {
  'field:read': ['superadmin', 'admin', 'dba', 'operator', 'classifier_owner', 'observer'],
  'field:review': ['superadmin', 'admin', 'dba', 'operator', 'classifier_owner'],
  'field:import': ['superadmin', 'admin', 'dba'],
  'taxonomy:write': ['superadmin', 'admin', 'classifier_owner'],
  'datasource:read': ['superadmin', 'admin', 'dba', 'operator', 'classifier_owner', 'observer'],
  'datasource:write': ['superadmin', 'admin', 'dba'],
  'scan:run': ['superadmin', 'admin', 'dba'],
  'scan:read': ['superadmin', 'admin', 'dba', 'operator', 'classifier_owner', 'observer'],
  'user:read': ['superadmin', 'admin'],
  'user:write': ['superadmin', 'admin'],
  'audit:read': ['superadmin', 'admin'],
  'license:read': ['superadmin'],
  'license:write': ['superadmin'],
  'webhook:write': ['superadmin', 'admin'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof ACCESS_TABLE;
export const PERMISSIONS = Object.keys(ACCESS_TABLE) as Permission[];

/**
 * What a route requires: `public` (no token), `authenticated` (any valid token, any role),
 * or a permission from the table.
 */
export type RouteAccess = 'public' | 'authenticated' | Permission;

/** The union of the permissions of the given roles, in table order. */
export function permissionsOf(roles: readonly Role[]): Permission[] {
  return PERMISSIONS.filter((permission) =>
    (ACCESS_TABLE[permission] as readonly Role[]).some((r) => roles.includes(r)),
  );
}

/** Whether any of the roles grants the permission. */
export function rolesGrant(roles: readonly Role[], permission: Permission): boolean {
  return (ACCESS_TABLE[permission] as readonly Role[]).some((r) => roles.includes(r));
}

export function isPermission(value: string): value is Permission {
  return Object.hasOwn(ACCESS_TABLE, value);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** The authenticated caller, as the authentication hook resolves it on every protected request. */
export interface Principal {
  readonly id: string;
  readonly username: string;
  readonly email: string;
  readonly roles: readonly Role[];
  /**
   * Set when the caller authenticated with an API token: the token's id and the permissions it may use (already the
   * token's permissions ∩ the user's roles' now). Absent for a login's access token (the roles decide alone).
   */
  readonly apiToken?: { readonly id: string; readonly permissions: readonly Permission[] };
}

/** Whether the caller may use the permission: its roles grant it and, for an API token, the token was given it. */
export function callerGrants(principal: Principal, permission: Permission): boolean {
  return (
    rolesGrant(principal.roles, permission) &&
    (principal.apiToken === undefined || principal.apiToken.permissions.includes(permission))
  );
}

/** The permissions the caller may use now (see callerGrants), in table order. */
export function callerPermissions(principal: Principal): Permission[] {
  return principal.apiToken === undefined
    ? permissionsOf(principal.roles)
    : permissionsOf(principal.roles).filter((p) => principal.apiToken?.permissions.includes(p));
}

/** A principal acting through one request: what services need for rules and the audit log. */
export interface Caller extends Principal {
  readonly requestId: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}
