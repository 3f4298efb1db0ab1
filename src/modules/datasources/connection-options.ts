/**
 * What a data-source form needs to guide its user (GET /api/v1/datasources/connection-options): the database kinds and
 * whether this server takes each, the folder SQLite files must lie in, and the limits the API enforces. Pure: built from
 * the service's settings, so the form and the validation cannot drift apart (the numbers are those of the schemas).
 */
import { SAMPLE_SIZE_DEFAULT, SAMPLE_SIZE_MAX } from '../../connectors/index.js';
import type { ConnectionOptionsResponse } from './datasources.schemas.js';

export function connectionOptionsOf(settings: {
  sqliteDir: string | undefined;
  canStorePasswords: boolean;
}): ConnectionOptionsResponse {
  const sqliteDir = settings.sqliteDir ?? null;
  return {
    kinds: [
      { kind: 'postgresql', label: 'PostgreSQL', available: true, reason: null, default_port: 5432, schemas: true },
      { kind: 'mysql', label: 'MySQL or MariaDB', available: true, reason: null, default_port: 3306, schemas: true },
      {
        kind: 'sqlite',
        label: 'SQLite file',
        available: sqliteDir !== null,
        reason:
          sqliteDir === null
            ? 'This server allows no SQLite files: its operator sets FIELDLENS_SCAN_SQLITE_DIR to the folder they may lie in'
            : null,
        default_port: null,
        schemas: false,
      },
    ],
    sqlite_dir: sqliteDir,
    passwords: settings.canStorePasswords,
    limits: {
      name_length: { min: 1, max: 128 },
      patterns_per_list: 100,
      pattern_length: { min: 1, max: 200 },
      sample_size: { min: 0, max: SAMPLE_SIZE_MAX, default: SAMPLE_SIZE_DEFAULT },
      scan_interval_hours: { min: 1, max: 8760 },
    },
    patterns:
      '* matches any run of characters, ? exactly one, everything else literally, case-insensitive. Schema patterns match the schema name; ' +
      'a table pattern with a dot matches schema.table, without one the table name. Include lists narrow the scan to what they match; exclude lists then skip.',
  };
}
