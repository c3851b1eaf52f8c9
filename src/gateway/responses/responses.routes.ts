import type { FastifyInstance } from 'fastify';
import { Compile } from 'typebox/compile';
import type { CallUsage } from '../call-usage.ts';
import { abortWhenGone } from '../caller-connection.ts';
import type { ModelConfig } from '../catalog.ts';
import { GATEWAY_BODY_LIMIT } from '../chat.routes.ts';
import { checkBody } from '../chat.validation.ts';
import type { Dispatcher } from '../dispatch.ts';
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
} from '../gateway.openapi.ts';
import type { MemoryCalls } from '../memory/memory-calls.ts';
import { GatewayError } from '../openai-errors.ts';
import type { ChatUsage } from '../provider.ts';
import type { Sealer } from '../sealing.ts';
import { openEventStream } from '../sse.ts';
import { registerCompactRoute } from './responses.compact.routes.ts';
import { expandCompactions } from './responses.compact.ts';
import { inResponsesTerms } from './responses.errors.ts';
import { newResponseIds, toResponse } from './responses.mapping.ts';
import { toChatRequest } from './responses.request.ts';
import { startStreamedResponse } from './responses.run.ts';
import { ResponseObject, ResponsesRequest } from './responses.schemas.ts';
import { formatResponseEvent } from './responses.sse.ts';

const checkRequest = Compile(ResponsesRequest);

export interface ResponsesRoutesDeps {
  readonly dispatcher: Dispatcher;
  readonly usage: CallUsage;
  readonly sealer: Sealer;
  /** Recall and learning for calls that ask for memory (docs/memory-chat.md). */
  readonly memory: MemoryCalls;
}

/** `POST /v1/responses` in /openapi.json (gateway.openapi.ts). */
const RESPONSES_OPERATION = {
  summary:
    'Create a response (OpenAI’s Responses API), whole or streamed, on any model of the catalog',
  description: [
    'OpenAI’s Responses API, served for every provider through chat completions. Nothing is stored: send the whole conversation in `input`, output items of earlier responses included (a `reasoning` item’s `encrypted_content` carries the provider’s signed reasoning back; a `compaction` item from /v1/responses/compact is opened into its summary).',
    'Refused with 400 beyond the schema: `previous_response_id`, `conversation`, `prompt` and `background: true` (`unsupported_parameter`: nothing is stored); input items, content parts, tools and tool choices of other types than the schema’s own (built-in tools, files: `unsupported_value`); a content part its message’s role does not take; an `input_image` with a `file_id` or without an `image_url`; an `input` with no message or call; a function call output answering no earlier call; a `compaction` item without `encrypted_content`, or an `encrypted_content` mnemo did not seal (`invalid_encrypted_content`); and what a model cannot take, as for /v1/chat/completions (`model_not_capable`, `unsupported_parameter` for `reasoning.effort`).',
    `With \`stream: true\` the answer is server-sent events. The same path also takes a WebSocket (GET). ${otherMethods('GET, POST, HEAD')}`,
  ].join('\n\n'),
  tags: [GATEWAY_TAG],
  security: API_KEY_SECURITY,
  headers: MemoryHeaders,
  body: ResponsesRequest,
  response: {
    200: jsonOrEventStream(
      'A Response object (`object: "response"`); streamed, its events',
      ResponseObject,
      'Server-sent events, each `event: <type>` and `data: ` with the event’s JSON, in OpenAI’s order: `response.created`, `response.in_progress`, then for each output item `response.output_item.added`, its parts’ and texts’ events (`response.content_part.added`, `response.output_text.delta`…, `response.function_call_arguments.delta`…, `response.reasoning_text.delta`…, their `.done` events), `response.output_item.done`; last `response.completed`, or `response.incomplete` when `max_output_tokens` cut it short. A provider that fails after the stream began ends it with an `error` event and `response.failed`. No `[DONE]`.',
      { ...ROUTING_HEADERS, ...RECALLED_MEMORIES_HEADER },
    ),
    ...memoryCallErrors(
      'The body breaks its schema (`missing_required_parameter`, `invalid_type`, `invalid_value`, naming the parameter: `input[2].call_id`), is no JSON (`malformed_json`) or nests deeper than 100 levels (`json_too_deep`), or a rule beyond the schema (see the description); a memory header is wrong (`invalid_memory_mode`, `invalid_project`, `invalid_user`, `user_with_project`); or the provider’s own 400',
    ),
  },
};

/**
 * `POST /v1/responses` (create), for every provider: the request is translated to chat
 * completions, sent as any chat call is (routing, fallback, usage), and the answer translated
 * back — a Response object, or with `stream: true` the documented event sequence from
 * `response.created` to `response.completed` (or `response.failed`). Nothing is stored.
 */
export function registerResponsesRoutes(app: FastifyInstance, deps: ResponsesRoutesDeps): void {
  const { dispatcher, usage } = deps;

  app.post(
    '/responses',
    { bodyLimit: GATEWAY_BODY_LIMIT, config: documentedOnly(RESPONSES_OPERATION) },
    async (request, reply) => {
      const startedAt = Date.now();
      const body = checkBody(checkRequest, request.body);
      if (body instanceof GatewayError) throw body;
      // Compaction items carried back become the summaries they seal (responses.compact.ts).
      const expanded = await expandCompactions(body, deps.sealer);
      if (expanded instanceof GatewayError) throw expanded;
      const translated = await toChatRequest(expanded, deps.sealer);
      if (translated instanceof GatewayError) throw translated;
      const caller = request.keyHolder;
      const recall = await deps.memory.forCall(request.headers, caller, translated);
      const chat = recall ? recall.chat : translated;
      const ids = newResponseIds();
      const signal = abortWhenGone(reply);
      const finished = (model: ModelConfig | undefined, status: number, reported?: ChatUsage) =>
        usage.finished({ caller, model, usage: reported, status, startedAt });

      if (body.stream === true) {
        const started = await startStreamedResponse(
          { dispatcher, usage, log: request.log, sealer: deps.sealer },
          { body, chat, ids, caller, startedAt, signal, answered: recall?.answered },
        );
        if (started instanceof GatewayError) throw started;
        const headers = recall ? { ...started.headers, ...recall.headers } : started.headers;
        const events = openEventStream(reply, headers);
        await started.run((event) => events.send(formatResponseEvent(event)));
        events.end();
        return reply;
      }

      const dispatched = await dispatcher.complete(chat, signal);
      if (!dispatched.ok) {
        finished(dispatched.model, signal.aborted ? 499 : dispatched.error.status);
        throw inResponsesTerms(dispatched.error);
      }
      finished(dispatched.model, 200, dispatched.value.usage);
      if (recall) reply.headers(recall.headers);
      reply
        .headers(dispatched.headers)
        .send(await toResponse(dispatched.value, body, ids, deps.sealer));
      recall?.answered(dispatched.value.choices[0]?.message.content ?? null);
      return reply;
    },
  );

  registerCompactRoute(app, deps);
}
