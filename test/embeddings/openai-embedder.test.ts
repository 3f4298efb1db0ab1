import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createEmbedder } from '../../src/embeddings/embedder.js';
import { EmbeddingProviderError, OpenAiEmbedder, describeField } from '../../src/embeddings/openai-embedder.js';

interface Call {
  path: string;
  auth: string | undefined;
  body: { model: string; input: string[] };
}

// A tiny OpenAI-compatible server on 127.0.0.1; behaviour switched per test.
let mode: 'ok' | 'error' | 'slow' | 'short' | 'reversed' | 'garbage' = 'ok';
const calls: Call[] = [];
let server: Server;
let url: string;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let s = '';
    req.on('data', (c: Buffer) => (s += c.toString()));
    req.on('end', () => resolve(s));
  });
}

// Deterministic, non-normalised 3-d vector derived from the text.
function fakeEmbedding(text: string): number[] {
  return [text.length, (text.charCodeAt(0) || 1) % 7, 3];
}

before(async () => {
  server = createServer((req, res) => {
    void (async () => {
      const body = JSON.parse(await readBody(req)) as Call['body'];
      calls.push({ path: req.url ?? '', auth: req.headers.authorization, body });
      if (mode === 'error') {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"model loading"}');
        return;
      }
      if (mode === 'slow') {
        setTimeout(() => res.writeHead(200).end('{}'), 500);
        return;
      }
      if (mode === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('not json');
        return;
      }
      let data = body.input.map((t, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(t) }));
      if (mode === 'short') data = data.slice(1);
      if (mode === 'reversed') data = data.reverse();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data, model: body.model }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  mode = 'ok';
  calls.length = 0;
});

describe('openai-compatible embedder', () => {
  it('posts {model, input} to /v1/embeddings, normalises and keeps order', async () => {
    const e = createEmbedder({ provider: 'openai', url: url + '/', model: 'nomic-embed-text', apiKey: 'k-123' });
    const out = await e.embedTexts(['alpha', 'be']);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.path, '/v1/embeddings');
    assert.equal(calls[0]?.auth, 'Bearer k-123');
    assert.deepEqual(calls[0]?.body, { model: 'nomic-embed-text', input: ['alpha', 'be'] });
    assert.equal(e.dimensions, 3);
    assert.equal(e.version, 'openai-v1:nomic-embed-text');
    const raw = fakeEmbedding('alpha');
    const n = Math.hypot(...raw);
    assert.ok(Math.abs((out[0]?.[0] ?? 0) - raw[0]! / n) < 1e-6);
    for (const v of out) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-6);
  });

  it('batches at most 256 inputs per call', async () => {
    const e = new OpenAiEmbedder({ url, model: 'm', batchSize: 1000 });
    const texts = Array.from({ length: 600 }, (_, i) => `text ${i}`);
    const out = await e.embedTexts(texts);
    assert.deepEqual(
      calls.map((c) => c.body.input.length),
      [256, 256, 88],
    );
    assert.equal(out.length, 600);
    // Result i belongs to text i.
    const n = Math.hypot(...fakeEmbedding('text 599'));
    assert.ok(Math.abs((out[599]?.[0] ?? 0) - 'text 599'.length / n) < 1e-6);
  });

  it('uses the index field when the server answers out of order', async () => {
    mode = 'reversed';
    const e = new OpenAiEmbedder({ url, model: 'm' });
    const [a] = await e.embedTexts(['a', 'much longer text']);
    const n = Math.hypot(...fakeEmbedding('a'));
    assert.ok(Math.abs((a?.[0] ?? 0) - 1 / n) < 1e-6);
  });

  it('turns fields into one descriptive string each', async () => {
    const e = new OpenAiEmbedder({ url, model: 'm' });
    await e.embedFields([
      {
        table_name: 'crm_contacts',
        field_name: 'cust_dob',
        comment: 'Date of birth',
        data_type: 'date',
        format_signature: 'date',
      },
    ]);
    const text = calls[0]?.body.input[0] ?? '';
    assert.equal(
      text,
      describeField({
        table_name: 'crm_contacts',
        field_name: 'cust_dob',
        comment: 'Date of birth',
        data_type: 'date',
        format_signature: 'date',
      }),
    );
    assert.match(text, /customer birth date/);
    assert.match(text, /crm contacts/);
    assert.match(text, /Date of birth/);
  });

  it('fails clearly on HTTP errors, bad JSON, wrong counts and timeouts', async () => {
    const e = new OpenAiEmbedder({ url, model: 'm', timeoutMs: 100 });
    mode = 'error';
    await assert.rejects(
      e.embedTexts(['x']),
      (err: unknown) => err instanceof EmbeddingProviderError && err.status === 503 && /503/.test(err.message),
    );
    mode = 'garbage';
    await assert.rejects(e.embedTexts(['x']), /invalid JSON/);
    mode = 'short';
    await assert.rejects(e.embedTexts(['x', 'y']), /1 embeddings for 2 inputs/);
    mode = 'slow';
    await assert.rejects(e.embedTexts(['x']), /timed out after 100 ms/);
  });

  it('fails clearly when nothing listens', async () => {
    const e = new OpenAiEmbedder({ url: 'http://127.0.0.1:9', model: 'm', timeoutMs: 2000 });
    await assert.rejects(e.embedTexts(['x']), /failed/);
  });

  it('rejects a missing url or model', () => {
    assert.throws(() => new OpenAiEmbedder({ url: '', model: 'm' }), /url/);
    assert.throws(() => new OpenAiEmbedder({ url, model: '' }), /model/);
  });
});
