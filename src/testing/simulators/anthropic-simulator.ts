import { randomBytes, randomInt } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  openEventStream,
  pacedWriter,
  parseJsonObject,
  readBody,
  sendJson as sendJsonBody,
  startLoopbackServer,
} from './loopback-server.ts';
import { estimateTokens, splitJson, splitWords } from './scripted-text.ts';
import { isProposalsSchema, simulatedProposals } from './simulated-extraction.ts';

/**
 * A loopback stand-in for Anthropic's Messages API (`POST /v1/messages`), speaking the wire
 * format of the public API reference: it checks the key and `anthropic-version`, requires
 * `model`, `max_tokens` and `messages`, answers `message` objects, and for `stream: true` sends
 * the documented server-sent events (`message_start`, then per content block
 * `content_block_start`, `content_block_delta`s and `content_block_stop`, then `message_delta`
 * and `message_stop`, with a `ping` after the first block starts). Tests script what it
 * answers next; without a script it echoes the last user text, or plays one of two
 * deterministic models (modelledReply): a model named with `echo` answers the JSON of the
 * request body as its text, and a request forcing the `json_response` tool whose input schema
 * has a `proposals` property gets simulated-extraction.ts's proposals as that tool's input.
 *
 * A reasoning model too: with `thinking: {type: "enabled"}` every answer begins with a
 * `thinking` block (the scripted thinking, or a default) signed by the simulator, streamed as
 * `thinking_delta`s then a `signature_delta`, and with a `redacted_thinking` block first when
 * scripted. It enforces Anthropic's rules: a budget of at least 1024 below `max_tokens`; no
 * temperature but 1, no `top_k`, no `top_p` under 0.95 and no forced tool choice while thinking;
 * thinking blocks sent back unchanged with a signature it issued (`redacted_thinking` data
 * too); and with thinking on, the last assistant turn, when it called tools, beginning with its
 * thinking. Its turn rules are Anthropic's: at least one message, no empty content but in a
 * final assistant turn, no empty or blank text blocks; consecutive turns of one role are taken
 * (Anthropic combines them) and so is a first turn of the assistant.
 *
 * Token counts are an estimate, not a tokenizer: `ceil(characters / 4)`, where the prompt's
 * characters are the system prompt and all the text of all messages, and the answer's are its
 * text, or each tool call's name and JSON input.
 *
 * @example
 * const sim = await startAnthropicSimulator({ apiKey: 'sk-ant-test' });
 * sim.script({ kind: 'error', status: 529 });
 * const client = new Anthropic({ baseURL: sim.baseUrl, apiKey: 'sk-ant-test' });
 * await sim.close();
 */
export interface AnthropicSimulator {
  /** `http://127.0.0.1:PORT`, without `/v1`: what the Anthropic SDK takes as `baseURL`. */
  readonly baseUrl: string;
  /** Every request that passed authentication and parsed as JSON, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Queues the answer to a later request (first in, first out). */
  script(next: Scripted): void;
  /** Stops listening and destroys live connections, hung ones included. */
  close(): Promise<void>;
}

export interface AnthropicSimulatorOptions {
  /** The key requests must carry (keyOf). Default `sk-ant-simulator`. */
  apiKey?: string;
  /** Pause between streamed events, in milliseconds. Default 2. */
  chunkDelayMs?: number;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  readonly body: MessagesRequestBody;
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

export interface ScriptedToolUse {
  /** `toolu_…`, as Anthropic names tool calls. */
  readonly id: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
}

export interface ScriptedUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** What a reasoning answer thinks, when the request turned thinking on. */
export interface ScriptedThinking {
  /** The thinking's text; default "Let me think this through.". */
  thinking?: string;
  /** A `redacted_thinking` block before the thinking, as Anthropic's safety systems send. */
  redacted?: boolean;
}

export type Scripted =
  | ({
      kind: 'text';
      text: string;
      stopReason?: Exclude<StopReason, 'tool_use'>;
      /** The stop sequence that ended the text, with `stopReason: 'stop_sequence'`. */
      stopSequence?: string;
      usage?: ScriptedUsage;
    } & ScriptedThinking)
  /** `tool_use` blocks, after a text block when `text` is given. */
  | ({
      kind: 'tool_calls';
      calls: readonly ScriptedToolUse[];
      text?: string;
      usage?: ScriptedUsage;
    } & ScriptedThinking)
  | { kind: 'error'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Accepts the request and never answers. */
  | { kind: 'hang' }
  /** Destroys the socket without a response. */
  | { kind: 'drop' }
  /**
   * Streams `text` (default "Partial answer") then an `error` event (default
   * `overloaded_error`) and ends; the error's status (529) when not streaming.
   */
  | { kind: 'error-mid-stream'; text?: string; error?: { type: string; message: string } };

/** The parts of a request body the simulator reads; the rest is recorded as sent. */
export interface MessagesRequestBody {
  readonly model?: unknown;
  readonly max_tokens?: unknown;
  readonly messages?: unknown;
  readonly system?: unknown;
  readonly temperature?: unknown;
  readonly thinking?: unknown;
  readonly stream?: unknown;
  readonly [key: string]: unknown;
}

type Reply = Extract<Scripted, { kind: 'text' | 'tool_calls' }>;

interface WireUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
  service_tier: 'standard';
}

type WireBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** The fields shared by the whole of one answer. */
interface Answer {
  readonly id: string;
  readonly model: string;
  readonly blocks: WireBlock[];
  readonly stopReason: StopReason;
  readonly stopSequence: string | null;
  readonly usage: WireUsage;
}

/** Anthropic's error `type` for each status its reference lists. */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const ERROR_MESSAGES: Readonly<Record<string, string>> = {
  authentication_error: 'invalid x-api-key',
  permission_error: 'Your API key does not have permission to use the specified resource.',
  not_found_error: 'Not found',
  request_too_large: 'Request exceeds the maximum allowed number of bytes.',
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit.',
  api_error: 'Internal server error',
  overloaded_error: 'Overloaded',
};

export async function startAnthropicSimulator(
  options: AnthropicSimulatorOptions = {},
): Promise<AnthropicSimulator> {
  const apiKey = options.apiKey ?? 'sk-ant-simulator';
  const chunkDelayMs = options.chunkDelayMs ?? 2;
  const requests: RecordedRequest[] = [];
  const queue: Scripted[] = [];
  const write = pacedWriter(chunkDelayMs);
  const issued: Issued = { signatures: new Map(), redacted: new Set() };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const raw = await readBody(req);
    if (req.method !== 'POST' || path !== '/v1/messages') {
      return sendError(res, 404, 'not_found_error', 'Not found');
    }
    if (keyOf(req.headers) !== apiKey) {
      return sendError(res, 401, 'authentication_error', 'invalid x-api-key');
    }
    if (req.headers['anthropic-version'] === undefined) {
      return sendError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
    }
    const body: MessagesRequestBody | undefined = parseJsonObject(raw);
    if (body === undefined) {
      return sendError(
        res,
        400,
        'invalid_request_error',
        'There was an error parsing the body of your request.',
      );
    }
    requests.push({ method: req.method, path, headers: req.headers, body });
    const problem = problemOf(body) ?? thinkingProblemOf(body, issued);
    if (problem !== undefined) return sendError(res, 400, 'invalid_request_error', problem);

    const next = queue.shift() ??
      modelledReply(body) ?? { kind: 'text', text: `You said: ${lastUserText(body)}` };
    const streaming = body.stream === true;
    switch (next.kind) {
      case 'hang':
        return;
      case 'drop':
        res.socket?.destroy();
        return;
      case 'error': {
        const type = errorTypeOf(next.status);
        const fallback = errorBody(type, ERROR_MESSAGES[type] ?? `Simulated error ${next.status}`);
        return sendJson(res, next.status, next.body ?? fallback, next.headers);
      }
      case 'error-mid-stream': {
        const error = next.error ?? { type: 'overloaded_error', message: 'Overloaded' };
        if (!streaming) return sendError(res, statusOf(error.type), error.type, error.message);
        const answer = answerOf(
          body,
          { kind: 'text', text: next.text ?? 'Partial answer' },
          issued,
        );
        return streamThenFail(res, answer, error);
      }
      case 'text':
      case 'tool_calls': {
        const answer = answerOf(body, next, issued);
        if (streaming) return stream(res, answer);
        return sendJson(res, 200, messageObject(answer, answer.blocks, answer.usage));
      }
    }
  }

  /**
   * The documented event flow: `message_start` (empty content, `stop_reason` null, the input
   * tokens and a first output count), each block's start, deltas and stop, then `message_delta` (stop reason, cumulative output tokens) and
   * `message_stop`. Tool input streams as `input_json_delta` pieces, the first one empty.
   */
  async function stream(res: ServerResponse, answer: Answer): Promise<void> {
    startEventStream(res);
    await writeEvent(res, {
      type: 'message_start',
      message: messageObject(answer, [], { ...answer.usage, output_tokens: 1 }, true),
    });
    for (const [index, block] of answer.blocks.entries()) {
      await writeBlock(res, index, block);
      await writeEvent(res, { type: 'content_block_stop', index });
    }
    if (answer.blocks.length === 0) await writeEvent(res, { type: 'ping' });
    await writeEvent(res, {
      type: 'message_delta',
      delta: { stop_reason: answer.stopReason, stop_sequence: answer.stopSequence },
      usage: { output_tokens: answer.usage.output_tokens },
    });
    await writeEvent(res, { type: 'message_stop' });
    res.end();
  }

  /**
   * A block's start and deltas (its stop is the caller's to send), with the `ping` the
   * reference shows right after the first block starts.
   */
  async function writeBlock(res: ServerResponse, index: number, block: WireBlock): Promise<void> {
    await writeEvent(res, { type: 'content_block_start', index, content_block: startOf(block) });
    if (index === 0) await writeEvent(res, { type: 'ping' });
    for (const delta of deltasOf(block)) {
      await writeEvent(res, { type: 'content_block_delta', index, delta });
    }
  }

  /**
   * An error after the 200 headers are out: Anthropic sends it as an `error` event, shaped like
   * an error body, and ends the stream without `message_stop`.
   */
  async function streamThenFail(
    res: ServerResponse,
    answer: Answer,
    error: { type: string; message: string },
  ): Promise<void> {
    startEventStream(res);
    await writeEvent(res, {
      type: 'message_start',
      message: messageObject(answer, [], { ...answer.usage, output_tokens: 1 }, true),
    });
    const [block] = answer.blocks;
    if (block !== undefined) await writeBlock(res, 0, block);
    await writeEvent(res, { type: 'error', error });
    res.end();
  }

  async function writeEvent(
    res: ServerResponse,
    payload: { type: string; [field: string]: unknown },
  ): Promise<void> {
    await write(res, `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`);
  }

  const server = await startLoopbackServer(handle);
  return {
    baseUrl: server.origin,
    requests,
    script(next) {
      queue.push(next);
    },
    close: server.close,
  };
}

/**
 * The key a request carries: `x-api-key`, the header Anthropic's reference documents, or else
 * `Authorization: Bearer`, which the official TypeScript SDK sends the API key in.
 */
function keyOf(headers: IncomingHttpHeaders): string | undefined {
  const header = headers['x-api-key'];
  if (header !== undefined) return Array.isArray(header) ? header[0] : header;
  return /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
}

/** The first problem Anthropic would name, in its `field: problem` wording. */
function problemOf(body: MessagesRequestBody): string | undefined {
  if (body.model === undefined) return 'model: Field required';
  if (typeof body.model !== 'string' || body.model === '') {
    return 'model: Input should be a valid string';
  }
  if (body.max_tokens === undefined) return 'max_tokens: Field required';
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens)) {
    return 'max_tokens: Input should be a valid integer';
  }
  if (body.max_tokens < 1) return 'max_tokens: Input should be greater than or equal to 1';
  if (body.messages === undefined) return 'messages: Field required';
  if (!Array.isArray(body.messages)) return 'messages: Input should be a valid list';
  if (body.messages.length === 0) return 'messages: at least one message is required';
  if (isObject(body.messages[0]) && body.messages[0].role === 'assistant') {
    return 'messages: first message must use the "user" role';
  }
  for (const [index, message] of body.messages.entries()) {
    if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant')) {
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    }
    if (typeof message.content !== 'string' && !Array.isArray(message.content)) {
      return `messages.${index}.content: Input should be a valid string or list`;
    }
    const final = index === body.messages.length - 1 && message.role === 'assistant';
    if (message.content.length === 0 && !final) {
      return `messages.${index}: all messages must have non-empty content except for the optional final assistant message`;
    }
    const texts: unknown[] = Array.isArray(message.content)
      ? message.content.filter((block: unknown) => isObject(block) && block.type === 'text')
      : [];
    for (const block of texts as Record<string, unknown>[]) {
      if (block.text === '') return 'messages: text content blocks must be non-empty';
      if (typeof block.text === 'string' && block.text.trim() === '') {
        return 'messages: text content blocks must contain non-whitespace text';
      }
    }
  }
  if (body.temperature === undefined) return undefined;
  if (typeof body.temperature !== 'number') return 'temperature: Input should be a valid number';
  if (body.temperature < 0) return 'temperature: Input should be greater than or equal to 0';
  if (body.temperature > 1) return 'temperature: Input should be less than or equal to 1';
  return undefined;
}

/** The signatures and redacted data the simulator gave out, to check what comes back. */
interface Issued {
  /** Each signature, with the thinking text it signs. */
  readonly signatures: Map<string, string>;
  readonly redacted: Set<string>;
}

/** `content_block_start`'s block: thinking and text start empty, tool input as `{}`. */
function startOf(block: WireBlock): WireBlock {
  switch (block.type) {
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'text':
      return { type: 'text', text: '' };
    case 'tool_use':
      return { ...block, input: {} };
    case 'redacted_thinking':
      return block;
  }
}

/**
 * A block's deltas, as the reference streams them: thinking as `thinking_delta`s then its
 * `signature_delta`, text as `text_delta`s, tool input as `input_json_delta` pieces (the first
 * one empty); a redacted block comes whole in its start.
 */
function deltasOf(block: WireBlock): object[] {
  switch (block.type) {
    case 'thinking':
      return [
        ...textPieces(block.thinking).map((thinking) => ({ type: 'thinking_delta', thinking })),
        { type: 'signature_delta', signature: block.signature },
      ];
    case 'text':
      return textPieces(block.text).map((text) => ({ type: 'text_delta', text }));
    case 'tool_use':
      return ['', ...splitJson(JSON.stringify(block.input))].map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      }));
    case 'redacted_thinking':
      return [];
  }
}

const thinkingOn = (body: MessagesRequestBody) =>
  isObject(body.thinking) && body.thinking.type === 'enabled';

const THINKING_DOCS =
  'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/**
 * What Anthropic refuses about thinking, in its words: the budget, the settings thinking does
 * not allow, thinking blocks it did not issue or that were changed, and (thinking on) a last
 * assistant turn that called tools without beginning with its thinking.
 */
function thinkingProblemOf(body: MessagesRequestBody, issued: Issued): string | undefined {
  const messages = messagesOf(body);
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const [at, block] of (message.content as unknown[]).entries()) {
      if (!isObject(block)) continue;
      if (block.type === 'thinking') {
        const signed =
          typeof block.signature === 'string' ? issued.signatures.get(block.signature) : undefined;
        if (signed === undefined || signed !== block.thinking) {
          return `messages.${index}.content.${at}: Invalid \`signature\` in \`thinking\` block`;
        }
      }
      if (
        block.type === 'redacted_thinking' &&
        !(typeof block.data === 'string' && issued.redacted.has(block.data))
      ) {
        return `messages.${index}.content.${at}: Invalid \`data\` in \`redacted_thinking\` block`;
      }
    }
  }
  if (body.thinking === undefined) return undefined;
  if (!thinkingOn(body)) return "thinking.type: Input should be 'enabled' or 'disabled'";
  const budget = (body.thinking as Record<string, unknown>).budget_tokens;
  if (typeof budget !== 'number' || !Number.isInteger(budget)) {
    return 'thinking.enabled.budget_tokens: Input should be a valid integer';
  }
  if (budget < 1024) {
    return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  }
  if (typeof body.max_tokens === 'number' && body.max_tokens <= budget) {
    return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. ${THINKING_DOCS}`;
  }
  if (body.temperature !== undefined && body.temperature !== 1) {
    return `\`temperature\` may only be set to 1 when thinking is enabled. ${THINKING_DOCS}`;
  }
  if (body.top_k !== undefined)
    return `\`top_k\` must be unset when thinking is enabled. ${THINKING_DOCS}`;
  if (typeof body.top_p === 'number' && body.top_p < 0.95) {
    return `\`top_p\` must be greater than or equal to 0.95 or unset when thinking is enabled. ${THINKING_DOCS}`;
  }
  const choice = isObject(body.tool_choice) ? body.tool_choice.type : undefined;
  if (choice === 'any' || choice === 'tool') {
    return 'Thinking may not be enabled when tool_choice forces tool use.';
  }
  const lastIndex = messages.findLastIndex((message) => message.role === 'assistant');
  const content = messages[lastIndex]?.content;
  if (
    Array.isArray(content) &&
    content.some((block) => isObject(block) && block.type === 'tool_use')
  ) {
    const first: unknown = content[0];
    const type = isObject(first) ? first.type : undefined;
    if (type !== 'thinking' && type !== 'redacted_thinking') {
      return `messages.${lastIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. ${THINKING_DOCS}`;
    }
  }
  return undefined;
}

/** The tool the gateway forces for JSON output (its anthropic.mapping.ts `JSON_TOOL_NAME`). */
const JSON_TOOL = 'json_response';

/**
 * The answer of the model the request asks for when nothing is scripted, or undefined for the
 * plain echo: a model named with `echo` answers the body as parsed, so a test sees exactly what
 * reached the provider; a request forcing the JSON tool with a `proposals` schema (the
 * gateway's memory extraction call) gets the simulated extraction of its last user text as
 * the tool's input. The echo model comes first: a test may want to see an extraction call as
 * it was sent.
 */
function modelledReply(body: MessagesRequestBody): Reply | undefined {
  if (typeof body.model === 'string' && body.model.includes('echo')) {
    return { kind: 'text', text: JSON.stringify(body) };
  }
  const choice = body.tool_choice;
  if (!isObject(choice) || choice.type !== 'tool' || choice.name !== JSON_TOOL) return undefined;
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : [];
  const tool = tools.find((candidate) => isObject(candidate) && candidate.name === JSON_TOOL);
  const schema = isObject(tool) ? tool.input_schema : undefined;
  if (!isProposalsSchema(schema)) return undefined;
  const { proposals } = simulatedProposals(lastUserText(body), schema);
  return {
    kind: 'tool_calls',
    calls: [{ id: `toolu_01${base62(22)}`, name: JSON_TOOL, input: { proposals } }],
  };
}

function answerOf(body: MessagesRequestBody, reply: Reply, issued: Issued): Answer {
  const blocks: WireBlock[] = [];
  if (thinkingOn(body)) {
    if (reply.redacted === true) {
      const data = `EmwKAhgBEgy${randomBytes(48).toString('base64')}`;
      issued.redacted.add(data);
      blocks.push({ type: 'redacted_thinking', data });
    }
    const thinking = reply.thinking ?? 'Let me think this through.';
    const signature = randomBytes(64).toString('base64');
    issued.signatures.set(signature, thinking);
    blocks.push({ type: 'thinking', thinking, signature });
  }
  if (reply.kind === 'text' || (reply.text !== undefined && reply.text !== '')) {
    blocks.push({ type: 'text', text: reply.text ?? '' });
  }
  if (reply.kind === 'tool_calls') {
    for (const call of reply.calls) blocks.push({ type: 'tool_use', ...call });
  }
  const answerText = blocks.map(blockText).join('');
  return {
    id: `msg_01${base62(22)}`,
    model: body.model as string,
    blocks,
    stopReason: reply.kind === 'tool_calls' ? 'tool_use' : (reply.stopReason ?? 'end_turn'),
    stopSequence: reply.kind === 'text' ? (reply.stopSequence ?? null) : null,
    usage: {
      input_tokens: reply.usage?.input_tokens ?? estimateTokens(promptText(body)),
      cache_creation_input_tokens: reply.usage?.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: reply.usage?.cache_read_input_tokens ?? 0,
      output_tokens: reply.usage?.output_tokens ?? estimateTokens(answerText),
      service_tier: 'standard',
    },
  };
}

/** A `message` object; in `message_start` its content is empty and its stop reason null. */
function messageObject(answer: Answer, content: WireBlock[], usage: WireUsage, starting = false) {
  return {
    id: answer.id,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content,
    stop_reason: starting ? null : answer.stopReason,
    stop_sequence: starting ? null : answer.stopSequence,
    usage,
  };
}

/** What an answer's block counts for in the output tokens; redacted thinking, a fixed 50. */
function blockText(block: WireBlock): string {
  switch (block.type) {
    case 'thinking':
      return block.thinking;
    case 'redacted_thinking':
      return 'x'.repeat(200);
    case 'text':
      return block.text;
    case 'tool_use':
      return block.name + JSON.stringify(block.input);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A content's text: a string, or its `text` blocks (tool results' contents included). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) => {
      if (!isObject(block)) return '';
      if (block.type === 'tool_result') return textOf(block.content);
      return block.type === 'text' && typeof block.text === 'string' ? block.text : '';
    })
    .join('');
}

function messagesOf(body: MessagesRequestBody): Record<string, unknown>[] {
  return Array.isArray(body.messages) ? body.messages.filter(isObject) : [];
}

function promptText(body: MessagesRequestBody): string {
  return (
    textOf(body.system) +
    messagesOf(body)
      .map((message) => textOf(message.content))
      .join('')
  );
}

/** The text the user typed last: its turn's `text` blocks, tool results left out. */
function lastUserText(body: MessagesRequestBody): string {
  const user = messagesOf(body).findLast((message) => message.role === 'user');
  const content: unknown = user?.content;
  return textOf(
    Array.isArray(content)
      ? content.filter((block: unknown) => isObject(block) && block.type === 'text')
      : content,
  );
}

/** A text block's deltas: its words, and none at all for an empty block. */
function textPieces(text: string): string[] {
  return text === '' ? [] : splitWords(text);
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(length: number): string {
  return Array.from({ length }, () => BASE62.charAt(randomInt(BASE62.length))).join('');
}

function errorTypeOf(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

function statusOf(errorType: string): number {
  const entry = Object.entries(ERROR_TYPES).find(([, type]) => type === errorType);
  return entry === undefined ? 500 : Number(entry[0]);
}

function errorBody(type: string, message: string) {
  return { type: 'error', error: { type, message }, request_id: requestId() };
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, errorBody(type, message));
}

function startEventStream(res: ServerResponse): void {
  openEventStream(res, { 'request-id': requestId() });
}

/** JSON as Anthropic answers it, with a `request-id` the scripted headers may override. */
function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendJsonBody(res, status, body, { 'request-id': requestId(), ...headers });
}

/** Anthropic's request ids look like `req_011C…`. */
function requestId(): string {
  return `req_011C${base62(20)}`;
}
