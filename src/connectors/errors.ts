/**
 * Failures talking to a scanned database, classified from driver error codes. The detail is written here from
 * the cause, the code and the endpoint; the driver's own message is never passed on, because drivers put
 * offending values (a sampled value in a cast error, a key in a constraint error) in their messages.
 */
export type FailureCause =
  'authentication' | 'unreachable' | 'tls' | 'timeout' | 'unknown_database' | 'permission' | 'other';

export class ConnectionFailure extends Error {
  override readonly name = 'ConnectionFailure';
  /** Driver code (SQLSTATE, ER_…, E…) when there was one: safe to show, carries no value. */
  readonly code: string | undefined;

  constructor(
    override readonly cause: FailureCause,
    readonly detail: string,
    code?: string,
  ) {
    super(detail);
    this.code = code;
  }
}

/** Where the failure happened, to name it in the detail (never a password). */
export interface FailureContext {
  host?: string | undefined;
  port?: number | undefined;
  database: string;
  user?: string | undefined;
  /** What was being done, e.g. "connecting", "listing the catalog", "sampling table x.y". */
  during: string;
}

const NETWORK_UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNRESET',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
]);
const TIMEOUTS = new Set([
  'ETIMEDOUT',
  'ETIMEOUT',
  '57014',
  'ER_QUERY_TIMEOUT',
  'ER_STATEMENT_TIMEOUT',
  'PROTOCOL_SEQUENCE_TIMEOUT',
]);
const TLS_CODES = new Set([
  'HANDSHAKE_NO_SSL_SUPPORT',
  'HANDSHAKE_SSL_ERROR',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);
const AUTH_CODES = new Set([
  '28P01',
  '28000',
  'ER_ACCESS_DENIED_ERROR',
  'ER_ACCESS_DENIED_NO_PASSWORD_ERROR',
  'ER_NOT_SUPPORTED_AUTH_MODE',
  'AUTH_SWITCH_PLUGIN_ERROR',
]);
const UNKNOWN_DB = new Set(['3D000', 'ER_BAD_DB_ERROR', 'SQLITE_CANTOPEN', 'SQLITE_NOTADB']);
// 42501 insufficient_privilege; MySQL table/column/database grants; SQLite authorisation.
const PERMISSION = new Set([
  '42501',
  'ER_TABLEACCESS_DENIED_ERROR',
  'ER_COLUMNACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  'ER_SPECIFIC_ACCESS_DENIED_ERROR',
  'SQLITE_AUTH',
  'SQLITE_PERM',
]);
// PostgreSQL: the server shut the session (pg_terminate_backend, shutdown, crash) or the connection broke.
const GONE = new Set([
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_QUERY_INTERRUPTED',
]);

// MariaDB-only error numbers that mysql2 has no name for.
const MARIADB_ERRNO: Record<number, string> = { 1927: 'ER_CONNECTION_KILLED', 1969: 'ER_STATEMENT_TIMEOUT' };

function driverCode(err: unknown): string | undefined {
  if (err && typeof err === 'object') {
    const { code, errno } = err as { code?: unknown; errno?: unknown };
    if (typeof code === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(code)) return code;
    if (typeof errno === 'number' && MARIADB_ERRNO[errno]) return MARIADB_ERRNO[errno];
  }
  return undefined;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : '';
}

/** Classifies a driver error (or passes a ConnectionFailure through). Pure: never includes the driver's message. */
export function toConnectionFailure(err: unknown, ctx: FailureContext): ConnectionFailure {
  if (err instanceof ConnectionFailure) return err;
  const code = driverCode(err);
  const msg = message(err);
  const where = ctx.host !== undefined ? `${ctx.host}:${ctx.port ?? 'default port'}` : 'the source';
  const codeNote = code ? ` (${code})` : '';
  const cause = classify(code, msg);
  const details: Record<FailureCause, string> = {
    authentication: `authentication failed for user ${JSON.stringify(ctx.user ?? '')} at ${where}${codeNote}`,
    unreachable: `${where} could not be reached or closed the connection while ${ctx.during}${codeNote}`,
    tls: `TLS negotiation with ${where} failed (the server has no TLS, or its certificate was not trusted or does not match the host)${codeNote}`,
    timeout: `timed out while ${ctx.during} at ${where}${codeNote}`,
    unknown_database: `database ${JSON.stringify(ctx.database)} does not exist at ${where}${codeNote}`,
    permission: `the scan user lacks a permission needed while ${ctx.during}${codeNote}`,
    other: `the source reported an error while ${ctx.during}${codeNote}`,
  };
  return new ConnectionFailure(cause, details[cause], code);
}

function classify(code: string | undefined, msg: string): FailureCause {
  if (code) {
    if (AUTH_CODES.has(code)) return 'authentication';
    if (UNKNOWN_DB.has(code)) return 'unknown_database';
    if (PERMISSION.has(code)) return 'permission';
    if (TIMEOUTS.has(code)) return 'timeout';
    if (TLS_CODES.has(code) || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS')) return 'tls';
    if (NETWORK_UNREACHABLE.has(code) || GONE.has(code)) return 'unreachable';
    // 08P01 protocol violation, 53xxx out of resources: the server is there but refuses.
  }
  // node-postgres raises these without a code.
  if (/does not support SSL|SSL connection|self[- ]signed|certificate/i.test(msg)) return 'tls';
  if (/timeout expired|connection timeout|timed out/i.test(msg)) return 'timeout';
  if (
    /Connection terminated|connection is closed|Connection lost|socket hang up|Can't add new command when connection is in closed state/i.test(
      msg,
    )
  )
    return 'unreachable';
  return 'other';
}

/** A connection object the connectors refuse before trying it (a sqlite path outside the scan folder, bad patterns). */
export class ConnectionSpecError extends Error {
  override readonly name = 'ConnectionSpecError';
}
