import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import {
  auditActions,
  countRows,
  createDatasource,
  importFields,
  importOk,
  manyFields,
  type FieldInput,
} from './factories.js';

interface FieldBody {
  id: string;
  datasource_id: string;
  table_name: string;
  field_name: string;
  data_type: string | null;
  comment: string | null;
  classification_tag_id: number;
  classification_chain_path: string;
  level: string;
  lock_level: string | null;
  review_status: string;
  outlier_score: number | null;
  severity: string | null;
  updated_at: string;
}

describeEachDatabase('field import', (kind) => {
  let t: TestApp;
  let token: string;
  let tags: Map<string, { id: number; default_level: string }>;

  before(async () => {
    t = await buildTestApp(kind);
    token = await adminToken(t.app);
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/classification/tags', headers: bearer(token) });
    tags = new Map(
      json<{ items: Array<{ id: number; chain_path: string; default_level: string }> }>(response).items.map((tag) => [
        tag.chain_path,
        tag,
      ]),
    );
  });
  after(async () => t.close());

  // The trial allows 3 data sources: each test gets a fresh one and the previous one goes.
  let lastSource: string | undefined;
  const freshSource = async (): Promise<string> => {
    if (lastSource)
      await t.app.inject({ method: 'DELETE', url: `/api/v1/datasources/${lastSource}`, headers: bearer(token) });
    lastSource = await createDatasource(t.app, token);
    return lastSource;
  };
  const tagId = (path: string): number => {
    const tag = tags.get(path);
    if (!tag) throw new Error(`no tag ${path}`);
    return tag.id;
  };
  const getField = async (id: string): Promise<FieldBody> => {
    const response = await t.app.inject({ method: 'GET', url: `/api/v1/fields/${id}`, headers: bearer(token) });
    assert.equal(response.statusCode, 200, response.body);
    return json<FieldBody>(response);
  };

  it('imports fields and reads them back by id and in the list', async () => {
    const source = await freshSource();
    const result = await importOk(t.app, token, source, [
      {
        table_name: 'customers',
        field_name: 'email_address',
        data_type: 'varchar(254)',
        comment: 'Primary contact\nemail',
        classification_tag_id: tagId('Personal/Contact/Email address'),
      },
      {
        table_name: 'customers',
        field_name: 'id',
        data_type: 'bigint',
        classification_chain_path: 'Technical / Record ID',
        level: 'L2',
      },
    ]);
    assert.equal(result.created, 2);
    assert.equal(result.updated, 0);
    assert.equal(result.field_ids.length, 2);

    const email = await getField(result.field_ids[0] as string);
    assert.deepEqual(
      { ...email, updated_at: undefined },
      {
        id: result.field_ids[0],
        datasource_id: source,
        table_name: 'customers',
        field_name: 'email_address',
        data_type: 'varchar(254)',
        comment: 'Primary contact\nemail',
        classification_tag_id: tagId('Personal/Contact/Email address'),
        classification_chain_path: 'Personal/Contact/Email address',
        level: tags.get('Personal/Contact/Email address')?.default_level,
        lock_level: null,
        review_status: 'unreviewed',
        outlier_score: null,
        severity: null,
        suggested_classification: null,
        classification_source: 'import',
        classification_confidence: null,
        classification_evidence: [],
        scan_change: null,
        updated_at: undefined,
      },
    );
    const id = await getField(result.field_ids[1] as string);
    assert.equal(id.classification_chain_path, 'Technical/Record ID');
    assert.equal(id.level, 'L2', 'an explicit level wins over the tag default');

    const list = await t.app.inject({
      method: 'GET',
      url: `/api/v1/fields?datasource_id=${source}`,
      headers: bearer(token),
    });
    assert.equal(list.statusCode, 200);
    const body = json<{ items: FieldBody[]; next_cursor: string | null }>(list);
    assert.deepEqual(
      body.items.map((f) => f.field_name),
      ['email_address', 'id'],
    );
    assert.equal(body.next_cursor, null);

    const entries = (await auditActions(t.database, 'fields.imported')).filter((e) => e.target_id === source);
    assert.equal(entries.length, 1, 'one audit entry per import call, not per field');
    assert.equal(entries[0]?.details.created, 2);
  });

  it('stores the embedding and a format signature, never the sample values', async () => {
    const source = await freshSource();
    const secret = 'very.private.person@example.com';
    const { field_ids } = await importOk(t.app, token, source, [
      {
        table_name: 'users',
        field_name: 'contact',
        sample_values: [secret, 'bo@example.org', 'carla@example.net'],
        classification_chain_path: 'Personal/Contact/Email address',
      },
    ]);
    const row = await t.database.db
      .selectFrom('fields')
      .selectAll()
      .where('id', '=', field_ids[0] as string)
      .executeTakeFirstOrThrow();
    assert.ok(row.embedding && row.embedding.byteLength === 4 * t.app.services.embedder.dimensions);
    assert.equal(row.embedder_version, t.app.services.embedder.version);
    assert.match(String(row.format_signature), /email/);
    assert.ok(!JSON.stringify({ ...row, embedding: null }).includes('private'), 'no sample value is stored');
    const audit = await t.database.db.selectFrom('audit_log').select('details').execute();
    assert.ok(!audit.some((a) => a.details.includes('private')), 'no sample value is audit-logged');
  });

  it('upserts on (data source, table, field): re-import updates and returns the same ids in input order', async () => {
    const source = await freshSource();
    const first = await importOk(t.app, token, source, [
      {
        table_name: 'orders',
        field_name: 'total',
        data_type: 'numeric',
        classification_chain_path: 'Financial/Monetary amount',
      },
      {
        table_name: 'orders',
        field_name: 'placed_at',
        data_type: 'timestamp',
        classification_chain_path: 'Technical/Timestamp',
      },
    ]);
    const second = await importOk(t.app, token, source, [
      { table_name: 'orders', field_name: 'note', data_type: 'text', classification_chain_path: 'Technical/Record ID' },
      {
        table_name: 'orders',
        field_name: 'placed_at',
        data_type: 'timestamptz',
        comment: 'when placed',
        classification_chain_path: 'Technical/Timestamp',
      },
      {
        table_name: 'orders',
        field_name: 'total',
        data_type: 'numeric(12,2)',
        classification_chain_path: 'Financial/Monetary amount',
        level: 'L3',
      },
    ]);
    assert.equal(second.created, 1);
    assert.equal(second.updated, 2);
    assert.equal(second.field_ids[1], first.field_ids[1]);
    assert.equal(second.field_ids[2], first.field_ids[0]);
    const total = await getField(first.field_ids[0] as string);
    assert.equal(total.data_type, 'numeric(12,2)');
    assert.equal(total.level, 'L3');
    assert.equal((await getField(first.field_ids[1] as string)).comment, 'when placed');
    const count = await t.database.db
      .selectFrom('fields')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('datasource_id', '=', source)
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 3);
  });

  it('keeps the tag and level of a locked field on re-import, and updates its other attributes', async () => {
    const source = await freshSource();
    const { field_ids } = await importOk(t.app, token, source, [
      {
        table_name: 'people',
        field_name: 'birth',
        data_type: 'date',
        classification_chain_path: 'Personal/Identity/Date of birth',
        level: 'L4',
      },
    ]);
    const id = field_ids[0] as string;
    // The review module owns the real lock path; here the column is set directly.
    await t.database.db
      .updateTable('fields')
      .set({ locked: 1, review_status: 'confirmed' })
      .where('id', '=', id)
      .execute();

    await importOk(t.app, token, source, [
      {
        table_name: 'people',
        field_name: 'birth',
        data_type: 'datetime',
        comment: 'birthday',
        classification_chain_path: 'Technical/Timestamp',
        level: 'L1',
      },
    ]);
    const locked = await getField(id);
    assert.equal(locked.classification_chain_path, 'Personal/Identity/Date of birth');
    assert.equal(locked.level, 'L4');
    assert.equal(locked.lock_level, 'L4');
    assert.equal(locked.review_status, 'confirmed');
    assert.equal(locked.data_type, 'datetime');
    assert.equal(locked.comment, 'birthday');

    await t.database.db.updateTable('fields').set({ locked: 0 }).where('id', '=', id).execute();
    await importOk(t.app, token, source, [
      { table_name: 'people', field_name: 'birth', classification_chain_path: 'Technical/Timestamp', level: 'L1' },
    ]);
    const unlocked = await getField(id);
    assert.equal(unlocked.classification_chain_path, 'Technical/Timestamp');
    assert.equal(unlocked.level, 'L1');
    assert.equal(unlocked.review_status, 'unreviewed', 'a changed classification needs a new review');
  });

  it("classifies a field without a tag automatically, with the tag's default level", async () => {
    const source = await freshSource();
    const { field_ids } = await importOk(t.app, token, source, [
      { table_name: 'users', field_name: 'email' },
      { table_name: 'users', field_name: 'created_at', data_type: 'timestamp' },
      { table_name: 'users', field_name: 'dob', level: 'L5' },
    ]);
    const email = await getField(field_ids[0] as string);
    assert.equal(email.classification_chain_path, 'Personal/Contact/Email address');
    assert.equal(email.level, tags.get('Personal/Contact/Email address')?.default_level);
    const created = await getField(field_ids[1] as string);
    assert.equal(created.classification_chain_path, 'Technical/Timestamp');
    assert.equal(created.level, tags.get('Technical/Timestamp')?.default_level);
    const dob = await getField(field_ids[2] as string);
    assert.equal(dob.classification_chain_path, 'Personal/Identity/Date of birth');
    assert.equal(dob.level, 'L5', 'a given level is kept when the tag is chosen automatically');
  });

  it('imports and classifies container and opaque declared types (array, ARRAY, USER-DEFINED, nested) in one batch', async () => {
    const source = await freshSource();
    // PostgreSQL's information_schema says `ARRAY` for every array column and `USER-DEFINED` for enums and domains:
    // a bare `array` once recursed without end in the type reader and failed the whole batch with a 500.
    const { field_ids } = await importOk(t.app, token, source, [
      { table_name: 'contacts', field_name: 'email_addresses', data_type: 'ARRAY' },
      { table_name: 'contacts', field_name: 'phone_numbers', data_type: 'array' },
      { table_name: 'contacts', field_name: 'tags', data_type: 'array<array<string>>' },
      { table_name: 'contacts', field_name: 'date_of_birth', data_type: 'USER-DEFINED' },
      { table_name: 'contacts', field_name: 'social_security_number', data_type: 'object' },
      { table_name: 'contacts', field_name: 'mobile_phone', data_type: 'text[]' },
    ]);
    assert.equal(field_ids.length, 6);
    assert.equal((await getField(field_ids[0] as string)).classification_chain_path, 'Personal/Contact/Email address');
    assert.equal((await getField(field_ids[1] as string)).classification_chain_path, 'Personal/Contact/Phone number');
    assert.equal((await getField(field_ids[3] as string)).classification_chain_path, 'Personal/Identity/Date of birth');
    assert.equal(
      (await getField(field_ids[4] as string)).classification_chain_path,
      'Personal/Identity/National ID number',
    );
    assert.equal((await getField(field_ids[5] as string)).classification_chain_path, 'Personal/Contact/Phone number');
  });

  it("reads a table's other columns as context, those of the same batch and those imported before", async () => {
    const source = await freshSource();
    // The table's name says nothing; its other columns say it holds people.
    await importOk(t.app, token, source, [
      { table_name: 'tbl_rec', field_name: 'email_addr', data_type: 'varchar(120)' },
      { table_name: 'tbl_rec', field_name: 'home_phone', data_type: 'varchar(30)' },
    ]);
    const { field_ids } = await importOk(t.app, token, source, [
      { table_name: 'tbl_rec', field_name: 'date_of_birth', data_type: 'date' },
      { table_name: 'tbl_rec', field_name: 'nm', data_type: 'varchar(80)' },
      { table_name: 'tbl_other', field_name: 'nm', data_type: 'varchar(80)' },
    ]);
    const person = (await getField(field_ids[1] as string)) as unknown as {
      classification_chain_path: string;
      classification_evidence: Array<{ factor: string; detail: string }>;
    };
    assert.equal(person.classification_chain_path, 'Personal/Identity/Full name');
    assert.ok(
      person.classification_evidence.some((e) => e.factor === 'context' && e.detail.includes('email_addr')),
      'the evidence names a column imported in the earlier batch',
    );
    assert.notEqual(
      (await getField(field_ids[2] as string)).classification_chain_path,
      'Personal/Identity/Full name',
      'another table of the same source is not context',
    );
  });

  it("gives a field named by tag but not level the tag's default level", async () => {
    const source = await freshSource();
    const { field_ids } = await importOk(t.app, token, source, [
      { table_name: 'cards', field_name: 'pan', classification_tag_id: tagId('Financial/Payment card number') },
    ]);
    assert.equal(
      (await getField(field_ids[0] as string)).level,
      tags.get('Financial/Payment card number')?.default_level,
    );
  });

  it('accepts both tag id and chain path when they agree, and 422 when they disagree', async () => {
    const source = await freshSource();
    await importOk(t.app, token, source, [
      {
        table_name: 'a',
        field_name: 'b',
        classification_tag_id: tagId('Technical/Timestamp'),
        classification_chain_path: 'Technical/Timestamp',
      },
    ]);
    const response = await importFields(t.app, token, source, [
      {
        table_name: 'a',
        field_name: 'c',
        classification_tag_id: tagId('Technical/Timestamp'),
        classification_chain_path: 'Technical/Record ID',
      },
    ]);
    assert.equal(response.statusCode, 422);
    assert.deepEqual(
      problem(response).errors?.map((e) => e.path),
      ['/fields/0/classification_chain_path'],
    );
  });

  describe('bad input gives a clear problem and writes nothing', () => {
    const badCases: Array<{
      name: string;
      status: number;
      code: string;
      fields: (source: string) => FieldInput[];
      paths?: string[];
      source?: string;
    }> = [
      {
        name: 'an over-long table name',
        status: 400,
        code: 'validation_failed',
        fields: () => [{ table_name: 'x'.repeat(129), field_name: 'a' }],
        paths: ['/fields/0/table_name'],
      },
      {
        name: 'an over-long field name',
        status: 400,
        code: 'validation_failed',
        fields: () => [...manyFields(3), { table_name: 't', field_name: 'y'.repeat(129) }],
        paths: ['/fields/3/field_name'],
      },
      {
        name: 'a control character in a name',
        status: 400,
        code: 'validation_failed',
        fields: () => [{ table_name: 't', field_name: 'a\u0007b' }],
        paths: ['/fields/0/field_name'],
      },
      {
        name: 'a newline in a table name',
        status: 400,
        code: 'validation_failed',
        fields: () => [{ table_name: 't\nforged log line', field_name: 'a' }],
        paths: ['/fields/0/table_name'],
      },
      { name: '5001 fields', status: 400, code: 'validation_failed', fields: () => manyFields(5001) },
      { name: 'no fields', status: 400, code: 'validation_failed', fields: () => [] },
      {
        name: 'duplicate rows',
        status: 400,
        code: 'validation_failed',
        fields: () => [
          { table_name: 't', field_name: 'a' },
          { table_name: 't', field_name: 'b' },
          { table_name: 't', field_name: 'a' },
        ],
        paths: ['/fields/2'],
      },
      {
        name: 'a tag id that does not exist',
        status: 422,
        code: 'unprocessable',
        fields: () => [...manyFields(17), { table_name: 't', field_name: 'a', classification_tag_id: 999_999 }],
        paths: ['/fields/17/classification_tag_id'],
      },
      {
        name: 'a chain path that does not exist',
        status: 422,
        code: 'unprocessable',
        fields: () => [{ table_name: 't', field_name: 'a', classification_chain_path: 'Personal/Nope' }],
        paths: ['/fields/0/classification_chain_path'],
      },
      {
        name: 'an unknown level',
        status: 422,
        code: 'unprocessable',
        fields: () => [{ table_name: 't', field_name: 'a', level: 'L9' }],
        paths: ['/fields/0/level'],
      },
      {
        name: 'an unknown data source',
        status: 404,
        code: 'not_found',
        fields: () => manyFields(2),
        source: '00000000-0000-4000-8000-000000000000',
      },
    ];

    for (const bad of badCases) {
      it(bad.name, async () => {
        const source = await freshSource();
        const fieldsBefore = await countRows(t.database, 'fields');
        const auditBefore = await countRows(t.database, 'audit_log');
        const response = await importFields(t.app, token, bad.source ?? source, bad.fields(source));
        assert.equal(response.statusCode, bad.status, response.body);
        const body = problem(response);
        assert.equal(body.code, bad.code);
        assert.ok(body.detail.length > 0);
        if (bad.paths)
          assert.deepEqual(
            body.errors?.map((e) => e.path),
            bad.paths,
          );
        assert.equal(await countRows(t.database, 'fields'), fieldsBefore);
        assert.equal(await countRows(t.database, 'audit_log'), auditBefore);
      });
    }

    it('duplicate rows: the problem names both indexes', async () => {
      const source = await freshSource();
      const response = await importFields(t.app, token, source, [
        { table_name: 't', field_name: 'a' },
        { table_name: 't', field_name: 'b' },
        { table_name: 't', field_name: 'a' },
      ]);
      const body = problem(response);
      assert.match(body.errors?.[0]?.message ?? '', /\/fields\/0/);
      assert.match(body.detail, /\/fields\/2/);
    });

    it('a bad row among good ones leaves the existing rows untouched', async () => {
      const source = await freshSource();
      const { field_ids } = await importOk(t.app, token, source, [
        { table_name: 't', field_name: 'kept', data_type: 'int', classification_chain_path: 'Technical/Record ID' },
      ]);
      const response = await importFields(t.app, token, source, [
        { table_name: 't', field_name: 'kept', data_type: 'text', classification_chain_path: 'Technical/Record ID' },
        { table_name: 't', field_name: 'bad', classification_tag_id: 999_999 },
      ]);
      assert.equal(response.statusCode, 422);
      assert.equal((await getField(field_ids[0] as string)).data_type, 'int');
    });

    it('a 10 MB body is refused with 413', async () => {
      const source = await freshSource();
      const before = await countRows(t.database, 'fields');
      const huge = 'x'.repeat(10 * 1024 * 1024);
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/fields/import',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        payload: JSON.stringify({
          datasource_id: source,
          fields: [{ table_name: 't', field_name: 'a', comment: huge }],
        }),
      });
      assert.equal(response.statusCode, 413);
      assert.equal(problem(response).code, 'payload_too_large');
      assert.equal(await countRows(t.database, 'fields'), before);
    });
  });

  it('imports 5000 fields in one call (chunked writes)', async () => {
    const source = await freshSource();
    const result = await importOk(t.app, token, source, manyFields(5000, 'big'));
    assert.equal(result.created, 5000);
    assert.equal(new Set(result.field_ids).size, 5000);
    const again = await importOk(t.app, token, source, manyFields(5000, 'big'));
    assert.equal(again.updated, 5000);
    assert.deepEqual(again.field_ids, result.field_ids);
  });

  describe('access', () => {
    it('answers 401 without a token on every field route', async () => {
      for (const request of [
        {
          method: 'POST' as const,
          url: '/api/v1/fields/import',
          payload: { datasource_id: '00000000-0000-4000-8000-000000000000', fields: [] },
        },
        { method: 'GET' as const, url: '/api/v1/fields' },
        { method: 'GET' as const, url: '/api/v1/fields/00000000-0000-4000-8000-000000000000' },
      ]) {
        const response = await t.app.inject(request);
        assert.equal(response.statusCode, 401, request.url);
        assert.equal(problem(response).code, 'unauthorized');
      }
    });

    it('answers 403 to roles without field:import, and lets observers read', async () => {
      const source = await freshSource();
      const { field_ids } = await importOk(t.app, token, source, manyFields(1, 'acl'));
      const operator = await createUser(t.app, ['operator']);
      const response = await importFields(t.app, operator.token, source, manyFields(1, 'acl2'));
      assert.equal(response.statusCode, 403);
      assert.equal(problem(response).code, 'forbidden');
      const observer = await createUser(t.app, ['observer']);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/fields', headers: bearer(observer.token) })).statusCode,
        200,
      );
      assert.equal(
        (await t.app.inject({ method: 'GET', url: `/api/v1/fields/${field_ids[0]}`, headers: bearer(observer.token) }))
          .statusCode,
        200,
      );
    });
  });
});
