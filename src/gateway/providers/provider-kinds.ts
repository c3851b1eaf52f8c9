import type { Catalog, ProviderKind } from '../catalog.ts';
import type { Provider, ProviderFactory, Transport } from '../provider.ts';
import { createAnthropicProvider } from './anthropic/anthropic.provider.ts';
import { createGeminiProvider } from './gemini/gemini.provider.ts';
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
