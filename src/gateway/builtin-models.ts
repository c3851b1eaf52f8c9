import type { EmbeddingModelConfig, ModelConfig, ProviderKind } from './catalog.ts';

/** Models that think before they answer (extended thinking, Gemini's thinking, o-series). */
const REASONS = { reasoning: true } as const;

/**
 * The providers the conventional variables switch on when there is no `mnemo.config.json`
 * (docs/design.md §4), in the router's order, each with its models as the provider lists them.
 * Prices are list prices in US dollars per million tokens (standard tier; Gemini 2.5 Pro's for
 * prompts up to 200k tokens), context windows the provider's default ones.
 */
export interface BuiltinProvider {
  readonly name: string;
  readonly kind: ProviderKind;
  readonly apiKeyEnv: string;
  readonly baseUrlEnv: string;
  /** The API root as the provider's own SDK takes it. */
  readonly defaultBaseUrl: string;
  readonly models: readonly ModelConfig[];
  /** Offered to memory search (MNEMO_SEARCH_EMBEDDING_MODEL), never on `/v1`. */
  readonly embeddingModels: readonly EmbeddingModelConfig[];
}

function model(
  provider: string,
  upstream: string,
  contextWindow: number,
  input: number,
  output: number,
  abilities: { readonly reasoning: boolean } = { reasoning: false },
): ModelConfig {
  // Every model listed here takes images, calls tools and answers in JSON on request.
  return Object.freeze({
    id: `${provider}/${upstream}`,
    provider,
    upstream,
    vision: true,
    tools: true,
    jsonOutput: true,
    reasoning: abilities.reasoning,
    contextWindow,
    price: Object.freeze({ input, output }),
  });
}

/**
 * Vectors of 512 dimensions from OpenAI (its `dimensions`: text-embedding-3 models are trained
 * so that their first dimensions stand alone) and 768 from Gemini (among the sizes Google
 * recommends): a store of 100,000 memories is then 200 or 300 MB of vectors, not 600 or 1,200.
 */
function embedding(provider: string, upstream: string, dimensions: number): EmbeddingModelConfig {
  return Object.freeze({
    id: `${provider}/${upstream}`,
    provider,
    upstream,
    dimensions,
    minSimilarity: 0,
  });
}

export const BUILTIN_PROVIDERS: readonly BuiltinProvider[] = Object.freeze([
  {
    name: 'openai',
    kind: 'openai',
    apiKeyEnv: 'OPENAI_API_KEY',
    baseUrlEnv: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com/v1',
    models: [
      model('openai', 'gpt-4.1', 1_047_576, 2.0, 8.0),
      model('openai', 'gpt-4.1-mini', 1_047_576, 0.4, 1.6),
      model('openai', 'gpt-4o', 128_000, 2.5, 10.0),
      model('openai', 'gpt-4o-mini', 128_000, 0.15, 0.6),
      model('openai', 'o4-mini', 200_000, 1.1, 4.4, REASONS),
    ],
    embeddingModels: [embedding('openai', 'text-embedding-3-small', 512)],
  },
  {
    name: 'anthropic',
    kind: 'anthropic',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    baseUrlEnv: 'ANTHROPIC_BASE_URL',
    defaultBaseUrl: 'https://api.anthropic.com',
    models: [
      model('anthropic', 'claude-sonnet-4-5', 200_000, 3.0, 15.0, REASONS),
      model('anthropic', 'claude-haiku-4-5', 200_000, 1.0, 5.0, REASONS),
      model('anthropic', 'claude-opus-4-1', 200_000, 15.0, 75.0, REASONS),
    ],
    // Anthropic has no embeddings API.
    embeddingModels: [],
  },
  {
    name: 'google',
    kind: 'gemini',
    apiKeyEnv: 'GEMINI_API_KEY',
    baseUrlEnv: 'GEMINI_BASE_URL',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
    models: [
      model('google', 'gemini-2.5-pro', 1_048_576, 1.25, 10.0, REASONS),
      model('google', 'gemini-2.5-flash', 1_048_576, 0.3, 2.5, REASONS),
      model('google', 'gemini-2.5-flash-lite', 1_048_576, 0.1, 0.4, REASONS),
    ],
    embeddingModels: [embedding('google', 'gemini-embedding-001', 768)],
  },
] satisfies BuiltinProvider[]);
