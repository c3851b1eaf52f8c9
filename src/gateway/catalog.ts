/**
 * What the gateway can route to: the providers, their models, and the router's order. Read from
 * `mnemo.config.json` (or the file `MNEMO_CONFIG` names), or built from the conventional
 * provider variables when there is no file (gateway-config.ts).
 */
export type ProviderKind = 'openai' | 'anthropic' | 'gemini';

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

export interface Catalog {
  readonly providers: ReadonlyMap<string, ProviderConfig>;
  /** In the configuration's order. */
  readonly models: readonly ModelConfig[];
  /** The router model: its id (`auto`) and the model ids it tries, in order. */
  readonly router: { readonly id: string; readonly order: readonly string[] };
}
