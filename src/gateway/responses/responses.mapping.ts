import { randomBytes } from 'node:crypto';
import type { ReasoningDetail } from '../chat.schemas.ts';
import type {
  ChatCompletion,
  ChatCompletionMessage,
  ChatUsage,
  FinishReason,
} from '../provider.ts';
import type { Sealer } from '../sealing.ts';
import {
  type ItemStatus,
  isFunctionTool,
  type OutputContent,
  type OutputItem,
  type OutputReasoning,
  type OutputText,
  type ReasoningSummary,
  type ResponseObject,
  type ResponsesRequest,
  type ResponseUsage,
} from './responses.schemas.ts';

/**
 * The ids of one response: its own and its output items'. The streamed and the whole form of a
 * response must use the same ones, so they are made once per response and passed down.
 */
export interface ResponseIds {
  /** `resp_…` */
  readonly response: string;
  /** When the response was created, in Unix seconds. */
  readonly createdAt: number;
  /** A new output item id: `msg_…` for a message, `fc_…` for a function call, `rs_…` for reasoning. */
  item(kind: 'msg' | 'fc' | 'rs'): string;
  /** The time now, in Unix seconds: `completed_at` of a response that completes. */
  now(): number;
}

/** Random ids in OpenAI's shapes (`resp_` and 48 hex digits). */
export function newResponseIds(now: Date = new Date()): ResponseIds {
  const id = (prefix: string) => `${prefix}_${randomBytes(24).toString('hex')}`;
  return {
    response: id('resp'),
    createdAt: Math.floor(now.getTime() / 1000),
    item: id,
    now: () => Math.floor(Date.now() / 1000),
  };
}

/**
 * A whole chat completion as the Response object: the reasoning (if the model gave any), the
 * message (if the model said anything, or called nothing) then one `function_call` item per
 * tool call. The reasoning's pieces are sealed into the reasoning item's `encrypted_content`.
 *
 * @example
 * reply.send(await toResponse(completion, body, newResponseIds(), sealer));
 */
export async function toResponse(
  completion: ChatCompletion,
  body: ResponsesRequest,
  ids: ResponseIds,
  sealer: Sealer,
): Promise<ResponseObject> {
  const choice = completion.choices[0];
  const outcome = outcomeOf(choice?.finish_reason ?? 'stop');
  const message = choice?.message;
  const reasoning =
    message?.reasoning || message?.reasoning_details?.length
      ? [
          await reasoningItem(body, ids.item('rs'), 'completed', {
            text: message.reasoning ?? '',
            details: message.reasoning_details ?? [],
            sealer,
          }),
        ]
      : [];
  const output = [...reasoning, ...outputOf(message, ids)];
  const last = output.at(-1);
  if (last && outcome.status === 'incomplete') last.status = 'incomplete';
  return buildResponse(body, ids, {
    ...outcome,
    model: completion.model,
    output,
    usage: toUsage(completion.usage),
  });
}

/** The fields of a Response that depend on how far it got; the rest echo the request. */
export type ResponseState = Pick<
  ResponseObject,
  'status' | 'model' | 'output' | 'usage' | 'incomplete_details'
> &
  Partial<Pick<ResponseObject, 'error'>>;

/**
 * The Response object at any stage: what the request asked echoed (with this server's own
 * defaults where it asked nothing), and `state`.
 *
 * @example
 * buildResponse(body, ids, { status: 'in_progress', model, output: [], usage: null, incomplete_details: null });
 */
export function buildResponse(
  body: ResponsesRequest,
  ids: ResponseIds,
  state: ResponseState,
): ResponseObject {
  return {
    id: ids.response,
    object: 'response',
    created_at: ids.createdAt,
    status: state.status,
    background: false,
    billing: { payer: 'developer' },
    completed_at: state.status === 'completed' ? ids.now() : null,
    error: state.error ?? null,
    frequency_penalty: body.frequency_penalty ?? 0,
    incomplete_details: state.incomplete_details,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    model: state.model,
    output: state.output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    presence_penalty: body.presence_penalty ?? 0,
    previous_response_id: null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    prompt_cache_retention: body.prompt_cache_retention ?? null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: summaryAsked(body) ?? null },
    safety_identifier: body.safety_identifier ?? null,
    service_tier: 'default',
    store: false,
    temperature: body.temperature ?? 1,
    text: {
      format: body.text?.format ?? { type: 'text' },
      verbosity: body.text?.verbosity ?? 'medium',
    },
    tool_choice: body.tool_choice ?? 'auto',
    tools: (body.tools ?? []).filter(isFunctionTool).map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters ?? null,
      // OpenAI's default for the functions of this API (chat's is false). Only a `strict` the
      // request set is sent on to the provider, as strict mode refuses many schemas.
      strict: tool.strict ?? true,
    })),
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    usage: state.usage,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}

/** The summary the request asked for, under its current name or its older one. */
export const summaryAsked = (body: ResponsesRequest): ReasoningSummary | undefined =>
  body.reasoning?.summary ?? body.reasoning?.generate_summary ?? undefined;

/**
 * A reasoning item: the provider's text as `content`, and as `summary` when the request asked
 * for one; its pieces sealed as `encrypted_content` (null when it gave none), so that the
 * client can send them back without reading them. Every item carries it, asked for with
 * `include` or not: nothing is stored here, so without it a tool loop would lose the
 * provider's signatures.
 */
export async function reasoningItem(
  body: ResponsesRequest,
  id: string,
  status: ItemStatus,
  reasoning: { text: string; details: readonly ReasoningDetail[]; sealer: Sealer },
): Promise<OutputReasoning> {
  const { text, details, sealer } = reasoning;
  return {
    id,
    type: 'reasoning',
    status,
    summary: summaryAsked(body) && text ? [{ type: 'summary_text', text }] : [],
    content: text ? [{ type: 'reasoning_text', text }] : [],
    encrypted_content: details.length > 0 ? await sealer.seal('reasoning', details) : null,
  };
}

/** `length` and `content_filter` leave a response incomplete, with the reason the API names. */
export function outcomeOf(
  finish: FinishReason,
): Pick<ResponseState, 'status' | 'incomplete_details'> {
  if (finish === 'length') {
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  }
  if (finish === 'content_filter') {
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  }
  return { status: 'completed', incomplete_details: null };
}

/** A chat usage in the Responses API's names. */
export function toUsage(usage: ChatUsage): ResponseUsage {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: {
      cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
      cache_write_tokens: 0,
    },
    output_tokens: usage.completion_tokens,
    output_tokens_details: {
      reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
    },
    total_tokens: usage.total_tokens,
  };
}

export const outputText = (text: string): OutputText => ({
  type: 'output_text',
  text,
  annotations: [],
  logprobs: [],
});

function outputOf(message: ChatCompletionMessage | undefined, ids: ResponseIds): OutputItem[] {
  const content: OutputContent[] = [];
  if (message?.content) content.push(outputText(message.content));
  if (message?.refusal) content.push({ type: 'refusal', refusal: message.refusal });
  const calls = message?.tool_calls ?? [];
  const output: OutputItem[] = [];
  if (content.length > 0 || calls.length === 0) {
    output.push({
      id: ids.item('msg'),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: content.length > 0 ? content : [outputText('')],
    });
  }
  for (const call of calls) {
    output.push({
      id: ids.item('fc'),
      type: 'function_call',
      status: 'completed',
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  }
  return output;
}
