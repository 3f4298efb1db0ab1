/**
 * The single error handler: every 4xx/5xx leaves as RFC 9457 problem+json (docs/api.md).
 * Unknown errors are logged with the request id and answered 500 without internals.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import pg from 'pg';
import { isDatabaseUnavailable, isStorageFull } from '../db/database.js';
import { AppError, problemOf, type ErrorCode, type Problem, type ProblemFieldError } from './errors.js';

const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

function validationErrors(issues: readonly ValidationIssue[], context: string | undefined): ProblemFieldError[] {
  const prefix = context === 'body' || context === undefined ? '' : `/${context}`;
  return issues.map((issue) => {
    let path = issue.instancePath ?? '';
    const missing = issue.params?.missingProperty;
    if (issue.keyword === 'required' && typeof missing === 'string') path = `${path}/${missing}`;
    const extra = issue.params?.additionalProperty;
    if (issue.keyword === 'additionalProperties' && typeof extra === 'string') path = `${path}/${extra}`;
    return { path: `${prefix}${path}` || '/', message: issue.message ?? 'is invalid' };
  });
}

/** Maps Fastify's own errors (parser, limits, content type) onto the contract's codes. */
function fromFastifyError(error: FastifyError): { code: ErrorCode; detail: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'payload_too_large', detail: 'The request body is larger than the server accepts' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'unsupported_media_type', detail: 'Send the body as application/json' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { code: 'validation_failed', detail: 'The Content-Length header does not match the body' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { code: 'validation_failed', detail: 'The JSON body is empty' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { code: 'validation_failed', detail: 'The body is not valid JSON' };
    case 'FST_ERR_CTP_INVALID_TYPE':
    case 'FST_ERR_CTP_EMPTY_TYPE':
      return { code: 'unsupported_media_type', detail: 'The Content-Type header is missing or invalid' };
    default:
      break;
  }
  switch (error.code) {
    // Router-level errors, before any route runs (they reach us through Fastify's frameworkErrors).
    case 'FST_ERR_BAD_URL':
      return { code: 'validation_failed', detail: 'The URL holds an invalid percent-encoded sequence' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { code: 'uri_too_long', detail: 'A path segment is longer than the server accepts' };
    default:
      break;
  }
  if (error.statusCode === 400 && error instanceof SyntaxError)
    return { code: 'validation_failed', detail: 'The body is not valid JSON' };
  if (error.statusCode === 413) return { code: 'payload_too_large', detail: 'The request body is too large' };
  if (error.statusCode === 415)
    return { code: 'unsupported_media_type', detail: 'This Content-Type is not accepted here' };
  // A 403 that is not ours comes from static file serving (a dotfile, a path out of the folder): say nothing is there.
  if (error.statusCode === 404 || error.statusCode === 403) return { code: 'not_found', detail: 'Nothing is here' };
  if (error.statusCode === 429) return { code: 'rate_limited', detail: 'Too many requests' };
  // Any other client error a plugin raises (a bad range header, …) is the caller's malformed request, never a 500.
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
    return { code: 'validation_failed', detail: 'The request is malformed' };
  return undefined;
}

/**
 * The answer to an error Node's HTTP parser raises before Fastify sees a request (headers too large, a request that is
 * not HTTP, a client too slow to send its headers): Fastify's default writes `{error, statusCode}`; this writes the
 * same problem+json as every other error, then closes the connection (the parser cannot go on with it).
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, detail }: { code: ErrorCode; detail: string } =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? { code: 'headers_too_large', detail: 'The request line and headers are larger than the server accepts' }
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_HEADERS_TIMEOUT'
        ? { code: 'request_timeout', detail: 'The request was not received in time' }
        : { code: 'validation_failed', detail: 'The request is not valid HTTP/1.1' };
  this.log.debug({ err: { message: error.message, code: error.code } }, 'client error');
  const problem = problemOf(code, detail);
  const body = JSON.stringify(problem);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

const SQLITE_DATA_ERRORS = new Set(['SQLITE_MISMATCH', 'SQLITE_TOOBIG']);

/**
 * A value the database refuses as data: PostgreSQL's class 22, "data exception" (invalid text representation,
 * numeric value out of range, NUL byte, …); SQLite's datatype mismatch (a non-integer LIMIT) and too-big value.
 */
function isDataException(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  if (error instanceof pg.DatabaseError) return code.startsWith('22');
  return error instanceof Error && error.name === 'SqliteError' && SQLITE_DATA_ERRORS.has(code);
}

export function sendProblem(reply: FastifyReply, problem: Problem, headers: Record<string, string> = {}): FastifyReply {
  for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
  // Also set here, not only by the security headers' hook: router-level errors (a bad URL) skip every hook.
  void reply.header('x-content-type-options', 'nosniff');
  void reply.header('cache-control', 'no-store');
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

/**
 * Fastify's `frameworkErrors` option: errors of the router (a URL that is not valid percent-encoding, a path segment
 * over the length limit), which otherwise answer `{error, statusCode}` without passing the error handler.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  handleError(error, request, reply);
}

function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const instance = request.url.split('?')[0];
  if (error instanceof AppError) {
    if (error.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(
      reply,
      problemOf(error.code, error.detail, {
        instance,
        ...(error.options.errors ? { errors: error.options.errors } : {}),
      }),
      error.options.headers,
    );
  }
  if (error.validation) {
    const errors = validationErrors(error.validation as ValidationIssue[], error.validationContext);
    const where =
      error.validationContext === 'body'
        ? 'body'
        : error.validationContext === 'querystring'
          ? 'query string'
          : (error.validationContext ?? 'request');
    return sendProblem(
      reply,
      problemOf('validation_failed', `The ${where} does not match the schema`, { instance, errors }),
    );
  }
  if (isStorageFull(error)) {
    // The real cause, for the operator (the message names no stored value: "database or disk is full", "could not
    // extend file …: No space left on device"); /readyz answers 503 for a while, so a balancer moves writes away.
    request.log.error(
      { err: { message: error.message, code: error.code } },
      'database storage full: writes fail until space is freed',
    );
    request.server.lifecycle?.noteStorageFull();
    return sendProblem(
      reply,
      problemOf(
        'unavailable',
        'The database cannot store more data right now (its disk is full); nothing was changed, try again later',
        { instance },
      ),
      {
        'retry-after': '30',
      },
    );
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: { message: error.message, code: error.code } }, 'database unavailable');
    return sendProblem(
      reply,
      problemOf('unavailable', 'The database is not reachable; try again shortly', { instance }),
      { 'retry-after': '5' },
    );
  }
  if (isDataException(error)) {
    // Input the schemas let through but the database refuses as data (a NUL byte, a number out of its column's range):
    // the caller's to fix, never a 500. Logged (code only: the message may quote the value) so the schema gets tightened.
    request.log.warn(
      { err: { code: error.code }, route: request.routeOptions.url },
      'input refused by the database as data',
    );
    return sendProblem(
      reply,
      problemOf('validation_failed', 'A value in the request is out of the range or character set the service stores', {
        instance,
      }),
    );
  }
  const mapped = fromFastifyError(error);
  if (mapped) return sendProblem(reply, problemOf(mapped.code, mapped.detail, { instance }));
  request.log.error({ err: error }, 'unhandled error');
  return sendProblem(
    reply,
    problemOf('internal_error', 'An unexpected error occurred; it has been logged with the request id', { instance }),
  );
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler(handleError);

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    return sendProblem(reply, problemOf('not_found', `No route ${request.method} ${path}`, { instance: path }));
  });
}
