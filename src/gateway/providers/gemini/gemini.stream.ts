import {
  type ChatChunk,
  type ChatDelta,
  type FinishReason,
  type TransportResponse,
  UpstreamStreamError,
} from '../../provider.ts';
import { readServerSentEvents } from '../sse-reader.ts';
import { genericError } from '../upstream-failure.ts';
import { geminiErrorOf, openAiErrorOf } from './gemini.errors.ts';
import { newReasoningCursor, type ReasoningCursor, reasoningOfPart } from './gemini.reasoning.ts';
import {
  blockedPrompt,
  completionIdOf,
  finishReasonOf,
  isGenerateContentResponse,
  toolCallOf,
  usageOf,
} from './gemini.response.ts';
import type { GeminiUsageMetadata, GenerateContentResponse } from './gemini.types.ts';

/** What the stream has said so far of one choice. */
interface ChoiceState {
  /** Tool calls sent, which numbers the next one. */
  calls: number;
  finished: boolean;
  reasoning: ReasoningCursor;
}

/**
 * Gemini's server-sent events (`streamGenerateContent?alt=sse`) as the gateway's chunks. Each
 * event is a whole GenerateContentResponse holding the next parts of each candidate; the
 * candidate's last event carries its finishReason, and usageMetadata comes with the events,
 * the last being the total. Per choice (candidate), in order: a chunk with the role, one per
 * thought part (its text as `reasoning`, and as a `reasoning_details` text piece that the
 * next thought parts continue), one per text part, one per function call (Gemini sends calls
 * whole, so each call is a single delta with its id, name and all its arguments), each part's
 * signature as a `reasoning_details` piece in its part's chunk (gemini.reasoning.ts), and one
 * with the finish reason; then one chunk without choices carrying the usage.
 *
 * Throws UpstreamStreamError when Google sends an error event, when the prompt was blocked,
 * when the stream ends with a candidate unfinished, or when the connection breaks.
 *
 * @example
 * for await (const chunk of geminiChunks(response.body, call.model.id)) write(chunk);
 */
export async function* geminiChunks(
  body: TransportResponse['body'],
  modelId: string,
): AsyncGenerator<ChatChunk> {
  const created = Math.floor(Date.now() / 1000);
  const choices = new Map<number, ChoiceState>();
  let id = '';
  let usage: GeminiUsageMetadata | undefined;
  const chunk = (index: number, delta: ChatDelta, finish: FinishReason | null = null) =>
    ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: modelId,
      choices: [{ index, delta, finish_reason: finish }],
    }) satisfies ChatChunk;

  try {
    for await (const event of readServerSentEvents(body)) {
      const response = responseOf(event.data);
      id ||= completionIdOf(response);
      usage = response.usageMetadata ?? usage;
      const candidates = response.candidates ?? [];
      const blockReason = response.promptFeedback?.blockReason;
      if (candidates.length === 0 && blockReason !== undefined) {
        throw new UpstreamStreamError(blockedPrompt(blockReason), 400);
      }
      for (const candidate of candidates) {
        // proto3 JSON leaves a zero out: a candidate without an index is the first.
        const index = candidate.index ?? 0;
        let state = choices.get(index);
        if (state === undefined) {
          state = { calls: 0, finished: false, reasoning: newReasoningCursor() };
          choices.set(index, state);
          yield chunk(index, { role: 'assistant', content: '' });
        }
        if (state.finished) continue;
        for (const part of candidate.content?.parts ?? []) {
          const call = toolCallOf(part);
          const details = reasoningOfPart(part, call?.id, state.reasoning);
          const reasoning = details.length > 0 ? { reasoning_details: details } : {};
          if (call) {
            yield chunk(index, { tool_calls: [{ index: state.calls++, ...call }], ...reasoning });
          } else if (part.thought === true && 'text' in part && part.text !== '') {
            yield chunk(index, { reasoning: part.text, ...reasoning });
          } else if ('text' in part && part.text !== '') {
            yield chunk(index, { content: part.text, ...reasoning });
          } else if (details.length > 0) {
            // A signature on an empty part, as Gemini ends some streams.
            yield chunk(index, reasoning);
          }
        }
        if (candidate.finishReason !== undefined) {
          state.finished = true;
          yield chunk(index, {}, finishReasonOf(candidate.finishReason, state.calls > 0));
        }
      }
    }
  } catch (error) {
    if (error instanceof UpstreamStreamError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new UpstreamStreamError(
      genericError(502, `The connection to the provider broke mid-stream: ${detail}`),
    );
  }

  if (choices.size === 0 || [...choices.values()].some((state) => !state.finished)) {
    throw new UpstreamStreamError(
      genericError(502, 'The provider’s stream ended before it finished.'),
    );
  }
  yield {
    id,
    object: 'chat.completion.chunk',
    created,
    model: modelId,
    choices: [],
    usage: usageOf(usage),
  };
}

/** One event's GenerateContentResponse; Google's error event, or garbage, throws. */
function responseOf(data: string): GenerateContentResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw new UpstreamStreamError(
      genericError(502, 'The provider sent an event that is not JSON.'),
    );
  }
  const error = geminiErrorOf(parsed);
  if (error !== undefined) throw new UpstreamStreamError(openAiErrorOf(error.code ?? 500, error));
  if (!isGenerateContentResponse(parsed)) {
    throw new UpstreamStreamError(
      genericError(502, 'The provider sent an event that is not a GenerateContentResponse.'),
    );
  }
  return parsed;
}
