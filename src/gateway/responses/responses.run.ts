import type { FastifyBaseLogger } from 'fastify';
import type { KeyHolder } from '../../keys/index.ts';
import { type CallUsage, tallyStream } from '../call-usage.ts';
import type { ChatRequest } from '../chat.schemas.ts';
import type { Dispatcher } from '../dispatch.ts';
import type { GatewayError } from '../openai-errors.ts';
import type { Sealer } from '../sealing.ts';
import { inResponsesTerms } from './responses.errors.ts';
import type { ResponseIds } from './responses.mapping.ts';
import type { ResponsesRequest } from './responses.schemas.ts';
import { type ResponseStreamEvent, toResponseEvents } from './responses.stream.ts';

export interface StreamedResponseDeps {
  readonly dispatcher: Dispatcher;
  readonly usage: CallUsage;
  readonly log: FastifyBaseLogger;
  /** Seals the reasoning the events carry (sealing.ts). */
  readonly sealer: Sealer;
}

export interface StreamedResponseRequest {
  readonly body: ResponsesRequest;
  readonly chat: ChatRequest;
  readonly ids: ResponseIds;
  readonly caller: KeyHolder;
  /** `Date.now()` when the request arrived. */
  readonly startedAt: number;
  /** Aborted when the caller went away: the provider's call is given up. */
  readonly signal: AbortSignal;
  /** Told the answer's text once the response completed (memory learning, memory-calls.ts). */
  readonly answered?: ((text: string | null) => void) | undefined;
}

/** A response whose provider has begun answering: its routing headers, and its events. */
export interface StartedResponse {
  /** `x-mnemo-model`, `x-mnemo-route`, …: what the dispatcher tells of the route taken. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Hands each event to `send`, in order, until the response ends or `send` resolves false
   * (the caller left), then records the call's usage. Never throws: a failure mid-stream is
   * told to the caller by the events themselves (`error`, `response.failed`) and logged.
   */
  run(send: (event: ResponseStreamEvent) => Promise<boolean>): Promise<void>;
}

/**
 * One streamed response, whatever carries its events (server-sent events, a WebSocket): the
 * chat request dispatched as a stream, its chunks turned into the Responses events, the call's
 * usage recorded once they end. When no provider began answering, the error to give the caller
 * (its usage is recorded already).
 *
 * @example
 * const started = await startStreamedResponse(deps, { body, chat, ids, caller, startedAt, signal });
 * if (started instanceof GatewayError) throw started;
 * await started.run((event) => events.send(formatResponseEvent(event)));
 */
export async function startStreamedResponse(
  deps: StreamedResponseDeps,
  request: StreamedResponseRequest,
): Promise<StartedResponse | GatewayError> {
  const { body, chat, ids, caller, startedAt, signal } = request;
  const dispatched = await deps.dispatcher.stream(chat, signal);
  if (!dispatched.ok) {
    deps.usage.finished({
      caller,
      model: dispatched.model,
      status: signal.aborted ? 499 : dispatched.error.status,
      usage: undefined,
      startedAt,
    });
    return inResponsesTerms(dispatched.error);
  }
  const tally = tallyStream(dispatched.value, chat);
  return {
    headers: dispatched.headers,
    async run(send) {
      let status = 200;
      try {
        for await (const event of toResponseEvents(tally.chunks, body, ids, deps.sealer)) {
          if (event.type === 'response.failed') status = 502;
          if (!(await send(event))) {
            status = 499;
            break;
          }
        }
      } catch (error) {
        // The failure events are out already; what broke is for the log.
        deps.log.error({ err: error }, 'a streamed response failed');
        status = 502;
      }
      deps.usage.finished({
        caller,
        model: dispatched.model,
        usage: tally.usage(),
        status,
        startedAt,
      });
      if (status === 200) request.answered?.(tally.text());
    },
  };
}
