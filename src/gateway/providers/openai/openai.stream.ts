import {
  type ChatChunk,
  type ChatUsage,
  type ProviderCall,
  type TransportResponse,
  UpstreamStreamError,
} from '../../provider.ts';
import { readServerSentEvents } from '../sse-reader.ts';
import { deltaChars, estimatedUsage } from '../token-estimate.ts';
import { genericError } from '../upstream-failure.ts';
import { openAiErrorOf } from './openai.errors.ts';
import { reasoningFromUpstream } from './openai.reasoning.ts';

/**
 * An OpenAI-style stream as the gateway's chunks: the catalog's model id in each, and exactly
 * one usage chunk at the end. Compatible servers differ there: some attach usage to the last
 * choice chunk, some send none; the first is split off, the second estimated. A `data:` event
 * carrying `{"error": …}` (OpenAI's mid-stream error), or an end before `[DONE]` with choices
 * still open, throws UpstreamStreamError.
 */
export async function* openAiChunks(
  body: TransportResponse['body'],
  call: ProviderCall,
): AsyncGenerator<ChatChunk> {
  let usage: ChatUsage | undefined;
  let last: ChatChunk | undefined;
  let done = false;
  let completionChars = 0;
  const open = new Set<number>();
  try {
    for await (const event of readServerSentEvents(body)) {
      if (event.data === '[DONE]') {
        done = true;
        break;
      }
      const chunk = parse(event.data);
      chunk.model = call.model.id;
      if (chunk.usage) usage = chunk.usage;
      if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) {
        last = chunk;
        continue;
      }
      delete chunk.usage;
      for (const choice of chunk.choices) {
        if (choice.delta) reasoningFromUpstream(choice.delta);
        if (choice.finish_reason) open.delete(choice.index);
        else open.add(choice.index);
      }
      completionChars += deltaChars(chunk);
      last = chunk;
      yield chunk;
    }
  } finally {
    // A consumer that stopped early must not leave the connection half read.
    if (!done) await body.dump().catch(() => {});
  }
  if (!done && (last === undefined || open.size > 0)) {
    throw new UpstreamStreamError(
      genericError(502, 'The provider’s stream ended before it finished.'),
    );
  }
  yield {
    id: last?.id ?? 'chatcmpl-unknown',
    object: 'chat.completion.chunk',
    created: last?.created ?? Math.floor(Date.now() / 1000),
    model: call.model.id,
    choices: [],
    usage: usage ?? estimatedUsage(call.request, completionChars),
  };
}

function parse(data: string): ChatChunk {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new UpstreamStreamError(
      genericError(502, 'The provider sent an event that is not JSON.'),
    );
  }
  if (typeof value !== 'object' || value === null) {
    throw new UpstreamStreamError(
      genericError(502, 'The provider sent an event that is not a chunk.'),
    );
  }
  if ('error' in value) throw new UpstreamStreamError(openAiErrorOf(500, value));
  return value as ChatChunk;
}
