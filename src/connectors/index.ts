/**
 * The connector layer: `openConnector(spec, options)` picks the implementation for a connection's kind. Adding a
 * database means one more file implementing `Connector` and one more case here.
 */
import type { ConnectionSpec, Connector, ConnectorOptions } from './connector.js';
import { ConnectionSpecError } from './errors.js';
import { MysqlConnector } from './mysql.js';
import { validatePatterns } from './patterns.js';
import { PostgresConnector } from './postgresql.js';
import { resolveSqlitePath, SqliteConnector } from './sqlite.js';

export * from './connector.js';
export { ConnectionFailure, ConnectionSpecError, type FailureCause } from './errors.js';
export { globMatches, InvalidPatternError } from './patterns.js';
export { resolveSqlitePath } from './sqlite.js';

/** The checks that need no file system or network: name patterns, a host for network kinds, the port range. */
function checkSpecShape(spec: ConnectionSpec): void {
  try {
    validatePatterns(spec);
  } catch (err) {
    throw new ConnectionSpecError(err instanceof Error ? err.message : 'invalid name pattern');
  }
  if (spec.kind !== 'sqlite') {
    // No silent default to the service's own host: a network source names where it is.
    if (typeof spec.host !== 'string' || spec.host.trim() === '')
      throw new ConnectionSpecError(`a ${spec.kind} connection needs a host`);
    if (spec.port !== undefined && (!Number.isInteger(spec.port) || spec.port < 1 || spec.port > 65535))
      throw new ConnectionSpecError('port must be an integer 1–65535');
  }
}

/**
 * Checks a spec without connecting, as `openConnector` would: the shape, and for `sqlite` that the path lies inside
 * the scan folder and is not the service's own database. Throws ConnectionSpecError; for a `sqlite` file that does not exist, ConnectionFailure
 * `unknown_database`.
 */
export function checkConnectionSpec(
  spec: ConnectionSpec,
  options: Pick<ConnectorOptions, 'sqliteDir' | 'ownDatabaseFiles'> = {},
): void {
  checkSpecShape(spec);
  if (spec.kind === 'sqlite') resolveSqlitePath(spec.database, options.sqliteDir, options.ownDatabaseFiles);
}

/**
 * A connector for the spec. Nothing is opened until the first call (sqlite paths are checked at once).
 * Throws ConnectionSpecError for a spec the layer refuses (sqlite outside the scan folder, bad patterns).
 */
export function openConnector(spec: ConnectionSpec, options: ConnectorOptions = {}): Connector {
  checkSpecShape(spec);
  switch (spec.kind) {
    case 'postgresql':
      return new PostgresConnector(spec, options);
    case 'mysql':
      return new MysqlConnector(spec, options);
    case 'sqlite':
      return new SqliteConnector(spec, options);
    default:
      throw new ConnectionSpecError(`unsupported connection kind ${JSON.stringify((spec as { kind: unknown }).kind)}`);
  }
}
