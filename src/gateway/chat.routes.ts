import type { FastifyInstance, FastifyReply } from 'fastify';
import { type CallUsage, tallyStream } from './call-usage.ts';
import { abortWhenGone } from './caller-connection.ts';
import type { ModelConfig } from './catalog.ts';
import { ChatCompletionObject, type ChatRequest, ChatRequestBody } from './chat.schemas.ts';
import { checkChatRequest } from './chat.validation.ts';
import type { Dispatcher } from './dispatch.ts';
import {
  API_KEY_SECURITY,
  documentedOnly,
  GATEWAY_TAG,
  jsonOrEventStream,
  MemoryHeaders,
  memoryCallErrors,
  otherMethods,
  RECALLED_MEMORIES_HEADER,
  ROUTING_HEADERS,
} from './gateway.openapi.ts';
import type { MemoryCalls } from './memory/memory-calls.ts';
import { GatewayError } from './openai-errors.ts';
import {
  type ChatChunk,
  type ChatCompletion,
  type ChatUsage,
  UpstreamStreamError,
} from './provider.ts';
import { genericError } from './providers/upstream-failure.ts';
import { openEventStream } from './sse.ts';

/**
 * Images travel inside the body as data URLs; OpenAI takes requests of up to 50 MB with images of
 * up to 20 MB each. 32 MiB covers a few such images and still bounds what one call may hold.
 */
export const GATEWAY_BODY_LIMIT = 32 * 1024 * 1024;

export interface ChatRoutesDeps {
  readonly dispatcher: Dispatcher;
  readonly usage: CallUsage;
  /** Recall and learning for calls that ask for memory (docs/memory-chat.md). */
  readonly memory: MemoryCalls;
}

/** `POST /v1/chat/completions` in /openapi.json (gateway.openapi.ts). */
const CHAT_COMPLETIONS_OPERATION = {
  summary: 'Create a chat completion, whole or streamed, on any model of the catalog',
  description: [
    'OpenAI’s chat completions: `model` is a catalog id (`anthropic/claude-sonnet-4-5`) or the router, `auto`. The body is checked before anything is sent; fields it does not name go through untouched to OpenAI-compatible providers.',
    'Refused with 400 beyond the schema: a `tool` message that answers no call of an earlier assistant message; images, tools or `response_format` to a model without them (`model_not_capable`); `reasoning_effort` to a model named directly that does not reason (`unsupported_parameter`); settings extended thinking refuses (`unsupported_value`, docs/gateway.md); a request no model of the router can serve (`model_not_available`).',
    `With \`stream: true\` the answer is server-sent events. ${otherMethods('POST')}`,
  ].join('\n\n'),
  tags: [GATEWAY_TAG],
  security: API_KEY_SECURITY,
  headers: MemoryHeaders,
  body: ChatRequestBody,
  response: {
    200: jsonOrEventStream(
      'A `chat.completion`, its `usage` always present; streamed, its chunks',
      ChatCompletionObject,
      'Server-sent events, each `data: ` and one `chat.completion.chunk` as OpenAI sends them (the first delta with `role`, a tool call’s first delta with its `index`, `id`, `type` and `function.name`, the last chunk of each choice with its `finish_reason`), then, with `stream_options.include_usage`, a chunk with `choices: []` and the `usage`, then `data: [DONE]`. A provider that fails after the stream began ends it with `data: {"error": {…}}` in OpenAI’s error shape, and no `[DONE]`.',
      { ...ROUTING_HEADERS, ...RECALLED_MEMORIES_HEADER },
    ),
    ...memoryCallErrors(
      'The body breaks its schema (`missing_required_parameter`, `invalid_type`, `invalid_value`, naming the parameter: `messages[1].tool_call_id`), is no JSON (`malformed_json`) or nests deeper than 100 levels (`json_too_deep`), or a rule beyond the schema (see the description); a memory header is wrong (`invalid_memory_mode`, `invalid_project`, `invalid_user`, `user_with_project`); or the provider’s own 400',
    ),
  },
};

/**
 * `POST /v1/chat/completions`, as OpenAI's API reference describes it, for every provider:
 * a whole `chat.completion`, or with `stream: true` server-sent `chat.completion.chunk` events
 * ending in `data: [DONE]` (the usage chunk only when `stream_options.include_usage` asks).
 */
export function registerChatRoutes(app: FastifyInstance, deps: ChatRoutesDeps): void {
  const { dispatcher, usage, memory } = deps;

  app.post(
    '/chat/completions',
    { bodyLimit: GATEWAY_BODY_LIMIT, config: documentedOnly(CHAT_COMPLETIONS_OPERATION) },
    async (request, reply) => {
      const startedAt = Date.now();
      const checked = checkChatRequest(request.body);
      if (checked instanceof GatewayError) throw checked;
      const caller = request.keyHolder;
      const recall = await memory.forCall(request.headers, caller, checked);
      const chat = recall ? recall.chat : checked;
      const signal = abortWhenGone(reply);
      const finished = (model: ModelConfig | undefined, status: number, reported?: ChatUsage) =>
        usage.finished({ caller, model, usage: reported, status, startedAt });

      if (chat.stream === true) {
        const dispatched = await dispatcher.stream(chat, signal);
        if (!dispatched.ok) {
          finished(dispatched.model, signal.aborted ? 499 : dispatched.error.status);
          throw dispatched.error;
        }
        const tally = tallyStream(dispatched.value, chat);
        const headers = recall ? { ...dispatched.headers, ...recall.headers } : dispatched.headers;
        const status = await relay(reply, chat, tally.chunks, headers);
        finished(dispatched.model, status, tally.usage());
        if (status === 200) recall?.answered(tally.text());
        return reply;
      }

      const dispatched = await dispatcher.complete(chat, signal);
      if (!dispatched.ok) {
        finished(dispatched.model, signal.aborted ? 499 : dispatched.error.status);
        throw dispatched.error;
      }
      finished(dispatched.model, 200, dispatched.value.usage);
      if (recall) reply.headers(recall.headers);
      reply.headers(dispatched.headers).send(withReasoningContent(dispatched.value));
      recall?.answered(dispatched.value.choices[0]?.message.content ?? null);
      return reply;
    },
  );
}

/**
 * A whole answer's reasoning text under both of its spellings: `reasoning`, and
 * `reasoning_content`, which several SDKs read (the AI SDK's OpenAI-compatible provider,
 * DeepSeek's and vLLM's clients). A message without reasoning gets neither: strict clients
 * compare fields. Streamed deltas keep `reasoning` alone, which those SDKs read as well.
 */
function withReasoningContent(completion: ChatCompletion): ChatCompletion {
  for (const { message } of completion.choices) {
    if (typeof message.reasoning === 'string') {
      Object.assign(message, { reasoning_content: message.reasoning });
    }
  }
  return completion;
}

/**
 * Forwards the chunks one for one as they arrive, and says what the caller got: 200; 502 when
 * the provider failed mid-stream; 499 when the caller left.
 */
async function relay(
  reply: FastifyReply,
  request: ChatRequest,
  chunks: AsyncIterable<ChatChunk>,
  headers: Readonly<Record<string, string>>,
): Promise<number> {
  const wantsUsage = request.stream_options?.include_usage === true;
  const events = openEventStream(reply, headers);
  let status = 200;
  try {
    for await (const chunk of chunks) {
      if (chunk.choices.length === 0) {
        if (!wantsUsage) continue;
      } else if (wantsUsage) {
        // As OpenAI does: with include_usage every chunk has `usage`, null but on the last.
        chunk.usage = null;
      }
      if (!(await events.send(`data: ${JSON.stringify(chunk)}\n\n`))) {
        status = 499;
        break;
      }
    }
    if (status === 200) await events.send('data: [DONE]\n\n');
  } catch (error) {
    status = 502;
    const failure =
      error instanceof UpstreamStreamError
        ? error.error
        : genericError(502, 'The connection to the provider was lost mid-stream.');
    // OpenAI's own way of failing after the 200: a `data:` event carrying the error.
    await events.send(`data: ${JSON.stringify({ error: failure })}\n\n`);
  }
  events.end();
  return status;
}
