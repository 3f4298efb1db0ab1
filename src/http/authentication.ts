/**
 * Authentication and authorisation for every route, from one access rule per route.
 * Each protected route checks at onRequest (before the body is parsed) so a caller without a valid token learns nothing
 * about the body's validity. API routes must declare `config.access`; one without it fails the start.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { callerGrants, type Caller, type Principal, type RouteAccess } from './access.js';
import { AppError, forbidden } from './errors.js';

/** Resolves a bearer token to the caller. */
export interface Authenticator {
  /** The caller of a token; throws AppError (unauthorized / token_expired) when it is not valid. */
  authenticate(token: string): Promise<Principal>;
  /**
   * The caller of a token when it can be answered at once from what is already remembered (the verified token and its
   * user's current row), else undefined, and `authenticate` decides. Never throws: any doubt is undefined.
   */
  rememberedPrincipal(token: string): Principal | undefined;
}

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/** One row per registered route: what it requires. Tests walk it (role × route matrix); docs list it. */
export interface AccessRule {
  method: string;
  url: string;
  access: RouteAccess;
}

declare module 'fastify' {
  interface FastifyInstance {
    accessRules: AccessRule[];
  }
}

export function registerAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('principal', null);
  const rules: AccessRule[] = [];
  app.decorate('accessRules', rules);

  app.addHook('onRoute', (route) => {
    if (route.config?.access === undefined) {
      // Deny by default: an API route that names no permission must not start.
      if (route.url.startsWith('/api/')) {
        throw new Error(`Route ${String(route.method)} ${route.url} declares no access rule (config.access)`);
      }
      // Documentation assets registered by plugins (/docs/*) are public.
      route.config = { ...route.config, access: 'public' };
    }
    const access = route.config.access ?? 'public';
    if (access !== 'public') {
      route.schema = { ...route.schema, security: [{ bearer: [] }] };
      // The check is the route's own first onRequest hook, bound to its permission: public routes pay nothing.
      route.onRequest = [authorizer(authenticator, access), ...[route.onRequest ?? []].flat()];
    }
    for (const method of [route.method].flat()) rules.push({ method, url: route.url, access });
  });
}

/**
 * The onRequest hook of a protected route: a valid bearer token whose user's roles grant `access`. A callback hook, so
 * that a token the authenticator can answer at once lets the request go on in the same turn (an async hook costs every
 * request a promise and a later turn).
 */
function authorizer(authenticator: Authenticator, access: Exclude<RouteAccess, 'public'>) {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    let token: string;
    try {
      token = bearerToken(request.headers.authorization);
    } catch (error) {
      done(error as AppError);
      return;
    }
    const remembered = authenticator.rememberedPrincipal(token);
    if (remembered !== undefined) {
      done(admit(request, remembered, access));
      return;
    }
    authenticator.authenticate(token).then(
      (principal) => done(admit(request, principal, access)),
      (error: unknown) => done(error as Error),
    );
  };
}

function bearerToken(header: string | undefined): string {
  if (header === undefined || header === '') {
    throw new AppError('unauthorized', 'This endpoint needs a bearer access token or API token', {
      headers: { 'www-authenticate': 'Bearer' },
    });
  }
  const match = BEARER.exec(header);
  if (!match?.[1]) {
    throw new AppError('unauthorized', 'The Authorization header must be "Bearer <access token>"', {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    });
  }
  return match[1];
}

/** Sets the request's principal; answers the 403 to pass on when its roles do not grant `access`. */
function admit(
  request: FastifyRequest,
  principal: Principal,
  access: Exclude<RouteAccess, 'public'>,
): AppError | undefined {
  request.principal = principal;
  if (access !== 'authenticated' && !callerGrants(principal, access)) {
    return forbidden(
      principal.apiToken === undefined
        ? `Your roles do not grant the permission ${access}`
        : `This API token does not grant the permission ${access}`,
    );
  }
  return undefined;
}

/** The caller of a protected route (the hook guarantees it is set). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('unauthorized', 'This endpoint needs a bearer access token');
  return request.principal;
}

/** The caller of a protected route with the request id: what services take for rules and the audit log. */
export function callerOf(request: FastifyRequest): Caller {
  const principal = principalOf(request);
  return {
    id: principal.id,
    username: principal.username,
    email: principal.email,
    roles: principal.roles,
    ...(principal.apiToken === undefined ? {} : { apiToken: principal.apiToken }),
    requestId: request.id,
  };
}
