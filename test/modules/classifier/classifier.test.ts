import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildClassifierContext,
  candidateTotals,
  CLASSIFIER_VERSION,
  classifyField,
  labelGap,
  labelGapOf,
  scoreField,
  withConfirmed,
  type ClassifierTag,
  type ClassifyInput,
} from '../../../src/modules/classifier/classifier.js';
import fc from 'fast-check';
import { typeAllows, typeFamily } from '../../../src/modules/classifier/data-type-gate.js';
import { buildPhrases, NameMatcher } from '../../../src/modules/classifier/name-evidence.js';
import { calibrate, fitIsotonic } from '../../../src/modules/classifier/calibration.js';
import { formatFingerprint, summaryFromFingerprint } from '../../../src/modules/classifier/detectors.js';
import { flattenTaxonomy } from '../../../src/modules/taxonomy/default-taxonomy.js';

const flat = flattenTaxonomy();
const tags: ClassifierTag[] = flat.map((t, i) => ({
  id: 100 + i,
  chain_path: t.chain_path,
  default_level: t.default_level,
  keywords: t.keywords,
}));
const ctx = buildClassifierContext(tags);
const idOf = (leaf: string): number => (tags.find((t) => t.chain_path.endsWith(`/${leaf}`)) as ClassifierTag).id;
const leafOf = (input: ClassifyInput): string => {
  const r = classifyField(input, ctx);
  return r.chain_path.slice(r.chain_path.lastIndexOf('/') + 1);
};
/** The leaf a column gets from its table, name and declared type alone. */
const leafIn = (table: string, field: string, type: string): string =>
  leafOf({ table_name: table, field_name: field, data_type: type });
const SENSITIVE_ROOTS = ['Personal', 'Credentials & secrets', 'Financial', 'Health', 'Location'];

test('names are split as real schemas write them', () => {
  const m = new NameMatcher(buildPhrases());
  assert.deepEqual(m.words('EMPSSN'), ['employee', 'ssn']);
  assert.deepEqual(m.words('CUST_NM'), ['customer', 'name']);
  assert.deepEqual(m.words('DOB'), ['birth', 'date']);
  assert.deepEqual(m.words('firstName'), ['first', 'name']);
  assert.deepEqual(m.words('LastName'), ['last', 'name']);
  assert.deepEqual(m.words('dateofbirth'), ['birth', 'date']);
  assert.deepEqual(m.words('BRTHDT'), ['birth', 'date']);
  assert.deepEqual(m.words('Geburtsdatum'), ['birth', 'date']);
  assert.deepEqual(m.words('telefonnummer'), ['phone', 'number']);
  assert.deepEqual(m.words('fecha_nacimiento'), ['date', 'birth']);
  // A stop word as a piece costs more: `lastip` is last ip, not `las tip`.
  assert.deepEqual(m.words('lastip'), ['last', 'ip']);
  assert.deepEqual(m.words('customer_addresses'), ['customer', 'address']);
});

test('common personal columns in English, legacy and non-English names', () => {
  const cases: Array<[string, string, string]> = [
    ['customers', 'email', 'Email address'],
    ['EMPMAST', 'EMPSSN', 'National ID number'],
    ['CUST_MSTR', 'CUST_NM', 'Full name'],
    ['people', 'DOB', 'Date of birth'],
    ['kunden', 'Vorname', 'First name'],
    ['kunden', 'Nachname', 'Last name'],
    ['kunden', 'Geburtsdatum', 'Date of birth'],
    ['clients', 'prenom', 'First name'],
    ['clients', 'courriel', 'Email address'],
    ['clientes', 'fecha_nacimiento', 'Date of birth'],
    ['clientes', 'telefono_movil', 'Phone number'],
    ['klanten', 'achternaam', 'Last name'],
    ['klanten', 'woonplaats', 'City'],
    ['clientes_br', 'data_nascimento', 'Date of birth'],
    ['clientes_br', 'senha', 'Password hash'],
    ['payments', 'cc_num', 'Payment card number'],
    ['payment_cards', 'expiry', 'Card expiry date'],
    ['invoices', 'number', 'Invoice number'],
    ['addresses', 'state', 'Approximate location'],
  ];
  for (const [table, field, leaf] of cases)
    assert.equal(leafOf({ table_name: table, field_name: field }), leaf, `${table}.${field}`);
});

test('"nothing sensitive" is an answer: keys, times, flags and reference data get technical or public tags', () => {
  const cases: Array<[ClassifyInput, string]> = [
    [{ table_name: 'users', field_name: 'id', data_type: 'integer' }, 'Record ID'],
    [{ table_name: 'orders', field_name: 'post_id', data_type: 'bigint' }, 'Foreign key'],
    [{ table_name: 'orders', field_name: 'address_id', data_type: 'bigint' }, 'Foreign key'],
    [{ table_name: 'orders', field_name: 'created_at', data_type: 'timestamp' }, 'Timestamp'],
    [{ table_name: 'users', field_name: 'email_verified_at', data_type: 'timestamp' }, 'Timestamp'],
    [{ table_name: 'orders', field_name: 'status', data_type: 'varchar(20)' }, 'Status flag'],
    [{ table_name: 'users', field_name: 'is_email_verified', data_type: 'boolean' }, 'Status flag'],
    [{ table_name: 'products', field_name: 'name', data_type: 'varchar(200)' }, 'Public product description'],
    [{ table_name: 'categories', field_name: 'sort_order', data_type: 'int' }, 'Sort order'],
    [{ table_name: 'files', field_name: 'checksum', data_type: 'char(64)' }, 'Hash or checksum'],
    [{ table_name: 'prices', field_name: 'currency_code', data_type: 'char(3)' }, 'Currency code'],
    [{ table_name: 'request_log', field_name: 'latency_ms', data_type: 'integer' }, 'Metric value'],
  ];
  for (const [input, leaf] of cases) {
    const r = classifyField(input, ctx);
    assert.equal(r.chain_path.split('/').at(-1), leaf, `${input.table_name}.${input.field_name}`);
    assert.ok(!SENSITIVE_ROOTS.includes(r.chain_path.split('/')[0] as string), `${input.field_name} is not sensitive`);
    assert.ok(r.evidence.length > 0, 'a technical answer explains itself too');
  }
});

test('the data type gates tags: no date of birth on a boolean, no e-mail on an integer, no card number on a timestamp', () => {
  assert.notEqual(leafOf({ table_name: 'people', field_name: 'dob', data_type: 'boolean' }), 'Date of birth');
  assert.notEqual(leafOf({ table_name: 'people', field_name: 'email', data_type: 'integer' }), 'Email address');
  assert.notEqual(
    leafOf({ table_name: 'payments', field_name: 'card_number', data_type: 'timestamp' }),
    'Payment card number',
  );
  const r = classifyField({ table_name: 'people', field_name: 'dob', data_type: 'boolean' }, ctx);
  assert.ok(
    r.evidence.some((e) => e.factor === 'data_type' && e.score < 0 && e.detail.includes('Date of birth')),
    'the ruled-out tag is named',
  );
  assert.equal(typeFamily('VARCHAR(255)'), 'text');
  assert.equal(typeFamily('timestamp with time zone'), 'datetime');
  assert.equal(typeFamily('string[]'), 'text');
  assert.equal(typeFamily('tinyint(1)'), 'boolean');
  assert.equal(typeFamily('NUMBER(10)'), 'integer'); // Oracle's NUMBER(p) has no scale: whole numbers (1.5.9)
  assert.equal(typeFamily(null), 'unknown');
  assert.equal(typeAllows('Email address', 'integer'), false);
  assert.equal(typeAllows('Email address', 'unknown'), true, 'an unknown type rules nothing out');
});

test('only scalar declared types veto a tag: object, json, variant, array and unknown types veto nothing', () => {
  // An API schema's `object` or a warehouse's `variant` says nothing of what the value is; the name still decides.
  assert.equal(
    leafOf({ table_name: 'applicants', field_name: 'residentTaxNumber', data_type: 'object' }),
    'Tax identification number',
  );
  assert.equal(leafOf({ table_name: 'members', field_name: 'birthDate', data_type: 'variant' }), 'Date of birth');
  assert.equal(leafOf({ table_name: 'members', field_name: 'contact_email', data_type: 'jsonb' }), 'Email address');
  assert.equal(leafOf({ table_name: 'members', field_name: 'contact_email', data_type: 'ARRAY' }), 'Email address');
  // A scalar type still vetoes.
  assert.notEqual(leafOf({ table_name: 'members', field_name: 'birthDate', data_type: 'boolean' }), 'Date of birth');
  assert.equal(typeAllows('Date of birth', 'json'), true);
  assert.equal(typeAllows('Date of birth', 'boolean'), false);
});

test('typeFamily reads containers by their element type and never throws or loops, on any string', () => {
  assert.equal(typeFamily('ARRAY'), 'unknown');
  assert.equal(typeFamily('array'), 'unknown');
  assert.equal(typeFamily('USER-DEFINED'), 'unknown');
  assert.equal(typeFamily('array<array<int>>'), 'integer');
  assert.equal(typeFamily('ARRAY<STRING>'), 'text');
  assert.equal(typeFamily('timestamp[]'), 'datetime');
  assert.equal(typeFamily('array<struct<a:int>>'), 'json');
  assert.equal(
    typeFamily(`${'array<'.repeat(10_000)}int${'>'.repeat(10_000)}`),
    'unknown',
    'an element type past the reading bound is not guessed',
  );
  const families = new Set([
    'text',
    'integer',
    'decimal',
    'boolean',
    'date',
    'datetime',
    'time',
    'interval',
    'uuid',
    'binary',
    'json',
    'geo',
    'inet',
    'unknown',
  ]);
  fc.assert(
    fc.property(
      fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.stringMatching(/^(array|ARRAY)?[<[(]*[a-z ]*[>\])]*$/)),
      (s) => {
        assert.ok(families.has(typeFamily(s)));
      },
    ),
    { numRuns: 2000 },
  );
});

test('sample values decide when the name cannot: e-mails under an opaque name, SSNs in a column named id', () => {
  assert.equal(
    leafOf({
      table_name: 'stage',
      field_name: 'DWH_X10',
      data_type: 'varchar(80)',
      sample_values: ['a.b@example.com', 'c@example.org', 'd.e@example.net'],
    }),
    'Email address',
  );
  assert.equal(
    leafOf({
      table_name: 'stage',
      field_name: 'id',
      data_type: 'varchar(11)',
      sample_values: ['489-36-8350', '514-14-8905', '690-05-5315'],
    }),
    'National ID number',
  );
  assert.equal(
    leafOf({
      table_name: 'stage',
      field_name: 'col7',
      sample_values: ['DE89370400440532013000', 'GB82WEST12345698765432'],
    }),
    'Bank account number',
  );
  // Epoch milliseconds pass the Luhn check now and then; they are still no card numbers.
  assert.notEqual(
    leafOf({
      table_name: 'events',
      field_name: 'ts',
      data_type: 'bigint',
      sample_values: ['1609459200000', '1609459200018', '1609459200026'],
    }),
    'Payment card number',
  );
});

test('level: the tag default, raised when some samples prove something more sensitive', () => {
  const plain = classifyField(
    {
      table_name: 'tickets',
      field_name: 'notes',
      data_type: 'text',
      sample_values: ['Called back, fine now.', 'Asked about delivery.', 'Wants a refund.', 'No answer.'],
    },
    ctx,
  );
  assert.equal(plain.chain_path, 'Business/Internal notes');
  assert.equal(plain.level, 'L3');
  const leaky = classifyField(
    {
      table_name: 'tickets',
      field_name: 'notes',
      data_type: 'text',
      sample_values: [
        'Called back, fine now.',
        '4539578763621486',
        'Wants a refund.',
        '4539 5787 6362 1486',
        'No answer.',
      ],
    },
    ctx,
  );
  assert.equal(leaky.chain_path, 'Business/Internal notes');
  assert.equal(leaky.level, 'L5', 'card numbers in notes raise the level to the card tag default');
  assert.ok(leaky.evidence.some((e) => e.factor === 'values' && e.detail.includes('level raised')));
});

test('confirmed neighbours vote: a near-identical confirmation teaches the classifier, far ones do not', () => {
  const input: ClassifyInput = { table_name: 'crm_contacts', field_name: 'zz_field_17', data_type: 'varchar(40)' };
  const before = classifyField(input, ctx);
  assert.notEqual(before.tag_id, idOf('Phone number'));
  const taught = classifyField(
    input,
    withConfirmed(ctx, [
      { similarity: 0.97, tag_id: idOf('Phone number'), level: 'L4' },
      { similarity: 0.95, tag_id: idOf('Phone number'), level: 'L4' },
    ]),
  );
  assert.equal(taught.tag_id, idOf('Phone number'));
  assert.equal(taught.level, 'L4', 'reviewers set L4 on the near-identical fields');
  assert.ok(taught.evidence.some((e) => e.factor === 'confirmed_fields' && e.score > 0));
  const viaInput = classifyField(
    {
      ...input,
      confirmed: [
        { similarity: 0.97, tag_id: idOf('Phone number'), level: 'L4' },
        { similarity: 0.95, tag_id: idOf('Phone number'), level: 'L4' },
      ],
    },
    ctx,
  );
  assert.deepEqual(viaInput, taught, 'confirmed neighbours may come with the input or the context');
  const far = classifyField(
    input,
    withConfirmed(ctx, [{ similarity: 0.6, tag_id: idOf('Phone number'), level: 'L4' }]),
  );
  assert.equal(far.tag_id, before.tag_id, 'a dissimilar confirmed field has no vote');
  // Confirmations weigh against weak name evidence, but e-mail values still win over one stray vote.
  const values = classifyField(
    { table_name: 'x', field_name: 'contact', sample_values: ['a@b.com', 'c@d.org', 'e@f.net', 'g@h.io'] },
    withConfirmed(ctx, [{ similarity: 0.85, tag_id: idOf('Phone number') }]),
  );
  assert.equal(values.tag_id, idOf('Email address'));
  // One confirmed neighbour that is merely similar (the next column of the same table) does not outvote the name.
  const addressLine = { table_name: 'CUST_MSTR', field_name: 'CUST_ADR_LN1', data_type: 'VARCHAR2(80)' };
  assert.equal(
    classifyField(addressLine, withConfirmed(ctx, [{ similarity: 0.89, tag_id: idOf('Last name') }])).tag_id,
    idOf('Postal address'),
  );
  // Near-identical confirmations teach a convention the name alone would not give: `ccn` as a bank account.
  const ccn = { table_name: 'payment_card', field_name: 'ccn', data_type: 'varchar(20)' };
  assert.equal(classifyField(ccn, ctx).tag_id, idOf('Payment card number'));
  assert.equal(
    classifyField(
      ccn,
      withConfirmed(ctx, [
        { similarity: 0.99, tag_id: idOf('Bank account number') },
        { similarity: 0.97, tag_id: idOf('Bank account number') },
      ]),
    ).tag_id,
    idOf('Bank account number'),
  );
});

test('no evidence detail ever contains a sample value', () => {
  const planted = [
    'zq-planted-7781@example.com',
    'Xylo Quarantine',
    '4539578763621486',
    'DE89370400440532013000',
    'planted secret phrase',
  ];
  const inputs: ClassifyInput[] = [
    { table_name: 'people', field_name: 'email', sample_values: planted },
    { table_name: 'people', field_name: 'Xylo Quarantine', sample_values: ['Xylo Quarantine', 'Xylo Quarantine'] },
    { table_name: 'p', field_name: 'notes', sample_values: planted },
    { table_name: 'p', field_name: 'card', sample_values: ['4539578763621486', '4539578763621486'] },
  ];
  for (const input of inputs) {
    const r = classifyField(input, ctx);
    const text = JSON.stringify(r).toLowerCase();
    for (const v of input.sample_values as string[])
      assert.ok(!text.includes(v.toLowerCase()), `${v} leaked into ${text}`);
  }
});

test('custom tags are found by their own keywords; missing added tags fall back to older ones', () => {
  const custom = buildClassifierContext([
    ...tags,
    {
      id: 9001,
      chain_path: 'Personal/Loyalty card number',
      default_level: 'L3',
      keywords: ['loyalty card', 'bonus card number'],
    },
  ]);
  const r = classifyField({ table_name: 'members', field_name: 'loyalty_card' }, custom);
  assert.equal(r.tag_id, 9001);
  const older = buildClassifierContext(tags.filter((t) => !t.chain_path.endsWith('/Sort order')));
  assert.equal(
    classifyField({ table_name: 'menu', field_name: 'sort_order', data_type: 'int' }, older).chain_path,
    'Technical/Metric value',
  );
});

test('confidence is calibrated, in [0, 1], and higher for clear cases', () => {
  const clear = classifyField(
    {
      table_name: 'users',
      field_name: 'email',
      data_type: 'varchar(120)',
      sample_values: ['a@b.com', 'c@d.org', 'e@f.net'],
    },
    ctx,
  );
  const vague = classifyField({ table_name: 't', field_name: 'col7', data_type: 'varchar(20)' }, ctx);
  for (const r of [clear, vague]) assert.ok(r.confidence >= 0 && r.confidence <= 1);
  assert.ok(clear.confidence > vague.confidence);
  const table = fitIsotonic(
    [
      ...Array.from({ length: 50 }, (_, i) => ({ raw: i / 10, right: i % 2 === 0 })),
      ...Array.from({ length: 50 }, (_, i) => ({ raw: 5 + i / 10, right: true })),
    ],
    25,
  );
  for (let i = 1; i < table.length; i++)
    assert.ok((table[i] as [number, number])[1] >= (table[i - 1] as [number, number])[1], 'monotone');
  assert.ok(calibrate(100, table) <= 1 && calibrate(-1, table) >= 0);
});

test('results are deterministic and carry a classifier version for re-evaluation', () => {
  assert.match(CLASSIFIER_VERSION, /^fieldlens-classifier-\d+\.\d+\.\d+$/);
  const input: ClassifyInput = { table_name: 'kunden', field_name: 'telefon', sample_values: ['+49 30 1234567'] };
  assert.deepEqual(classifyField(input, ctx), classifyField(input, ctx));
});

test('the embedding anchor is one factor among many', () => {
  const dims = 4;
  const unit = (i: number): Float32Array => {
    const v = new Float32Array(dims);
    v[i % dims] = 1;
    return v;
  };
  const anchored = buildClassifierContext(
    tags.map((t, i) => ({ ...t, anchor: t.chain_path.endsWith('/Medication') ? unit(0) : unit(1 + (i % 3)) })),
  );
  // A table of people's data: there the embedding alone may still bring in a sensitive tag (1.5.5).
  const r = classifyField({ table_name: 'patients', field_name: 'zz_17', embedding: unit(0) }, anchored);
  assert.ok(r.evidence.some((e) => e.factor === 'anchor'));
  const named = classifyField({ table_name: 'users', field_name: 'email', embedding: unit(0) }, anchored);
  assert.equal(named.chain_path, 'Personal/Contact/Email address', 'a clear name outweighs the anchor');
});

test('names and types that collide with JavaScript object members are plain words', () => {
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    const r = classifyField({ table_name: name, field_name: name, data_type: name }, ctx);
    assert.ok(typeof r.chain_path === 'string');
  }
  const custom = buildClassifierContext([
    ...tags,
    { id: 9002, chain_path: 'Technical/constructor', default_level: 'L1', keywords: [] },
  ]);
  assert.equal(classifyField({ table_name: 't', field_name: 'constructor' }, custom).tag_id, 9002);
});

test('the tags added in 1.2 are answers: age, marital status, time zone, file reference (by name and by value)', () => {
  const cases: Array<[ClassifyInput, string]> = [
    [{ table_name: 'survey', field_name: 'age', data_type: 'smallint' }, 'Age'],
    [{ table_name: 'survey', field_name: 'age_group', data_type: 'varchar(16)' }, 'Age'],
    [{ table_name: 'personen', field_name: 'Alter', data_type: 'integer' }, 'Age'],
    [{ table_name: 'people', field_name: 'marital_status', data_type: 'varchar(20)' }, 'Marital status'],
    [{ table_name: 'personen', field_name: 'Familienstand' }, 'Marital status'],
    [{ table_name: 'clientes', field_name: 'estado_civil' }, 'Marital status'],
    [{ table_name: 'users', field_name: 'timezone', data_type: 'varchar(40)' }, 'Time zone'],
    [{ table_name: 'users', field_name: 'utc_offset' }, 'Time zone'],
    [{ table_name: 'users', field_name: 'zona_horaria' }, 'Time zone'],
    [{ table_name: 'media', field_name: 'storage_key', data_type: 'text' }, 'File reference'],
    [{ table_name: 'employees', field_name: 'PhotoPath', data_type: 'nvarchar(255)' }, 'File reference'],
    [{ table_name: 'uploads', field_name: 'original_filename' }, 'File reference'],
    // By value, under names that say nothing.
    [
      {
        table_name: 'stage',
        field_name: 'col3',
        sample_values: ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'UTC'],
      },
      'Time zone',
    ],
    [
      {
        table_name: 'stage',
        field_name: 'col4',
        sample_values: ['/srv/uploads/a/1.pdf', '/srv/uploads/b/2.pdf', 's3://bucket/x/3.png'],
      },
      'File reference',
    ],
    [
      { table_name: 'stage', field_name: 'col5', sample_values: ['single', 'married', 'divorced', 'married'] },
      'Marital status',
    ],
  ];
  for (const [input, leaf] of cases) assert.equal(leafOf(input), leaf, `${input.table_name}.${input.field_name}`);
  // What they must not take: a cache lifetime, a request path, a date of birth.
  assert.equal(leafOf({ table_name: 'cache_entries', field_name: 'max_age', data_type: 'integer' }), 'Metric value');
  assert.equal(leafOf({ table_name: 'request_log', field_name: 'path', data_type: 'text' }), 'URL');
  assert.equal(leafOf({ table_name: 'people', field_name: 'date_of_birth', data_type: 'date' }), 'Date of birth');
  assert.equal(
    leafOf({ table_name: 'events', field_name: 'created_at', data_type: 'timestamp with time zone' }),
    'Timestamp',
  );
});

test('a tag added in 1.2 missing from an older taxonomy: the tag that stood in before answers', () => {
  const older = buildClassifierContext(
    tags.filter((t) => !/\/(Age|Marital status|Time zone|File reference)$/.test(t.chain_path)),
  );
  assert.equal(
    classifyField({ table_name: 'users', field_name: 'timezone' }, older).chain_path,
    'Technical/Configuration setting',
  );
  assert.equal(
    classifyField({ table_name: 'users', field_name: 'age', data_type: 'int' }, older).chain_path,
    'Personal/Identity/Date of birth',
  );
});

test('a measure at the head is the measure; an identifier among its modifiers is not what the column holds', () => {
  assert.equal(
    leafOf({ table_name: 'orders', field_name: 'credit_card_amount', data_type: 'bigint' }),
    'Monetary amount',
  );
  assert.equal(leafOf({ table_name: 'orders', field_name: 'coupon_amount', data_type: 'bigint' }), 'Monetary amount');
  // Negative cases: the identifier at the head, or a modifier that is itself a measure of money.
  assert.equal(leafOf({ table_name: 'payments', field_name: 'credit_card_number' }), 'Payment card number');
  assert.equal(leafOf({ table_name: 'orders', field_name: 'coupon_code' }), 'Discount code');
  assert.equal(leafOf({ table_name: 'EMPMAST', field_name: 'SALAMT', data_type: 'DECIMAL(9,2)' }), 'Salary');
});

test("'number of …' is a count; 'order number' is still an order's number", () => {
  assert.equal(
    leafOf({ table_name: 'customers', field_name: 'number_of_orders', data_type: 'bigint' }),
    'Metric value',
  );
  assert.equal(leafOf({ table_name: 'customers', field_name: 'NumberOfLogins', data_type: 'int' }), 'Metric value');
  assert.equal(leafOf({ table_name: 'orders', field_name: 'order_number' }), 'Order ID');
  assert.equal(
    leafOf({ table_name: 'pedidos', field_name: 'numero_pedido' }),
    'Order ID',
    'Romance order is not a count',
  );
});

test("'card' after report, sim, loyalty … is no payment card; a bare card number still is", () => {
  assert.notEqual(leafOf({ table_name: 'children', field_name: 'report_card_behavior_issues' }), 'Payment card number');
  assert.notEqual(leafOf({ table_name: 'devices', field_name: 'sim_card_slot' }), 'Payment card number');
  assert.equal(leafOf({ table_name: 'payments', field_name: 'card_number' }), 'Payment card number');
  assert.equal(leafOf({ table_name: 'customers', field_name: 'customer_card_number' }), 'Payment card number');
});

test('contact details in a settings table are configured values; in a table of people they are personal', () => {
  assert.equal(leafOf({ table_name: 'smtp_config', field_name: 'from_email' }), 'Configuration setting');
  assert.equal(
    leafOf({ table_name: 'dynamic_email_address_config', field_name: 'email_address', data_type: 'string' }),
    'Configuration setting',
  );
  assert.equal(
    leafOf({ table_name: 'user_settings', field_name: 'email' }),
    'Email address',
    "a user settings table holds the user's own address",
  );
  assert.equal(leafOf({ table_name: 'customers', field_name: 'email' }), 'Email address');
  // Samples overrule the table: real addresses in a settings table are still e-mail addresses.
  assert.equal(
    leafOf({
      table_name: 'smtp_config',
      field_name: 'from_email',
      sample_values: ['ann@example.com', 'bob@example.org', 'cy@example.net'],
    }),
    'Email address',
  );
  // The rule touches contact details only.
  assert.equal(leafOf({ table_name: 'app_settings', field_name: 'updated_at', data_type: 'timestamp' }), 'Timestamp');
});

test('plural logins is a count, do-not-contact a flag, a state lived in a place, a UTC date a time', () => {
  assert.equal(leafOf({ table_name: 'users', field_name: 'logins' }), 'Metric value');
  assert.equal(leafOf({ table_name: 'users', field_name: 'login' }), 'Username');
  assert.equal(leafOf({ table_name: 'users', field_name: 'do_not_contact' }), 'Status flag');
  assert.equal(leafOf({ table_name: 'users', field_name: 'states_lived' }), 'Approximate location');
  assert.equal(leafOf({ table_name: 'orders', field_name: 'state' }), 'Status flag');
  assert.equal(leafOf({ table_name: 'payments', field_name: 'transactionDateUtc', data_type: 'int' }), 'Timestamp');
  assert.equal(leafOf({ table_name: 'payments', field_name: 'transaction_id' }), 'Transaction ID');
});

test('confidence: an answer resting on the name alone is read with its own calibration; corroboration counts', () => {
  const nameOnly = scoreField({ table_name: 'users', field_name: 'email' }, ctx);
  const withValues = scoreField(
    { table_name: 'users', field_name: 'email', sample_values: ['a@b.com', 'c@d.org', 'e@f.net', 'g@h.io'] },
    ctx,
  );
  const withType = scoreField({ table_name: 'orders', field_name: 'created', data_type: 'timestamp' }, ctx);
  assert.equal(nameOnly.corroborated, false);
  assert.equal(withValues.corroborated, true);
  assert.equal(withType.corroborated, true, 'a telling type bears the answer out');
  assert.equal(
    scoreField({ table_name: 'users', field_name: 'email', data_type: 'varchar(100)' }, ctx).corroborated,
    false,
    'a text type says nothing',
  );
  assert.ok(withValues.confidence >= nameOnly.confidence);
  const nothing = scoreField({ table_name: 't', field_name: 'zz_17' }, ctx);
  assert.ok(nothing.confidence < 0.5, `a technical default with no evidence is a guess (${nothing.confidence})`);
  // The public result keeps its shape: no internal scores.
  assert.deepEqual(Object.keys(classifyField({ table_name: 'users', field_name: 'email' }, ctx)).sort(), [
    'chain_path',
    'confidence',
    'evidence',
    'level',
    'tag_id',
  ]);
});

test("a manager's direct reports are people when stored as text, keys when stored as numbers", () => {
  assert.equal(leafOf({ table_name: 'employees', field_name: 'direct_reports', data_type: 'string[]' }), 'Full name');
  assert.notEqual(
    leafOf({ table_name: 'employees', field_name: 'direct_reports', data_type: 'integer[]' }),
    'Full name',
  );
  assert.equal(leafOf({ table_name: 'employees', field_name: 'reports_to', data_type: 'integer' }), 'Foreign key');
});

test('re-evaluation without samples: a stored fingerprint of the new kinds still speaks for their tags', () => {
  const fp = formatFingerprint(['Europe/Berlin', 'UTC', 'Asia/Tokyo', '+02:00']);
  assert.equal(fp, 'time_zone:1');
  assert.equal(
    leafOf({ table_name: 'stage', field_name: 'col3', value_summary: summaryFromFingerprint(fp) }),
    'Time zone',
  );
  const files = formatFingerprint(['a/1.pdf', 'b/2.pdf', 'c/3.png']);
  assert.equal(
    leafOf({ table_name: 'stage', field_name: 'col4', value_summary: summaryFromFingerprint(files) }),
    'File reference',
  );
});

test('the isotonic fit never splits equal scores, and a large group of them is a step of its own', () => {
  // 20 fields nothing spoke for (score 0, all wrong), then 60 with rising scores (all right).
  const points = [
    ...Array.from({ length: 20 }, () => ({ raw: 0, right: false })),
    ...Array.from({ length: 60 }, (_, i) => ({ raw: 1 + i / 10, right: true })),
  ];
  const table = fitIsotonic(points, 30);
  assert.deepEqual(table[0], [0, 0], 'the tie group keeps its own share instead of being averaged with its neighbours');
  assert.ok(calibrate(0, table) === 0 && calibrate(5, table) > 0.9);
  // A score of 0 is a state of its own: a small positive score reads as the first positive block, not half-way to 0.
  const firstPositive = (table[1] as readonly [number, number])[1];
  assert.equal(calibrate(0.01, table), firstPositive);
  assert.equal(calibrate((table[1] as readonly [number, number])[0] / 2, table), firstPositive);
  // A small tie group does not make a step of its own.
  const small = fitIsotonic(
    [
      ...Array.from({ length: 5 }, () => ({ raw: 0, right: false })),
      ...Array.from({ length: 55 }, (_, i) => ({ raw: 1 + i / 10, right: true })),
    ],
    30,
  );
  assert.notDeepEqual(small[0], [0, 0]);
});

test("a document's id is its number; a legacy master table's key is its own; Hungarian prefixes are not words", () => {
  assert.equal(
    leafOf({ table_name: 'travel_documents', field_name: 'passport_id', data_type: 'varchar(20)' }),
    'Passport number',
  );
  assert.equal(
    leafOf({ table_name: 'drivers', field_name: 'driver_license_id', data_type: 'varchar(20)' }),
    'Driver licence number',
  );
  // An integer column is a key whatever it is named after; and a plain reference stays a foreign key.
  assert.equal(
    leafOf({ table_name: 'travel_documents', field_name: 'passport_id', data_type: 'bigint' }),
    'Foreign key',
  );
  assert.equal(leafOf({ table_name: 'claims', field_name: 'policy_id', data_type: 'int' }), 'Foreign key');
  assert.equal(leafOf({ table_name: 'STRMAST', field_name: 'STRID', data_type: 'DECIMAL(15,0)' }), 'Record ID');
  assert.equal(leafOf({ table_name: 'PRODMAST', field_name: 'PRODID', data_type: 'DECIMAL(15,0)' }), 'Record ID');
  assert.equal(leafOf({ table_name: 'ORDLIN', field_name: 'PRODID', data_type: 'DECIMAL(15,0)' }), 'Foreign key');
  assert.equal(leafOf({ table_name: 'tblAgents', field_name: 'strName', data_type: 'nvarchar(120)' }), 'Full name');
  assert.equal(leafOf({ table_name: 'tblDepartments', field_name: 'szName', data_type: 'nvarchar(60)' }), 'Department');
  assert.equal(leafOf({ table_name: 'addresses', field_name: 'str_name', data_type: 'varchar(50)' }), 'Postal address');
});

test("a name is not a measure; a department's or a country's name is read from its table", () => {
  assert.notEqual(leafOf({ table_name: 'offices', field_name: 'amt_name', data_type: 'text' }), 'Monetary amount');
  assert.equal(leafOf({ table_name: 'abteilungen', field_name: 'name', data_type: 'varchar(60)' }), 'Department');
  assert.equal(leafOf({ table_name: 'departamentos', field_name: 'name', data_type: 'varchar(60)' }), 'Department');
  assert.equal(leafOf({ table_name: 'laender', field_name: 'name', data_type: 'char(3)' }), 'Country code');
  assert.equal(leafOf({ table_name: 'countries', field_name: 'name', data_type: 'varchar(80)' }), 'Country');
  assert.equal(
    leafOf({ table_name: 'payments', field_name: 'counterparty_name', data_type: 'varchar(120)' }),
    'Organisation name',
  );
});

test("level from the table: an office's contact details are published, notes in a health table are health data", () => {
  const lowest = 'L1';
  for (const [table, field] of [
    ['offices', 'email_address'],
    ['almacenes', 'direccion'],
    ['store', 'phone'],
  ] as const) {
    const r = classifyField({ table_name: table, field_name: field, data_type: 'varchar(200)' }, ctx);
    assert.equal(r.level, lowest, `${table}.${field}`);
    assert.ok(r.evidence.some((e) => e.factor === 'table' && e.detail.includes('not of a person')));
  }
  // A person's contact stays at the tag's level, also in a store's table of people.
  assert.equal(
    classifyField({ table_name: 'store_managers', field_name: 'email', data_type: 'text' }, ctx).level,
    'L3',
  );
  assert.equal(classifyField({ table_name: 'customers', field_name: 'email', data_type: 'text' }, ctx).level, 'L3');
  const notes = classifyField({ table_name: 'encounters', field_name: 'clinical_notes', data_type: 'text' }, ctx);
  assert.equal(
    notes.level,
    classifyField({ table_name: 'diagnoses', field_name: 'diagnosis', data_type: 'text' }, ctx).level,
  );
  assert.equal(
    classifyField({ table_name: 'tickets', field_name: 'internal_notes', data_type: 'text' }, ctx).level,
    'L3',
  );
  // Reviewers have the last word: near-identical confirmed fields at L3 keep an office's e-mail at L3.
  const confirmedAtL3 = classifyField(
    {
      table_name: 'offices',
      field_name: 'email_address',
      data_type: 'varchar(200)',
      confirmed: [
        { similarity: 0.98, tag_id: idOf('Email address'), level: 'L3' },
        { similarity: 0.97, tag_id: idOf('Email address'), level: 'L3' },
      ],
    },
    ctx,
  );
  assert.equal(confirmedAtL3.tag_id, idOf('Email address'));
  assert.equal(confirmedAtL3.level, 'L3');
});

test("photos and biometric templates of people are their own tags; a product picture, a photo's upload time and a key fingerprint are not", () => {
  // Names of our own, not taken from any labelled set.
  assert.equal(leafOf({ table_name: 'crew_members', field_name: 'portrait', data_type: 'bytea' }), 'Photo of a person');
  assert.equal(leafOf({ table_name: 'teachers', field_name: 'pic', data_type: 'longblob' }), 'Photo of a person');
  assert.equal(leafOf({ table_name: 'badges', field_name: 'holder_headshot', data_type: 'blob' }), 'Photo of a person');
  assert.equal(
    leafOf({ table_name: 'volunteers', field_name: 'fingerprint', data_type: 'varbinary(512)' }),
    'Biometric template',
  );
  assert.equal(
    leafOf({ table_name: 'door_access', field_name: 'face_encoding', data_type: 'bytea' }),
    'Biometric template',
  );
  assert.equal(
    leafOf({ table_name: 'enrolment', field_name: 'iris_template', data_type: 'blob' }),
    'Biometric template',
  );
  const r = classifyField({ table_name: 'crew_members', field_name: 'portrait', data_type: 'bytea' }, ctx);
  assert.equal(r.level, 'L4');
  assert.ok(
    r.evidence.some((e) => e.factor === 'table' || e.factor === 'name'),
    'the evidence says which words decided',
  );
  // Not a person's picture or body.
  assert.notEqual(
    leafOf({ table_name: 'catalog_items', field_name: 'picture', data_type: 'bytea' }),
    'Photo of a person',
  );
  // From 1.5.6 the web address of a person's photo is that photo (it was read by its head, a URL, until then).
  assert.equal(leafOf({ table_name: 'crew_members', field_name: 'photo_url', data_type: 'text' }), 'Photo of a person');
  assert.notEqual(
    leafOf({ table_name: 'crew_members', field_name: 'photo_uploaded_at', data_type: 'timestamp' }),
    'Photo of a person',
  );
  assert.notEqual(
    leafOf({ table_name: 'deploy_keys', field_name: 'fingerprint', data_type: 'varchar(64)' }),
    'Biometric template',
  );
  assert.notEqual(
    leafOf({ table_name: 'sessions', field_name: 'browser_fingerprint', data_type: 'varchar(64)' }),
    'Biometric template',
  );
  assert.notEqual(
    leafOf({ table_name: 'crew_members', field_name: 'biometric_consent', data_type: 'boolean' }),
    'Biometric template',
  );
});

test('the evidence names what lost: the runners-up with their strongest evidence, each marked with its tag', () => {
  const samples = Array.from({ length: 25 }, (_, i) => (i % 3 === 0 ? 'true' : 'false'));
  const r = classifyField(
    { table_name: 'stock_moves', field_name: 'units_on_hand', data_type: 'varchar(5)', sample_values: samples },
    ctx,
  );
  const winner = r.evidence.filter((e) => e.for === undefined);
  const losers = r.evidence.filter((e) => e.for !== undefined);
  assert.ok(winner.length > 0, 'the chosen tag keeps its evidence, unmarked');
  assert.ok(losers.length > 0, 'the runners-up are shown');
  assert.ok(
    losers.every((e) => e.for !== r.chain_path),
    'a runner-up is another tag',
  );
  const quantity = losers.filter((e) => e.for === 'Business/Products/Quantity');
  assert.ok(
    quantity.some((e) => e.factor === 'name' && e.score > 0),
    'the name spoke for the runner-up Quantity',
  );
  assert.ok(
    quantity.some((e) => e.factor === 'values' && e.score < 0),
    'and the boolean samples cost it the answer',
  );
  assert.ok(
    new Set(losers.map((e) => e.for)).size <= 2 && losers.length <= 6,
    'at most two runners-up, three items each',
  );
  // A field with a single candidate has no runner-up.
  const lone = classifyField({ table_name: 'x', field_name: 'zzqx', data_type: null }, ctx);
  assert.ok(lone.evidence.every((e) => e.for === undefined || e.for !== lone.chain_path));
});

test("a table's other columns are context: a bare name among a person's particulars is theirs, a state among address parts is a region", () => {
  // Names of our own, not taken from any labelled set; the table names say nothing on purpose.
  const columns = (...names: string[]): { table_columns: string[] } => ({ table_columns: names });
  const people = columns('rec_no', 'nm', 'email_addr', 'home_phone', 'date_of_birth');
  const r = classifyField({ table_name: 'tbl_rec', field_name: 'nm', data_type: 'varchar(80)', ...people }, ctx);
  assert.equal(r.chain_path.split('/').pop(), 'Full name');
  assert.ok(
    r.evidence.some((e) => e.factor === 'context' && /email_addr/.test(e.detail)),
    'the evidence names the columns that decided',
  );
  assert.equal(
    leafOf({ table_name: 'tbl_rec', field_name: 'nm', data_type: 'varchar(80)' }),
    'Object name',
    'without its columns the name says nothing of a person',
  );
  assert.equal(
    leafOf({
      table_name: 'tbl_loc',
      field_name: 'state',
      data_type: 'varchar(40)',
      ...columns('street_line', 'city', 'zip', 'state'),
    }),
    'Approximate location',
  );
  assert.equal(
    leafOf({
      table_name: 'tbl_p',
      field_name: 'snapshot_img',
      data_type: 'bytea',
      ...columns('first_name', 'last_name', 'email', 'snapshot_img'),
    }),
    'Photo of a person',
  );
  // Not every table with an e-mail column is about people, and a state among workflow columns is a status.
  assert.equal(
    leafOf({
      table_name: 'suppliers',
      field_name: 'name',
      data_type: 'varchar(80)',
      ...columns('name', 'email', 'phone', 'vat_no'),
    }),
    'Organisation name',
  );
  assert.notEqual(
    leafOf({
      table_name: 'catalog_items',
      field_name: 'name',
      data_type: 'varchar(80)',
      ...columns('name', 'price', 'sku', 'support_email', 'support_phone'),
    }),
    'Full name',
  );
  assert.equal(
    leafOf({
      table_name: 'tickets',
      field_name: 'state',
      data_type: 'varchar(20)',
      ...columns('priority', 'state', 'assignee_id', 'reporter_email'),
    }),
    'Status flag',
  );
  // One e-mail column alone does not make a table about people.
  assert.equal(
    leafOf({
      table_name: 'tbl_job',
      field_name: 'nm',
      data_type: 'varchar(80)',
      ...columns('nm', 'notify_email', 'cron'),
    }),
    'Object name',
  );
});

test('the head noun decides: a sensitive word before a kind, format, version, count or yes/no head only says what it is about', () => {
  // Names of our own, not taken from any labelled set.
  assert.equal(leafOf({ table_name: 'subscribers', field_name: 'sms_optin', data_type: null }), 'Status flag');
  assert.equal(leafOf({ table_name: 'accounts', field_name: 'ssn_verified', data_type: null }), 'Status flag');
  assert.equal(leafOf({ table_name: 'accounts', field_name: 'ip_filter_enabled', data_type: null }), 'Status flag');
  assert.equal(leafOf({ table_name: 'contacts', field_name: 'telephone_kind', data_type: null }), 'Category');
  assert.equal(
    leafOf({ table_name: 'mailers', field_name: 'email_address_format', data_type: null }),
    'Configuration setting',
  );
  assert.equal(leafOf({ table_name: 'sessions', field_name: 'ip_address_count', data_type: null }), 'Metric value');
  const r = classifyField({ table_name: 'contacts', field_name: 'telephone_kind', data_type: null }, ctx);
  assert.ok(
    r.evidence.some((e) => e.factor === 'name' && /ends in 'kind'/.test(e.detail)),
    'the evidence says which word decided',
  );
  // A phrase that includes the head keeps its meaning.
  assert.equal(leafOf({ table_name: 'donors', field_name: 'blood_type', data_type: null }), 'Clinical measurement');
  assert.equal(leafOf({ table_name: 'wallets', field_name: 'card_type', data_type: null }), 'Category');
});

test('a date kept in a date-time column reads as a date: a birth date stored as datetime stays a date of birth', () => {
  const midnight = [
    '1962-02-18 00:00:00',
    '1958-12-08 00:00:00',
    '1973-08-29 00:00:00',
    '1947-09-19 00:00:00',
    '1965-03-03 00:00:00',
  ];
  assert.equal(
    leafOf({ table_name: 'Staff', field_name: 'DateOfBirth', data_type: 'datetime', sample_values: midnight }),
    'Date of birth',
  );
  assert.equal(
    leafOf({
      table_name: 'Staff',
      field_name: 'BirthDate',
      data_type: 'datetime',
      sample_values: midnight.map((v) => v.replace(' ', 'T') + 'Z'),
    }),
    'Date of birth',
  );
  // Real times of day still prove a timestamp.
  const times = ['2024-02-18 13:45:10', '2024-02-19 08:01:44', '2024-03-01 17:30:00', '2024-03-02 09:12:31'];
  assert.equal(
    leafOf({ table_name: 'audit_trail', field_name: 'logged', data_type: 'datetime', sample_values: times }),
    'Timestamp',
  );
});

test('a weak embedding anchor never brings in a tag on its own', () => {
  // Anchors on the axes of a 10-dimensional space (the last axis has none); the field's embedding has a cosine of 0.39
  // with the national id's anchor and 0 with every other.
  const dims = 10;
  const axis = (k: number): Float32Array => Float32Array.from({ length: dims }, (_, i) => (i === k ? 1 : 0));
  const anchored = tags.map((t, i) => ({
    ...t,
    anchor: t.chain_path.endsWith('/National ID number') ? axis(0) : axis(1 + (i % (dims - 2))),
  }));
  const actx = buildClassifierContext(anchored);
  const embedding = Float32Array.from({ length: dims }, (_, i) => (i === 0 ? 0.39 : 0));
  embedding[dims - 1] = Math.sqrt(1 - 0.39 * 0.39);
  // `sid` names a session id (a cookie id), which the integer type rules out: nothing else speaks for any tag.
  const r = classifyField({ table_name: 'store_staff', field_name: 'sid', data_type: 'integer', embedding }, actx);
  assert.notEqual(
    r.chain_path.split('/').pop(),
    'National ID number',
    `got ${r.chain_path} ${JSON.stringify(r.evidence)}`,
  );
});

test('a key word glued to an unknown word is a key; Romance "code of" a row is a reference unless the words make a known code', () => {
  const key = ['Foreign key', 'Record ID'];
  assert.ok(key.includes(leafOf({ table_name: 'bodegas', field_name: 'idbodega', data_type: 'integer' })));
  assert.ok(key.includes(leafOf({ table_name: 'pedidos', field_name: 'idtransportista', data_type: 'integer' })));
  assert.ok(key.includes(leafOf({ table_name: 'pedidos', field_name: 'codtransportista', data_type: 'varchar(10)' })));
  assert.ok(key.includes(leafOf({ table_name: 'matriculas', field_name: 'cod_turma', data_type: 'integer' })));
  assert.equal(
    leafOf({ table_name: 'pedidos', field_name: 'totalportes', data_type: 'decimal(12,2)' }),
    'Monetary amount',
  );
  // Known codes stay what they are; English words that begin like a glued key are not keys.
  assert.equal(
    leafOf({ table_name: 'direcciones', field_name: 'codigo_postal', data_type: 'varchar(10)' }),
    'Postal code',
  );
  assert.equal(leafOf({ table_name: 'direcciones', field_name: 'codpais', data_type: 'varchar(3)' }), 'Country code');
  assert.notEqual(leafOf({ table_name: 'sessions', field_name: 'idle_timeout', data_type: 'integer' }), 'Foreign key');
  assert.notEqual(leafOf({ table_name: 'media', field_name: 'codec', data_type: 'varchar(20)' }), 'Foreign key');
  const m = new NameMatcher(buildPhrases());
  assert.deepEqual(m.words('identity'), ['identity']);
  assert.deepEqual(m.words('idbodega').slice(0, 1), ['id']);
});

test('Portuguese and Spanish schema words: a date said first, relatives, health words; English tombstones and nicknames', () => {
  assert.equal(
    leafOf({ table_name: 'titulares', field_name: 'data_nasc_titular', data_type: 'date' }),
    'Date of birth',
  );
  assert.equal(leafOf({ table_name: 'contratos', field_name: 'data_assinatura', data_type: 'timestamp' }), 'Timestamp');
  // An English `data_…` column that holds no date is not read as one.
  assert.notEqual(leafOf({ table_name: 'exports', field_name: 'data_source', data_type: 'varchar(50)' }), 'Timestamp');
  assert.equal(
    leafOf({ table_name: 'dependentes', field_name: 'nome_do_pai', data_type: 'varchar(120)' }),
    'Full name',
  );
  assert.equal(leafOf({ table_name: 'dependentes', field_name: 'nome_mae', data_type: 'varchar(120)' }), 'Full name');
  assert.equal(
    leafOf({ table_name: 'prontuario', field_name: 'doenca_cronica', data_type: 'varchar(200)' }),
    'Diagnosis',
  );
  assert.equal(
    leafOf({ table_name: 'prontuario', field_name: 'medicamento_uso_continuo', data_type: 'varchar(200)' }),
    'Medication',
  );
  assert.equal(
    leafOf({ table_name: 'doadores', field_name: 'grupo_sanguineo', data_type: 'varchar(3)' }),
    'Lab result',
  );
  assert.equal(
    leafOf({ table_name: 'proveedores', field_name: 'razonsocial', data_type: 'varchar(100)' }),
    'Organisation name',
  );
  assert.equal(leafOf({ table_name: 'ledger_entries', field_name: 'tombstone', data_type: 'integer' }), 'Status flag');
  assert.equal(leafOf({ table_name: 'members', field_name: 'nick', data_type: 'varchar(30)' }), 'Username');
});

test("a namespace before the columns is not their meaning: the table's own word, or a prefix most of its columns share", () => {
  const kin = ['kn_name', 'kn_relation', 'kn_phone', 'kn_birthdate', 'kn_notes', 'emp_number'];
  assert.equal(
    leafOf({ table_name: 'staff_next_of_kin', field_name: 'kn_name', data_type: 'varchar(100)', table_columns: kin }),
    'Full name',
  );
  const members = ['member_id', 'member_regdate', 'member_lastlogin', 'member_posts', 'member_email', 'member_name'];
  assert.equal(
    leafOf({ table_name: 'club_members', field_name: 'member_regdate', data_type: 'int(11)', table_columns: members }),
    'Timestamp',
  );
  assert.equal(
    leafOf({
      table_name: 'club_members',
      field_name: 'member_email',
      data_type: 'varchar(100)',
      table_columns: members,
    }),
    'Email address',
  );
  // A phrase the namespace word is part of keeps it; a lone key word left over stays the table's key.
  assert.equal(leafOf({ table_name: 'users', field_name: 'user_name', data_type: 'varchar(50)' }), 'Username');
  assert.equal(leafOf({ table_name: 'dim_vendor', field_name: 'vendor_sk', data_type: 'bigint' }), 'Record ID');
  // `id_` and `is_` before most columns are conventions, not a namespace.
  const keyed = ['id_basket', 'id_shopper', 'id_voucher', 'is_paid'];
  assert.ok(
    ['Foreign key', 'Customer ID'].includes(
      leafOf({ table_name: 'baskets_vouchers', field_name: 'id_shopper', data_type: 'int(10)', table_columns: keyed }),
    ),
  );
});

test('ORM and framework field types name their family: Django, Laravel, Frappe, Mongoose, .NET', () => {
  assert.equal(typeFamily('BooleanField'), 'boolean');
  assert.equal(typeFamily('PositiveIntegerField'), 'integer');
  assert.equal(typeFamily('DateTimeField'), 'datetime');
  assert.equal(typeFamily('DecimalField(10,2)'), 'decimal');
  assert.equal(typeFamily('CharField(max_length=80)'), 'text');
  assert.equal(typeFamily('FallbackJSONField'), 'json');
  assert.equal(typeFamily('unsignedTinyInteger'), 'integer');
  assert.equal(typeFamily('Check'), 'boolean');
  assert.equal(typeFamily('Link'), 'text');
  assert.equal(typeFamily('Mixed'), 'json');
  assert.equal(typeFamily('Guid?'), 'uuid');
  // An entity type named after a thing is no family; SQL words still come first.
  assert.equal(typeFamily('ShopCurrency'), 'unknown');
  assert.equal(typeFamily('ForeignKey'), 'unknown');
  assert.equal(typeFamily('timestamp with time zone'), 'datetime');
  // A reminder flag stored as a Django boolean is a flag, not the time it names.
  assert.equal(
    leafOf({ table_name: 'bookings', field_name: 'followup_reminder_sent', data_type: 'BooleanField' }),
    'Status flag',
  );
});

test('a column typed by an entity class is a reference to it, by an enumeration class a category; the name still leads', () => {
  assert.equal(leafOf({ table_name: 'loan_notes', field_name: 'branch', data_type: 'Branch' }), 'Foreign key');
  assert.equal(leafOf({ table_name: 'loan_notes', field_name: 'guarantor', data_type: 'Guarantor' }), 'Foreign key');
  assert.equal(
    leafOf({ table_name: 'payments', field_name: 'channel', data_type: 'SettlementChannelType?' }),
    'Category',
  );
  // A class named after personal data holds that data; a telling name beats the class.
  assert.equal(leafOf({ table_name: 'borrowers', field_name: 'address', data_type: 'Address' }), 'Postal address');
  assert.equal(leafOf({ table_name: 'borrowers', field_name: 'gender', data_type: 'CodeValue' }), 'Gender');
  // Value classes and known families are not entities.
  assert.notEqual(leafOf({ table_name: 'loans', field_name: 'disbursedOn', data_type: 'LocalDate' }), 'Foreign key');
  assert.notEqual(leafOf({ table_name: 'loans', field_name: 'graceTime', data_type: 'Duration' }), 'Foreign key');
});

test('one-time codes are secrets, not card codes; cc, bcc and to in a table of mail are addresses, not cards', () => {
  assert.equal(
    leafOf({ table_name: 'signups', field_name: 'email_confirmation_code', data_type: 'varchar(12)' }),
    'API key or token',
  );
  assert.equal(
    leafOf({ table_name: 'accounts', field_name: 'backupRecoveryCode', data_type: 'string(32)' }),
    'API key or token',
  );
  assert.equal(leafOf({ table_name: 'logins', field_name: 'otp', data_type: 'varchar(8)' }), 'API key or token');
  assert.equal(leafOf({ table_name: 'outbox_messages', field_name: 'cc', data_type: 'text' }), 'Email address');
  assert.equal(leafOf({ table_name: 'outbox_messages', field_name: 'to', data_type: 'text' }), 'Email address');
  assert.equal(leafOf({ table_name: 'drafts', field_name: 'bcc', data_type: 'text' }), 'Email address');
  // Outside mail a card's security code is still one.
  assert.equal(
    leafOf({ table_name: 'payment_cards', field_name: 'security_code', data_type: 'varchar(4)' }),
    'Card verification code',
  );
});

test('a tiny integer that nothing else speaks for is a flag, a wider one a metric; names still decide', () => {
  assert.equal(leafOf({ table_name: 'widgets', field_name: 'zorblat', data_type: 'tinyint(4)' }), 'Status flag');
  assert.equal(leafOf({ table_name: 'widgets', field_name: 'zorblat', data_type: 'TINYINT UNSIGNED' }), 'Status flag');
  assert.equal(leafOf({ table_name: 'widgets', field_name: 'zorblat', data_type: 'int(11)' }), 'Metric value');
  assert.equal(leafOf({ table_name: 'widgets', field_name: 'retry_count', data_type: 'tinyint(4)' }), 'Metric value');
});

test("Frappe's Link fields are references; a clinician's or a dependant's name is a person's", () => {
  assert.equal(
    leafOf({ table_name: 'tabTreatment Plan', field_name: 'physiotherapist', data_type: 'Link' }),
    'Foreign key',
  );
  assert.equal(
    leafOf({ table_name: 'tabTreatment Plan', field_name: 'linked_entry', data_type: 'Dynamic Link' }),
    'Foreign key',
  );
  assert.equal(
    leafOf({ table_name: 'tabTreatment Plan', field_name: 'clinician_name', data_type: 'Data' }),
    'Full name',
  );
  assert.equal(
    leafOf({ table_name: 'benefits', field_name: 'dependant_name', data_type: 'varchar(100)' }),
    'Full name',
  );
  // A Link whose name says what it holds keeps it.
  assert.equal(leafOf({ table_name: 'tabTreatment Plan', field_name: 'currency', data_type: 'Link' }), 'Currency code');
});

test("a person's named conditions are diagnoses, in English and Portuguese; a drawing's stroke is not", () => {
  assert.equal(
    leafOf({ table_name: 'applicants_health', field_name: 'diabetic', data_type: 'varchar(1)' }),
    'Diagnosis',
  );
  assert.equal(leafOf({ table_name: 'intake_forms', field_name: 'asthma', data_type: 'varchar(3)' }), 'Diagnosis');
  assert.equal(leafOf({ table_name: 'triagem', field_name: 'hipertenso', data_type: 'char(1)' }), 'Diagnosis');
  assert.equal(
    leafOf({ table_name: 'candidates', field_name: 'family_medical_history', data_type: 'text' }),
    'Diagnosis',
  );
  assert.notEqual(leafOf({ table_name: 'canvas_shapes', field_name: 'stroke', data_type: 'varchar(20)' }), 'Diagnosis');
});

test('a renamed built-in tag keeps its word lists, and its evidence says its new name', () => {
  const renamed: ClassifierTag[] = tags.map((t) =>
    t.chain_path.endsWith('/Email address')
      ? { ...t, chain_path: t.chain_path.replace(/Email address$/, 'E-mail'), builtin_path: t.chain_path }
      : t,
  );
  const context = buildClassifierContext(renamed);
  // Still found by the shipped word lists …
  assert.equal(
    classifyField({ table_name: 'users', field_name: 'email', data_type: 'varchar(255)' }, context).chain_path,
    'Personal/Contact/E-mail',
  );
  // … and every sentence of its evidence names it as the taxonomy does now.
  const details = classifyField(
    { table_name: 'users', field_name: 'email', data_type: 'integer' },
    context,
  ).evidence.map((e) => e.detail);
  assert.ok(
    details.some((d) => d.includes('E-mail')),
    details.join(' | '),
  );
  assert.ok(!details.some((d) => d.includes('Email address')), details.join(' | '));
});

test('a key of a secret kind is that key; a key named after an entity is a reference', () => {
  const cases: Array<[ClassifyInput, string]> = [
    [{ table_name: 'customer', field_name: 'secure_key', data_type: 'varchar(32)' }, 'API key or token'],
    [{ table_name: 'device', field_name: 'EncryptedPublicKey', data_type: 'text' }, 'API key or token'],
    [{ table_name: 'installations', field_name: 'license_key', data_type: 'varchar(100)' }, 'API key or token'],
    [{ table_name: 'fact_sales', field_name: 'customer_key', data_type: 'integer' }, 'Foreign key'],
    [{ table_name: 'fact_sales', field_name: 'product_key', data_type: 'integer' }, 'Foreign key'],
  ];
  for (const [input, leaf] of cases) assert.equal(leafOf(input), leaf, `${input.table_name}.${input.field_name}`);
});

test('a trailing word that says how a value is kept is not its head', () => {
  assert.equal(leafOf({ table_name: 'customers', field_name: 'name_cached', data_type: 'varchar(255)' }), 'Full name');
  assert.equal(leafOf({ table_name: 'customers', field_name: 'name', data_type: 'varchar(255)' }), 'Full name');
  assert.equal(
    leafOf({ table_name: 'users', field_name: 'email_normalized', data_type: 'varchar(255)' }),
    'Email address',
  );
  assert.equal(
    leafOf({ table_name: 'contacts', field_name: 'phone_formatted', data_type: 'varchar(40)' }),
    leafOf({ table_name: 'contacts', field_name: 'phone', data_type: 'varchar(40)' }),
  );
});

test('a whole number named a port is a setting; a decimal port and a key to a port are not', () => {
  assert.equal(leafIn('relay_hosts', 'listen_port', 'integer'), 'Configuration setting');
  assert.equal(leafIn('gateway_nodes', 'AdminPort', 'unsignedSmallInteger'), 'Configuration setting');
  assert.equal(leafIn('gateway_nodes', 'port', 'int(5)'), 'Configuration setting');
  assert.notEqual(leafIn('tarif_lignes', 'port', 'decimal(10,2)'), 'Configuration setting');
  assert.equal(leafIn('cargo_legs', 'harbour_port_id', 'bigint'), 'Foreign key');
});

test('how a person is related to another is a category, in English and Portuguese; a key to a relationship is a key', () => {
  assert.equal(leafIn('next_of_kin', 'relationship', 'varchar(40)'), 'Category');
  assert.equal(leafIn('volunteer_contacts', 'kinship', 'text'), 'Category');
  assert.equal(leafIn('alunos_contatos', 'parentesco_mae', 'varchar(30)'), 'Category');
  assert.equal(leafIn('next_of_kin', 'relationship_id', 'integer'), 'Foreign key');
});

test("a description in a table of people or of transactions is a note about the record, a product's stays public", () => {
  assert.equal(leafIn('volunteer_profiles', 'description', 'varchar(500)'), 'Internal notes');
  assert.equal(leafIn('wire_transfers', 'details', 'text'), 'Internal notes');
  assert.equal(leafIn('ledger_entries', 'memo_desc', 'text'), 'Internal notes');
  assert.equal(leafIn('gadget_products', 'description', 'text'), 'Public product description');
  assert.equal(leafIn('volunteer_profiles', 'product_description', 'text'), 'Public product description');
});

test('when something last happened, kept as a whole number, is a time; a last name, the last four digits or an IP are not', () => {
  assert.equal(leafIn('guild_members', 'last_donation', 'int(11) unsigned'), 'Timestamp');
  assert.equal(leafIn('kiosk_sessions', 'kiosk_last_refresh', 'integer'), 'Timestamp');
  assert.notEqual(leafIn('guild_members', 'last_name', 'integer'), 'Timestamp');
  assert.notEqual(leafIn('wallet_cards', 'last_four', 'smallint'), 'Timestamp');
  assert.equal(leafIn('guild_members', 'last_ip', 'integer'), 'IP address');
  assert.notEqual(leafIn('guild_members', 'last_donation', 'varchar(20)'), 'Timestamp');
});

test('a one-character text that nothing names is a flag; a longer one, or one the name speaks for, is not', () => {
  assert.equal(leafIn('glider_pilots', 'wears_glasses', 'char(1)'), 'Status flag');
  assert.equal(leafIn('glider_pilots', 'night_rated', 'character(1)'), 'Status flag');
  assert.notEqual(leafIn('glider_pilots', 'wears_glasses', 'varchar(40)'), 'Status flag');
  assert.equal(leafIn('glider_pilots', 'gender', 'char(1)'), 'Gender');
});

test("a role or an outcome is a category; a role in a table of employees stays a job title, a role's key a key", () => {
  assert.equal(leafIn('board_seats', 'role', 'smallint'), 'Category');
  assert.equal(leafIn('wiki_collaborators', 'role', 'varchar(20)'), 'Category');
  assert.equal(leafIn('arbitration_cases', 'outcome', 'integer'), 'Category');
  assert.equal(leafIn('employees', 'role', 'varchar(60)'), 'Job title');
  assert.equal(leafIn('wiki_collaborators', 'role_id', 'integer'), 'Foreign key');
  // `format` is not split into `form` + `at`: a time format stays a setting.
  assert.equal(leafIn('reader_prefs', 'dateFormat', 'varchar(20)'), 'Configuration setting');
});

test('a subtype, a fluency, a field of study, an education or an origin is a category; their heads still decide', () => {
  assert.equal(leafIn('kayak_rentals', 'subtype', 'varchar(30)'), 'Category');
  assert.equal(leafIn('glider_pilots', 'radio_fluency', 'smallint'), 'Category');
  assert.equal(leafIn('tutor_profiles', 'major', 'varchar(80)'), 'Category');
  assert.equal(leafIn('tutor_profiles', 'education', 'varchar(40)'), 'Category');
  assert.equal(leafIn('seed_batches', 'origin', 'varchar(40)'), 'Category');
  assert.equal(leafIn('firmware_images', 'major_version', 'integer'), 'Version');
  assert.equal(leafIn('seed_batches', 'origin_url', 'text'), 'URL');
});

test('a body measure in a table of vital signs, or in a table named for body measures, is a clinical measurement', () => {
  assert.equal(leafIn('ward_vital_readings', 'temperature', 'float'), 'Clinical measurement');
  assert.equal(leafIn('camper_height_weight_log', 'weight', 'numeric(6,2)'), 'Clinical measurement');
  assert.notEqual(leafIn('parcel_weight_log', 'weight', 'numeric(6,2)'), 'Clinical measurement');
});

test("a description of a person's condition is a diagnosis; a description of something else is not", () => {
  assert.equal(leafIn('camp_enrolments', 'allergy_description', 'varchar(200)'), 'Diagnosis');
  assert.equal(leafIn('camp_enrolments', 'desc_illness', 'varchar(200)'), 'Diagnosis');
  assert.notEqual(leafIn('camp_enrolments', 'cabin_description', 'varchar(200)'), 'Diagnosis');
});

test("the name of who did something (`…_by_name`) is a person's full name", () => {
  assert.equal(leafIn('greenhouse_inspections', 'signed_off_by_name', 'varchar(120)'), 'Full name');
  assert.equal(leafIn('greenhouse_inspections', 'signed_off_by', 'integer'), 'Foreign key');
});

test('a numbering series (the pattern new record numbers follow) is a configuration setting', () => {
  assert.equal(leafIn('kennel_bookings', 'voucher_series', 'varchar(40)'), 'Configuration setting');
  assert.equal(leafIn('kennel_bookings', 'numbering', 'varchar(40)'), 'Configuration setting');
});

test('a toggle or a flag stored as a yes/no is a status flag; a toggle stored as text stays a setting', () => {
  assert.equal(leafIn('aquarium_tanks', 'heater_toggle', 'boolean'), 'Status flag');
  assert.equal(leafIn('aquarium_tanks', 'alarm_flag', 'bool'), 'Status flag');
  assert.equal(leafIn('aquarium_tanks', 'heater_toggle', 'jsonb'), 'Configuration setting');
});

test('an order stored as a whole number or a list is a sort order; a purchase order is not', () => {
  assert.equal(leafIn('quilt_patterns', 'swatch_order', 'integer'), 'Sort order');
  assert.equal(leafIn('quilt_patterns', 'favouriteSwatchesOrder', '[String]'), 'Sort order');
  assert.notEqual(leafIn('quilt_patterns', 'purchase_order', 'integer'), 'Sort order');
});

test("the state a tax, a job or a birth belongs to is a region; that state's status is not", () => {
  assert.equal(leafIn('lifeguard_payroll', 'work_state', 'varchar(20)'), 'Approximate location');
  assert.equal(leafIn('lifeguard_payroll', 'birth_state', 'varchar(20)'), 'Approximate location');
  assert.equal(leafIn('lifeguard_payroll', 'tax_state_status', 'varchar(20)'), 'Status flag');
});

test("a message in a table of people's correspondence is a note; an error message stays a log message", () => {
  assert.equal(leafIn('pen_pal_letters_inbox', 'message', 'text'), 'Internal notes');
  assert.equal(leafIn('tenant_requests', 'message', 'text'), 'Internal notes');
  assert.equal(leafIn('tenant_requests', 'error_message', 'text'), 'Log message');
});

test("a billing rate or a commission percentage is a person's pay", () => {
  assert.equal(leafIn('locum_vets', 'billing_rate', 'numeric(8,2)'), 'Salary');
  assert.equal(leafIn('locum_vets', 'commission_pct', 'numeric(4,2)'), 'Salary');
});

test("an employee's or an applicant's level is a job grade (job title); an access level is not", () => {
  assert.equal(leafIn('orchard_staff', 'level', 'varchar(30)'), 'Job title');
  assert.equal(leafIn('orchard_applicant', 'applicantLevel', 'varchar(30)'), 'Job title');
  assert.notEqual(leafIn('orchard_staff', 'access_level', 'varchar(30)'), 'Job title');
});

test("a position stored as a whole number is a place in a list; a person's position written as text is a job", () => {
  assert.equal(leafIn('regatta_buoys', 'position', 'integer'), 'Sort order');
  assert.equal(leafIn('regatta_buoys', 'buoy_position', 'smallint'), 'Sort order');
  assert.equal(leafIn('regatta_crew', 'position', 'varchar(60)'), 'Job title');
});

test('a name whose every reading the declared type rules out says nothing: the type speaks as for an unnamed column', () => {
  // `passwd` reads as a password hash, which a timestamp cannot hold; a far confirmed field (similarity 0.88, 0.75
  // points) must not outvote what the type says when the name is silent.
  const far = [{ similarity: 0.88, tag_id: idOf('Card expiry date') }];
  const r = classifyField(
    { table_name: 'ferry_crew', field_name: 'last_passwd_gen', data_type: 'timestamp', confirmed: far },
    ctx,
  );
  assert.equal(r.chain_path, 'Technical/Timestamp');
  // A name the type allows keeps its own weight: the same far vote does not turn a named card expiry into a time.
  const named = classifyField(
    { table_name: 'ferry_crew', field_name: 'card_expiry', data_type: 'date', confirmed: far },
    ctx,
  );
  assert.equal(named.chain_path, 'Financial/Card expiry date');
});

test('a run-together name split into as many pieces either way is split into the longer words', () => {
  const m = new NameMatcher(buildPhrases());
  // `tipo id fiscal` (Spanish: the kind of tax id), not `tip oid fiscal` (a tip is an amount).
  assert.deepEqual(m.words('tipoidfiscal'), ['type', 'id', 'fiscal']);
  assert.equal(leafOf({ table_name: 'proveedores', field_name: 'tipoidfiscal', data_type: 'varchar(25)' }), 'Category');
  // Fewer pieces still win first.
  assert.deepEqual(m.words('lastip'), ['last', 'ip']);
  assert.deepEqual(m.words('EMPSSN'), ['employee', 'ssn']);
});

test('a kind is never a point in time: a category reading gives way to the date type', () => {
  // `plan` reads as a category; in a date column the plan's next renewal is a time.
  assert.equal(leafIn('allotment_members', 'plan_next_renewal', 'date'), 'Timestamp');
  assert.equal(leafIn('allotment_members', 'plan_next_renewal', 'varchar(20)'), 'Category');
  assert.equal(typeAllows('Category', 'datetime'), false);
  assert.equal(typeAllows('Category', 'integer'), true);
});

test("how often a person is paid is a category; an income bracket is the person's pay", () => {
  assert.equal(leafIn('ski_instructors', 'payPeriod', 'varchar(20)'), 'Category');
  assert.equal(leafIn('ski_instructors', 'pay_frequency', 'varchar(20)'), 'Category');
  assert.equal(leafIn('ski_instructors', 'pay_rate', 'numeric(8,2)'), 'Salary');
  assert.equal(leafIn('ski_customers', 'income_level', 'varchar(30)'), 'Salary');
  assert.equal(leafIn('ski_customers', 'access_level', 'varchar(30)'), 'Category');
});

test('a consent given or terms agreed to, at the head, is a yes/no flag whoever consented', () => {
  assert.equal(leafIn('dental_visits', 'patient_consented', 'varchar(5)'), 'Status flag');
  assert.equal(leafIn('dental_visits', 'terms_agreed', 'varchar(5)'), 'Status flag');
});

test('a method at the head is a kind of something, whatever it is about', () => {
  assert.equal(leafIn('llama_keepers', 'passwordHashMethod', 'varchar(20)'), 'Category');
  assert.equal(leafIn('llama_keepers', 'password_hash', 'varchar(255)'), 'Password hash');
});

test("the embedding alone puts a column under sensitive data only in a table of people's data", () => {
  const dims = 4;
  const unit = (i: number): Float32Array => {
    const v = new Float32Array(dims);
    v[i % dims] = 1;
    return v;
  };
  const anchorOf = (path: string, i: number): Float32Array =>
    path.endsWith('/Phone number') ? unit(0) : path.endsWith('/Category') ? unit(1) : unit(2 + (i % 2));
  const anchored = buildClassifierContext(tags.map((t, i) => ({ ...t, anchor: anchorOf(t.chain_path, i) })));
  const path = (table: string, field: string, e: Float32Array, columns?: string[]): string =>
    classifyField({ table_name: table, field_name: field, embedding: e, table_columns: columns ?? null }, anchored)
      .chain_path;
  // Nothing but the embedding speaks for a phone number: not in a table of media files or campaigns…
  assert.notEqual(path('media_files', 'zz_provider', unit(0)), 'Personal/Contact/Phone number');
  // …but in a table of people (by its name, or by its other columns) the guess stands, for a reviewer to check.
  assert.equal(path('customers', 'zz_provider', unit(0)), 'Personal/Contact/Phone number');
  assert.equal(
    path('t_rec', 'zz_provider', unit(0), ['zz_provider', 'email', 'birth_date', 'gender']),
    'Personal/Contact/Phone number',
  );
  // A tag that is not sensitive may still come from the embedding alone anywhere.
  assert.equal(path('media_files', 'zz_provider', unit(1)), 'Public reference data/Category');
});

test('a column with a key of its own beside it names a row and measures nothing', () => {
  const columns = ['region_id', 'region_total', 'region_total_id', 'order_total'];
  const leaf = (field: string, type: string): string =>
    leafOf({ table_name: 'tide_stations', field_name: field, data_type: type, table_columns: columns });
  assert.notEqual(leaf('region_total', 'varchar(20)'), 'Monetary amount');
  // Without a key of its own beside it, a total is still an amount.
  assert.equal(leaf('order_total', 'numeric(10,2)'), 'Monetary amount');
});

test("a person's id stored as a whole number in another table is a key to the person's row", () => {
  assert.equal(leafIn('physio_sessions', 'patient_id', 'int(11)'), 'Foreign key');
  // As text or a uuid it may be the number the patient is known by (the own set's convention).
  assert.equal(leafIn('physio_sessions', 'patient_id', 'varchar(20)'), 'Medical record number');
  assert.equal(leafIn('physio_sessions', 'patient_id', 'uuid'), 'Medical record number');
});

test("a bare name in a table of addresses is the addressee's", () => {
  assert.equal(leafIn('parcel_addresses', 'name', 'varchar(120)'), 'Full name');
  assert.equal(leafIn('parcel_depots', 'name', 'varchar(120)'), 'Object name');
});

test('French company numbers are tax identifiers; a social name is a name', () => {
  assert.equal(leafIn('fromageries', 'siret', 'varchar(14)'), 'Tax identification number');
  assert.equal(leafIn('fromageries', 'siren', 'varchar(9)'), 'Tax identification number');
  assert.equal(leafIn('alunos', 'nome_social', 'varchar(150)'), 'Full name');
});

test('a numbered or bare custom field is free text for whatever an administrator keeps in it', () => {
  assert.equal(leafIn('beekeepers', 'custom3', 'varchar(250)'), 'Internal notes');
  assert.equal(leafIn('beekeepers', 'Custom10', 'varchar(250)'), 'Internal notes');
  // A custom something is read by its head.
  assert.equal(leafIn('beekeepers', 'custom_attributes', 'jsonb'), 'Configuration setting');
});

test("a profile is a person's: the name on a profile is a person's name", () => {
  assert.equal(leafOf({ table_name: 'kite_club', field_name: 'profile_name', data_type: 'varchar(80)' }), 'Full name');
  assert.equal(leafOf({ table_name: 'kite_club', field_name: 'venue_name', data_type: 'varchar(80)' }), 'Object name');
});

test("a mail server's address is a setting, not a postal address", () => {
  assert.equal(leafIn('newsletter_channels', 'smtp_address', 'varchar(120)'), 'Configuration setting');
  assert.equal(leafIn('newsletter_channels', 'imap_address', 'varchar(120)'), 'Configuration setting');
  assert.equal(leafIn('newsletter_subscribers', 'postal_address', 'varchar(120)'), 'Postal address');
});

test('an affinity, rewards or club card is no payment card', () => {
  const leaf = (field: string): string =>
    leafOf({ table_name: 'surf_shop_customers', field_name: field, data_type: 'varchar(20)' });
  assert.notEqual(leaf('affinity_card'), 'Payment card number');
  assert.notEqual(leaf('rewards_card'), 'Payment card number');
  assert.notEqual(leaf('club_card'), 'Payment card number');
  assert.equal(leaf('credit_card'), 'Payment card number');
});

test("a vehicle's plate identifies the vehicle: not a driver's licence", () => {
  const leaf = (field: string): string =>
    leafOf({ table_name: 'courier_vans', field_name: field, data_type: 'varchar(10)' });
  assert.equal(leaf('license_plate'), 'Device ID');
  assert.equal(leaf('vehicle_plate'), 'Device ID');
  assert.equal(leaf('driver_license_number'), 'Driver licence number');
});

test('a document in an audit table is the record of a change, not a setting', () => {
  assert.equal(leafIn('greenhouse_audits', 'audited_changes', 'jsonb'), 'Log message');
  assert.equal(leafIn('greenhouse_audit_trail', 'details', 'json'), 'Log message');
  assert.equal(leafIn('greenhouse_settings', 'audited_changes', 'jsonb'), 'Configuration setting');
});

test("a messenger account (Skype, ICQ, Jabber, MSN) is the person's handle on it", () => {
  const leaf = (table: string, field: string): string =>
    leafOf({ table_name: table, field_name: field, data_type: 'varchar(100)' });
  assert.equal(leaf('guild_members', 'skype'), 'Username');
  assert.equal(leaf('guild_members', 'member_icq'), 'Username');
  assert.equal(leaf('guild_members', 'jabber_id'), 'Username');
  assert.equal(leaf('guild_members', 'msnm'), 'Username');
  // A link to a profile is read by its head; a network's name alone is not a handle (it is as often a link).
  assert.equal(leaf('guild_members', 'skype_url'), 'URL');
  assert.notEqual(leaf('guild_posts', 'twitter'), 'Username');
  // A twitter card is page metadata, not a payment card.
  assert.notEqual(leaf('guild_pages', 'twitter_card'), 'Payment card number');
});

test('a description of a medical matter in a table about people or health is what a diagnosis holds', () => {
  const leaf = (table: string, field: string): string =>
    leafOf({ table_name: table, field_name: field, data_type: 'varchar(200)' });
  assert.equal(leaf('camp_participants', 'treatment_description'), 'Diagnosis');
  assert.equal(leaf('camp_participants', 'desc_tratamiento_medico'), 'Diagnosis');
  assert.equal(leaf('camp_participants', 'fracture_description'), 'Diagnosis');
  assert.equal(leaf('camp_participants', 'medication_description'), 'Medication');
  // What a clinic offers is described for everyone: no person's matter.
  assert.notEqual(leaf('spa_service_catalog', 'treatment_description'), 'Diagnosis');
  assert.notEqual(leaf('insurance_plans', 'health_plan_description'), 'Diagnosis');
});

test("the web address of a photo in a table of people is the person's photo", () => {
  const leaf = (table: string, field: string): string =>
    leafOf({ table_name: table, field_name: field, data_type: 'varchar(255)' });
  assert.equal(leaf('choir_members', 'photo_url'), 'Photo of a person');
  assert.equal(leaf('choir_members', 'profileImageUrl'), 'Photo of a person');
  // A product's picture, an avatar (as often a drawing) and a path keep their readings.
  assert.equal(leaf('sheet_music_products', 'image_url'), 'URL');
  assert.equal(leaf('choir_members', 'avatar_url'), 'URL');
  assert.equal(leaf('choir_members', 'photo_path'), 'File reference');
});

test("a document's number in a table of people is the number of the person's identity document", () => {
  const leaf = (table: string, field: string, columns?: string[]): string =>
    leafOf({ table_name: table, field_name: field, data_type: 'varchar(30)', table_columns: columns ?? null });
  assert.equal(leaf('ferry_passengers', 'document_number'), 'National ID number');
  assert.equal(leaf('socios', 'numero_documento', ['nombre', 'apellidos', 'fecha_nacimiento']), 'National ID number');
  // An invoice's or a shipment's document number is not a person's.
  assert.notEqual(leaf('ferry_invoices', 'document_number'), 'National ID number');
  assert.notEqual(leaf('ferry_passengers', 'documents_count'), 'National ID number');
});

test('a state or zone beside the address it belongs to is a region, also under a prefix or a namespace', () => {
  const leaf = (table: string, field: string, columns: string[]): string =>
    leafOf({ table_name: table, field_name: field, data_type: 'varchar(40)', table_columns: columns });
  assert.equal(
    leaf('kennel_bookings', 'owner_state', ['owner_street', 'owner_city', 'owner_zip', 'dog_name']),
    'Approximate location',
  );
  assert.equal(leaf('depots', 'zone', ['street_address', 'district', 'country']), 'Approximate location');
  // `tax_` before every column is a namespace, yet the state of a tax is still a region.
  assert.equal(
    leaf('payroll_tax', 'tax_unemp_state', ['tax_federal_status', 'tax_state', 'tax_unemp_state', 'tax_work_state']),
    'Approximate location',
  );
  // A workflow's state beside an unrelated address is a status.
  assert.equal(
    leaf('kennel_bookings', 'booking_state', ['owner_street', 'owner_city', 'owner_zip', 'booking_state']),
    'Status flag',
  );
  assert.notEqual(leaf('time_windows', 'zone', ['starts_at', 'ends_at']), 'Approximate location');
});

test("a person's tobacco or alcohol use is a health matter; a prescribed drug's RxNorm code is a medication", () => {
  const leaf = (table: string, field: string, type = 'varchar(60)'): string =>
    leafOf({ table_name: table, field_name: field, data_type: type });
  assert.equal(leaf('rowing_club_members', 'tobacco_current_use'), 'Diagnosis');
  assert.equal(leaf('clinic_intake', 'substance_abuse'), 'Diagnosis');
  assert.equal(leaf('pharmacy_dispensed', 'rxnorm_code'), 'Medication');
  // What a shop sells is not anyone's health.
  assert.notEqual(leaf('corner_shop_products', 'contains_tobacco', 'boolean'), 'Diagnosis');
  assert.notEqual(leaf('corner_shop_products', 'tobacco'), 'Diagnosis');
});

test("a bare user kept as text is the user's login name; kept as a number, an ObjectId or a link it is a key", () => {
  const leaf = (type: string): string =>
    leafOf({ table_name: 'lab_notebook_entries', field_name: 'user', data_type: type });
  assert.equal(leaf('varchar(255)'), 'Username');
  assert.equal(leaf('text'), 'Username');
  assert.equal(leaf('int(11)'), 'Foreign key');
  assert.equal(leaf('ObjectId'), 'Foreign key');
  assert.equal(leaf('Link'), 'Foreign key');
  // Not a bare user: `user_id`, `user_agent` keep their readings.
  assert.equal(
    leafOf({ table_name: 'lab_notebook_entries', field_name: 'user_id', data_type: 'varchar(36)' }),
    'Foreign key',
  );
});

test('no e-mail address, postal address or URL fits in three characters', () => {
  const leaf = (field: string, type: string): string =>
    leafOf({ table_name: 'dental_patients', field_name: field, data_type: type });
  assert.notEqual(leaf('allow_email', 'varchar(3)'), 'Email address');
  assert.notEqual(leaf('hipaa_mail', 'char(3)'), 'Email address');
  assert.notEqual(leaf('home_address', 'char(1)'), 'Postal address');
  // Wider texts keep their readings.
  assert.equal(leaf('email', 'varchar(4)'), 'Email address');
  assert.equal(leaf('email', 'varchar(255)'), 'Email address');
});

test("a bare word for a person typed by a reference is a key to that person's row", () => {
  const leaf = (field: string, type: string): string =>
    leafOf({ table_name: 'tabPhysio Session', field_name: field, data_type: type });
  assert.equal(leaf('patient', 'Link'), 'Foreign key');
  assert.equal(leaf('customer', 'Customer'), 'Foreign key');
  // As text it may be the number the patient is known by; an address typed by its class is the address.
  assert.equal(leaf('patient', 'varchar(40)'), 'Medical record number');
  assert.equal(leaf('address', 'Address'), 'Postal address');
});

test("a key into a list of genders or civil states holds the person's gender or civil state", () => {
  const leaf = (table: string, field: string): string =>
    leafOf({ table_name: table, field_name: field, data_type: 'int' });
  assert.equal(leaf('choir_members', 'gender_id'), 'Gender');
  assert.equal(leaf('choir_members', 'id_gender'), 'Gender');
  assert.equal(leaf('choir_members', 'marital_status_id'), 'Marital status');
  // The list's own key, and keys into other lists, stay keys.
  assert.equal(leaf('genders', 'gender_id'), 'Record ID');
  assert.equal(leaf('choir_members', 'status_id'), 'Foreign key');
  assert.equal(leaf('choir_members', 'voice_type_id'), 'Foreign key');
});

test("'ss' kept as text in a table of people is a social security number", () => {
  assert.equal(leafIn('dental_patients', 'ss', 'varchar(11)'), 'National ID number');
  assert.equal(leafIn('dental_patients', 'guarantor_ss', 'varchar(11)'), 'National ID number');
  // Elsewhere, or as a number, it is as often seconds.
  assert.notEqual(leafIn('race_laps', 'ss', 'varchar(2)'), 'National ID number');
  assert.notEqual(leafIn('dental_patients', 'ss', 'int'), 'National ID number');
});

test('a bare key or hash in a table named for people is their secret', () => {
  const leaf = (table: string, field: string): string =>
    leafOf({ table_name: table, field_name: field, data_type: 'varchar(200)' });
  assert.equal(leaf('vault_users', 'key'), 'API key or token');
  assert.equal(leaf('vault_users', 'hash'), 'Password hash');
  // A setting's key and a file's hash are not a person's.
  assert.equal(leaf('vault_settings', 'key'), 'Configuration setting');
  assert.equal(leaf('vault_files', 'hash'), 'Hash or checksum');
});

test("a number in a table of a person's identity documents is a document's number", () => {
  const columns = ['person_id', 'rg', 'rg_issued_on', 'passport', 'num_livro', 'num_folha'];
  const leaf = (table: string, field: string, cols: string[]): string =>
    leafOf({ table_name: table, field_name: field, data_type: 'varchar(20)', table_columns: cols });
  assert.equal(leaf('registry.person_document', 'num_livro', columns), 'National ID number');
  assert.equal(leaf('registry.person_document', 'num_folha', columns), 'National ID number');
  // A file store's documents beside no particulars of a person, and page numbers, are not.
  assert.notEqual(
    leaf('archive.document', 'num_livro', ['title', 'owner_id', 'num_livro', 'created_at']),
    'National ID number',
  );
  assert.notEqual(leaf('registry.person_document', 'page_number', columns), 'National ID number');
});

test("label gap: the points a tag trails the winner by; 0 for the winner, the winner's points for a tag with none", () => {
  const points = {
    winner: 6,
    winnerTagId: 1,
    byTag: new Map([
      [1, 6],
      [2, 4.5],
      [3, -1.5],
    ]),
  };
  assert.equal(labelGap(points, 1), 0);
  assert.equal(labelGap(points, 2), 1.5);
  assert.equal(labelGap(points, 3), 7.5, "a tag the evidence marked down trails by more than the winner's points");
  assert.equal(labelGap(points, 4), 6, "a tag with no points (or ruled out by the type) trails by the winner's points");
  // Nothing had points and the type's default won: no tag trails it, unless the evidence marked it down.
  assert.equal(labelGap({ winner: 0, winnerTagId: 5, byTag: new Map([[3, -2]]) }, 4), 0);
  assert.equal(labelGap({ winner: 0, winnerTagId: 5, byTag: new Map([[3, -2]]) }, 3), 2);

  const email: ClassifyInput = { table_name: 'customers', field_name: 'email' };
  const scored = scoreField(email, ctx);
  assert.equal(scored.tag_id, idOf('Email address'));
  assert.ok(scored.points.winner > 0);
  assert.equal(labelGapOf(email, ctx, idOf('Email address')), 0);
  assert.equal(labelGapOf(email, ctx, idOf('Date of birth')), scored.points.winner);
  // A runner-up trails by the difference of the totals scoreField ranked (candidateTotals gives them by leaf name).
  const input: ClassifyInput = { table_name: 'orders', field_name: 'phone_or_email' };
  const { totals } = candidateTotals(input, ctx);
  const ranked = [...totals].sort((a, b) => b.total - a.total);
  assert.ok(ranked.length >= 2, `needs a runner-up: ${JSON.stringify(ranked)}`);
  const [top, second] = ranked as [{ leaf: string; total: number }, { leaf: string; total: number }];
  assert.equal(scoreField(input, ctx).tag_id, idOf(top.leaf));
  const gap = labelGapOf(input, ctx, idOf(second.leaf));
  assert.ok(Math.abs(gap - (top.total - second.total)) < 1e-9, `${gap} vs ${top.total} − ${second.total}`);
  assert.ok(gap >= 0 && gap <= scoreField(input, ctx).points.winner);
  // A tag the declared type rules out counts no points, whatever its name says.
  const typed: ClassifyInput = { table_name: 'customers', field_name: 'email', data_type: 'timestamp' };
  const winner = scoreField(typed, ctx);
  assert.notEqual(winner.tag_id, idOf('Email address'));
  assert.equal(labelGapOf(typed, ctx, idOf('Email address')), winner.points.winner);
});

test("label gap: never negative, 0 for the tag the classifier names, the winner's points for a tag with none", () => {
  const names = ['email', 'dob', 'CUST_NM', 'zz_17', 'amount', 'created_at', 'state', 'notes', 'iban', 'city'];
  const leafIds = tags.map((t) => t.id);
  fc.assert(
    fc.property(
      fc.constantFrom(...names),
      fc.constantFrom('users', 'orders', 'patients', 't'),
      fc.constantFrom(...leafIds),
      (field_name, table_name, tagId) => {
        const input = { table_name, field_name };
        const scored = scoreField(input, ctx);
        const gap = labelGap(scored.points, tagId);
        const unscored = tagId !== scored.tag_id && !scored.points.byTag.has(tagId);
        return gap >= 0 && labelGap(scored.points, scored.tag_id) === 0 && (!unscored || gap === scored.points.winner);
      },
    ),
    { numRuns: 200 },
  );
});

test("'last' glued to an unknown word is read apart: when it last happened, kept as a whole number, is a time", () => {
  assert.equal(leafIn('guild_members', 'lastdonation', 'int(11) unsigned'), 'Timestamp');
  assert.equal(leafIn('kiosk_sessions', 'kiosk_lastrefresh', 'integer'), 'Timestamp');
  // English words that start with 'last', a last name written together, and the same name kept as text are not.
  assert.notEqual(leafIn('paint_colours', 'lasting', 'integer'), 'Timestamp');
  assert.notEqual(leafIn('guild_members', 'lastly', 'integer'), 'Timestamp');
  assert.equal(leafIn('guild_members', 'lastname', 'varchar(40)'), 'Last name');
  assert.notEqual(leafIn('guild_members', 'lastdonation', 'varchar(20)'), 'Timestamp');
});

test('the heads that decide a compound name also split run-together ones: a format written together is a setting', () => {
  const m = new NameMatcher(buildPhrases());
  assert.deepEqual(m.words('nameformat'), ['name', 'format']);
  assert.equal(
    leafOf({ table_name: 'forum_members', field_name: 'nameformat', data_type: 'varchar(30)' }),
    'Configuration setting',
  );
  // Words that merely contain a head are not split: `information`, `encounter`, `discount` stay whole.
  assert.deepEqual(m.words('information'), ['information']);
  assert.deepEqual(m.words('encounter'), ['encounter']);
  assert.deepEqual(m.words('discount'), ['discount']);
  assert.notEqual(
    leafOf({ table_name: 'clinic_visits', field_name: 'information', data_type: 'text' }),
    'Configuration setting',
  );
});

test('who did something, named at the head of a whole number, is a key to their row, not a measure', () => {
  assert.equal(leafIn('board_threads', 'thread_poster', 'mediumint(8) unsigned'), 'Foreign key');
  assert.equal(leafIn('wiki_pages', 'editor', 'bigint'), 'Foreign key');
  // Counted, kept as text, or counted by its head, it is not.
  assert.notEqual(leafIn('board_threads', 'posters', 'int'), 'Foreign key');
  assert.notEqual(leafIn('wiki_pages', 'editor', 'varchar(60)'), 'Foreign key');
  assert.equal(leafIn('wiki_pages', 'editor_count', 'int'), 'Metric value');
});

test('how a list is sorted, by what and which way, is a setting; a place in a list, a purchase or who did it is not', () => {
  assert.equal(leafIn('saved_views', 'sort_by', 'varchar(30)'), 'Configuration setting');
  assert.equal(leafIn('board_members', 'thread_sortby_dir', 'varchar(1)'), 'Configuration setting');
  assert.equal(leafIn('board_members', 'listOrderAscending', 'boolean'), 'Configuration setting');
  // `by` after anything else is still who did it; a sort order is a place in a list.
  assert.equal(leafIn('saved_views', 'sort_order', 'int'), 'Sort order');
  assert.equal(leafIn('purchase_requests', 'ordered_by', 'int'), 'Foreign key');
  assert.equal(leafIn('saved_views', 'created_by', 'int'), 'Foreign key');
});

test('a length of time that bounds or schedules what the system does is a setting; one measured is not', () => {
  assert.equal(leafIn('helpdesk_queues', 'auto_close_days', 'int'), 'Configuration setting');
  assert.equal(leafIn('board_members', 'keepDraftsHours', 'smallint'), 'Configuration setting');
  assert.equal(leafIn('upload_buckets', 'retention_period', 'integer'), 'Configuration setting');
  // A duration that is measured, and a bound on something other than time, are not settings by this rule.
  assert.notEqual(leafIn('clinic_visits', 'duration_minutes', 'int'), 'Configuration setting');
  assert.notEqual(leafIn('dosing_schedules', 'duration_in_days', 'integer'), 'Configuration setting');
  assert.notEqual(leafIn('weather_readings', 'max_temperature', 'numeric(5,2)'), 'Configuration setting');
});

test('a tax, a discount or a shipping charge kept as a decimal is an amount of money; its rate, or a code, is not', () => {
  assert.equal(leafIn('cart_orders', 'order_discount', 'numeric(12,2)'), 'Monetary amount');
  assert.equal(leafIn('cart_orders', 'ShippingInclTax', 'decimal(18,4)'), 'Monetary amount');
  assert.equal(leafIn('cart_lines', 'tax', 'decimal(10,2)'), 'Monetary amount');
  assert.notEqual(leafIn('cart_lines', 'tax_rate', 'decimal(5,2)'), 'Monetary amount');
  assert.notEqual(leafIn('cart_lines', 'discount_percent', 'decimal(5,2)'), 'Monetary amount');
  assert.notEqual(leafIn('cart_orders', 'discount', 'varchar(20)'), 'Monetary amount');
});

test("a bare word for a person kept as text in a table about people or health is that person's name", () => {
  assert.equal(leafIn('pupils', 'guardian', 'varchar(100)'), 'Full name');
  assert.equal(leafIn('clinic_visits', 'physician', 'varchar(80)'), 'Full name');
  // Outside such a table it may be a code; as a number or a short code it is not a name.
  assert.notEqual(leafIn('sales_orders', 'customer', 'varchar(40)'), 'Full name');
  assert.notEqual(leafIn('pupils', 'guardian', 'int'), 'Full name');
  assert.notEqual(leafIn('pupils', 'guardian', 'char(2)'), 'Full name');
  // A bare `contact` holds contact details, not a contact person's name.
  assert.notEqual(leafIn('pupils', 'contact', 'varchar(100)'), 'Full name');
});

test('a reason kept as a number or a reference to a list is one of a fixed set, a category; as text it may be a note', () => {
  assert.equal(leafIn('memberships', 'lapse_reason', 'smallint'), 'Category');
  assert.equal(leafIn('loan_applications', 'rejectionReason', 'LookupValue'), 'Category');
  assert.notEqual(leafIn('refund_requests', 'reason', 'text'), 'Category');
  assert.equal(leafIn('memberships', 'lapse_reason_id', 'int'), 'Foreign key');
});

test("'cancel' is a word, not 'can' and the Portuguese 'cel' of a mobile phone", () => {
  const m = new NameMatcher(buildPhrases());
  assert.deepEqual(m.words('cancel_reason'), ['cancel', 'reason']);
  assert.equal(leafOf({ table_name: 'memberships', field_name: 'cancel_reason', data_type: 'smallint' }), 'Category');
  // `cel` on its own is still a mobile phone.
  assert.equal(leafOf({ table_name: 'clientes', field_name: 'cel', data_type: 'varchar(20)' }), 'Phone number');
});

test("what a payment gateway or an API answered, kept whole, is a log of the exchange, not the transaction's id", () => {
  assert.equal(leafIn('refunds', 'api_response', 'text'), 'Log message');
  assert.equal(leafIn('payouts', 'processor_response', 'jsonb'), 'Log message');
  assert.equal(leafIn('charges', 'VoidTransactionResult', 'nvarchar(max)'), 'Log message');
  // The transaction's own reference, and a person's answer to a survey, are not.
  assert.equal(leafIn('charges', 'transaction_id', 'varchar(64)'), 'Transaction ID');
  assert.notEqual(leafIn('survey_answers', 'response', 'text'), 'Log message');
});

test('which service or plug-in handled something, kept as text, is a category; a provider of care is not', () => {
  assert.equal(leafIn('payments', 'provider', 'varchar(64)'), 'Category');
  assert.equal(leafIn('sms_messages', 'gateway', 'varchar(32)'), 'Category');
  assert.equal(leafIn('shipments', 'carrier_module', 'varchar(64)'), 'Category');
  // In a table about health a provider is a clinician or a clinic; a number is a key.
  assert.notEqual(leafIn('encounters', 'provider', 'varchar(80)'), 'Category');
  assert.equal(leafIn('payments', 'provider_id', 'int'), 'Foreign key');
});

test('1.5.10: a service named on a row about people is a category too; a plural lists the services set up', () => {
  // The sign-in provider of a member, the service of a subscriber's login: one of the few the system knows.
  assert.equal(leafIn('members', 'provider', 'varchar(40)'), 'Category');
  assert.equal(leafIn('subscribers', 'auth_provider', 'varchar(30)'), 'Category');
  // A plural lists the services set up (with their settings), not the one that handled something.
  assert.notEqual(leafIn('members', 'LoginProviders', 'text'), 'Category');
  // In a table about health a provider is still a clinician or a clinic.
  assert.notEqual(leafIn('patient_visits', 'provider', 'varchar(80)'), 'Category');
});

test("a country's code on a row about a person or an address is the country they are in; in a list of countries a code", () => {
  assert.equal(leafIn('customers', 'country_code', 'varchar(2)'), 'Country');
  assert.equal(leafIn('shipping_addresses', 'country_iso', 'char(2)'), 'Country');
  // A reference list's own entry, and a code on a row about neither, stay a country code.
  assert.equal(leafIn('countries', 'country_code', 'char(2)'), 'Country code');
  assert.equal(leafIn('exchange_rates', 'country_code', 'char(2)'), 'Country code');
});

test('a bare word for an organisation typed by a reference is a key to its row, not its name', () => {
  assert.equal(leafIn('tabSales Invoice', 'company', 'Link'), 'Foreign key');
  assert.equal(leafIn('purchase_orders', 'supplier', 'Supplier'), 'Foreign key');
  // Kept as text, or named as a name, it is the organisation's name.
  assert.equal(leafIn('purchase_orders', 'supplier', 'varchar(140)'), 'Organisation name');
  assert.equal(leafIn('tabSales Invoice', 'company_name', 'Data'), 'Organisation name');
});

test('a word for an event kept where no time fits (a tiny integer, three characters) says whether it happened', () => {
  assert.equal(leafIn('comments', 'deleted', 'tinyint(4)'), 'Status flag');
  assert.equal(leafIn('visits', 'closed', 'char(1)'), 'Status flag');
  assert.equal(leafIn('forms', 'completed_ad', 'varchar(3)'), 'Status flag');
  // Where a time fits it is a time; a calendar word in a tiny integer is still a part of a date.
  assert.equal(leafIn('comments', 'deleted', 'datetime'), 'Timestamp');
  assert.equal(leafIn('reports', 'month', 'tinyint'), 'Timestamp');
});

test("a word for people before 'name' makes it a person's name, even where the word alone names another tag", () => {
  // `patient` alone reads as a medical record number and `agent` as a user agent; with `name` they are people.
  assert.equal(leafIn('lab_orders', 'patient_name', 'varchar(140)'), 'Full name');
  assert.equal(leafIn('tabRadiology Request', 'patient_name', 'Data'), 'Full name');
  assert.equal(leafIn('policy_sales', 'agent_name', 'varchar(100)'), 'Full name');
  // A phrase that is more than the person word keeps its reading.
  assert.equal(leafIn('web_hits', 'user_agent_name', 'varchar(100)'), 'User agent');
});

test('a date word beside a revision in a date column is when the record was revised, not its version', () => {
  assert.equal(leafIn('cadastro.endereco', 'data_rev', 'timestamp without time zone'), 'Timestamp');
  assert.equal(leafIn('contracts', 'date_rev', 'datetime'), 'Timestamp');
  // A version kept in a timestamp column (a row version) and a revision kept as text keep their reading.
  assert.equal(leafIn('contracts', 'row_version', 'timestamp'), 'Version');
  assert.equal(leafIn('contracts', 'data_rev', 'varchar(20)'), 'Version');
});

test('a message kept as long text, with no word of a system output, is what a person wrote', () => {
  assert.equal(leafIn('shipments', 'packing_message', 'text'), 'Internal notes');
  assert.equal(leafIn('bookings', 'welcome_message', 'mediumtext'), 'Internal notes');
  // A system's output stays a log line; a bounded string is left to the phrases.
  assert.equal(leafIn('shipments', 'error_message', 'text'), 'Log message');
  assert.notEqual(leafIn('shipments', 'packing_message', 'varchar(255)'), 'Internal notes');
});

test("a signature kept as prose on a person's row is what the person signs with, not what its modifier names", () => {
  assert.equal(leafIn('members', 'forum_sig', 'mediumtext'), 'Internal notes');
  assert.equal(leafIn('agents', 'email_signature', 'text'), 'Internal notes');
  // Elsewhere, or in a bounded string (a cryptographic signature), it is left to the other rules.
  assert.notEqual(leafIn('releases', 'signature', 'text'), 'Internal notes');
  assert.notEqual(leafIn('members', 'signature', 'varchar(512)'), 'Internal notes');
});

test('a yes/no or a whole number named for an activity or a coupon says whether or how many, not its name or code', () => {
  assert.equal(leafIn('workshop_sessions', 'activity', 'tinyint(4)'), 'Status flag');
  assert.equal(leafIn('forum_members', 'show_activity', 'boolean'), 'Status flag');
  assert.equal(leafIn('store_roles', 'grants.vouchers', 'Boolean'), 'Status flag');
  // Kept as text they are what the words say.
  assert.equal(leafIn('workshop_sessions', 'activity', 'varchar(60)'), 'Event name');
  assert.equal(leafIn('baskets', 'voucher', 'varchar(32)'), 'Discount code');
  assert.equal(typeAllows('Event name', 'boolean'), false);
  assert.equal(typeAllows('Discount code', 'integer'), false);
});

test('a precision without a scale, or a scale of 0, is a whole number: a year of birth so kept is a date of birth', () => {
  assert.equal(typeFamily('NUMBER(4)'), 'integer');
  assert.equal(typeFamily('numeric(5,0)'), 'integer');
  assert.equal(typeFamily('NUMBER(1)'), 'boolean');
  assert.equal(typeFamily('decimal(12,2)'), 'decimal');
  assert.equal(typeFamily('NUMBER'), 'decimal');
  assert.equal(leafIn('crm.members', 'mbr_year_of_birth', 'NUMBER(4)'), 'Date of birth');
  assert.equal(leafIn('crm.members', 'mbr_year_of_birth', 'numeric(4,0)'), 'Date of birth');
});

test('1.5.10: a name ending in currency is the currency a money word is kept in, not the money', () => {
  assert.equal(leafIn('freelancers', 'hourlyRateCurrency', 'varchar(3)'), 'Currency code');
  assert.equal(leafIn('staff_contracts', 'wage_currency', 'char(3)'), 'Currency code');
  // The head decides: a rate of a currency is not a currency.
  assert.notEqual(leafIn('fx_quotes', 'currency_rate', 'decimal(12,6)'), 'Currency code');
});

test("1.5.10: a message or a text named for a system's output is a log line, not a state or a note", () => {
  assert.equal(leafIn('sms_dispatches', 'delivery_status_text', 'varchar(255)'), 'Log message');
  assert.equal(leafIn('import_batches', 'failure_text', 'varchar(500)'), 'Log message');
});

test("1.5.10: 'meta' at the head, kept whole, is the row's metadata; a word after it names something else", () => {
  assert.equal(leafIn('shipments', 'meta', 'longtext'), 'Configuration setting');
  assert.equal(leafIn('bookings', 'meta_info', 'text'), 'Configuration setting');
  assert.notEqual(leafIn('landing_pages', 'meta_title', 'varchar(255)'), 'Configuration setting');
});

test('1.5.10: a text exactly a uuid wide whose name reads as nothing strongly is a key to another row', () => {
  assert.equal(leafIn('ledger_entries', 'offset_account', 'varchar(36)'), 'Foreign key');
  assert.equal(leafIn('automations', 'trigger_rule', 'char(36)'), 'Foreign key');
  // A name that reads strongly keeps its reading; the row's own id is its key.
  assert.equal(leafIn('sessions', 'token', 'varchar(36)'), 'API key or token');
  assert.equal(leafIn('devices', 'idfa', 'varchar(36)'), 'Device ID');
  assert.equal(leafIn('invoices', 'id', 'char(36)'), 'Record ID');
  // Another width is not a uuid's.
  assert.notEqual(leafIn('ledger_entries', 'offset_account', 'varchar(40)'), 'Foreign key');
});

test("1.5.11: Spanish and Portuguese words for a person's post or trade are a job title", () => {
  assert.equal(leafIn('representantes', 'cargo', 'varchar(80)'), 'Job title');
  assert.equal(leafIn('socios', 'prof_socio', 'varchar(120)'), 'Job title');
  assert.equal(leafIn('moradores', 'm02_profis', 'varchar(60)'), 'Job title');
  assert.equal(leafIn('candidatos', 'profissao', 'varchar(60)'), 'Job title');
  // A head after the word still decides: a freight's weight or kind is no job.
  assert.notEqual(leafIn('shipments', 'cargo_weight', 'decimal(10,2)'), 'Job title');
  assert.notEqual(leafIn('shipments', 'cargo_type', 'varchar(20)'), 'Job title');
});

test('1.5.11: a place of birth names a town, not a date', () => {
  assert.equal(leafIn('pupils', 'birth_place', 'varchar(80)'), 'City');
  assert.equal(leafIn('adherents', 'lieu_naissance', 'varchar(80)'), 'City');
  assert.equal(leafIn('vecinos', 'lugar_nacimiento', 'varchar(80)'), 'City');
  assert.equal(leafIn('moradores', 'naturalidade', 'varchar(80)'), 'City');
  // The date of the birth stays a date of birth.
  assert.equal(leafIn('pupils', 'birth_date', 'date'), 'Date of birth');
  assert.equal(leafIn('vecinos', 'fecha_nacimiento', 'date'), 'Date of birth');
});

test("1.5.11: 'obs' and 'obse', the Romance shortening of observations, are a remark on the record", () => {
  assert.equal(leafIn('moradores', 'm02_obs', 'text'), 'Internal notes');
  assert.equal(leafIn('tramites', 'tram_obse', 'varchar(500)'), 'Internal notes');
  // A head after it still decides: when an observation was made, or its key.
  assert.equal(leafIn('clinical_obs', 'obs_datetime', 'datetime'), 'Timestamp');
  assert.notEqual(leafIn('clinical_obs', 'obs_group_id', 'int'), 'Internal notes');
});

test("1.5.11: Spanish and Portuguese shortenings of a person's particulars are read as the words they shorten", () => {
  assert.equal(leafIn('vecinos', 'vec_apell1', 'varchar(50)'), 'Last name');
  assert.equal(leafIn('vecinos', 'vec_cedula', 'varchar(13)'), 'National ID number');
  assert.equal(leafIn('socios', 'soc_nacim', 'date'), 'Date of birth');
  assert.equal(leafIn('moradores', 'm02_telef', 'varchar(12)'), 'Phone number');
  assert.equal(leafIn('moradores', 'm02_munic', 'varchar(40)'), 'City');
  assert.equal(leafIn('servidores', 's01_estciv', 'int4'), 'Marital status');
  // Whole words that begin the same way keep their own reading.
  assert.notEqual(leafIn('tax_lines', 'municipal_tax', 'decimal(10,2)'), 'City');
});

test('1.5.11: French schema words for a handle, a date of birth, a publisher and a registered company name', () => {
  assert.equal(leafIn('membres', 'pseudo_membre', 'varchar(30)'), 'Username');
  assert.equal(leafIn('membres', 'ddn_membre', 'date'), 'Date of birth');
  assert.equal(leafIn('ouvrages', 'editeur', 'varchar(200)'), 'Organisation name');
  assert.equal(leafIn('fournisseurs', 'raison_sociale', 'varchar(200)'), 'Organisation name');
  // A key to the publisher's row stays a key; a bare social word is no company.
  assert.equal(leafIn('ouvrages', 'editeur_id', 'int'), 'Foreign key');
  assert.notEqual(leafIn('membres', 'securite_sociale', 'varchar(20)'), 'Organisation name');
});

test("1.5.11: a person's religion and a relation (father, mother …) are kinds, categories", () => {
  assert.equal(leafIn('pupils', 'religion', 'varchar(40)'), 'Category');
  assert.equal(leafIn('next_of_kin', 'relation', 'varchar(30)'), 'Category');
  // A key to a list of religions or relations stays a key.
  assert.equal(leafIn('pupils', 'religion_id', 'int'), 'Foreign key');
  assert.equal(leafIn('graph_edges', 'relation_id', 'int'), 'Foreign key');
});

test('1.5.11: Brazilian shortenings of an address and of schooling are read as the words they shorten', () => {
  assert.equal(leafIn('moradores', 'm02_ender', 'varchar(100)'), 'Postal address');
  assert.equal(leafIn('moradores', 'm02_compl', 'varchar(60)'), 'Postal address');
  assert.equal(leafIn('moradores', 'm02_cxpostal', 'varchar(20)'), 'Postal address');
  assert.equal(leafIn('moradores', 'm02_escolaridade', 'varchar(50)'), 'Category');
  // A date's head still decides: a completion date is no address.
  assert.equal(leafIn('work_orders', 'compl_date', 'date'), 'Timestamp');
});

test('1.5.11: Romance shortenings of money words (vlr, pvp, tarif) are amounts and prices', () => {
  assert.equal(leafIn('lancamentos', 'l02_vlr', 'numeric(15,2)'), 'Monetary amount');
  assert.equal(leafIn('lineas_pedido', 'pvpunitario', 'double precision'), 'Price');
  assert.equal(leafIn('abonnements', 'tarif_abonnement', 'decimal(10,2)'), 'Price');
  // A key to a row of the price list stays a key.
  assert.equal(leafIn('abonnements', 'tarif_id', 'int'), 'Foreign key');
});

test("1.5.11: a row's number or code kept as a whole number is a key to that row; a count or a known number is not", () => {
  assert.equal(leafIn('visits', 'WardNum', 'long'), 'Foreign key');
  assert.equal(leafIn('shipments', 'depot_codi', 'smallint'), 'Foreign key');
  assert.equal(leafIn('staff', 'grade_code', 'int(4)'), 'Foreign key');
  // The noun is the table's own: the row's key.
  assert.equal(leafIn('ward', 'WardNum', 'long'), 'Record ID');
  // A plural counts things; a state's code is the state; a text is not a key; a known number keeps its reading.
  assert.notEqual(leafIn('sign_ins', 'retries_num', 'smallint'), 'Foreign key');
  assert.notEqual(leafIn('http_calls', 'status_code', 'smallint'), 'Foreign key');
  assert.notEqual(leafIn('visits', 'ward_num', 'varchar(10)'), 'Foreign key');
  assert.equal(leafIn('contacts', 'phone_no', 'bigint'), 'Phone number');
});

test("1.5.11: the Romance 'number of' a row said first, kept as a whole number, is a key to that row", () => {
  assert.equal(leafIn('prets', 'num_lecteur', 'int(8) unsigned'), 'Foreign key');
  assert.equal(leafIn('lecteur', 'num_lecteur', 'int(8)'), 'Record ID');
  // A plural after it counts; a text is not a key; a table of documents keeps its numbers its own.
  assert.notEqual(leafIn('sign_ins', 'num_retries', 'int'), 'Foreign key');
  assert.notEqual(leafIn('prets', 'num_lecteur', 'varchar(20)'), 'Foreign key');
  assert.notEqual(leafIn('documento', 'num_registro', 'numeric(8,0)'), 'Foreign key');
});

test("1.5.11: the Romance 'code of' glued before a noun in a is a reference too; the word coda is not", () => {
  assert.equal(leafIn('lineas_pedido', 'codarticulo', 'varchar(10)'), 'Foreign key');
  assert.equal(leafIn('prestamos', 'codautor', 'varchar(8)'), 'Foreign key');
  assert.notEqual(leafIn('songs', 'coda', 'varchar(20)'), 'Foreign key');
});

test('1.5.11: the key of a standard code list kept as a short text is the code itself; as a number or uuid, a key', () => {
  assert.equal(leafIn('wallets', 'currency_id', 'varchar(3)'), 'Currency code');
  assert.equal(leafIn('profiles', 'locale_id', 'varchar(10)'), 'Language code');
  assert.equal(leafIn('wallets', 'currency_id', 'int'), 'Foreign key');
  assert.equal(leafIn('wallets', 'currency_id', 'char(36)'), 'Foreign key');
  assert.equal(leafIn('profiles', 'language_id', 'uuid'), 'Foreign key');
});

test('1.5.11: a MySQL whole number of display width 1 is a yes/no, as tinyint(1) is', () => {
  assert.equal(typeFamily('int(1)'), 'boolean');
  assert.equal(typeFamily('int(1) unsigned'), 'boolean');
  assert.equal(typeFamily('smallint(1)'), 'boolean');
  assert.equal(leafIn('readers', 'rdr_sms', 'int(1) unsigned'), 'Status flag');
  // Another width is a number.
  assert.equal(typeFamily('int(11)'), 'integer');
  assert.equal(typeFamily('int(10) unsigned'), 'integer');
});

test('1.5.11: the default one among rows of a kind, kept as a whole number, is a key to that row', () => {
  assert.equal(leafIn('members', 'default_wallet', 'int'), 'Foreign key');
  assert.equal(leafIn('vendors', 'defaultcarrier', 'int(11)'), 'Foreign key');
  // A measure after `default` keeps its reading; a yes/no type says whether it is the default.
  assert.notEqual(leafIn('products', 'default_quantity', 'int'), 'Foreign key');
  assert.notEqual(leafIn('members', 'default_wallet', 'tinyint(1)'), 'Foreign key');
  assert.notEqual(leafIn('members', 'default_wallet', 'varchar(40)'), 'Foreign key');
});

test("1.5.11: a place of the organisation kept as a whole number is a key to that place's row", () => {
  assert.equal(leafIn('loans', 'loan_location', 'smallint(5) unsigned'), 'Foreign key');
  assert.equal(leafIn('staff', 'duty_station', 'int(6)'), 'Foreign key');
  // Kept as text it is where someone or something is; a count of places is a count.
  assert.equal(leafIn('loans', 'loan_location', 'varchar(80)'), 'Approximate location');
  assert.notEqual(leafIn('stores', 'location_count', 'int'), 'Foreign key');
});
