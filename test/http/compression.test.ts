// Compression of answers: a large answer (a 500-row field page) is compressed with the encoding the client accepts
// (br or gzip) and decompresses to the same JSON; without Accept-Encoding, or for a small answer, it is sent as is.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { adminToken, bearer, buildTestApp, type TestApp } from '../helpers/app.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { createDatasource, importOk, manyFields } from '../modules/fields/factories.js';

describeEachDatabase('compression', (kind) => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp(kind);
    await t.app.services.metricsWorker.stop();
    token = await adminToken(t.app);
    await importOk(t.app, token, await createDatasource(t.app, token), manyFields(300));
  });
  after(async () => t.close());

  const page = (headers: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: '/api/v1/fields?limit=500', headers: { ...bearer(token), ...headers } });

  it('compresses a large answer with the encoding the client accepts, and not at all without Accept-Encoding', async () => {
    const plain = await page({});
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.rawPayload.length > 50_000, `${plain.rawPayload.length} bytes`);
    const expected: unknown = JSON.parse(plain.body);
    for (const [accept, encoding, inflate] of [
      ['gzip', 'gzip', gunzipSync],
      ['br', 'br', brotliDecompressSync],
      ['gzip, deflate, br', 'br', brotliDecompressSync],
    ] as const) {
      const packed = await page({ 'accept-encoding': accept });
      assert.equal(packed.statusCode, 200);
      assert.equal(packed.headers['content-encoding'], encoding, accept);
      assert.match(String(packed.headers.vary), /accept-encoding/i);
      assert.ok(
        packed.rawPayload.length * 5 < plain.rawPayload.length,
        `${accept}: ${packed.rawPayload.length} of ${plain.rawPayload.length} bytes`,
      );
      assert.deepEqual(JSON.parse(inflate(packed.rawPayload).toString('utf8')), expected);
    }
    assert.equal((await page({ 'accept-encoding': 'identity' })).headers['content-encoding'], undefined);
  });

  it('sends a small answer (under 1 KB) uncompressed', async () => {
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { ...bearer(token), 'accept-encoding': 'gzip, br' },
    });
    assert.equal(me.statusCode, 200);
    assert.ok(me.rawPayload.length < 1024);
    assert.equal(me.headers['content-encoding'], undefined);
  });
});
