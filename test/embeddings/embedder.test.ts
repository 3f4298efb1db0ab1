import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createEmbedder, type FieldEmbeddingInput } from '../../src/embeddings/embedder.js';
import { BuiltinEmbedder } from '../../src/embeddings/builtin-embedder.js';
import { decodeWordVectors, encodeWordVectors, loadWordVectors } from '../../src/embeddings/word-vectors.js';

const embedder = createEmbedder({ provider: 'builtin' });

function cos(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

function norm(a: Float32Array): number {
  return Math.sqrt(cos(a, a));
}

async function field(field_name: string, extra: Partial<FieldEmbeddingInput> = {}): Promise<Float32Array> {
  const [v] = await embedder.embedFields([{ table_name: 'customers', field_name, ...extra }]);
  return v as Float32Array;
}

describe('builtin embedder', () => {
  it('reports its version and dimensions', () => {
    assert.equal(embedder.version, 'builtin-wv100-v2');
    assert.equal(embedder.dimensions, 100);
  });

  it('returns unit-length vectors in input order, never NaN, even for empty input', async () => {
    const inputs: FieldEmbeddingInput[] = [
      {
        table_name: 'users',
        field_name: 'email',
        comment: 'Login e-mail',
        data_type: 'varchar(255)',
        format_signature: 'email',
      },
      { table_name: '', field_name: '' },
      { table_name: '___', field_name: '42', comment: null, data_type: null, format_signature: null },
      { table_name: '订单', field_name: 'xq7z' },
    ];
    const out = await embedder.embedFields(inputs);
    assert.equal(out.length, inputs.length);
    for (const v of out) {
      assert.equal(v.length, 100);
      assert.ok(v.every(Number.isFinite));
      assert.ok(Math.abs(norm(v) - 1) < 1e-5, String(norm(v)));
    }
    const [single] = await embedder.embedFields([inputs[0] as FieldEmbeddingInput]);
    assert.deepEqual(out[0], single);
    for (const v of await embedder.embedTexts(['', 'Personal data: email address', '!!!'])) {
      assert.ok(Math.abs(norm(v) - 1) < 1e-5);
    }
  });

  it('is deterministic across instances', async () => {
    const other = new BuiltinEmbedder();
    const input = [{ table_name: 'crm_contacts', field_name: 'custEmailAddr', comment: 'primary', data_type: 'text' }];
    assert.deepEqual(await other.embedFields(input), await embedder.embedFields(input));
    assert.deepEqual(await other.embedTexts(['custmr xq7z']), await embedder.embedTexts(['custmr xq7z']));
  });

  it('puts similar names close and unrelated ones far', async () => {
    const custEmail = await field('cust_email');
    const customerEmail = await field('customer_email_address');
    const orderTotal = await field('order_total');
    assert.ok(cos(custEmail, customerEmail) > cos(custEmail, orderTotal));
    assert.ok(cos(custEmail, customerEmail) > cos(customerEmail, orderTotal));

    const created = await field('created_at');
    assert.ok(cos(created, await field('updated_at')) > cos(created, await field('email')));

    const dob = await field('dob');
    const birth = await field('birth_date');
    assert.ok(cos(dob, birth) > 0.9, String(cos(dob, birth)));
    assert.ok(cos(dob, birth) > cos(dob, orderTotal));
  });

  it('lands CJK column names near their English meaning', async () => {
    const email = await field('email');
    const phone = await field('phone');
    assert.ok(cos(await field('邮箱'), email) > cos(await field('邮箱'), phone));
    assert.ok(cos(await field('电话'), phone) > cos(await field('电话'), email));
    assert.ok(cos(await field('生年月日'), await field('birth_date')) > 0.9);
  });

  it('gives unknown words a stable n-gram vector near look-alike words', async () => {
    const [custmr, customer, order, again] = await embedder.embedTexts(['custmr', 'customer', 'order', 'custmr']);
    assert.deepEqual(custmr, again);
    assert.ok(
      cos(custmr as Float32Array, customer as Float32Array) > cos(custmr as Float32Array, order as Float32Array),
    );
    // A code with no look-alike still gets a finite unit vector.
    const [code] = await embedder.embedTexts(['zqxj']);
    assert.ok(Math.abs(norm(code as Float32Array) - 1) < 1e-5);
  });

  it('splits run-together words', () => {
    const e = new BuiltinEmbedder();
    assert.deepEqual(e.splitCompound('firstname'), ['first', 'name']);
    assert.deepEqual(e.splitCompound('custid'), ['customer', 'id']);
    assert.equal(e.splitCompound('zqxjvw'), null);
  });

  it('uses comment, data type and format signature', async () => {
    const bare = await field('col_17');
    const described = await field('col_17', {
      comment: 'customer e-mail address',
      data_type: 'text',
      format_signature: 'email',
    });
    const email = await field('email');
    assert.ok(cos(described, email) > cos(bare, email) + 0.2);
  });
});

describe('word vector file', () => {
  it('round-trips through encode/decode and rejects corrupt files', () => {
    const data = loadWordVectors();
    assert.equal(data.dimensions, 100);
    assert.ok(data.words.length > 30_000);
    const tiny = {
      ...data,
      words: data.words.slice(0, 3),
      wordScales: data.wordScales.slice(0, 3),
      wordVectors: data.wordVectors.slice(0, 300),
      bucketCount: 2,
      bucketScales: data.bucketScales.slice(0, 2),
      bucketVectors: data.bucketVectors.slice(0, 200),
    };
    const back = decodeWordVectors(encodeWordVectors(tiny));
    assert.deepEqual(back.words, tiny.words);
    assert.deepEqual(back.wordVectors, tiny.wordVectors);
    assert.deepEqual(back.bucketScales, tiny.bucketScales);
    assert.equal(back.recipe, data.recipe);
    const bytes = encodeWordVectors(tiny);
    assert.throws(() => decodeWordVectors(bytes.subarray(0, bytes.length - 1)), /size/);
    const bad = Buffer.from(bytes);
    bad[0] = 0;
    assert.throws(() => decodeWordVectors(bad), /magic/);
  });
});
