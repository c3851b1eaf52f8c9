/**
 * The normalized contract between the gateway and the providers it routes to. The lingua franca
 * is OpenAI's chat completions: a request arrives in that shape (chat.schemas.ts), each provider
 * maps it to its own wire format and maps the answer back to these shapes; `/v1/responses` is
 * translated to and from them too. Imports no vendor: providers import this file, never back.
 */
import type { EmbeddingModelConfig, ModelConfig, ProviderConfig } from './catalog.ts';
import type { ChatRequest, ReasoningDetail, ToolCall } from './chat.schemas.ts';
import type { OpenAiError } from './openai-errors.ts';

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  refusal: string | null;
  tool_calls?: ToolCall[];
  /**
   * A reasoning model's reasoning, as text (the thinking or its summary, as the provider gives
   * it); absent when it gave none. The chat interface also sends it as `reasoning_content`, the
   * spelling several SDKs read.
   */
  reasoning?: string;
  /** The same reasoning as pieces the client sends back (ReasoningDetail). */
  reasoning_details?: ReasoningDetail[];
}

/** `chat.completion`, with `usage` always present. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  /** The id of the model that answered, as the catalog names it (`anthropic/claude-…`). */
  model: string;
  choices: {
    index: number;
    message: ChatCompletionMessage;
    logprobs: null;
    finish_reason: FinishReason;
  }[];
  usage: ChatUsage;
  system_fingerprint?: string | null;
  [passthrough: string]: unknown;
}

/**
 * One delta of a tool call. The first delta of each call carries `index`, `id`, `type` and
 * `function.name` (with `arguments` empty or a first piece); later ones only `index` and the
 * next piece of `function.arguments`.
 */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChatDelta {
  role?: 'assistant';
  content?: string | null;
  refusal?: string | null;
  tool_calls?: ToolCallDelta[];
  /** The next piece of the reasoning's text; it comes before the answer's content. */
  reasoning?: string;
  /**
   * Reasoning pieces (ReasoningDetail), each whole in one delta or, for a text piece, its text
   * in several deltas of the same `index` with the signature in the last; accumulated by index.
   */
  reasoning_details?: ReasoningDetail[];
}

/**
 * `chat.completion.chunk`. A provider's stream of these obeys, for the SDKs' stream helpers:
 * - the first chunk of each choice has `delta.role: "assistant"`;
 * - tool-call deltas follow ToolCallDelta's rule;
 * - the last chunk of each choice carries its `finish_reason`;
 * - after the last choice chunk, exactly one chunk with `choices: []` carries `usage`, whether
 *   or not the client asked for it (the gateway records it, and forwards it only when asked);
 * - every chunk has the same `id` and `created`, and `model` is the catalog id.
 */
export interface ChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: number;
    delta: ChatDelta;
    logprobs?: null;
    finish_reason: FinishReason | null;
  }[];
  usage?: ChatUsage | null;
  system_fingerprint?: string | null;
  [passthrough: string]: unknown;
}

/** What a provider is asked to do: one request, for one model, until `signal` aborts. */
export interface ProviderCall {
  /** The client's request as checked; `model` is still the id the client named. */
  readonly request: ChatRequest;
  readonly model: ModelConfig;
  /** Aborted when the client goes away, or when the gateway gives up waiting. */
  readonly signal: AbortSignal;
}

/**
 * Why a provider did not answer. The router may try another model after `unreachable`,
 * `timeout`, and `status` 429 or 5xx; `key-refused` means the provider refused mnemo's own key,
 * which the caller sees as a 502 (never as their own 401).
 */
export type UpstreamFailure =
  | { readonly kind: 'unreachable'; readonly message: string }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'key-refused'; readonly status: number; readonly message: string }
  | {
      readonly kind: 'status';
      /** The provider's status; the caller gets the same one. */
      readonly status: number;
      /** The provider's error in OpenAI's shape. */
      readonly error: OpenAiError;
      /** From the provider's `retry-after(-ms)`, when it sent one. */
      readonly retryAfterMs?: number | undefined;
    };

export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly failure: UpstreamFailure };

/**
 * Thrown by a chunk stream when the provider fails after its stream began: the gateway ends the
 * client's stream with this error as a `data:` event.
 */
export class UpstreamStreamError extends Error {
  override readonly name = 'UpstreamStreamError';
  readonly error: OpenAiError;
  /**
   * The status the caller gets when this happens before the first chunk, while a status can
   * still be sent (a prompt the provider blocks is a 400, not a 502).
   */
  readonly status: number;
  constructor(error: OpenAiError, status = 502) {
    super(error.message);
    this.error = error;
    this.status = status;
  }
}

/**
 * One provider kind's translation of chat completions (providers/<kind>/<kind>.provider.ts).
 *
 * @example
 * const outcome = await provider.complete({ request, model, signal });
 * if (outcome.ok) reply.send(outcome.value);
 * const streamed = await provider.stream({ request, model, signal });
 * if (streamed.ok) for await (const chunk of streamed.value) write(chunk);
 */
export interface Provider {
  /** A whole completion (`stream` false or absent). */
  complete(call: ProviderCall): Promise<Outcome<ChatCompletion>>;
  /**
   * Settles once the provider accepted the request (its answer's status is known); the chunks
   * then arrive as the provider sends them. Breaking out of the iteration releases the
   * upstream connection.
   */
  stream(call: ProviderCall): Promise<Outcome<AsyncIterable<ChatChunk>>>;
}

/** Builds a kind's provider for one configured provider, sharing `transport`'s pools. */
export type ProviderFactory = (config: ProviderConfig, transport: Transport) => Provider;

/**
 * What vectors are for. Some providers embed a text to be found and a query looking for it
 * differently (Gemini's task types RETRIEVAL_DOCUMENT and RETRIEVAL_QUERY); others alike.
 */
export type EmbeddingPurpose = 'document' | 'query';

/** Texts to embed with one embedding model, until `signal` aborts. */
export interface EmbeddingCall {
  readonly texts: readonly string[];
  readonly model: EmbeddingModelConfig;
  readonly purpose: EmbeddingPurpose;
  readonly signal: AbortSignal;
}

/**
 * One provider kind's embeddings API (providers/<kind>/<kind>.embeddings.ts): one vector per
 * text, in order, as the provider gives it (not necessarily of unit length). Texts beyond what
 * one provider call takes are sent in several.
 *
 * @example
 * const outcome = await embeddings.embed({ texts, model, purpose: 'document', signal });
 * if (outcome.ok) store(outcome.value);
 */
export interface EmbeddingsProvider {
  embed(call: EmbeddingCall): Promise<Outcome<Float32Array[]>>;
}

/** Builds a kind's embeddings API for one configured provider, sharing `transport`'s pools. */
export type EmbeddingsFactory = (
  config: ProviderConfig,
  transport: Transport,
) => EmbeddingsProvider;

export interface TransportResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body, read as it arrives; read it or `dump()` it to free the connection. */
  readonly body: AsyncIterable<Uint8Array> & {
    text(): Promise<string>;
    json(): Promise<unknown>;
    dump(): Promise<void>;
  };
}

/**
 * Outbound HTTP to providers over keep-alive pools (providers/transport.ts). Connection errors
 * and timeouts come back as failures, never as exceptions.
 */
export interface Transport {
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal,
  ): Promise<Outcome<TransportResponse>>;
}
