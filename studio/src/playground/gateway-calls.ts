import { EventSourceParserStream } from 'eventsource-parser/stream';
import { ApiError, errorFromResponse } from '../api/errors.ts';
import type { MemoryMode } from '../keys/key-memory.ts';

/**
 * `/v1` as any OpenAI client calls it, with an API key: not in the platform API's OpenAPI
 * document, so spoken here by hand over fetch (docs/gateway.md describes the wire).
 */

export interface GatewayModel {
  readonly id: string;
  /** The catalog's provider name; `mnemo` for the router. */
  readonly ownedBy: string;
}

export interface ModelList {
  /** The router (`auto`), which picks a catalog model for each request. */
  readonly router: GatewayModel | undefined;
  /** The catalog's models, in the catalog's order. */
  readonly models: readonly GatewayModel[];
}

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** Who answered and why, from the answer's `x-mnemo-*` headers. */
export interface Routing {
  readonly model: string | null;
  readonly provider: string | null;
  readonly route: string | null;
}

export interface Usage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
}

/** What a streamed answer brings, in order: pieces of text, then its usage. */
export type ChatEvent = { type: 'text'; text: string } | { type: 'usage'; usage: Usage };

const send = async (input: string, init: RequestInit): Promise<Response> => {
  try {
    return await fetch(input, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new ApiError(0, 'network error');
  }
};

/** `GET /v1/models`: the router apart (its provider is `mnemo`), the catalog's models in order. */
export async function listModels(secret: string): Promise<ModelList> {
  const response = await send('/v1/models', { headers: { authorization: `Bearer ${secret}` } });
  if (!response.ok) throw await errorFromResponse(response);
  const body = (await response.json()) as { data: { id: string; owned_by: string }[] };
  const all = body.data.map((model) => ({ id: model.id, ownedBy: model.owned_by }));
  return {
    router: all.find((model) => model.ownedBy === 'mnemo'),
    models: all.filter((model) => model.ownedBy !== 'mnemo'),
  };
}

/**
 * `POST /v1/chat/completions` streamed, with the usage asked for. Resolves once the answer has
 * begun (its routing known) or throws the refusal as an ApiError; the events then follow as
 * the gateway forwards them. A failure after the start arrives as an error event of OpenAI's
 * shape, thrown from `events` as an ApiError.
 */
export async function startChat(request: {
  secret: string;
  model: string;
  messages: readonly ChatMessage[];
  /** What the call does with the person's memories (`x-mnemo-memory`). */
  memory: MemoryMode;
  signal: AbortSignal;
}): Promise<{
  routing: Routing;
  /** The memories recalled into the prompt, by id; undefined when the call had no memory. */
  recalled: readonly string[] | undefined;
  events: AsyncGenerator<ChatEvent>;
}> {
  const response = await send('/v1/chat/completions', {
    method: 'POST',
    signal: request.signal,
    headers: {
      authorization: `Bearer ${request.secret}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'x-mnemo-memory': request.memory,
    },
    body: JSON.stringify({
      model: request.model,
      messages: request.messages,
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  if (!response.ok || !response.body) throw await errorFromResponse(response);
  const recalled = response.headers.get('x-mnemo-memories');
  return {
    routing: {
      model: response.headers.get('x-mnemo-model'),
      provider: response.headers.get('x-mnemo-provider'),
      route: response.headers.get('x-mnemo-route'),
    },
    // Present, though empty, whenever the call used memory; absent when it did not.
    recalled: recalled === null ? undefined : recalled.split(',').filter((id) => id !== ''),
    events: readEvents(response.body, response.status),
  };
}

interface Chunk {
  choices?: { delta?: { content?: string | null } }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
  error?: { message?: string };
}

async function* readEvents(body: ReadableStream<BufferSource>, status: number) {
  const reader = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value.data === '[DONE]') return;
      const chunk = JSON.parse(value.data) as Chunk;
      if (chunk.error) {
        throw new ApiError(status === 200 ? 502 : status, chunk.error.message ?? 'stream failed');
      }
      const text = chunk.choices?.[0]?.delta?.content;
      if (text) yield { type: 'text', text } as const;
      if (chunk.usage) {
        yield {
          type: 'usage',
          usage: {
            promptTokens: chunk.usage.prompt_tokens,
            completionTokens: chunk.usage.completion_tokens,
            totalTokens: chunk.usage.total_tokens,
          },
        } as const;
      }
    }
  } catch (error) {
    if (error instanceof ApiError || (error instanceof DOMException && error.name === 'AbortError'))
      throw error;
    // A connection cut mid-answer.
    throw new ApiError(0, 'the answer broke off');
  } finally {
    reader.releaseLock();
  }
}
