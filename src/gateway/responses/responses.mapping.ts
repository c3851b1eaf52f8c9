import { randomBytes } from 'node:crypto';
import type {
  ChatCompletion,
  ChatCompletionMessage,
  ChatUsage,
  FinishReason,
} from '../provider.ts';
import {
  isFunctionTool,
  type OutputContent,
  type OutputItem,
  type OutputText,
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
  /** A new output item id: `msg_…` for a message, `fc_…` for a function call. */
  item(kind: 'msg' | 'fc'): string;
}

/** Random ids in OpenAI's shapes (`resp_` and 48 hex digits). */
export function newResponseIds(now: Date = new Date()): ResponseIds {
  const id = (prefix: string) => `${prefix}_${randomBytes(24).toString('hex')}`;
  return {
    response: id('resp'),
    createdAt: Math.floor(now.getTime() / 1000),
    item: id,
  };
}

/**
 * A whole chat completion as the Response object: the message (if the model said anything, or
 * called nothing) then one `function_call` item per tool call.
 *
 * @example
 * reply.send(toResponse(completion, body, newResponseIds()));
 */
export function toResponse(
  completion: ChatCompletion,
  body: ResponsesRequest,
  ids: ResponseIds,
): ResponseObject {
  const choice = completion.choices[0];
  const outcome = outcomeOf(choice?.finish_reason ?? 'stop');
  const output = outputOf(choice?.message, ids);
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
  const verbosity = body.text?.verbosity;
  return {
    id: ids.response,
    object: 'response',
    created_at: ids.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incomplete_details,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: null,
    model: state.model,
    output: state.output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: body.temperature ?? null,
    text: { format: body.text?.format ?? { type: 'text' }, ...(verbosity ? { verbosity } : {}) },
    tool_choice: body.tool_choice ?? 'auto',
    tools: (body.tools ?? []).filter(isFunctionTool).map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters ?? null,
      strict: tool.strict ?? null,
    })),
    top_p: body.top_p ?? null,
    truncation: 'disabled',
    usage: state.usage,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
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
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
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
