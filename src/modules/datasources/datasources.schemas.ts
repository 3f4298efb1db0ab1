import { Type, type Static } from 'typebox';
import { IdParams, PlainText, StringEnum, Timestamp, Uuid } from '../../http/schemas.js';

export const CONNECTION_KINDS = ['postgresql', 'mysql', 'sqlite'] as const;
const SSL_MODES = ['disable', 'require', 'verify-full'] as const;

const NamePatterns = (what: string) =>
  Type.Optional(
    Type.Array(PlainText({ minLength: 1, maxLength: 200 }), {
      maxItems: 100,
      description: `${what}: name patterns, \`*\` any run of characters, \`?\` one character, case-insensitive; at most 100 of 1–200 characters`,
    }),
  );

/** The connection fields shared by requests and responses (everything but the password). */
const connectionProperties = {
  kind: StringEnum(CONNECTION_KINDS, { description: 'Database kind (mysql covers MariaDB)' }),
  host: Type.Optional(
    PlainText({
      minLength: 1,
      maxLength: 255,
      description: 'Server host name or address; required for postgresql and mysql',
    }),
  ),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'Server port (default 5432 / 3306)' })),
  database: PlainText({
    minLength: 1,
    maxLength: 1024,
    description: 'Database name; for sqlite a file path inside FIELDLENS_SCAN_SQLITE_DIR',
  }),
  user: Type.Optional(
    PlainText({ minLength: 1, maxLength: 256, description: 'User the scan connects as (read-only grants suffice)' }),
  ),
  ssl: Type.Optional(StringEnum(SSL_MODES, { description: 'TLS: disable (default), require, verify-full' })),
  include_schemas: NamePatterns('Schemas to scan'),
  exclude_schemas: NamePatterns('Schemas to skip'),
  include_tables: NamePatterns('Tables to scan (schema.table when the pattern has a dot)'),
  exclude_tables: NamePatterns('Tables to skip'),
  sample_size: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1000, description: 'Non-null values sampled per column (default 100)' }),
  ),
};

/** A connection as given on create/update. The password is stored encrypted and never returned. */
export const ConnectionBody = Type.Object(
  {
    ...connectionProperties,
    password: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 1024 }), Type.Null()], {
        description:
          'Stored encrypted, never returned. On update: omitted keeps the stored password unless the destination moves (then it is dropped), null removes it, a string replaces it',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ConnectionBody = Static<typeof ConnectionBody>;

/** A connection as answered: without the password (see has_password). */
export const ConnectionResponse = Type.Object(connectionProperties);
export type ConnectionResponse = Static<typeof ConnectionResponse>;

const ScanIntervalHours = Type.Integer({
  minimum: 1,
  maximum: 8760,
  description: 'Hours between automatic scans, 1–8760',
});

export const DatasourceResponse = Type.Object({
  id: Uuid,
  name: Type.String(),
  type: Type.String({ description: 'Kind of system, e.g. postgresql, mysql, oracle' }),
  description: Type.Union([Type.String(), Type.Null()]),
  is_sample: Type.Boolean({ description: 'Part of the built-in trial sample data (not counted in quotas)' }),
  field_count: Type.Integer({ minimum: 0 }),
  connection: Type.Union([ConnectionResponse, Type.Null()], {
    description: 'How to reach the database for scans, without the password; null: not scannable',
  }),
  has_password: Type.Boolean({ description: 'Whether an (encrypted) connection password is stored' }),
  scan_interval_hours: Type.Union([ScanIntervalHours, Type.Null()], {
    description: 'Hours between automatic scans; null: none',
  }),
  created_at: Timestamp,
});
export type DatasourceResponse = Static<typeof DatasourceResponse>;

/** PATCH's answer: the data source, and whether the stored password was dropped because the destination moved. */
export const UpdateDatasourceResponse = Type.Object({
  ...DatasourceResponse.properties,
  password_dropped: Type.Boolean({
    description:
      'true when this change removed the stored password because the destination moved (kind, host, port, database or user) or TLS got weaker, and no new password was given',
  }),
  notice: Type.Optional(
    Type.String({ description: 'What happened to the password, for the user; present when password_dropped' }),
  ),
});
export type UpdateDatasourceResponse = Static<typeof UpdateDatasourceResponse>;

export const DatasourceListResponse = Type.Object({ items: Type.Array(DatasourceResponse) });

export const CreateDatasourceBody = Type.Object(
  {
    name: PlainText({ minLength: 1, maxLength: 128, description: 'Unique name, 1–128 characters' }),
    type: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.+ -]*$',
      description: 'Kind of system, e.g. postgresql',
    }),
    description: Type.Optional(Type.Union([PlainText({ maxLength: 1000 }), Type.Null()])),
    connection: Type.Optional(Type.Union([ConnectionBody, Type.Null()])),
    scan_interval_hours: Type.Optional(Type.Union([ScanIntervalHours, Type.Null()])),
  },
  { additionalProperties: false },
);
export type CreateDatasourceBody = Static<typeof CreateDatasourceBody>;

export const UpdateDatasourceBody = Type.Object(
  {
    name: Type.Optional(PlainText({ minLength: 1, maxLength: 128, description: 'Unique name, 1–128 characters' })),
    description: Type.Optional(Type.Union([PlainText({ maxLength: 1000 }), Type.Null()])),
    connection: Type.Optional(
      Type.Union([ConnectionBody, Type.Null()], {
        description:
          'Replaces the connection. The stored password is kept when password is omitted and the destination stays; it is dropped (password_dropped) when kind, host, port, database or user change or ssl gets weaker; null removes connection and password',
      }),
    ),
    scan_interval_hours: Type.Optional(
      Type.Union([ScanIntervalHours, Type.Null()], {
        description: 'Hours between automatic scans; null switches them off',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateDatasourceBody = Static<typeof UpdateDatasourceBody>;

export const TestConnectionResponse = Type.Object({
  ok: Type.Literal(true),
  server_version: Type.String({
    maxLength: 200,
    description:
      'Version the database server reports, cut to 200 characters, without control or bidirectional characters',
  }),
});
export type TestConnectionResponse = Static<typeof TestConnectionResponse>;

export const DatasourceIdParams = IdParams;

const Range = (what: string) => Type.Object({ min: Type.Integer(), max: Type.Integer() }, { description: what });

export const ConnectionOptionsResponse = Type.Object({
  kinds: Type.Array(
    Type.Object({
      kind: StringEnum(CONNECTION_KINDS),
      label: Type.String({ description: 'How the console names the kind' }),
      available: Type.Boolean({ description: 'Whether this server accepts a connection of this kind now' }),
      reason: Type.Union([Type.String(), Type.Null()], { description: 'Why not, when available is false' }),
      default_port: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Port used when none is given; null: no network connection (sqlite)',
      }),
      schemas: Type.Boolean({ description: 'Whether schema filters apply (sqlite has one schema, main)' }),
    }),
    { description: 'Every database kind a data source can connect to; every license tier allows every kind' },
  ),
  sqlite_dir: Type.Union([Type.String(), Type.Null()], {
    description:
      'The folder sqlite files must lie in (FIELDLENS_SCAN_SQLITE_DIR); database is a path inside it. null: sqlite is refused',
  }),
  passwords: Type.Boolean({
    description: 'Whether a connection password can be stored (the service has a secret key, FIELDLENS_SECRET_KEY)',
  }),
  limits: Type.Object({
    name_length: Range('Characters of a data source name'),
    patterns_per_list: Type.Integer({ description: 'Patterns at most in each include/exclude list' }),
    pattern_length: Range('Characters of one pattern'),
    sample_size: Type.Object(
      { min: Type.Integer(), max: Type.Integer(), default: Type.Integer() },
      { description: 'Values sampled per column' },
    ),
    scan_interval_hours: Range('Hours between automatic scans'),
  }),
  patterns: Type.String({ description: 'How include/exclude patterns match' }),
});
export type ConnectionOptionsResponse = Static<typeof ConnectionOptionsResponse>;
