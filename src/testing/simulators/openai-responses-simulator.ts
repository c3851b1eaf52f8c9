import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Scripted, ScriptedToolCall } from './openai-scripts.ts';
import { estimateTokens, splitJson, splitWords } from './scripted-text.ts';

/** What a scripted answer can be for `/v1/responses`; hangs, drops and errors are shared. */
export type ResponsesAnswer = Extract<
  Scripted,
  { kind: 'text' | 'tool_calls' | 'error-mid-stream' }
>;

/** What this endpoint borrows from the simulator it is part of. */
export interface ResponsesWire {
  /** Sends the 200 head of an event stream. */
  startEventStream(res: ServerResponse): void;
  /** Writes text, then waits the simulator's chunk delay; throws once the client has gone. */
  write(res: ServerResponse, text: string): Promise<void>;
  sendJson(res: ServerResponse, status: number, body: unknown): void;
  /** An error body as OpenAI words it for `status`. */
  errorFor(status: number): {
    message: string;
    type: string;
    param: string | null;
    code: string | null;
  };
  /** A content's text: the string, or the `text` of each of its parts. */
  textOf(content: unknown): string;
}

/** The parts of a Responses request the simulator reads; the rest is recorded as sent. */
export interface ResponsesRequestBody {
  readonly model?: string;
  readonly input?: unknown;
  readonly instructions?: string | null;
  readonly stream?: boolean | null;
  readonly [key: string]: unknown;
}

/**
 * The OpenAI simulator's `POST /v1/responses`, in the wire format of OpenAI's Responses API
 * reference and of what OpenAI is seen to send: a Response object, or for `stream: true` named
 * server-sent events numbered by `sequence_number`, without a `[DONE]` sentinel. A failure
 * mid-stream is an `error` event (its fields nested in `error`, as OpenAI sends them) followed
 * by `response.failed`.
 *
 * Token counts are estimated as for chat completions: the prompt is the instructions and every
 * text of the input; the completion the reply text, or each call's name and arguments.
 *
 * @example
 * if (path === '/v1/responses') return answerResponses(res, body, answer, wire);
 */
export async function answerResponses(
  res: ServerResponse,
  body: ResponsesRequestBody,
  answer: ResponsesAnswer,
  wire: ResponsesWire,
): Promise<void> {
  const shell = responseShell(body);
  if (answer.kind === 'error-mid-stream') {
    if (body.stream !== true) return wire.sendJson(res, 500, { error: wire.errorFor(500) });
    return streamThenFail(res, shell, answer.text ?? 'Partial answer', wire);
  }
  const usage = usageOf(body, answer, wire);
  const output = outputOf(answer);
  const incomplete = incompleteReason(answer);
  if (incomplete) {
    const last = output.at(-1);
    if (last) last.status = 'incomplete';
  }
  const final = {
    ...shell,
    status: incomplete ? 'incomplete' : 'completed',
    completed_at: incomplete ? null : Math.floor(Date.now() / 1000),
    incomplete_details: incomplete ? { reason: incomplete } : null,
    output,
    usage,
  };
  if (body.stream !== true) return wire.sendJson(res, 200, final);

  const events = eventWriter(res, wire);
  wire.startEventStream(res);
  await events.send({ type: 'response.created', response: shell });
  await events.send({ type: 'response.in_progress', response: shell });
  for (const [index, item] of output.entries()) {
    await streamItem(events, index, item);
  }
  await events.send({
    type: incomplete ? 'response.incomplete' : 'response.completed',
    response: final,
  });
  res.end();
}

/** The last user message's text, for the echo when nothing is scripted. */
export function lastInputText(body: ResponsesRequestBody, wire: ResponsesWire): string {
  if (typeof body.input === 'string') return body.input;
  if (!Array.isArray(body.input)) return '';
  for (const item of [...body.input].reverse()) {
    if (typeof item === 'object' && item !== null && 'role' in item && item.role === 'user') {
      return wire.textOf('content' in item ? item.content : undefined);
    }
  }
  return '';
}

type Reply = Exclude<ResponsesAnswer, { kind: 'error-mid-stream' }>;
type Status = 'in_progress' | 'completed' | 'incomplete';

interface MessageItem {
  id: string;
  type: 'message';
  status: Status;
  content: { type: 'output_text'; annotations: []; logprobs: []; text: string }[];
  role: 'assistant';
}
interface FunctionCallItem {
  id: string;
  type: 'function_call';
  status: Status;
  arguments: string;
  call_id: string;
  name: string;
}
type Item = MessageItem | FunctionCallItem;

const itemId = (prefix: 'msg' | 'fc') => `${prefix}_${randomBytes(24).toString('hex')}`;
const outputText = (text: string) => ({
  type: 'output_text' as const,
  annotations: [] as [],
  logprobs: [] as [],
  text,
});

/** The Response as it stands when created: the request echoed, OpenAI's defaults filled in. */
function responseShell(body: ResponsesRequestBody) {
  const tools = Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]) : [];
  return {
    id: `resp_${randomBytes(24).toString('hex')}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'in_progress',
    background: false,
    billing: { payer: 'developer' },
    completed_at: null,
    error: null,
    frequency_penalty: 0,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: null,
    model: body.model ?? 'gpt-4o-mini',
    output: [] as Item[],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    presence_penalty: 0,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: null,
    prompt_cache_retention: null,
    reasoning: { effort: null, summary: null },
    safety_identifier: null,
    service_tier: 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    // OpenAI echoes each function tool with its defaults: no description, strict mode on.
    tools: tools.map((tool) =>
      tool.type === 'function' ? { description: null, strict: true, ...tool } : tool,
    ),
    top_logprobs: 0,
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    usage: null,
    user: null,
    metadata: body.metadata ?? {},
  };
}

function outputOf(answer: Reply): Item[] {
  if (answer.kind === 'text') {
    return [
      {
        id: itemId('msg'),
        type: 'message',
        status: 'completed',
        content: [outputText(answer.text)],
        role: 'assistant',
      },
    ];
  }
  return answer.calls.map((call: ScriptedToolCall) => ({
    id: itemId('fc'),
    type: 'function_call',
    status: 'completed',
    arguments: call.arguments,
    call_id: call.id,
    name: call.name,
  }));
}

function incompleteReason(answer: Reply): 'max_output_tokens' | 'content_filter' | undefined {
  if (answer.kind !== 'text') return undefined;
  if (answer.finishReason === 'length') return 'max_output_tokens';
  if (answer.finishReason === 'content_filter') return 'content_filter';
  return undefined;
}

function usageOf(body: ResponsesRequestBody, answer: Reply, wire: ResponsesWire) {
  const prompt = (body.instructions ?? '') + inputText(body.input, wire);
  const completion =
    answer.kind === 'text'
      ? answer.text
      : answer.calls.map((call) => call.name + call.arguments).join('');
  const input =
    (answer.kind === 'text' ? answer.usage?.prompt_tokens : undefined) ?? estimateTokens(prompt);
  const output =
    (answer.kind === 'text' ? answer.usage?.completion_tokens : undefined) ??
    estimateTokens(completion);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

interface EventWriter {
  send(event: { type: string; [field: string]: unknown }): Promise<void>;
}

/** Numbers the events from 0 and writes each as `event: <type>` with its JSON. */
function eventWriter(res: ServerResponse, wire: ResponsesWire): EventWriter {
  let sequence = 0;
  return {
    async send(event) {
      const numbered = { ...event, sequence_number: sequence++ };
      await wire.write(res, `event: ${event.type}\ndata: ${JSON.stringify(numbered)}\n\n`);
    },
  };
}

/** One output item as OpenAI streams it: added, its deltas, its done events, done. */
async function streamItem(events: EventWriter, index: number, item: Item): Promise<void> {
  const at = { item_id: item.id, output_index: index };
  if (item.type === 'message') {
    await events.send({
      type: 'response.output_item.added',
      output_index: index,
      item: { ...item, status: 'in_progress', content: [] },
    });
    const text = item.content[0]?.text ?? '';
    await streamTextPart(events, at, text);
    await events.send({
      type: 'response.output_text.done',
      ...at,
      content_index: 0,
      text,
      logprobs: [],
    });
    await events.send({
      type: 'response.content_part.done',
      ...at,
      content_index: 0,
      part: outputText(text),
    });
  } else {
    await events.send({
      type: 'response.output_item.added',
      output_index: index,
      item: { ...item, status: 'in_progress', arguments: '' },
    });
    for (const delta of splitJson(item.arguments)) {
      await events.send({ type: 'response.function_call_arguments.delta', ...at, delta });
    }
    await events.send({
      type: 'response.function_call_arguments.done',
      ...at,
      arguments: item.arguments,
    });
  }
  await events.send({ type: 'response.output_item.done', output_index: index, item });
}

/** A message's text part opened, then its text word by word; closing it is the caller's. */
async function streamTextPart(
  events: EventWriter,
  at: { item_id: string; output_index: number },
  text: string,
): Promise<void> {
  await events.send({
    type: 'response.content_part.added',
    ...at,
    content_index: 0,
    part: outputText(''),
  });
  for (const delta of splitWords(text)) {
    await events.send({
      type: 'response.output_text.delta',
      ...at,
      content_index: 0,
      delta,
      logprobs: [],
    });
  }
}

/** A message begun, then OpenAI's failure after the 200: an `error` event, `response.failed`. */
async function streamThenFail(
  res: ServerResponse,
  shell: ReturnType<typeof responseShell>,
  text: string,
  wire: ResponsesWire,
): Promise<void> {
  const events = eventWriter(res, wire);
  const message: MessageItem = {
    id: itemId('msg'),
    type: 'message',
    status: 'in_progress',
    content: [],
    role: 'assistant',
  };
  const at = { item_id: message.id, output_index: 0 };
  wire.startEventStream(res);
  await events.send({ type: 'response.created', response: shell });
  await events.send({ type: 'response.in_progress', response: shell });
  await events.send({ type: 'response.output_item.added', output_index: 0, item: message });
  await streamTextPart(events, at, text);
  const error = wire.errorFor(500);
  await events.send({ type: 'error', error: { ...error, code: error.code ?? 'server_error' } });
  await events.send({
    type: 'response.failed',
    response: {
      ...shell,
      status: 'failed',
      error: { code: 'server_error', message: error.message },
      output: [{ ...message, content: [outputText(text)] }],
    },
  });
  res.end();
}

function inputText(input: unknown, wire: ResponsesWire): string {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return '';
  return input
    .map((item: unknown) =>
      typeof item === 'object' && item !== null && 'content' in item
        ? wire.textOf(item.content)
        : '',
    )
    .join('');
}
