// Optional provider: any OpenAI-compatible `POST {url}/v1/embeddings` endpoint (e.g. a local model server).
import type { Embedder, FieldEmbeddingInput } from './embedder.js';
import { formatSignatureWords } from './format-signature.js';
import { tokenizeDataType, tokenizeIdentifier } from './tokenizer.js';

export interface OpenAiEmbedderOptions {
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
  /** Inputs per request; capped at 256. */
  batchSize?: number;
}

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

const MAX_BATCH = 256;

/** Error from the embeddings endpoint, with the HTTP status when there was one. */
export class EmbeddingProviderError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'EmbeddingProviderError';
  }
}

/** One descriptive sentence per field: readable words, so a general-purpose text model understands it. */
export function describeField(f: FieldEmbeddingInput): string {
  const parts = [`column ${tokenizeIdentifier(f.field_name).join(' ')} (${f.field_name})`];
  parts.push(`in table ${tokenizeIdentifier(f.table_name).join(' ')}`);
  if (f.data_type) parts.push(`type ${tokenizeDataType(f.data_type).join(' ') || f.data_type}`);
  if (f.format_signature) parts.push(`values look like ${formatSignatureWords(f.format_signature).join(' ')}`);
  let s = parts.join(', ');
  if (f.comment) s += `. ${f.comment}`;
  return s;
}

export class OpenAiEmbedder implements Embedder {
  readonly version: string;
  private dims = 0;
  private readonly endpoint: string;
  private readonly batchSize: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    if (!options.url) throw new Error('openai embedder: url is required');
    if (!options.model) throw new Error('openai embedder: model is required');
    this.endpoint = options.url.replace(/\/+$/, '').replace(/\/v1$/, '') + '/v1/embeddings';
    this.batchSize = Math.max(1, Math.min(MAX_BATCH, options.batchSize ?? MAX_BATCH));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.version = `openai-v1:${options.model}`; // v1 = describeField recipe
  }

  /** Known after the first successful call (0 before); every later response must match it. */
  get dimensions(): number {
    return this.dims;
  }

  async embedFields(inputs: FieldEmbeddingInput[]): Promise<Float32Array[]> {
    return this.embedTexts(inputs.map(describeField));
  }

  async embedTexts(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      // Empty strings are rejected by some servers; a single space embeds as "nothing".
      const batch = texts.slice(i, i + this.batchSize).map((t) => (t && t.trim() ? t : ' '));
      out.push(...(await this.request(batch)));
    }
    return out;
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.options.model, input }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const e = err as Error;
      if (e.name === 'TimeoutError' || e.name === 'AbortError') {
        throw new EmbeddingProviderError(`embeddings request to ${this.endpoint} timed out after ${this.timeoutMs} ms`);
      }
      throw new EmbeddingProviderError(`embeddings request to ${this.endpoint} failed: ${e.message}`);
    }
    if (!res.ok) {
      const body = (await res.text().catch(() => '')).slice(0, 300);
      throw new EmbeddingProviderError(
        `embeddings endpoint ${this.endpoint} answered ${res.status}: ${body}`,
        res.status,
      );
    }
    let json: EmbeddingsResponse;
    try {
      json = (await res.json()) as EmbeddingsResponse;
    } catch {
      throw new EmbeddingProviderError(`embeddings endpoint ${this.endpoint} returned invalid JSON`, res.status);
    }
    const data = json.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new EmbeddingProviderError(
        `embeddings endpoint returned ${Array.isArray(data) ? data.length : 'no'} embeddings for ${input.length} inputs`,
      );
    }
    const result: Float32Array[] = new Array(input.length);
    data.forEach((item, pos) => {
      // Servers may return items out of order; `index` is authoritative when present.
      const idx = typeof item.index === 'number' ? item.index : pos;
      const emb = item.embedding;
      if (!Array.isArray(emb) || emb.length === 0 || !emb.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new EmbeddingProviderError(`embedding ${idx} is not a non-empty array of finite numbers`);
      }
      if (idx < 0 || idx >= input.length || result[idx] !== undefined) {
        throw new EmbeddingProviderError(`embedding index ${idx} is out of range or repeated`);
      }
      if (this.dims === 0) this.dims = emb.length;
      if (emb.length !== this.dims) {
        throw new EmbeddingProviderError(`embedding has ${emb.length} dimensions, expected ${this.dims}`);
      }
      result[idx] = normalize(emb as number[]);
    });
    return result;
  }
}

function normalize(values: number[]): Float32Array {
  const v = Float32Array.from(values);
  let n = 0;
  for (let i = 0; i < v.length; i++) n += (v[i] as number) ** 2;
  if (n > 0) {
    const inv = 1 / Math.sqrt(n);
    for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv;
  } else {
    // A zero vector has no direction; use a fixed unit vector rather than NaN.
    v.fill(1 / Math.sqrt(v.length));
  }
  return v;
}
