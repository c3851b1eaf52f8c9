import {
  type ChatChunk,
  type Outcome,
  type ProviderCall,
  type ProviderFactory,
  type TransportResponse,
  UpstreamStreamError,
} from '../../provider.ts';
import { notExpected, readErrorBody, readJsonBody } from '../response-body.ts';
import { readServerSentEvents } from '../sse-reader.ts';
import { genericError, missingKey, statusFailure } from '../upstream-failure.ts';
import { toMessagesCall } from './anthropic.mapping.ts';
import {
  type AnswerContext,
  isMessage,
  openAiErrorOf,
  toChatCompletion,
} from './anthropic.response.ts';
import { anthropicChunks } from './anthropic.stream.ts';
import { ANTHROPIC_VERSION } from './anthropic.types.ts';

/** An answer whose status is 200, with what its translation needs. */
interface Accepted {
  readonly response: TransportResponse;
  readonly context: AnswerContext;
}

/**
 * Anthropic's Messages API (`POST {baseUrl}/v1/messages`): each chat request is translated to
 * a Messages request (anthropic.mapping.ts), each answer back to chat completions
 * (anthropic.response.ts, anthropic.stream.ts), errors to OpenAI's shape.
 *
 * @example
 * const provider = createAnthropicProvider(catalog.providers.get('anthropic'), transport);
 * const outcome = await provider.complete({ request, model, signal });
 */
export const createAnthropicProvider: ProviderFactory = (config, transport) => {
  const url = `${config.baseUrl}/v1/messages`;

  async function send(call: ProviderCall, stream: boolean): Promise<Outcome<Accepted>> {
    if (config.apiKey === undefined) return missingKey(config);
    const mapped = toMessagesCall(call.request, call.model);
    if (!mapped.ok) return mapped;
    const { body, jsonTool } = mapped.value;
    const sent = await transport.post(
      url,
      { 'x-api-key': config.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
      JSON.stringify(stream ? { ...body, stream: true } : body),
      call.signal,
    );
    if (!sent.ok) return sent;
    const response = sent.value;
    if (response.status !== 200) {
      const error = openAiErrorOf(response.status, await readErrorBody(response));
      return { ok: false, failure: statusFailure(response, error) };
    }
    const created = Math.floor(Date.now() / 1000);
    return { ok: true, value: { response, context: { model: call.model.id, created, jsonTool } } };
  }

  return {
    async complete(call) {
      const accepted = await send(call, false);
      if (!accepted.ok) return accepted;
      const { response, context } = accepted.value;
      const body = await readJsonBody(response, 'a message');
      if (!body.ok) return body;
      const message = body.value;
      if (!isMessage(message)) return notExpected('a message');
      return { ok: true, value: toChatCompletion(message, context) };
    },

    async stream(call) {
      const accepted = await send(call, true);
      if (!accepted.ok) return accepted;
      const { response, context } = accepted.value;
      return { ok: true, value: chunksOf(response, context, call.signal) };
    },
  };
};

/**
 * The chunks of a streamed answer. A body that breaks off (a reset, an idle timeout) is the
 * provider failing mid-answer, unless the call was aborted on this side.
 */
async function* chunksOf(
  response: TransportResponse,
  context: AnswerContext,
  signal: AbortSignal,
): AsyncGenerator<ChatChunk> {
  try {
    yield* anthropicChunks(readServerSentEvents(response.body), context);
  } catch (error) {
    if (error instanceof UpstreamStreamError || signal.aborted) throw error;
    throw new UpstreamStreamError(
      genericError(502, `The provider’s stream broke off: ${messageOf(error)}`),
    );
  } finally {
    // Stopping the iteration early already stops the body; dumping frees the connection if not.
    await response.body.dump().catch(() => {});
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
