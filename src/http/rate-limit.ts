/**
 * Request rate limits (beyond the per-username login throttling of the auth service), with @fastify/rate-limit's
 * in-memory store:
 * - per client address, checked first thing (onRequest), before a token is verified or a body is read;
 * - per authenticated user, checked once the token is known (preHandler), whatever address the user comes from.
 * Over a limit: 429 problem+json `rate_limited` with Retry-After (seconds until the window resets).
 * The counters live in each instance's memory: behind a load balancer spreading requests over N instances a client
 * gets up to N times the limit. The health probes and /metrics are exempt.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from './errors.js';

/** Routes a monitor polls: never limited, so a flood cannot make an instance look dead. */
export const RATE_LIMIT_EXEMPT = new Set(['/healthz', '/readyz', '/metrics']);

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

export async function registerRateLimits(app: FastifyInstance, config: Config['rateLimit']): Promise<void> {
  if (config.perAddress === 0 && config.perUser === 0) return;
  // global: false: the plugin adds no hooks of its own; the two limiters below are applied by our hooks.
  await app.register(rateLimit, { global: false, timeWindow: config.windowMs, cache: 10_000 });

  if (config.perAddress > 0) {
    const byAddress = app.createRateLimit({
      max: config.perAddress,
      keyGenerator: (request) => `address:${request.ip}`,
    });
    app.addHook(
      'onRequest',
      limitHook(byAddress, (request) => !RATE_LIMIT_EXEMPT.has(request.routeOptions.url ?? ''), 'this client address'),
    );
  }
  if (config.perUser > 0) {
    const byUser = app.createRateLimit({
      max: config.perUser,
      keyGenerator: (request) => `user:${request.principal?.id ?? ''}`,
    });
    app.addHook(
      'preHandler',
      limitHook(byUser, (request) => request.principal !== null, 'this user'),
    );
  }
}

function limitHook(limiter: Limiter, applies: (request: FastifyRequest) => boolean, whom: string) {
  // A callback hook: the store answers synchronously underneath, but the plugin's API is a promise.
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (!applies(request)) {
      done();
      return;
    }
    limiter(request).then(
      (result) => {
        if (result.isAllowed || !result.isExceeded) {
          done();
          return;
        }
        const retryAfter = String(Math.max(1, result.ttlInSeconds));
        done(
          new AppError('rate_limited', `Too many requests from ${whom}; try again in ${retryAfter} s`, {
            headers: { 'retry-after': retryAfter },
          }),
        );
      },
      (error: unknown) => done(error as Error),
    );
  };
}
