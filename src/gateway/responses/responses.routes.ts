import type { FastifyInstance } from 'fastify';
import { Compile } from 'typebox/compile';
import type { CallUsage } from '../call-usage.ts';
import { abortWhenGone } from '../caller-connection.ts';
import type { ModelConfig } from '../catalog.ts';
import { GATEWAY_BODY_LIMIT } from '../chat.routes.ts';
import { checkBody } from '../chat.validation.ts';
import type { Dispatcher } from '../dispatch.ts';
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
import { ResponsesRequest } from './responses.schemas.ts';
import { formatResponseEvent } from './responses.sse.ts';

const checkRequest = Compile(ResponsesRequest);

export interface ResponsesRoutesDeps {
  readonly dispatcher: Dispatcher;
  readonly usage: CallUsage;
  readonly sealer: Sealer;
  /** Recall and learning for calls that ask for memory (docs/memory-chat.md). */
  readonly memory: MemoryCalls;
}

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
    { schema: { hide: true }, bodyLimit: GATEWAY_BODY_LIMIT },
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
