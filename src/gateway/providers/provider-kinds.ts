import type { Catalog, ProviderKind } from '../catalog.ts';
import type { Provider, ProviderFactory, Transport } from '../provider.ts';
import { createGeminiProvider } from './gemini/gemini.provider.ts';
import { createOpenAiProvider } from './openai/openai.provider.ts';

const FACTORIES: Partial<Record<ProviderKind, ProviderFactory>> = {
  openai: createOpenAiProvider,
  gemini: createGeminiProvider,
};

/** One provider per configured name, each speaking its kind's wire format over `transport`. */
export function createProviders(catalog: Catalog, transport: Transport): Map<string, Provider> {
  const providers = new Map<string, Provider>();
  for (const [name, config] of catalog.providers) {
    const factory = FACTORIES[config.kind];
    if (!factory) throw new Error(`no provider implementation for kind ${config.kind}`);
    providers.set(name, factory(config, transport));
  }
  return providers;
}
