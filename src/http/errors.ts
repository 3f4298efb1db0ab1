/**
 * The error model (docs/api.md): one AppError with a closed set of codes, rendered as RFC 9457
 * problem+json by the single error handler in src/http/error-handler.ts.
 */
export const PROBLEM_TYPE_BASE = 'https://fieldlens.dev/problems/';

export const ERROR_CODES = {
  validation_failed: { status: 400, title: 'Request validation failed' },
  license_invalid: { status: 400, title: 'Invalid license file' },
  invalid_credentials: { status: 401, title: 'Invalid username or password' },
  unauthorized: { status: 401, title: 'Authentication required' },
  token_expired: { status: 401, title: 'Access token expired' },
  invalid_grant: { status: 401, title: 'Invalid refresh token' },
  forbidden: { status: 403, title: 'Forbidden' },
  quota_exceeded: { status: 403, title: 'License quota exceeded' },
  license_inactive: { status: 403, title: 'License not active' },
  feature_disabled: { status: 403, title: 'Feature not enabled by the license' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  // The next three come from the HTTP layer itself (Node's parser, the router), before any route runs.
  request_timeout: { status: 408, title: 'Request timeout' },
  conflict: { status: 409, title: 'Conflict' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  uri_too_long: { status: 414, title: 'URI too long' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  unprocessable: { status: 422, title: 'Unprocessable request' },
  connection_failed: { status: 422, title: 'Connection to the data source failed' },
  rate_limited: { status: 429, title: 'Too many requests' },
  headers_too_large: { status: 431, title: 'Request header fields too large' },
  internal_error: { status: 500, title: 'Internal server error' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ProblemFieldError {
  path: string;
  message: string;
  /** For an uploaded file (POST /fields/decisions): the row the problem is in, the header being row 1. */
  row?: number;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance?: string;
  errors?: ProblemFieldError[];
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly options: {
      errors?: ProblemFieldError[];
      headers?: Record<string, string>;
      cause?: unknown;
    } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = ERROR_CODES[code].status;
  }
}

/** Builds the problem+json body for a code. */
export function problemOf(code: ErrorCode, detail: string, extra: Pick<Problem, 'errors' | 'instance'> = {}): Problem {
  const { status, title } = ERROR_CODES[code];
  return { type: PROBLEM_TYPE_BASE + code, title, status, detail, code, ...extra };
}

/** Shorthands for the errors services raise most. */
export const notFound = (what: string): AppError => new AppError('not_found', `${what} was not found`);
export const unprocessable = (detail: string, errors?: ProblemFieldError[]): AppError =>
  new AppError('unprocessable', detail, errors ? { errors } : {});
export const conflict = (detail: string): AppError => new AppError('conflict', detail);
export const forbidden = (detail = 'Your roles do not grant this action'): AppError =>
  new AppError('forbidden', detail);
