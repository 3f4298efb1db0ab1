// Builtin embedder benchmark: load time, memory per loaded model, vector file size, fields/s on 100k
// realistic field inputs (cold caches, then warm). Run: npx tsx bench/embeddings.ts
import { cpus } from 'node:os';
import { BuiltinEmbedder } from '../src/embeddings/builtin-embedder.js';
import type { FieldEmbeddingInput } from '../src/embeddings/embedder.js';
import { DEFAULT_WORD_VECTORS_URL, loadWordVectors, wordVectorFileSize } from '../src/embeddings/word-vectors.js';

const N = 100_000;

// Deterministic generator (LCG) so runs are comparable.
let seed = 12345;
const rand = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;

const TABLES = [
  'users',
  'customers',
  'crm_contacts',
  'orders',
  'order_items',
  'invoices',
  'payments',
  'employees',
  'hr_payroll',
  'patients',
  'encounters',
  'accounts',
  'transactions',
  'products',
  'inventory',
  'shipments',
  'audit_log',
  'sessions',
  'devices',
  'tbl_cust_master',
  'dim_customer',
  'fact_sales',
  'stg_leads',
  'UserProfiles',
  '客户',
  'ユーザー',
];
const STEMS = [
  'email',
  'email_address',
  'emailAddr',
  'contact_email',
  'phone',
  'phone_no',
  'mobileNumber',
  'tel',
  'first_name',
  'FirstName',
  'lname',
  'full_name',
  'dob',
  'birth_date',
  'date_of_birth',
  'ssn',
  'national_id',
  'passport_no',
  'address_line_1',
  'addr2',
  'city',
  'zip',
  'postal_code',
  'country_cd',
  'created_at',
  'updated_at',
  'deleted_at',
  'CREATED_BY',
  'is_active',
  'status',
  'status_cd',
  'order_total',
  'amt',
  'unit_price',
  'qty',
  'currency',
  'iban',
  'card_number',
  'cvv',
  'salary',
  'bonus_amt',
  'dept_id',
  'mgr_emp_id',
  'ip_address',
  'user_agent',
  'password_hash',
  'api_token',
  'notes',
  'description',
  'gender',
  'diagnosis_code',
  'medication',
  'lat',
  'lng',
  'sku',
  'custmr_ref',
  '邮箱',
  '电话',
  '姓名',
  '生年月日',
  'HTTPStatus',
  'lastLoginTs',
  'acctNo',
  'txn_dt',
];
const COMMENTS = [
  null,
  null,
  null,
  'Primary e-mail of the customer',
  'Date of birth',
  'Mobile phone in E.164 format',
  'Total incl. VAT',
  'Soft delete marker',
  'Free-text notes from support',
  'ISO 3166 country code',
  'Hashed with argon2id',
  'Legacy column',
];
const TYPES = [
  'varchar(255)',
  'text',
  'integer',
  'bigint',
  'numeric(12,2)',
  'timestamp with time zone',
  'date',
  'boolean',
  'uuid',
  'jsonb',
  null,
];
const SIGNATURES = [
  'email',
  'phone',
  'date',
  'datetime',
  'integer',
  'decimal',
  'short_code',
  'short_text',
  'free_text',
  'uuid',
  'card_number',
  'empty',
  null,
];

function generate(n: number): FieldEmbeddingInput[] {
  const out: FieldEmbeddingInput[] = [];
  for (let i = 0; i < n; i++) {
    let field = pick(STEMS);
    const r = rand();
    // About half of real catalogs' names are variants nobody else uses: prefixes, suffixes, odd codes.
    if (r < 0.2) field = `${pick(['src', 'old', 'tmp', 'x', 'cust', 'bill', 'ship'])}_${field}`;
    else if (r < 0.35) field = `${field}_${Math.floor(rand() * 20)}`;
    else if (r < 0.5) field = `attr_${Math.floor(rand() * 1e6).toString(36)}`;
    out.push({
      table_name: r > 0.9 ? `t_${Math.floor(rand() * 5000)}` : pick(TABLES),
      field_name: field,
      comment: pick(COMMENTS),
      data_type: pick(TYPES),
      format_signature: pick(SIGNATURES),
    });
  }
  return out;
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1) + ' MB';
}

async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  const t0 = performance.now();
  const embedder = new BuiltinEmbedder(loadWordVectors());
  const loadMs = performance.now() - t0;
  gc?.();
  const after = process.memoryUsage();

  // First load includes cold file cache and JIT warm-up; also report the median of further loads.
  const loads: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    new BuiltinEmbedder(loadWordVectors());
    loads.push(performance.now() - t);
  }
  loads.sort((a, b) => a - b);

  const inputs = generate(N);
  const t1 = performance.now();
  await embedder.embedFields(inputs);
  const coldMs = performance.now() - t1;
  const t2 = performance.now();
  await embedder.embedFields(inputs);
  const warmMs = performance.now() - t2;
  const texts = inputs.slice(0, 20_000).map((f) => `${f.field_name} ${f.comment ?? ''}`);
  const t3 = performance.now();
  await embedder.embedTexts(texts);
  const textMs = performance.now() - t3;

  console.log(`machine: ${cpus().length} cores, ${cpus()[0]?.model ?? '?'}, node ${process.version}`);
  console.log(`vector file: ${DEFAULT_WORD_VECTORS_URL.pathname} ${mb(wordVectorFileSize())}`);
  console.log(`RSS before loading: ${mb(before.rss)}`);
  console.log(`load: first ${loadMs.toFixed(1)} ms, median of 5 more ${(loads[2] as number).toFixed(1)} ms`);
  console.log(
    `memory per loaded model: heap +${mb(after.heapUsed - before.heapUsed)}, external (vector file buffer) +${mb(after.external - before.external)}, RSS +${mb(after.rss - before.rss)}${gc ? '' : ' (run with --expose-gc for exact heap)'}`,
  );
  console.log(
    `embedFields, ${N} fields, cold caches: ${(coldMs / 1000).toFixed(2)} s = ${Math.round(N / (coldMs / 1000))} fields/s`,
  );
  console.log(
    `embedFields, ${N} fields, warm caches: ${(warmMs / 1000).toFixed(2)} s = ${Math.round(N / (warmMs / 1000))} fields/s`,
  );
  console.log(`embedTexts, ${texts.length} texts: ${Math.round(texts.length / (textMs / 1000))} texts/s`);
  gc?.();
  console.log(`RSS after run: ${mb(process.memoryUsage().rss)} (process total: tsx, inputs, caches)`);
}

await main();
