import type { FastifyInstance } from 'fastify';
import { Compile } from 'typebox/compile';
import { type CallUsage, tallyStream } from '../call-usage.ts';
import { abortWhenGone } from '../caller-connection.ts';
import type { ModelConfig } from '../catalog.ts';
import { GATEWAY_BODY_LIMIT } from '../chat.routes.ts';
import { checkBody } from '../chat.validation.ts';
import type { Dispatcher } from '../dispatch.ts';
import { GatewayError } from '../openai-errors.ts';
import type { ChatUsage } from '../provider.ts';
import { openEventStream } from '../sse.ts';
import { newResponseIds, toResponse } from './responses.mapping.ts';
import { toChatRequest } from './responses.request.ts';
import { ResponsesRequest } from './responses.schemas.ts';
import { formatResponseEvent } from './responses.sse.ts';
import { toResponseEvents } from './responses.stream.ts';

const checkRequest = Compile(ResponsesRequest);

export interface ResponsesRoutesDeps {
  readonly dispatcher: Dispatcher;
  readonly usage: CallUsage;
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
      const chat = toChatRequest(body);
      if (chat instanceof GatewayError) throw chat;
      const ids = newResponseIds();
      const caller = request.keyHolder;
      const signal = abortWhenGone(reply);
      const finished = (model: ModelConfig | undefined, status: number, reported?: ChatUsage) =>
        usage.finished({ caller, model, usage: reported, status, startedAt });

      if (body.stream === true) {
        const dispatched = await dispatcher.stream(chat, signal);
        if (!dispatched.ok) {
          finished(dispatched.model, signal.aborted ? 499 : dispatched.error.status);
          throw dispatched.error;
        }
        const tally = tallyStream(dispatched.value, chat);
        const events = openEventStream(reply, dispatched.headers);
        let status = 200;
        try {
          for await (const event of toResponseEvents(tally.chunks, body, ids)) {
            if (event.type === 'response.failed') status = 502;
            if (!(await events.send(formatResponseEvent(event)))) {
              status = 499;
              break;
            }
          }
        } catch (error) {
          // The failure events are out already; what broke is for the log.
          request.log.error({ err: error }, 'a streamed response failed');
          status = 502;
        }
        events.end();
        finished(dispatched.model, status, tally.usage());
        return reply;
      }

      const dispatched = await dispatcher.complete(chat, signal);
      if (!dispatched.ok) {
        finished(dispatched.model, signal.aborted ? 499 : dispatched.error.status);
        throw dispatched.error;
      }
      finished(dispatched.model, 200, dispatched.value.usage);
      return reply.headers(dispatched.headers).send(toResponse(dispatched.value, body, ids));
    },
  );
}
