import type { Catalog, ProviderConfig, ProviderKind } from '../catalog.ts';
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

/** The kinds with an embeddings API: Anthropic has none (the catalog refuses such a model). */
const EMBEDDINGS: Record<ProviderKind, EmbeddingsFactory | undefined> = {
  openai: createOpenAiEmbeddings,
  anthropic: undefined,
  gemini: createGeminiEmbeddings,
};

/** The embeddings API of a configured provider, or undefined when its kind has none. */
export function createEmbeddingsProvider(
  config: ProviderConfig,
  transport: Transport,
): EmbeddingsProvider | undefined {
  return EMBEDDINGS[config.kind]?.(config, transport);
}
