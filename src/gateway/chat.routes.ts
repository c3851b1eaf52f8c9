import type { FastifyInstance, FastifyReply } from 'fastify';
import type { CallUsage } from './call-usage.ts';
import type { ChatRequest } from './chat.schemas.ts';
import { checkChatRequest } from './chat.validation.ts';
import type { Dispatched, Dispatcher } from './dispatch.ts';
import { GatewayError } from './openai-errors.ts';
import { type ChatChunk, type ChatUsage, UpstreamStreamError } from './provider.ts';
import { genericError } from './providers/upstream-failure.ts';
import { openEventStream } from './sse.ts';
import { estimatePromptTokens, tokensOfChars } from './token-estimate.ts';

/**
 * Images travel inside the body as data URLs; OpenAI takes requests of up to 50 MB with images of
 * up to 20 MB each. 32 MiB covers a few such images and still bounds what one call may hold.
 */
export const GATEWAY_BODY_LIMIT = 32 * 1024 * 1024;

export interface ChatRoutesDeps {
  readonly dispatcher: Dispatcher;
  readonly usage: CallUsage;
}

/**
 * `POST /v1/chat/completions`, as OpenAI's API reference describes it, for every provider:
 * a whole `chat.completion`, or with `stream: true` server-sent `chat.completion.chunk` events
 * ending in `data: [DONE]` (the usage chunk only when `stream_options.include_usage` asks).
 */
export function registerChatRoutes(app: FastifyInstance, deps: ChatRoutesDeps): void {
  const { dispatcher, usage } = deps;

  app.post(
    '/chat/completions',
    { schema: { hide: true }, bodyLimit: GATEWAY_BODY_LIMIT },
    async (request, reply) => {
      const startedAt = Date.now();
      const checked = checkChatRequest(request.body);
      if (checked instanceof GatewayError) throw checked;
      const caller = request.keyHolder;
      const signal = abortWhenGone(reply);

      if (checked.stream === true) {
        const dispatched = await dispatcher.stream(checked, signal);
        if (!dispatched.ok) return refuse(dispatched);
        const { status, reported } = await relay(reply, checked, dispatched);
        usage.finished({ caller, model: dispatched.model, usage: reported, status, startedAt });
        return reply;
      }

      const dispatched = await dispatcher.complete(checked, signal);
      if (!dispatched.ok) return refuse(dispatched);
      usage.finished({
        caller,
        model: dispatched.model,
        usage: dispatched.value.usage,
        status: 200,
        startedAt,
      });
      return reply.headers(dispatched.headers).send(dispatched.value);

      function refuse(failed: Extract<Dispatched<unknown>, { ok: false }>): never {
        if (failed.model) {
          const status = signal.aborted ? 499 : failed.error.status;
          usage.finished({ caller, model: failed.model, usage: undefined, status, startedAt });
        }
        throw failed.error;
      }
    },
  );
}

/**
 * Forwards the chunks one for one as they arrive. Returns what the caller got (200; 502 when
 * the provider failed mid-stream; 499 when the caller left) and the usage to record: the
 * provider's, or when the stream was cut before it came, an estimate of what was sent.
 */
async function relay(
  reply: FastifyReply,
  request: ChatRequest,
  dispatched: Extract<Dispatched<AsyncIterable<ChatChunk>>, { ok: true }>,
): Promise<{ status: number; reported: ChatUsage | undefined }> {
  const wantsUsage = request.stream_options?.include_usage === true;
  const events = openEventStream(reply, dispatched.headers);
  let reported: ChatUsage | undefined;
  let sentChars = 0;
  let status = 200;
  try {
    for await (const chunk of dispatched.value) {
      if (chunk.choices.length === 0) {
        reported = chunk.usage ?? reported;
        if (!wantsUsage) continue;
      } else {
        sentChars += deltaChars(chunk);
        // As OpenAI does: with include_usage every chunk has `usage`, null but on the last.
        if (wantsUsage) chunk.usage = null;
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
  if (reported === undefined) {
    const prompt = estimatePromptTokens(request);
    const completion = tokensOfChars(sentChars);
    reported = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    };
  }
  return { status, reported };
}

function deltaChars(chunk: ChatChunk): number {
  let chars = 0;
  for (const choice of chunk.choices) {
    chars += choice.delta.content?.length ?? 0;
    for (const call of choice.delta.tool_calls ?? [])
      chars += call.function?.arguments?.length ?? 0;
  }
  return chars;
}

/** A signal that aborts the provider's call when the caller disconnects before the answer ends. */
function abortWhenGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
