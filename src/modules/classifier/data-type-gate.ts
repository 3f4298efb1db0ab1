// The declared data type as a gate: some tags cannot hold some types (no date of birth in a boolean, no e-mail
// address in an integer, no card number in a timestamp). The gate only removes candidates; it never picks one.

export type TypeFamily =
  | 'text'
  | 'integer'
  | 'decimal'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'time'
  | 'interval'
  | 'uuid'
  | 'binary'
  | 'json'
  | 'geo'
  | 'inet'
  | 'unknown';

const WORD_FAMILY: Readonly<Record<string, TypeFamily>> = {
  varchar: 'text',
  char: 'text',
  character: 'text',
  nvarchar: 'text',
  nchar: 'text',
  text: 'text',
  string: 'text',
  str: 'text',
  clob: 'text',
  nclob: 'text',
  tinytext: 'text',
  mediumtext: 'text',
  longtext: 'text',
  citext: 'text',
  varchar2: 'text',
  nvarchar2: 'text',
  enum: 'text',
  set: 'text',
  keyword: 'text',
  object_id: 'text',
  objectid: 'text',
  int: 'integer',
  integer: 'integer',
  bigint: 'integer',
  smallint: 'integer',
  tinyint: 'integer',
  mediumint: 'integer',
  serial: 'integer',
  bigserial: 'integer',
  smallserial: 'integer',
  int2: 'integer',
  int4: 'integer',
  int8: 'integer',
  long: 'integer',
  short: 'integer',
  int16: 'integer',
  int32: 'integer',
  int64: 'integer',
  uint: 'integer',
  decimal: 'decimal',
  numeric: 'decimal',
  number: 'decimal',
  float: 'decimal',
  float4: 'decimal',
  float8: 'decimal',
  double: 'decimal',
  real: 'decimal',
  money: 'decimal',
  smallmoney: 'decimal',
  float32: 'decimal',
  float64: 'decimal',
  date: 'date',
  datetime: 'datetime',
  datetime2: 'datetime',
  smalldatetime: 'datetime',
  timestamp: 'datetime',
  timestamptz: 'datetime',
  datetimeoffset: 'datetime',
  time: 'time',
  timetz: 'time',
  interval: 'interval',
  year: 'integer',
  bool: 'boolean',
  boolean: 'boolean',
  bit: 'boolean',
  uuid: 'uuid',
  uniqueidentifier: 'uuid',
  json: 'json',
  jsonb: 'json',
  xml: 'json',
  object: 'json',
  struct: 'json',
  map: 'json',
  variant: 'json',
  blob: 'binary',
  bytea: 'binary',
  binary: 'binary',
  varbinary: 'binary',
  longblob: 'binary',
  mediumblob: 'binary',
  image: 'binary',
  raw: 'binary',
  bytes: 'binary',
  inet: 'inet',
  cidr: 'inet',
  macaddr: 'text',
  geometry: 'geo',
  geography: 'geo',
  point: 'geo',
  polygon: 'geo',
  geojson: 'geo',
};

/**
 * Words of ORM field types (Django `BooleanField`, Laravel `unsignedTinyInteger`, Frappe `Check` / `Link` / `Data`,
 * Mongoose `Mixed`, .NET `Guid`): read only when no SQL type word names the family.
 */
const ORM_FAMILY: Readonly<Record<string, TypeFamily>> = {
  ...WORD_FAMILY,
  char: 'text',
  email: 'text',
  url: 'text',
  slug: 'text',
  ip: 'inet',
  genericipaddress: 'inet',
  ipaddress: 'inet',
  integer: 'integer',
  positiveinteger: 'integer',
  positivesmallinteger: 'integer',
  positivebiginteger: 'integer',
  biginteger: 'integer',
  smallinteger: 'integer',
  auto: 'integer',
  bigauto: 'integer',
  increments: 'integer',
  float: 'decimal',
  decimal: 'decimal',
  duration: 'interval',
  boolean: 'boolean',
  nullboolean: 'boolean',
  check: 'boolean',
  datetime: 'datetime',
  date: 'date',
  time: 'time',
  uuid: 'uuid',
  guid: 'uuid',
  json: 'json',
  mixed: 'json',
  file: 'text',
  image: 'text',
  link: 'text',
  data: 'text',
  select: 'text',
};

/** Longest declared type read: a type name is a few words; the rest of an overlong string cannot change its family. */
const MAX_TYPE_LENGTH = 256;

/**
 * Family of a declared SQL or driver type (`varchar(255)`, `TIMESTAMP WITH TIME ZONE`, `string[]`, `array<string>`),
 * for the gate. Total over every string: no recursion, one pass over at most MAX_TYPE_LENGTH characters. A container
 * (`text[]`, `array<int>`) is judged by its element type where one is named; a bare `ARRAY` (PostgreSQL's
 * information_schema says so for every array column) or `USER-DEFINED` names none and is `unknown`.
 */
export function typeFamily(dataType: string | null | undefined): TypeFamily {
  if (typeof dataType !== 'string' || dataType === '') return 'unknown';
  const lower = dataType.slice(0, MAX_TYPE_LENGTH).toLowerCase();
  if (/^\s*number\s*\(\s*1\s*\)/.test(lower)) return 'boolean';
  // MySQL's display width 1 (`tinyint(1)`, and `int(1)`, `smallint(1)` written the same way) marks a yes/no.
  if (/\b(tiny|small|medium)?int\s*\(\s*1\s*\)/.test(lower)) return 'boolean';
  // A precision without a scale, or a scale of 0 (Oracle's `NUMBER(10)`, `numeric(5,0)`, `decimal(4,0)`), holds whole
  // numbers only.
  if (/^\s*(number|numeric|decimal)\s*\(\s*\d+\s*(,\s*0\s*)?\)/.test(lower)) return 'integer';
  // Length and precision arguments say nothing of the family; `array`, `[]`, `<`, `>` are separators like any other,
  // so the first word that names a family — the element type of an array — decides.
  for (const w of lower.replace(/\([^()]*\)/g, ' ').split(/[^a-z0-9_]+/)) {
    if (w && Object.hasOwn(WORD_FAMILY, w)) return WORD_FAMILY[w] as TypeFamily;
  }
  // ORM and framework type names (`PositiveIntegerField`, `DateTimeField`, `unsignedTinyInteger`, `FallbackJSONField`):
  // a `Field` suffix dropped, then the camelCase parts read from the last (the head of the name) to the first.
  for (const token of dataType
    .slice(0, MAX_TYPE_LENGTH)
    .replace(/\([^()]*\)/g, ' ')
    .split(/[^A-Za-z0-9]+/)) {
    const bare = token.replace(/Field$/, '');
    if (bare === '') continue;
    if (Object.hasOwn(ORM_FAMILY, bare.toLowerCase())) return ORM_FAMILY[bare.toLowerCase()] as TypeFamily;
    const parts = bare.split(/(?<=[a-z])(?=[A-Z])/);
    for (let i = parts.length - 1; i >= 0; i--) {
      const part = (parts[i] as string).toLowerCase();
      if (Object.hasOwn(ORM_FAMILY, part)) return ORM_FAMILY[part] as TypeFamily;
    }
  }
  return 'unknown';
}

/** What a tag can be stored as. Tags without an entry accept every family. */
export type TypeRule = ReadonlySet<TypeFamily>;

const S = (...f: TypeFamily[]): TypeRule => new Set<TypeFamily>([...f, 'unknown']);
const TEXTUAL = S('text', 'json', 'binary');
const NUMERIC_ID = S('text', 'integer', 'decimal', 'binary');
const DATE_LIKE = S('date', 'datetime', 'text', 'integer');

/** Per default-taxonomy leaf name: the families it may be stored in. */
export const TYPE_RULES: Readonly<Record<string, TypeRule>> = {
  'Full name': TEXTUAL,
  'First name': TEXTUAL,
  'Last name': TEXTUAL,
  'Date of birth': DATE_LIKE,
  Age: S('integer', 'decimal', 'text'),
  'Marital status': S('text', 'integer', 'boolean'),
  Gender: S('text', 'integer', 'boolean'),
  'National ID number': NUMERIC_ID,
  'Passport number': TEXTUAL,
  'Driver licence number': NUMERIC_ID,
  'Tax identification number': NUMERIC_ID,
  'Email address': TEXTUAL,
  'Phone number': NUMERIC_ID,
  // House numbers are often integers.
  'Postal address': S('text', 'json', 'binary', 'integer'),
  'Postal code': NUMERIC_ID,
  City: TEXTUAL,
  Country: S('text', 'integer'),
  'IP address': S('text', 'inet', 'integer', 'binary'),
  'Device ID': S('text', 'uuid', 'integer', 'binary'),
  'Cookie ID': S('text', 'uuid', 'binary'),
  Username: TEXTUAL,
  'Password hash': TEXTUAL,
  'API key or token': TEXTUAL,
  'Security question': TEXTUAL,
  'Payment card number': NUMERIC_ID,
  'Card expiry date': S('text', 'date', 'datetime', 'integer'),
  'Card verification code': S('text', 'integer'),
  'Bank account number': NUMERIC_ID,
  'Account balance': S('decimal', 'integer', 'text'),
  'Monetary amount': S('decimal', 'integer', 'text'),
  Salary: S('decimal', 'integer', 'text'),
  'Credit score': S('decimal', 'integer', 'text'),
  'Insurance policy number': NUMERIC_ID,
  'Medical record number': S('text', 'integer', 'uuid', 'decimal'),
  'Health insurance number': NUMERIC_ID,
  'Geo coordinates': S('decimal', 'geo', 'text', 'json', 'integer'),
  'Precise location': S('geo', 'text', 'json', 'decimal', 'binary'),
  'Photo of a person': TEXTUAL,
  'Biometric template': TEXTUAL,
  'Organisation name': TEXTUAL,
  'Job title': TEXTUAL,
  Department: S('text', 'integer'),
  Price: S('decimal', 'integer', 'text'),
  Quantity: S('decimal', 'integer', 'text'),
  Timestamp: S('date', 'datetime', 'time', 'integer', 'decimal', 'text'),
  'Status flag': S('boolean', 'text', 'integer', 'decimal'),
  'Log message': TEXTUAL,
  // What happened and a coupon's code are words: a yes/no or a whole number named for them says whether or how many.
  'Event name': TEXTUAL,
  'Discount code': TEXTUAL,
  URL: TEXTUAL,
  'User agent': TEXTUAL,
  'Internal notes': TEXTUAL,
  'Public product description': TEXTUAL,
  'Object name': TEXTUAL,
  // A kind, a status or a reference code is never a point in time.
  Category: S('text', 'integer', 'decimal', 'boolean', 'json', 'binary', 'uuid'),
  'Country code': S('text', 'integer'),
  'Currency code': S('text', 'integer'),
  'Language code': TEXTUAL,
  'Unit of measure': TEXTUAL,
  // IANA names, or offsets in minutes or hours.
  'Time zone': S('text', 'integer', 'decimal'),
  'File reference': TEXTUAL,
  'Hash or checksum': S('text', 'binary', 'integer', 'decimal'),
  'Record ID': S('integer', 'uuid', 'text', 'decimal', 'binary'),
  'Foreign key': S('integer', 'uuid', 'text', 'decimal', 'binary', 'json'),
  'Customer ID': S('integer', 'uuid', 'text', 'decimal'),
  'Order ID': S('integer', 'uuid', 'text', 'decimal'),
  'Employee ID': S('integer', 'uuid', 'text', 'decimal'),
  'Transaction ID': S('integer', 'uuid', 'text', 'decimal'),
  'Invoice number': S('integer', 'uuid', 'text', 'decimal'),
  'Metric value': S('integer', 'decimal', 'interval', 'text'),
  'Sort order': S('integer', 'decimal', 'text'),
};

/**
 * Families that say nothing of what a value is: a document, a variant or a type we cannot read may hold anything
 * (`dateOfBirth: object` in an API schema is still a date of birth). Only scalar declared types veto a tag.
 */
const NON_SCALAR: ReadonlySet<TypeFamily> = new Set<TypeFamily>(['json', 'unknown']);

/** True when a tag (by leaf name) may hold a column of this family. */
export function typeAllows(leafName: string, family: TypeFamily): boolean {
  if (NON_SCALAR.has(family)) return true;
  // Own keys only: a custom tag named `constructor` has no rule, not Object's.
  return !Object.hasOwn(TYPE_RULES, leafName) || (TYPE_RULES[leafName] as TypeRule).has(family);
}

/** A weak prior from the type alone, used only when nothing else speaks. */
export const TYPE_PRIOR: Readonly<Partial<Record<TypeFamily, string>>> = {
  boolean: 'Status flag',
  datetime: 'Timestamp',
  date: 'Timestamp',
  time: 'Timestamp',
  uuid: 'Record ID',
  interval: 'Metric value',
  inet: 'IP address',
  geo: 'Geo coordinates',
  json: 'Configuration setting',
  binary: 'Hash or checksum',
};

/** Class names that are values, not entities, though written like one. */
const VALUE_CLASSES: ReadonlySet<string> = new Set([
  'instant',
  'duration',
  'money',
  'locale',
  'currency',
  'url',
  'uri',
  'email',
  'any',
  'period',
  'zoneid',
  'color',
  'colour',
  'buffer',
  'record',
  'dictionary',
  'hash',
  'list',
  'collection',
  'enumerable',
  'optional',
  'nullable',
  'array',
  'vector',
  'tuple',
  'sequence',
  'iterable',
]);
/** Last words of an enumeration's class name (`DeviceType`, `OrderStatus`). */
const ENUM_CLASS = /(Type|Kind|Status|Enum|Mode|Level|State|Category|Method)$/;

/**
 * An ORM relation or enumeration typed by its class (`office: Office`, `savingsAccount: SavingsAccount`,
 * `gateway: GatewayType?`): `entity` for a reference to another row, `enum` for a list of named values, else null.
 * Only a single PascalCase word that names no family counts.
 */
export function declaredClass(dataType: string | null | undefined): { kind: 'entity' | 'enum'; name: string } | null {
  if (typeof dataType !== 'string' || dataType.length > 64) return null;
  const name = dataType.trim().replace(/\?$/, '');
  // Frappe's `Link` and `Dynamic Link` fields hold the name of another document: a reference.
  if (/^(Dynamic )?Link$/.test(name)) return { kind: 'entity', name };
  if (
    !/^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)*$/.test(name) ||
    typeFamily(name) !== 'unknown' ||
    VALUE_CLASSES.has(name.toLowerCase())
  )
    return null;
  return { kind: ENUM_CLASS.test(name) ? 'enum' : 'entity', name };
}
