import {
  type Catalog,
  EMBEDDING_KINDS,
  type EmbeddingKind,
  type ProviderConfig,
  type ProviderKind,
} from '../catalog.ts';
import type {
  EmbeddingsFactory,
  EmbeddingsProvider,
  Provider,
  ProviderFactory,
  Transport,
} from '../provider.ts';
import { createAnthropicProvider } from './anthropic/anthropic.provider.ts';
import { createGeminiEmbeddings } from './gemini/gemini.embeddings.ts';
import { createGeminiProvider } from './gemini/gemini.provider.ts';
import { createOpenAiEmbeddings } from './openai/openai.embeddings.ts';
import { createOpenAiProvider } from './openai/openai.provider.ts';

const FACTORIES: Record<ProviderKind, ProviderFactory> = {
  openai: createOpenAiProvider,
  anthropic: createAnthropicProvider,
  gemini: createGeminiProvider,
};

/** One provider per configured name, each speaking its kind's wire format over `transport`. */
export function createProviders(catalog: Catalog, transport: Transport): Map<string, Provider> {
  const providers = new Map<string, Provider>();
  for (const [name, config] of catalog.providers) {
    providers.set(name, FACTORIES[config.kind](config, transport));
  }
  return providers;
}

/** The kinds with an embeddings API (catalog.ts names them; the catalog refuses the others). */
const EMBEDDINGS: Record<EmbeddingKind, EmbeddingsFactory> = {
  openai: createOpenAiEmbeddings,
  gemini: createGeminiEmbeddings,
};

/** The embeddings API of a configured provider, or undefined when its kind has none. */
export function createEmbeddingsProvider(
  config: ProviderConfig,
  transport: Transport,
): EmbeddingsProvider | undefined {
  return isEmbeddingKind(config.kind) ? EMBEDDINGS[config.kind](config, transport) : undefined;
}

const isEmbeddingKind = (kind: ProviderKind): kind is EmbeddingKind =>
  (EMBEDDING_KINDS as readonly ProviderKind[]).includes(kind);
