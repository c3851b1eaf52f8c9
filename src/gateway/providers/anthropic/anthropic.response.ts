import type { ReasoningDetail, ToolCall } from '../../chat.schemas.ts';
import type { OpenAiError } from '../../openai-errors.ts';
import type { ChatCompletion, ChatUsage, FinishReason } from '../../provider.ts';
import { estimateTokens } from '../token-estimate.ts';
import { genericError } from '../upstream-failure.ts';
import type { ErrorBody, Message, StopReason, Usage } from './anthropic.types.ts';

/** What answer objects share: the catalog's model id, the time, and the JSON-mode tool. */
export interface AnswerContext {
  /** The catalog id (`anthropic/claude-…`), never Anthropic's own model name. */
  readonly model: string;
  /** Unix seconds. */
  readonly created: number;
  readonly jsonTool: string | undefined;
}

/**
 * An Anthropic message as a chat completion: text blocks are the content, `tool_use` blocks
 * the tool calls (input as JSON text), the JSON-mode tool's input is content text; `thinking`
 * blocks are the reasoning (their text joined) and, with `redacted_thinking` blocks, its
 * `reasoning_details`, numbered in order, for the client to send back. The id stays
 * Anthropic's (`msg_…`), which its support and logs know.
 *
 * @example
 * const completion = toChatCompletion(message, { model: call.model.id, created, jsonTool });
 */
export function toChatCompletion(message: Message, context: AnswerContext): ChatCompletion {
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  const thoughts: string[] = [];
  const details: ReasoningDetail[] = [];
  for (const block of message.content) {
    if (block.type === 'text') texts.push(block.text);
    if (block.type === 'thinking') {
      thoughts.push(block.thinking);
      details.push(thinkingDetail(block.thinking, block.signature, details.length));
    }
    if (block.type === 'redacted_thinking')
      details.push(redactedDetail(block.data, details.length));
    if (block.type !== 'tool_use') continue;
    const input = JSON.stringify(block.input ?? {});
    if (block.name === context.jsonTool) texts.push(input);
    else {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: input },
      });
    }
  }
  // OpenAI's content is null beside tool calls, and a string (maybe empty) otherwise.
  const content = texts.length > 0 ? texts.join('') : toolCalls.length > 0 ? null : '';
  return {
    id: message.id,
    object: 'chat.completion',
    created: context.created,
    model: context.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          ...(details.length > 0
            ? { reasoning: thoughts.join(''), reasoning_details: details }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReasonOf(message.stop_reason, toolCalls.length > 0),
      },
    ],
    usage: usageOf(message.usage, details.length > 0 ? thoughts.join('') : undefined),
  };
}

export const thinkingDetail = (
  text: string,
  signature: string | undefined,
  index: number,
): ReasoningDetail => ({
  type: 'reasoning.text',
  text,
  ...(signature === undefined ? {} : { signature }),
  format: 'anthropic',
  index,
});

export const redactedDetail = (data: string, index: number): ReasoningDetail => ({
  type: 'reasoning.encrypted',
  data,
  format: 'anthropic',
  index,
});

/**
 * `tool_use` is `tool_calls` only when there are calls to show: a JSON-mode answer ends in a
 * call to its tool, which the client sees as content. `pause_turn` (server tools, which the
 * gateway never offers) ends the turn like `end_turn`.
 */
export function finishReasonOf(reason: StopReason | null, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return hasToolCalls ? 'tool_calls' : 'stop';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/**
 * Cache writes and reads are prompt tokens too; the reads are OpenAI's `cached_tokens`.
 * `thinking`, the text of an answer that thought: Anthropic bills the thinking inside
 * `output_tokens` (which stays `completion_tokens`) without counting it apart, so
 * `reasoning_tokens` is estimated from the thinking's text (estimateTokens), at most the
 * output. Claude 4 models show a summary of longer thinking, so this is a lower bound.
 */
export function usageOf(usage: Usage, thinking?: string): ChatUsage {
  const cached = usage.cache_read_input_tokens ?? 0;
  const prompt = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + cached;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output_tokens,
    total_tokens: prompt + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: cached },
    ...(thinking === undefined
      ? {}
      : {
          completion_tokens_details: {
            reasoning_tokens: Math.min(estimateTokens(thinking), usage.output_tokens),
          },
        }),
  };
}

/**
 * Anthropic's error types in OpenAI's vocabulary; `code` keeps the detail OpenAI's types
 * lack, in OpenAI's words where it has them (`rate_limit_exceeded`, `model_not_found`).
 */
const ERROR_TYPES: Readonly<Record<string, Pick<OpenAiError, 'type' | 'code' | 'param'>>> = {
  invalid_request_error: { type: 'invalid_request_error', code: null, param: null },
  authentication_error: { type: 'authentication_error', code: 'invalid_api_key', param: null },
  billing_error: { type: 'insufficient_quota', code: 'insufficient_quota', param: null },
  permission_error: { type: 'permission_error', code: null, param: null },
  // The only resource `POST /v1/messages` names is the model.
  not_found_error: { type: 'invalid_request_error', code: 'model_not_found', param: 'model' },
  request_too_large: { type: 'invalid_request_error', code: 'request_too_large', param: null },
  rate_limit_error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null },
  api_error: { type: 'api_error', code: null, param: null },
  timeout_error: { type: 'api_error', code: 'timeout_error', param: null },
  overloaded_error: { type: 'api_error', code: 'overloaded_error', param: null },
};

/**
 * An Anthropic error body (`{"type": "error", "error": {"type", "message"}}`), from a response
 * or a stream's `error` event, in OpenAI's shape; anything else is described by its status.
 *
 * @example
 * openAiErrorOf(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
 * // { message: 'Overloaded', type: 'api_error', param: null, code: 'overloaded_error' }
 */
export function openAiErrorOf(status: number, body: unknown): OpenAiError {
  if (!isErrorBody(body)) return genericError(status);
  const { type, message } = body.error;
  const known = ERROR_TYPES[type];
  return known === undefined
    ? { ...genericError(status, message), code: type }
    : { message, ...known };
}

export function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const { error } = body;
  return (
    typeof error === 'object' &&
    error !== null &&
    'type' in error &&
    typeof error.type === 'string' &&
    'message' in error &&
    typeof error.message === 'string'
  );
}

/** Enough of a Messages answer's shape to translate it; the rest is read as typed. */
export function isMessage(body: unknown): body is Message {
  if (typeof body !== 'object' || body === null) return false;
  const { type, id, content, usage } = body as Partial<Record<keyof Message, unknown>>;
  return (
    type === 'message' &&
    typeof id === 'string' &&
    Array.isArray(content) &&
    typeof usage === 'object' &&
    usage !== null &&
    typeof (usage as Partial<Usage>).input_tokens === 'number' &&
    typeof (usage as Partial<Usage>).output_tokens === 'number'
  );
}
