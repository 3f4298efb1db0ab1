// The labelled sets of the classifier benchmark, parsed once for every bench that reads them: FieldLens's own set
// (bench/classify/own-set.txt) and the public-schema sets (bench/classify/public/*.txt, one real schema each, split
// into a development and a held-out half by a hash of the file name). Read by bench/classify.ts (the classifier's
// figures) and bench/quality/self-classified.ts (the outlier score on a catalog the classifier labelled itself).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClassifyInput } from '../../src/modules/classifier/classifier.js';
import { flattenTaxonomy, leafChainPaths } from '../../src/modules/taxonomy/default-taxonomy.js';
import { samplesFor } from './samples.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Category keys → default leaves that count as right (the external-labels README's table). */
export const CATEGORY_LEAVES: Readonly<Record<string, readonly string[]>> = {
  'personal.identity.full_name': ['Full name', 'First name', 'Last name'],
  'personal.identity.national_id_number': ['National ID number'],
  'personal.identity.passport_number': ['Passport number'],
  'personal.identity.driver_license_number': ['Driver licence number'],
  'personal.identity.date_of_birth': ['Date of birth'],
  'personal.identity.gender': ['Gender'],
  'personal.contact.email': ['Email address'],
  'personal.contact.phone': ['Phone number'],
  'personal.contact.postal_address': ['Postal address', 'Postal code'],
  'personal.contact.ip_address': ['IP address'],
  'personal.credentials.password_hash': ['Password hash'],
  'personal.credentials.api_key_or_secret_token': ['API key or token'],
  'personal.credentials.security_question_answer': ['Security question'],
  'financial.bank_account_number': ['Bank account number'],
  'financial.payment_card_number': ['Payment card number', 'Card expiry date', 'Card verification code'],
  'financial.salary_income': ['Salary'],
  'financial.tax_identifier': ['Tax identification number'],
  'financial.transaction_amount': ['Monetary amount', 'Account balance'],
  'health.diagnosis': ['Diagnosis'],
  'health.medication': ['Medication'],
  'health.medical_record_number': ['Medical record number'],
  'health.insurance_member_id': ['Health insurance number', 'Insurance policy number'],
  'location.gps_coordinates': ['Geo coordinates', 'Precise location'],
  'location.city_region': ['City', 'Country', 'Approximate location', 'Postal code'],
  'business.order_details': ['Order ID', 'Quantity', 'Shipment tracking number', 'Invoice number', 'Discount code'],
  'business.product_catalog': ['Product SKU', 'Public product description', 'Category'],
  'business.price_cost': ['Price', 'Monetary amount'],
  'business.supplier_partner': ['Organisation name'],
  'business.contract_terms': ['Contract reference'],
  'technical.surrogate_key': ['Record ID', 'Foreign key', 'Customer ID', 'Order ID', 'Employee ID', 'Transaction ID'],
  'technical.record_timestamp': ['Timestamp'],
  'technical.status_flag': ['Status flag'],
  'technical.version_metadata': ['Version', 'Hash or checksum', 'Configuration setting'],
  'technical.log_message': ['Log message', 'Event name', 'User agent'],
  'public.reference_code': ['Country code', 'Currency code', 'Language code', 'Unit of measure', 'Category'],
  'public.marketing_content': ['Public product description'],
};
export const SENSITIVE_ROOTS = new Set(['Personal', 'Credentials & secrets', 'Financial', 'Health', 'Location']);

export interface BenchField {
  input: ClassifyInput;
  /** Leaves that count as right; empty when the source gives no category. */
  accept: readonly string[];
  /** The chain paths of the leaves the labelled line names, the first one first (labelled sets only). */
  labels?: readonly string[];
  /** The labeller's note on the label (public-schema sets); never part of the classifier's input. */
  note?: string;
  /** The source says: not personal (a negative). */
  negative: boolean;
  /** The label is personal or otherwise sensitive data (undefined: the source does not say). */
  sensitive?: boolean;
}

/**
 * Parses a labelled set in the own-set format: `@table` lines, then `column | data type | leaf[/other leaf…] |
 * sample generator | comment`. Other leaves of the same category count as right too, as for the external sets.
 * In the own set the last field is the column's comment, part of what the classifier reads (`FLD01` with "customer
 * number from the old billing system"); in the public-schema sets (`lastField: 'note'`) it is the labeller's note on
 * why the label is what it is, which no schema holds, so it is kept in `note` and never given to the classifier.
 */
export function parseLabelled(text: string, origin: string, lastField: 'comment' | 'note' = 'comment'): BenchField[] {
  const flat = flattenTaxonomy();
  const leafByName = new Map(leafChainPaths(flat).map((p) => [p.slice(p.lastIndexOf('/') + 1), p]));
  const out: BenchField[] = [];
  let table = '';
  let seq = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('@')) {
      table = line.slice(1).trim();
      continue;
    }
    const [field, type, label, gen, comment] = line.split('|').map((s) => s.trim());
    if (!field || !label) throw new Error(`${origin}: bad line: ${line}`);
    const leaves = label.split('/').map((l) => l.trim());
    const paths = leaves.map((leaf) => {
      const p = leafByName.get(leaf);
      if (!p) throw new Error(`${origin}: label ${leaf} is not a default leaf`);
      return p;
    });
    seq++;
    const cats = Object.values(CATEGORY_LEAVES).filter((l) => leaves.some((leaf) => l.includes(leaf)));
    const accept = [...new Set([...leaves, ...cats.flat()])];
    const sensitive = SENSITIVE_ROOTS.has((paths[0] as string).split('/')[0] as string);
    out.push({
      input: {
        table_name: table,
        field_name: field,
        data_type: type || null,
        comment: lastField === 'comment' ? comment || null : null,
        sample_values: gen ? samplesFor(gen, seq) : undefined,
      },
      ...(lastField === 'note' && comment ? { note: comment } : {}),
      accept,
      labels: paths,
      negative: !sensitive,
      sensitive,
    });
  }
  return withTableColumns(out, (f) => f.input.table_name);
}

export function loadOwnSet(): BenchField[] {
  return parseLabelled(readFileSync(path.join(repoRoot, 'bench/classify/own-set.txt'), 'utf8'), 'own-set.txt');
}

/**
 * Which part of the labelled public schemas a file is in. `development`: its misses may be read (`--errors`) and rules
 * and weights fitted on it. `held-out`: only its figures are ever printed; every candidate rule or weight was measured
 * on it once to keep it or not. `fresh` (bench/classify/fresh/ or fresh2/, read only with `BENCH_FRESH`: see
 * freshDirs): schemas labelled blind (no labeller saw a classifier answer), measured without any keep-or-drop decision
 * resting on them, so their figures say how much the held-out half's have been flattered by being consulted for those
 * decisions (bench/classify/LABELLING.md, "Fresh sets").
 */
export type Half = 'development' | 'held-out' | 'fresh';

function readSets(
  dir: string,
  half: (file: string) => Half,
): Array<{ source: string; half: Half; fields: BenchField[] }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((file) => ({
      source: file.replace(/\.txt$/, ''),
      half: half(file),
      fields: parseLabelled(readFileSync(path.join(dir, file), 'utf8'), file, 'note'),
    }));
}

/**
 * The public-schema sets (bench/classify/public/*.txt, one real schema each, labelled by bench/classify/LABELLING.md).
 * Each file is its own source. Its half is drawn from a hash of its file name, never chosen by hand: development
 * (misses may be read with --errors and rules written against them) or held-out (only its figures are ever printed).
 * With `BENCH_FRESH` set the fresh sets come too, as a third part (`Half`; see freshDirs); without it every figure is
 * the one measured before they existed.
 */
export function loadPublicSets(): Array<{ source: string; half: Half; fields: BenchField[] }> {
  return [
    ...readSets(path.join(repoRoot, 'bench/classify/public'), (file) =>
      (createHash('sha256').update(file).digest()[0] as number) % 2 === 0 ? 'development' : 'held-out',
    ),
    ...freshDirs().flatMap((dir) => readSets(path.join(repoRoot, 'bench/classify', dir), () => 'fresh')),
  ];
}

/**
 * The fresh sets read as the `fresh` part: `BENCH_FRESH=1` reads bench/classify/fresh/, `BENCH_FRESH=fresh2` (any
 * directory name starting `fresh`) that directory, `BENCH_FRESH=all` every such directory (`--check-labels`).
 */
export function freshDirs(): string[] {
  const want = process.env.BENCH_FRESH;
  if (want === undefined || want === '' || want === '0') return [];
  if (want === '1') return ['fresh'];
  const dirs = readdirSync(path.join(repoRoot, 'bench/classify')).filter((d) => /^fresh\w*$/.test(d));
  return want === 'all' ? dirs.sort() : dirs.filter((d) => d === want);
}

/**
 * Gives every field the names of its table's columns, as import and scan do (the other columns are context), unless
 * `--no-context` asks for the classifier without them (to compare in one run).
 */
export function withTableColumns(fields: BenchField[], key: (f: BenchField) => string): BenchField[] {
  if (process.argv.includes('--no-context')) return fields;
  const byTable = new Map<string, string[]>();
  for (const f of fields) {
    const k = key(f);
    const list = byTable.get(k) ?? [];
    list.push(f.input.field_name);
    byTable.set(k, list);
  }
  return fields.map((f) => ({ ...f, input: { ...f.input, table_columns: byTable.get(key(f)) ?? null } }));
}
