import type { Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * A data source may carry a connection to the database it describes, so it can be scanned:
 * `connection` is the connection object as JSON text without its password (kind, host, port, database, user, ssl,
 * include/exclude patterns, sample_size; null when the source has none), `connection_password` the password sealed
 * with the service's secret key (secret-box text bound to the data source id, never the password), and
 * `scan_interval_hours` the period of automatic scans (null: none).
 */
export const datasourceConnections: MigrationFactory = () => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('datasources').addColumn('connection', 'text').execute();
    await db.schema.alterTable('datasources').addColumn('connection_password', 'text').execute();
    await db.schema.alterTable('datasources').addColumn('scan_interval_hours', 'integer').execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('datasources').dropColumn('scan_interval_hours').execute();
    await db.schema.alterTable('datasources').dropColumn('connection_password').execute();
    await db.schema.alterTable('datasources').dropColumn('connection').execute();
  },
});
