import { randomBytes } from 'node:crypto';
import type { ReasoningDetail, ToolCall } from '../../chat.schemas.ts';
import type { OpenAiError } from '../../openai-errors.ts';
import type {
  ChatCompletion,
  ChatUsage,
  FinishReason,
  Outcome,
  UpstreamFailure,
} from '../../provider.ts';
import { genericError } from '../upstream-failure.ts';
import { toolCallIdOf } from './gemini.call-ids.ts';
import { joinByIndex, newReasoningCursor, reasoningOfPart } from './gemini.reasoning.ts';
import type {
  GeminiCandidate,
  GeminiPart,
  GeminiUsageMetadata,
  GenerateContentResponse,
} from './gemini.types.ts';

/**
 * A GenerateContentResponse as a `chat.completion`, one choice per candidate: the text parts
 * joined as the content, each functionCall part as a tool call, the thought parts as the
 * message's `reasoning` and, with the parts' signatures, its `reasoning_details`
 * (gemini.reasoning.ts); the finish reason and usage translated; `model` is the catalog id. A prompt Gemini blocked (no candidates, a
 * `promptFeedback.blockReason`) fails as OpenAI fails a prompt its filter flags: 400
 * `invalid_prompt`, since no answer was written.
 *
 * @example
 * const body: unknown = await response.body.json();
 * if (isGenerateContentResponse(body)) return toChatCompletion(body, call.model.id);
 */
export function toChatCompletion(
  response: GenerateContentResponse,
  modelId: string,
): Outcome<ChatCompletion> {
  const candidates = response.candidates ?? [];
  if (candidates.length === 0) return { ok: false, failure: noCandidates(response) };
  const choices = candidates.map(choiceOf).sort((a, b) => a.index - b.index);
  return {
    ok: true,
    value: {
      id: completionIdOf(response),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: modelId,
      choices,
      usage: usageOf(response.usageMetadata),
    },
  };
}

function choiceOf(candidate: GeminiCandidate): ChatCompletion['choices'][number] {
  const texts: string[] = [];
  const thoughts: string[] = [];
  const toolCalls: ToolCall[] = [];
  const details: ReasoningDetail[] = [];
  const cursor = newReasoningCursor();
  for (const part of candidate.content?.parts ?? []) {
    const call = toolCallOf(part);
    if (call) toolCalls.push(call);
    else if ('text' in part) (part.thought === true ? thoughts : texts).push(part.text);
    details.push(...reasoningOfPart(part, call?.id, cursor));
  }
  const reasoning = thoughts.join('');
  return {
    // proto3 JSON leaves a zero out: a candidate without an index is the first.
    index: candidate.index ?? 0,
    message: {
      role: 'assistant',
      content: texts.length > 0 ? texts.join('') : null,
      refusal: null,
      ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      ...(reasoning !== '' && { reasoning }),
      ...(details.length > 0 && { reasoning_details: joinByIndex(details) }),
    },
    logprobs: null,
    finish_reason: finishReasonOf(candidate.finishReason, toolCalls.length > 0),
  };
}

/** A functionCall part as OpenAI's tool call; its arguments as JSON text. */
export function toolCallOf(part: GeminiPart): ToolCall | undefined {
  if (!('functionCall' in part)) return undefined;
  return {
    id: toolCallIdOf(part.functionCall, part.thoughtSignature),
    type: 'function',
    function: {
      name: part.functionCall.name,
      arguments: JSON.stringify(part.functionCall.args ?? {}),
    },
  };
}

/** Reasons Gemini stops because a filter (safety, recitation, a blocklist) cut the answer. */
const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * Gemini's finish reason in OpenAI's four. STOP is also how Gemini ends a turn of function
 * calls, which OpenAI calls `tool_calls`. The reasons with no OpenAI counterpart (LANGUAGE,
 * OTHER, MALFORMED_FUNCTION_CALL, …) ended the answer without a filter or a limit: `stop`.
 */
export function finishReasonOf(reason: string | undefined, calledTools: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && FILTERED.has(reason)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

/**
 * Gemini's usage in OpenAI's terms. OpenAI counts reasoning among the completion tokens, Gemini
 * apart (`thoughtsTokenCount`), so they are added; cached tokens are part of the prompt in both.
 */
export function usageOf(metadata: GeminiUsageMetadata | undefined): ChatUsage {
  const prompt = metadata?.promptTokenCount ?? 0;
  const thoughts = metadata?.thoughtsTokenCount ?? 0;
  const completion = (metadata?.candidatesTokenCount ?? 0) + thoughts;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: metadata?.totalTokenCount ?? prompt + completion,
    prompt_tokens_details: { cached_tokens: metadata?.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
}

/** Gemini's `responseId` under OpenAI's prefix, so logs on both sides can be matched. */
export function completionIdOf(response: GenerateContentResponse): string {
  return `chatcmpl-${response.responseId ?? randomBytes(12).toString('hex')}`;
}

/** An answer without candidates: a blocked prompt, or a provider that broke its contract. */
export function noCandidates(response: GenerateContentResponse): UpstreamFailure {
  const reason = response.promptFeedback?.blockReason;
  if (reason !== undefined) return { kind: 'status', status: 400, error: blockedPrompt(reason) };
  return {
    kind: 'status',
    status: 502,
    error: genericError(502, 'The provider answered without any candidate.'),
  };
}

/** OpenAI's answer to a prompt its filter flags, with Gemini's reason. */
export function blockedPrompt(reason: string): OpenAiError {
  return {
    message: `Invalid prompt: the provider blocked it (${reason}).`,
    type: 'invalid_request_error',
    param: null,
    code: 'invalid_prompt',
  };
}

/**
 * Whether a parsed body has the shape the mapping reads: every field is optional, but those
 * present have their types.
 */
export function isGenerateContentResponse(value: unknown): value is GenerateContentResponse {
  return (
    isRecord(value) &&
    optional(value.responseId, 'string') &&
    optionalList(value.candidates, isCandidate) &&
    optionalRecord(value.promptFeedback, (feedback) => optional(feedback.blockReason, 'string')) &&
    optionalRecord(value.usageMetadata, (usage) =>
      USAGE_COUNTS.every((count) => optional(usage[count], 'number')),
    )
  );
}

const USAGE_COUNTS = [
  'promptTokenCount',
  'cachedContentTokenCount',
  'candidatesTokenCount',
  'thoughtsTokenCount',
  'toolUsePromptTokenCount',
  'totalTokenCount',
] as const satisfies readonly (keyof GeminiUsageMetadata)[];

function isCandidate(value: unknown): boolean {
  return (
    isRecord(value) &&
    optional(value.index, 'number') &&
    optional(value.finishReason, 'string') &&
    optionalRecord(value.content, (content) => optionalList(content.parts, isPart))
  );
}

function isPart(value: unknown): boolean {
  if (!isRecord(value)) return false;
  if (!optional(value.thought, 'boolean') || !optional(value.thoughtSignature, 'string')) {
    return false;
  }
  if ('text' in value) return typeof value.text === 'string';
  if ('functionCall' in value) {
    const call = value.functionCall;
    return (
      isRecord(call) &&
      typeof call.name === 'string' &&
      optional(call.id, 'string') &&
      optionalRecord(call.args, () => true)
    );
  }
  // Parts mnemo does not read (inline images, code execution, …) may be anything.
  return true;
}

function optional(value: unknown, type: 'string' | 'number' | 'boolean'): boolean {
  return value === undefined || typeof value === type;
}

function optionalList(value: unknown, check: (item: unknown) => boolean): boolean {
  return value === undefined || (Array.isArray(value) && value.every(check));
}

function optionalRecord(
  value: unknown,
  check: (record: Record<string, unknown>) => boolean,
): boolean {
  return value === undefined || (isRecord(value) && check(value));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
