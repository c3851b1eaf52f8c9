import type { EventSourceMessage } from 'eventsource-parser';
import {
  type ChatChunk,
  type ChatDelta,
  type FinishReason,
  UpstreamStreamError,
} from '../../provider.ts';
import { genericError } from '../upstream-failure.ts';
import {
  type AnswerContext,
  finishReasonOf,
  openAiErrorOf,
  redactedDetail,
  thinkingDetail,
  usageOf,
} from './anthropic.response.ts';
import type { StopReason, StreamEvent, Usage } from './anthropic.types.ts';

/**
 * Where a content block's deltas go: the content, one tool call's arguments, or one piece of
 * the reasoning (its index among the reasoning details).
 */
type BlockTarget =
  | { readonly kind: 'content' }
  | { readonly kind: 'thinking'; readonly index: number }
  | { readonly kind: 'tool'; readonly index: number; wrote: boolean }
  | { readonly kind: 'json'; wrote: boolean };

/**
 * Anthropic's stream events as chat completion chunks, by the rules of ChatChunk: a first
 * chunk with the assistant role, reasoning deltas (each `thinking_delta` as `reasoning` text
 * and a `reasoning_details` text piece, the `signature_delta` as that piece's signature, a
 * redacted block whole), content deltas, tool-call deltas indexed among the tool calls
 * (not among the content blocks), a last choice chunk with the finish reason, then one chunk
 * with `choices: []` and the usage. `ping` and unknown events are skipped, as Anthropic asks;
 * an `error` event, or an end before `message_stop`, throws UpstreamStreamError.
 *
 * @example
 * const context = { model: call.model.id, created, jsonTool };
 * for await (const chunk of anthropicChunks(readServerSentEvents(body), context)) write(chunk);
 */
export async function* anthropicChunks(
  events: AsyncIterable<EventSourceMessage>,
  context: AnswerContext,
): AsyncGenerator<ChatChunk> {
  let id: string | undefined;
  let stopReason: StopReason | null = null;
  let usage: Usage = { input_tokens: 0, output_tokens: 0 };
  let toolCalls = 0;
  let reasoningPieces = 0;
  // The thinking's text, for the reasoning tokens; undefined while the answer has not thought.
  let thinking: string | undefined;
  let stopped = false;
  const blocks = new Map<number, BlockTarget>();

  const chunk = (delta: ChatDelta, finishReason: FinishReason | null = null): ChatChunk => ({
    id: id ?? '',
    object: 'chat.completion.chunk',
    created: context.created,
    model: context.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  // Text and the JSON-mode tool's input are both content.
  const content = (text: string) => chunk({ content: text });
  const toolArguments = (index: number, piece: string) =>
    chunk({ tool_calls: [{ index, function: { arguments: piece } }] });

  for await (const message of events) {
    const event = parse(message.data);
    if (event === undefined || stopped || event.type === 'ping') continue;
    if (event.type === 'error') throw new UpstreamStreamError(openAiErrorOf(500, event));
    if (id === undefined && event.type !== 'message_start') {
      throw broken('The provider’s stream did not begin with message_start.');
    }

    switch (event.type) {
      case 'message_start':
        id = event.message.id;
        usage = { ...event.message.usage };
        yield chunk({ role: 'assistant', content: '' });
        break;

      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') {
          blocks.set(event.index, { kind: 'content' });
          if (block.text !== '') yield content(block.text);
        } else if (block.type === 'thinking') {
          const index = reasoningPieces++;
          blocks.set(event.index, { kind: 'thinking', index });
          thinking = (thinking ?? '') + block.thinking;
          if (block.thinking !== '') {
            yield chunk({
              reasoning: block.thinking,
              reasoning_details: [thinkingDetail(block.thinking, undefined, index)],
            });
          }
        } else if (block.type === 'redacted_thinking') {
          thinking ??= '';
          yield chunk({ reasoning_details: [redactedDetail(block.data, reasoningPieces++)] });
        } else if (block.type === 'tool_use' && block.name === context.jsonTool) {
          blocks.set(event.index, { kind: 'json', wrote: false });
        } else if (block.type === 'tool_use') {
          const index = toolCalls++;
          blocks.set(event.index, { kind: 'tool', index, wrote: false });
          yield chunk({
            tool_calls: [
              {
                index,
                id: block.id,
                type: 'function',
                function: { name: block.name, arguments: '' },
              },
            ],
          });
        }
        // Other blocks (server tools) come only with features not asked for.
        break;
      }

      case 'content_block_delta': {
        const target = blocks.get(event.index);
        const { delta } = event;
        if (target === undefined) break;
        if (target.kind === 'thinking') {
          if (delta.type === 'thinking_delta' && delta.thinking !== '') {
            thinking = (thinking ?? '') + delta.thinking;
            yield chunk({
              reasoning: delta.thinking,
              reasoning_details: [thinkingDetail(delta.thinking, undefined, target.index)],
            });
          } else if (delta.type === 'signature_delta') {
            yield chunk({ reasoning_details: [thinkingDetail('', delta.signature, target.index)] });
          }
          break;
        }
        const piece =
          delta.type === 'text_delta'
            ? delta.text
            : delta.type === 'input_json_delta'
              ? delta.partial_json
              : '';
        if (piece === '') break;
        if (target.kind === 'tool') {
          target.wrote = true;
          yield toolArguments(target.index, piece);
        } else {
          if (target.kind === 'json') target.wrote = true;
          yield content(piece);
        }
        break;
      }

      case 'content_block_stop': {
        // A call without arguments streams no input pieces; its input is still `{}`, as in a
        // whole message.
        const target = blocks.get(event.index);
        if (target?.kind === 'tool' && !target.wrote) yield toolArguments(target.index, '{}');
        if (target?.kind === 'json' && !target.wrote) yield content('{}');
        break;
      }

      case 'message_delta':
        stopReason = event.delta.stop_reason ?? stopReason;
        // The counts are cumulative; input counts are repeated here by newer API versions.
        usage = {
          input_tokens: event.usage.input_tokens ?? usage.input_tokens,
          output_tokens: event.usage.output_tokens,
          cache_creation_input_tokens:
            event.usage.cache_creation_input_tokens ?? usage.cache_creation_input_tokens ?? null,
          cache_read_input_tokens:
            event.usage.cache_read_input_tokens ?? usage.cache_read_input_tokens ?? null,
        };
        break;

      case 'message_stop':
        stopped = true;
        yield chunk({}, finishReasonOf(stopReason, toolCalls > 0));
        yield { ...chunk({}), choices: [], usage: usageOf(usage, thinking) };
        // Reading on to the end of the body lets the connection serve another request.
        break;
    }
  }
  if (!stopped) throw broken('The provider’s stream ended before message_stop.');
}

const EVENT_TYPES: ReadonlySet<string> = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
]);

/** An event's data; undefined for a type this mapping does not know, to be skipped. */
function parse(data: string): StreamEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw broken('The provider sent an event that is not JSON.');
  }
  if (typeof value !== 'object' || value === null || !('type' in value)) {
    throw broken('The provider sent an event without a type.');
  }
  return typeof value.type === 'string' && EVENT_TYPES.has(value.type)
    ? (value as StreamEvent)
    : undefined;
}

const broken = (message: string) => new UpstreamStreamError(genericError(502, message));
