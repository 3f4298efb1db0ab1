// Public embedding interface: the rest of FieldLens codes against `Embedder` and `createEmbedder` only.
import { BuiltinEmbedder } from './builtin-embedder.js';
import { OpenAiEmbedder } from './openai-embedder.js';

export interface FieldEmbeddingInput {
  table_name: string;
  field_name: string;
  comment?: string | null;
  data_type?: string | null;
  format_signature?: string | null;
}

export interface Embedder {
  /** Identifies the model + recipe; stored with each embedding, e.g. 'builtin-wv100-v2'. */
  readonly version: string;
  readonly dimensions: number;
  /** Unit-length embeddings, one per input, same order. */
  embedFields(inputs: FieldEmbeddingInput[]): Promise<Float32Array[]>;
  /** Unit-length embeddings of free text (taxonomy tag anchors: name, chain path, description, keywords). */
  embedTexts(texts: string[]): Promise<Float32Array[]>;
}

export type EmbedderConfig =
  { provider: 'builtin' } | { provider: 'openai'; url: string; model: string; apiKey?: string; timeoutMs?: number };

/** Build the configured embedder; the builtin one reads its few-MB vector file synchronously here. */
export function createEmbedder(config: EmbedderConfig): Embedder {
  switch (config.provider) {
    case 'builtin':
      return new BuiltinEmbedder();
    case 'openai':
      return new OpenAiEmbedder(config);
  }
}
