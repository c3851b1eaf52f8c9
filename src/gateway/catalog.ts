/**
 * What the gateway can route to: the providers, their models, and the router's order. Read from
 * `mnemo.config.json` (or the file `MNEMO_CONFIG` names), or built from the conventional
 * provider variables when there is no file (gateway-config.ts).
 */
/** The wire formats the gateway speaks, named once: the catalog's schema and the adapters follow. */
export const PROVIDER_KINDS = ['openai', 'anthropic', 'gemini'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** The kinds with an embeddings API (Anthropic has none): only these serve an embedding model. */
export const EMBEDDING_KINDS = ['openai', 'gemini'] as const satisfies readonly ProviderKind[];
export type EmbeddingKind = (typeof EMBEDDING_KINDS)[number];

export interface ProviderConfig {
  /** The provider's name in the configuration: the part of a model id before the slash. */
  readonly name: string;
  readonly kind: ProviderKind;
  /** The API root as the provider's own SDKs take it (docs/design.md §4). */
  readonly baseUrl: string;
  /** The variable the key is read from, and the key itself; undefined when it is not set. */
  readonly apiKeyEnv: string;
  readonly apiKey: string | undefined;
}

export interface ModelConfig {
  /** `provider/model`, as clients name it. */
  readonly id: string;
  readonly provider: string;
  /** The model's name at the provider. */
  readonly upstream: string;
  readonly vision: boolean;
  readonly tools: boolean;
  readonly jsonOutput: boolean;
  /**
   * A reasoning model: it thinks before it answers, and takes `reasoning_effort` (chat) and
   * `reasoning` (responses). Asking a model that does not reason is a 400, as OpenAI answers it.
   */
  readonly reasoning: boolean;
  /** Tokens of prompt and completion together. */
  readonly contextWindow: number;
  /**
   * US dollars per million tokens; none when the operator set none (a self-hosted model): its
   * calls are recorded with an unknown cost, never $0.
   */
  readonly price: { readonly input: number; readonly output: number } | undefined;
}

/**
 * A model that turns text into vectors (`"type": "embedding"` in the file), for memory search.
 * Never offered on `/v1`: not listed, not routed, refused like an unknown model.
 */
export interface EmbeddingModelConfig {
  /** `provider/model`, as the configuration names it. */
  readonly id: string;
  readonly provider: string;
  /** The model's name at the provider. */
  readonly upstream: string;
  /**
   * The vectors' length, asked of the provider (OpenAI's `dimensions`, Gemini's
   * `outputDimensionality`); undefined: the model's own.
   */
  readonly dimensions: number | undefined;
  /**
   * The least cosine similarity at which a memory is found by its vector. What counts as near
   * depends on the model (its unrelated texts may sit at 0.1 or at 0.5); 0 by default.
   */
  readonly minSimilarity: number;
}

/** How memory search uses the catalog. */
export interface SearchSettings {
  /** The embedding model of hybrid search; undefined: search is lexical. */
  readonly embeddingModel: EmbeddingModelConfig | undefined;
}

export interface Catalog {
  readonly providers: ReadonlyMap<string, ProviderConfig>;
  /** The chat models, in the configuration's order. */
  readonly models: readonly ModelConfig[];
  /** The router model: its id (`auto`) and the model ids it tries, in order. */
  readonly router: { readonly id: string; readonly order: readonly string[] };
  /** The embedding models, in the configuration's order. */
  readonly embeddingModels: readonly EmbeddingModelConfig[];
  readonly search: SearchSettings;
}
