/**
 * Data sources: the systems whose fields are catalogued. Creating one counts against
 * the license quota, checked inside the inserting transaction; the built-in sample sources do not count.
 * A data source may carry a connection (how to reach its database for scans): stored as JSON without the password,
 * the password sealed with the service's secret key and bound to the data source id, never returned or audited.
 */
import { randomUUID } from 'node:crypto';
import type { Updateable } from 'kysely';
import type { Clock } from '../../clock.js';
import {
  checkConnectionSpec,
  ConnectionFailure,
  ConnectionSpecError,
  openConnector,
  type ConnectionSpec,
  type ConnectorOptions,
} from '../../connectors/index.js';
import { remoteText } from '../../connectors/remote-text.js';
import { SecretDecryptError, type SecretBox } from '../../crypto/secret-box.js';
import type { Database, Tx } from '../../db/database.js';
import type { DatasourceRow, DatasourcesTable } from '../../db/schema.js';
import type { Caller } from '../../http/access.js';
import { AppError, conflict, notFound, unprocessable } from '../../http/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import type { FieldCascades } from '../fields/field-cascades.service.js';
import type { LicenseGate } from '../license/license.gate.js';
import { connectionOptionsOf } from './connection-options.js';
import * as repo from './datasources.repository.js';
import type {
  ConnectionBody,
  ConnectionOptionsResponse,
  ConnectionResponse,
  CreateDatasourceBody,
  DatasourceResponse,
  TestConnectionResponse,
  UpdateDatasourceBody,
  UpdateDatasourceResponse,
} from './datasources.schemas.js';

/** The connection as stored: the API's connection object without its password. */
type StoredConnection = Omit<ConnectionSpec, 'password'>;

/** What the scanner needs of a data source: its row, its connection with the password decrypted, its scan period. */
export interface ScanTarget {
  datasource: DatasourceRow;
  connection: ConnectionSpec | null;
  scanIntervalHours: number | null;
}

const CONNECTION_KEYS = [
  'kind',
  'host',
  'port',
  'database',
  'user',
  'ssl',
  'include_schemas',
  'exclude_schemas',
  'include_tables',
  'exclude_tables',
  'sample_size',
] as const;
const NETWORK_ONLY_KEYS = ['host', 'port', 'user', 'password', 'ssl'] as const;
const DEFAULT_PORTS: Record<ConnectionSpec['kind'], number | undefined> = {
  postgresql: 5432,
  mysql: 3306,
  sqlite: undefined,
};
const SSL_STRENGTH: Record<NonNullable<ConnectionSpec['ssl']>, number> = { disable: 0, require: 1, 'verify-full': 2 };
/** The longest server version answered and audited (the server chooses it). */
export const SERVER_VERSION_MAX = 200;

/**
 * Why a stored password must not follow a connection change, or undefined when it may: the password was given for one
 * destination (kind, host, port, database, user) over one TLS mode; sent elsewhere, or over weaker TLS, it would reach
 * whoever answers there.
 */
export function passwordMoveReason(before: StoredConnection | null, after: StoredConnection): string | undefined {
  if (before === null) return 'the data source had no connection';
  const moved: string[] = [];
  if (before.kind !== after.kind) moved.push('kind');
  if ((before.host ?? '').toLowerCase() !== (after.host ?? '').toLowerCase()) moved.push('host');
  if ((before.port ?? DEFAULT_PORTS[before.kind]) !== (after.port ?? DEFAULT_PORTS[after.kind])) moved.push('port');
  if (before.database !== after.database) moved.push('database');
  if ((before.user ?? '') !== (after.user ?? '')) moved.push('user');
  if (SSL_STRENGTH[after.ssl ?? 'disable'] < SSL_STRENGTH[before.ssl ?? 'disable']) moved.push('ssl (weaker)');
  return moved.length === 0 ? undefined : `the connection's ${moved.join(', ')} changed`;
}

function parseConnection(text: string | null): StoredConnection | null {
  return text === null ? null : (JSON.parse(text) as StoredConnection);
}

/** The connection object without the password, keys in a fixed order (so equal connections serialise equally). */
function storedConnectionOf(body: ConnectionBody): StoredConnection {
  const out: Record<string, unknown> = {};
  for (const key of CONNECTION_KEYS) if (body[key] !== undefined) out[key] = body[key];
  return out as unknown as StoredConnection;
}

function toDatasourceResponse(row: repo.DatasourceWithCount): DatasourceResponse {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    description: row.description,
    is_sample: row.is_sample === 1,
    field_count: row.field_count,
    connection: parseConnection(row.connection) as ConnectionResponse | null,
    has_password: row.connection_password !== null,
    scan_interval_hours: row.scan_interval_hours,
    created_at: row.created_at,
  };
}

export class DatasourcesService {
  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      audit: AuditService;
      gate: Pick<LicenseGate, 'assertCanCreate'>;
      /** The owner of the fields a data source holds (deleted with it). */
      fields: Pick<FieldCascades, 'deleteFieldsOfDatasource'>;
      /** Seals connection passwords (FIELDLENS_SECRET_KEY); undefined: no password can be stored or read. */
      secretBox: SecretBox | undefined;
      /** FIELDLENS_SCAN_SQLITE_DIR: the folder `sqlite` connections must lie in; undefined refuses them. */
      scanSqliteDir: string | undefined;
      /** The other connector settings (statement timeout, the service's own database files that are never scanned). */
      connector?: Pick<ConnectorOptions, 'statementTimeoutMs' | 'ownDatabaseFiles'>;
      /** FIELDLENS_SCAN_ALLOW_SOCKETS: a PostgreSQL host that is a path (a Unix socket folder) is accepted; default refused. */
      allowSockets?: boolean;
    },
  ) {}

  private get db() {
    return this.deps.database.db;
  }

  /** All data sources with their field counts, oldest first. */
  async listDatasources(): Promise<DatasourceResponse[]> {
    return (await repo.listDatasources(this.db)).map(toDatasourceResponse);
  }

  /** Id, name and sample flag of every data source, by name: cheap (no field counts), for exports and reports. */
  async listDatasourceNames(): Promise<Array<{ id: string; name: string; is_sample: boolean }>> {
    return repo.listDatasourceNames(this.db);
  }

  /** The data source, or 404. */
  /** Which of the given ids name a data source (rules scoped to sources check theirs). */
  async existingDatasourceIds(ids: readonly string[]): Promise<Set<string>> {
    return repo.existingDatasourceIds(this.db, ids);
  }

  async getDatasource(id: string, trx?: Tx): Promise<DatasourceRow> {
    const row = await repo.findDatasourceById(trx ?? this.db, id);
    if (!row) throw notFound('Data source');
    return row;
  }

  /** Creates a data source (with an optional connection); 409 on a duplicate name, 403 at the license's data-source quota. */
  async createDatasource(caller: Caller, body: CreateDatasourceBody): Promise<DatasourceResponse> {
    const now = this.deps.clock.now().toISOString();
    const id = randomUUID();
    const connection = body.connection ? this.checkConnection(body.connection) : null;
    const row: DatasourceRow = {
      id,
      name: body.name,
      type: body.type,
      description: body.description ?? null,
      is_sample: 0,
      created_at: now,
      updated_at: now,
      connection: connection && JSON.stringify(connection),
      connection_password:
        typeof body.connection?.password === 'string' ? this.seal(body.connection.password, id) : null,
      scan_interval_hours: body.scan_interval_hours ?? null,
    };
    await this.db.transaction().execute(async (trx) => {
      await this.deps.gate.assertCanCreate(trx, 'datasources');
      await repo.insertDatasource(trx, row);
      await this.deps.audit.record(trx, caller, {
        action: 'datasource.created',
        targetType: 'datasource',
        targetId: row.id,
        details: {
          name: row.name,
          type: row.type,
          ...(connection ? { connection, has_password: row.connection_password !== null } : {}),
          ...(row.scan_interval_hours !== null ? { scan_interval_hours: row.scan_interval_hours } : {}),
        },
      });
    });
    return toDatasourceResponse({ ...row, field_count: 0 });
  }

  /**
   * Updates name, description, connection and scan interval. The connection's password: omitted keeps the stored one
   * as long as the destination stays (see passwordMoveReason; else it is dropped and the answer says so), null removes
   * it, a string replaces it; `connection: null` removes connection and password. Audited without the password.
   */
  async updateDatasource(caller: Caller, id: string, body: UpdateDatasourceBody): Promise<UpdateDatasourceResponse> {
    let dropReason: string | undefined;
    await this.db.transaction().execute(async (trx) => {
      const existing = await repo.findDatasourceById(trx, id);
      if (!existing) throw notFound('Data source');
      const update: Updateable<DatasourcesTable> = {};
      const changes: Record<string, { before: unknown; after: unknown }> = {};
      let passwordChanged = false;

      if (body.name !== undefined && body.name !== existing.name) {
        update.name = body.name;
        changes.name = { before: existing.name, after: body.name };
      }
      if (body.description !== undefined && body.description !== existing.description) {
        update.description = body.description;
        changes.description = { before: existing.description, after: body.description };
      }
      if (body.connection !== undefined) {
        const before = parseConnection(existing.connection);
        if (body.connection === null) {
          update.connection = null;
          update.connection_password = null;
          passwordChanged = existing.connection_password !== null;
          if (before !== null) changes.connection = { before, after: null };
        } else {
          if (existing.is_sample === 1) throw sampleNotScannable();
          const after = this.checkConnection(body.connection);
          update.connection = JSON.stringify(after);
          if (update.connection !== existing.connection) changes.connection = { before, after };
          // A sqlite connection has no password: switching to one drops the stored password.
          if (body.connection.password === null || after.kind === 'sqlite') {
            update.connection_password = null;
            passwordChanged = existing.connection_password !== null;
          } else if (typeof body.connection.password === 'string') {
            update.connection_password = this.seal(body.connection.password, id);
            passwordChanged = true;
          } else if (existing.connection_password !== null) {
            // Omitted: kept only while the password still goes where it was given for.
            dropReason = passwordMoveReason(before, after);
            if (dropReason !== undefined) {
              update.connection_password = null;
              passwordChanged = true;
            }
          }
        }
      }
      if (body.scan_interval_hours !== undefined && body.scan_interval_hours !== existing.scan_interval_hours) {
        if (existing.is_sample === 1 && body.scan_interval_hours !== null) throw sampleNotScannable();
        update.scan_interval_hours = body.scan_interval_hours;
        changes.scan_interval_hours = { before: existing.scan_interval_hours, after: body.scan_interval_hours };
      }

      if (Object.keys(changes).length === 0 && !passwordChanged) return;
      update.updated_at = this.deps.clock.now().toISOString();
      await repo.updateDatasource(trx, id, update);
      await this.deps.audit.record(trx, caller, {
        action: 'datasource.updated',
        targetType: 'datasource',
        targetId: id,
        details: {
          name: existing.name,
          changes,
          ...(passwordChanged ? { password_changed: true } : {}),
          ...(dropReason !== undefined ? { password_dropped: true, password_dropped_because: dropReason } : {}),
        },
      });
    });
    const updated = await repo.findDatasourceWithCount(this.db, id);
    if (!updated) throw notFound('Data source');
    return {
      ...toDatasourceResponse(updated),
      password_dropped: dropReason !== undefined,
      ...(dropReason !== undefined
        ? {
            notice: `The stored password was removed because ${dropReason}: a password is never sent to another destination than the one it was given for. Enter it again with the connection if the new destination needs one.`,
          }
        : {}),
    };
  }

  /** Deletes a data source and all its fields. */
  async deleteDatasource(caller: Caller, id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const existing = await repo.findDatasourceById(trx, id);
      if (!existing) throw notFound('Data source');
      const fields = await this.removeDatasource(trx, id);
      await this.deps.audit.record(trx, caller, {
        action: 'datasource.deleted',
        targetType: 'datasource',
        targetId: id,
        details: { name: existing.name, is_sample: existing.is_sample === 1, fields_removed: fields },
      });
    });
  }

  /**
   * Opens the data source's connection and asks the server its version; the connector is always closed.
   * 409 without a connection, 422 `connection_failed` naming the cause, 422 when the password cannot be decrypted.
   */
  async testConnection(caller: Caller, id: string): Promise<TestConnectionResponse> {
    const { datasource, connection } = await this.getScanTarget(id);
    if (!connection)
      throw conflict('The data source has no connection to test: set one with PATCH /api/v1/datasources/{id}');
    let connector;
    try {
      connector = openConnector(connection, this.connectorOptions());
      // The server chooses its version string: bounded and cleaned before it is audited or answered.
      const server_version = remoteText((await connector.test()).server_version, SERVER_VERSION_MAX);
      await this.recordConnectionTest(caller, datasource, connection, { ok: true, server_version });
      return { ok: true, server_version };
    } catch (error) {
      if (error instanceof ConnectionFailure) {
        await this.recordConnectionTest(caller, datasource, connection, { ok: false, cause: error.cause });
        throw connectionFailed(error);
      }
      if (error instanceof ConnectionSpecError) throw unprocessable(`The connection is refused: ${error.message}`);
      throw error;
    } finally {
      await connector?.close();
    }
  }

  /**
   * Audits a connection test, as it opens a connection from the service to an address a user chose: where to and how
   * it ended (the cause's name, never a message, a sample or the password).
   */
  private async recordConnectionTest(
    caller: Caller,
    datasource: DatasourceRow,
    connection: ConnectionSpec,
    outcome: { ok: true; server_version: string } | { ok: false; cause: string },
  ): Promise<void> {
    const target =
      connection.kind === 'sqlite'
        ? { kind: connection.kind, database: connection.database }
        : {
            kind: connection.kind,
            host: connection.host,
            port: connection.port ?? null,
            database: connection.database,
          };
    await this.db.transaction().execute(async (trx) => {
      await this.deps.audit.record(trx, caller, {
        action: 'datasource.connection_tested',
        targetType: 'datasource',
        targetId: datasource.id,
        details: { name: datasource.name, ...target, ...outcome },
      });
    });
  }

  /**
   * For the scanner: the data source, its connection with the password decrypted (null when it has none) and its scan
   * period. 404 when missing; 422 when the stored password cannot be decrypted (no key, or another key).
   */
  async getScanTarget(id: string, trx?: Tx): Promise<ScanTarget> {
    const datasource = await this.getDatasource(id, trx);
    const stored = parseConnection(datasource.connection);
    // A connection stored while sockets were allowed is refused once they no longer are.
    if (stored) this.refuseSocketHost(stored);
    let connection: ConnectionSpec | null = stored;
    if (stored && datasource.connection_password !== null)
      connection = { ...stored, password: this.unseal(datasource.connection_password, datasource) };
    return { datasource, connection, scanIntervalHours: datasource.scan_interval_hours };
  }

  /** For the scanner's schedule: data sources with both a connection and a scan interval. */
  async listScheduledScans(): Promise<Array<{ datasourceId: string; scanIntervalHours: number }>> {
    return (await repo.listScheduledDatasources(this.db)).map((r) => ({
      datasourceId: r.id,
      scanIntervalHours: r.scan_interval_hours,
    }));
  }

  /** What the data-source form offers: the kinds this server takes, the SQLite folder, whether passwords can be stored, the limits. */
  connectionOptions(): ConnectionOptionsResponse {
    return connectionOptionsOf({
      sqliteDir: this.deps.scanSqliteDir,
      canStorePasswords: this.deps.secretBox !== undefined,
    });
  }

  /** The options every connector of a data source is opened with (the sqlite scan folder, timeout, own files), so all callers apply the same rules. */
  connectorOptions(): ConnectorOptions {
    return {
      ...this.deps.connector,
      ...(this.deps.scanSqliteDir === undefined ? {} : { sqliteDir: this.deps.scanSqliteDir }),
    };
  }

  /** Data sources that count against the quota (sample sources do not); for the license gate, inside its transaction. */
  async countBillableDatasources(trx?: Tx): Promise<number> {
    return repo.countDatasources(trx ?? this.db, { billableOnly: true });
  }

  /** Whether any built-in sample data source exists. */
  async hasSampleData(trx?: Tx): Promise<boolean> {
    return (await repo.listSampleDatasources(trx ?? this.db)).length > 0;
  }

  /**
   * Inserts a sample data source (is_sample = 1, no quota check) inside the caller's transaction;
   * returns undefined when a source of that name already exists (a user's own source is never touched).
   */
  async insertSampleDatasource(
    trx: Tx,
    spec: { name: string; type: string; description: string },
  ): Promise<DatasourceRow | undefined> {
    const now = this.deps.clock.now().toISOString();
    const row: DatasourceRow = {
      id: randomUUID(),
      name: spec.name,
      type: spec.type,
      description: spec.description,
      is_sample: 1,
      created_at: now,
      updated_at: now,
      connection: null,
      connection_password: null,
      scan_interval_hours: null,
    };
    if (await repo.findDatasourceByName(trx, spec.name)) return undefined;
    await repo.insertDatasource(trx, row);
    return row;
  }

  /** Deletes every sample data source and its fields inside the caller's transaction; returns their names and the number of fields removed. */
  async deleteSampleDatasources(trx: Tx): Promise<{ names: string[]; fields: number }> {
    const samples = await repo.listSampleDatasources(trx);
    let fields = 0;
    for (const source of samples) fields += await this.removeDatasource(trx, source.id);
    return { names: samples.map((s) => s.name), fields };
  }

  /** Deletes a data source and its fields (through their owner) in `trx`; returns how many fields went with it. */
  private async removeDatasource(trx: Tx, id: string): Promise<number> {
    const fields = await this.deps.fields.deleteFieldsOfDatasource(trx, id);
    if (!(await repo.deleteDatasource(trx, id))) throw notFound('Data source');
    return fields;
  }

  /** The connection to store (without the password), or 422 naming what the connectors would refuse. */
  private checkConnection(body: ConnectionBody): StoredConnection {
    if (body.kind === 'sqlite') {
      const misplaced = NETWORK_ONLY_KEYS.filter((key) => body[key] !== undefined && body[key] !== null);
      if (misplaced.length > 0)
        throw unprocessable(`A sqlite connection takes a file path in database, not ${misplaced.join(', ')}`);
    }
    const stored = storedConnectionOf(body);
    this.refuseSocketHost(stored);
    try {
      checkConnectionSpec(stored, this.connectorOptions());
    } catch (error) {
      // A sqlite file that does not exist yet is accepted: the connection test and scans say so.
      if (error instanceof ConnectionFailure && error.cause === 'unknown_database') return stored;
      if (error instanceof ConnectionSpecError) throw unprocessable(`The connection is refused: ${error.message}`);
      throw error;
    }
    return stored;
  }

  /**
   * node-postgres connects over a Unix socket when the host starts with `/` (the folder holding `.s.PGSQL.<port>`):
   * a local server, often trusting local users without a password. Refused (422) unless FIELDLENS_SCAN_ALLOW_SOCKETS.
   */
  private refuseSocketHost(connection: StoredConnection): void {
    if (connection.kind !== 'postgresql' || typeof connection.host !== 'string' || !connection.host.startsWith('/'))
      return;
    if (this.deps.allowSockets === true) return;
    throw unprocessable(
      "The connection is refused: a PostgreSQL host that is a path connects over a Unix socket on the service's own machine; give a host name or address, or set FIELDLENS_SCAN_ALLOW_SOCKETS=on to allow socket connections",
    );
  }

  private seal(password: string, datasourceId: string): string {
    if (!this.deps.secretBox) {
      throw unprocessable(
        'Connection passwords cannot be stored: the service has no secret key (set FIELDLENS_SECRET_KEY or FIELDLENS_SECRET_KEY_FILE)',
      );
    }
    return this.deps.secretBox.encrypt(password, datasourceId);
  }

  private unseal(sealed: string, datasource: DatasourceRow): string {
    const again = `enter the password again with PATCH /api/v1/datasources/${datasource.id}`;
    if (!this.deps.secretBox) {
      throw unprocessable(
        `The stored connection password of data source "${datasource.name}" cannot be read: the service has no secret key (set FIELDLENS_SECRET_KEY or FIELDLENS_SECRET_KEY_FILE), or ${again}`,
      );
    }
    try {
      return this.deps.secretBox.decrypt(sealed, datasource.id);
    } catch (error) {
      if (!(error instanceof SecretDecryptError)) throw error;
      throw unprocessable(
        `The stored connection password of data source "${datasource.name}" cannot be decrypted with the configured secret key (the key changed?): restore the previous key or ${again}`,
      );
    }
  }
}

function sampleNotScannable(): AppError {
  return conflict('A sample data source cannot have a connection or scan interval: it is not scannable');
}

function connectionFailed(failure: ConnectionFailure): AppError {
  return new AppError('connection_failed', `Connection test failed (${failure.cause}): ${failure.detail}`);
}
