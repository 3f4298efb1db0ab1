// Generates a PostgreSQL database to scan: BENCH_TABLES tables (default 2,000) × 25 columns = 50,000 columns with
// realistic names, types, comments and values, spread over 8 schemas, BENCH_ROWS rows each (default 200), plus
// BENCH_BIG_TABLES tables (default 3) of BENCH_BIG_ROWS rows (default 10,000,000). All rows come from
// generate_series inside the server; big tables are UNLOGGED (no WAL) to fill fast. ANALYZE at the end gives the
// row estimates the connector reads.
// Run: npx tsx bench/scan-source.ts   (BENCH_SOURCE_URL, default postgres://postgres@127.0.0.1:5432/fl_scan_source;
//      the database is dropped and created again; quick run: BENCH_TABLES=200 BENCH_BIG_TABLES=1 BENCH_BIG_ROWS=500000)
import pg from 'pg';

export const SOURCE_URL = process.env.BENCH_SOURCE_URL ?? 'postgres://postgres@127.0.0.1:5432/fl_scan_source';
const TABLES = Number(process.env.BENCH_TABLES ?? 2000);
const ROWS = Number(process.env.BENCH_ROWS ?? 200);
const BIG_TABLES = Number(process.env.BENCH_BIG_TABLES ?? 3);
const BIG_ROWS = Number(process.env.BENCH_BIG_ROWS ?? 10_000_000);
const COLUMNS = 25;

const SCHEMAS = ['sales', 'crm', 'hr', 'finance', 'billing', 'support', 'marketing', 'logistics'];
const NOUNS = [
  'customer',
  'order',
  'invoice',
  'employee',
  'payment',
  'ticket',
  'shipment',
  'contract',
  'lead',
  'account',
  'subscription',
  'refund',
  'supplier',
  'product',
  'visit',
];
const SUFFIXES = [
  '',
  '_history',
  '_archive',
  '_staging',
  '_daily',
  '_v2',
  '_detail',
  '_audit',
  '_snapshot',
  '_link',
  '_import',
  '_export',
  '_log',
];

// name, SQL type, value expression over the row number g (NULLs where a real column would have gaps), comment.
const POOL: [string, string, string, string | null][] = [
  ['email', 'text', `'user' || g || '@example.com'`, 'contact e-mail'],
  [
    'first_name',
    'text',
    `(ARRAY['Anna','Ben','Chloé','David','Emma','Félix','Greta','Hiro','Ines','Jonas'])[1 + g % 10]`,
    null,
  ],
  [
    'last_name',
    'text',
    `(ARRAY['Smith','Müller','García','Rossi','Nowak','Dubois','Tanaka','Silva','Jensen','Kowalski'])[1 + (g / 10) % 10]`,
    null,
  ],
  ['phone_number', 'text', `'+1-555-' || lpad((g % 10000)::text, 4, '0')`, null],
  ['birth_date', 'date', `date '1950-01-01' + (g % 20000)`, 'date of birth'],
  ['created_at', 'timestamptz', `timestamptz '2024-01-01' + g * interval '1 minute'`, null],
  ['amount', 'numeric(12,2)', `(g % 100000) / 100.0`, 'amount in EUR'],
  ['iban', 'text', `'DE' || lpad((g % 100)::text, 2, '0') || '3704004405' || lpad(g::text, 10, '0')`, null],
  ['ip_address', 'inet', `('10.' || (g / 65536) % 256 || '.' || (g / 256) % 256 || '.' || g % 256)::inet`, null],
  ['status', 'text', `(ARRAY['active','inactive','pending','closed'])[1 + g % 4]`, null],
  ['country_code', 'char(2)', `(ARRAY['DE','FR','US','JP','BR','PL','IT','ES'])[1 + g % 8]`, 'ISO 3166-1 alpha-2'],
  ['postal_code', 'varchar(10)', `lpad((g % 99999)::text, 5, '0')`, null],
  [
    'street_address',
    'text',
    `(g % 300) || ' ' || (ARRAY['Main St','Hauptstraße','Rue de Rivoli','Oak Ave'])[1 + g % 4]`,
    null,
  ],
  [
    'ssn',
    'varchar(11)',
    `lpad((g % 900)::text, 3, '0') || '-' || lpad((g % 90)::text, 2, '0') || '-' || lpad((g % 9000)::text, 4, '0')`,
    'social security number',
  ],
  ['card_number', 'varchar(19)', `'4111' || lpad((g % 1000000000000)::text, 12, '0')`, null],
  ['description', 'text', `CASE WHEN g % 7 = 0 THEN NULL ELSE md5(g::text) END`, null],
  ['is_active', 'boolean', `g % 3 <> 0`, null],
  ['quantity', 'integer', `g % 500`, null],
  ['order_ref', 'uuid', `md5(g::text)::uuid`, null],
  ['notes', 'text', `CASE WHEN g % 5 = 0 THEN 'call back after ' || g % 30 || ' days' END`, 'free text'],
  ['latitude', 'double precision', `-90 + (g % 18000) / 100.0`, null],
  ['company_name', 'text', `(ARRAY['Acme GmbH','Globex SA','Initech','Umbrella KK','Hooli'])[1 + g % 5]`, null],
  ['job_title', 'text', `(ARRAY['Engineer','Nurse','Teacher','Accountant','Driver'])[1 + g % 5]`, null],
  ['password_hash', 'bytea', `decode(md5(g::text), 'hex')`, null],
  ['updated_by', 'text', `'svc_' || g % 17`, null],
  ['tax_id', 'varchar(20)', `'TX' || lpad((g % 99999999)::text, 9, '0')`, null],
  ['salary', 'numeric(10,2)', `30000 + (g % 70000)`, 'gross yearly salary'],
  ['gender', 'text', `(ARRAY['f','m','x'])[1 + g % 3]`, null],
];

function tableColumns(i: number): [string, string, string, string | null][] {
  const cols: [string, string, string, string | null][] = [];
  for (let k = 0; k < COLUMNS - 1; k++) cols.push(POOL[(i + k) % POOL.length]!);
  return cols;
}

function createSql(schema: string, name: string, i: number, rows: number, unlogged: boolean): string {
  const cols = tableColumns(i);
  const q = `${schema}.${name}`;
  const comments = cols
    .filter((c) => c[3])
    .map((c) => `COMMENT ON COLUMN ${q}.${c[0]} IS '${c[3]}';`)
    .join('\n');
  return `CREATE ${unlogged ? 'UNLOGGED ' : ''}TABLE ${q} (id bigint PRIMARY KEY, ${cols.map((c) => `${c[0]} ${c[1]}`).join(', ')});
COMMENT ON TABLE ${q} IS '${name.replace(/_/g, ' ')} records';
${comments}
INSERT INTO ${q} SELECT g, ${cols.map((c) => c[2]).join(', ')} FROM generate_series(1, ${rows}) g;`;
}

export function tableName(i: number): { schema: string; name: string } {
  return {
    schema: SCHEMAS[i % SCHEMAS.length]!,
    name: `${NOUNS[i % NOUNS.length]}${SUFFIXES[Math.floor(i / NOUNS.length) % SUFFIXES.length]}_${i}`,
  };
}

async function main(): Promise<void> {
  const url = new URL(SOURCE_URL);
  const dbName = url.pathname.slice(1);
  if (!/^[a-z_][a-z0-9_]*$/.test(dbName)) throw new Error('BENCH_SOURCE_URL must name a plain database');
  const adminUrl = new URL(SOURCE_URL);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();

  const client = new pg.Client({ connectionString: SOURCE_URL });
  await client.connect();
  const t0 = performance.now();
  await client.query(SCHEMAS.map((s) => `CREATE SCHEMA ${s};`).join('\n'));
  const BATCH = 50;
  for (let start = 0; start < TABLES; start += BATCH) {
    const sql: string[] = [];
    for (let i = start; i < Math.min(TABLES, start + BATCH); i++) {
      const { schema, name } = tableName(i);
      sql.push(createSql(schema, name, i, ROWS, false));
    }
    await client.query(sql.join('\n'));
    if ((start + BATCH) % 500 === 0)
      console.log(`  ${start + BATCH} tables (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  for (let b = 0; b < BIG_TABLES; b++) {
    const t1 = performance.now();
    await client.query(createSql('sales', `big_events_${b}`, 1000 + b, BIG_ROWS, true));
    console.log(
      `  big table sales.big_events_${b}: ${BIG_ROWS.toLocaleString('en')} rows in ${((performance.now() - t1) / 1000).toFixed(0)} s`,
    );
  }
  await client.query('ANALYZE');
  const size = await client.query<{ s: string }>(`SELECT pg_size_pretty(pg_database_size(current_database())) AS s`);
  console.log(
    `source ${dbName}: ${TABLES + BIG_TABLES} tables × ${COLUMNS} columns, ${size.rows[0]!.s}, generated in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  await client.end();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
