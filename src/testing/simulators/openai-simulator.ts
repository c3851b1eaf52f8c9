import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  openEventStream,
  pacedWriter,
  parseJsonObject,
  readBody,
  sendJson as sendJsonBody,
  startLoopbackServer,
} from './loopback-server.ts';
import { answerEmbeddings } from './openai-embeddings-simulator.ts';
import {
  answerResponses,
  lastInputText,
  type ResponsesWire,
} from './openai-responses-simulator.ts';
import type {
  FinishReason,
  Scripted,
  ScriptedReasoning,
  ScriptedToolCall,
} from './openai-scripts.ts';
import { estimateTokens, splitJson, splitWords } from './scripted-text.ts';
import { isProposalsSchema, simulatedProposals } from './simulated-extraction.ts';

export type { FinishReason, Scripted, ScriptedReasoning, ScriptedToolCall };

/**
 * A loopback stand-in for OpenAI's Chat Completions API (`POST /v1/chat/completions`), speaking
 * the wire format of the public API reference: `chat.completion` objects, and for `stream: true`
 * server-sent `chat.completion.chunk` events ending with `data: [DONE]`. It serves the Responses
 * API too (`POST /v1/responses`, openai-responses-simulator.ts). Tests script what it answers
 * next, whichever of the two is asked; without a script it echoes the last user message, or
 * plays one of two deterministic models (modelledText): a model named with `echo` answers the
 * JSON of the request body, and a chat completion whose `response_format` is a JSON schema with
 * a `proposals` property gets simulated-extraction.ts's proposals, streamed as JSON pieces. It
 * serves embeddings (`POST /v1/embeddings`, openai-embeddings-simulator.ts) with vectors that
 * carry a real signal; scripts are not theirs. An outage fails every request until it ends.
 *
 * Token counts are an estimate, not a tokenizer: `ceil(characters / 4)`, where the prompt's
 * characters are all the text of all messages (string contents and `text` parts) and the
 * completion's are the reply text, or each tool call's name and arguments.
 *
 * @example
 * const sim = await startOpenAiSimulator({ apiKey: 'sk-test' });
 * sim.script({ kind: 'error', status: 429, headers: { 'retry-after': '1' } });
 * const client = new OpenAI({ baseURL: sim.baseUrl, apiKey: 'sk-test' });
 * await sim.close();
 */
export interface OpenAiSimulator {
  /** `http://127.0.0.1:PORT/v1`, what the OpenAI SDK takes as `baseURL`. */
  readonly baseUrl: string;
  /** Every request that passed authentication, in arrival order. */
  readonly requests: RecordedRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** Queues the answer to a later request (first in, first out). */
  script(next: Scripted): void;
  /**
   * Fails every request, of any endpoint and before its key is checked, the way given, until
   * called without one. Scripted answers wait for the outage to end.
   */
  outage(failure?: Outage): void;
  /** Stops listening and destroys live connections, hung ones included. */
  close(): Promise<void>;
}

/** How a provider down fails: an error status, an answer that never comes, a dropped socket. */
export type Outage = Extract<Scripted, { kind: 'error' | 'hang' | 'drop' }>;

export interface OpenAiSimulatorOptions {
  /** The key `Authorization: Bearer …` must carry. Default `sk-simulator`. */
  apiKey?: string;
  /** Pause between streamed chunks, in milliseconds. Default 2. */
  chunkDelayMs?: number;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body: a chat completions request, or a Responses one. */
  readonly body: ChatCompletionRequest;
}

/** The parts of a request body the simulator reads; the rest is recorded as sent. */
export interface ChatCompletionRequest {
  readonly model?: string;
  readonly messages?: readonly { role?: string; content?: unknown }[];
  readonly stream?: boolean;
  readonly stream_options?: { include_usage?: boolean } | null;
  readonly n?: number | null;
  readonly [key: string]: unknown;
}

interface WireError {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: {
    reasoning_tokens: number;
    audio_tokens: number;
    accepted_prediction_tokens: number;
    rejected_prediction_tokens: number;
  };
}

/** What one request gets: the fields shared by every object of one completion. */
interface Completion {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly choices: number;
}

export async function startOpenAiSimulator(
  options: OpenAiSimulatorOptions = {},
): Promise<OpenAiSimulator> {
  const apiKey = options.apiKey ?? 'sk-simulator';
  const chunkDelayMs = options.chunkDelayMs ?? 2;
  const requests: RecordedRequest[] = [];
  const queue: Scripted[] = [];
  const write = pacedWriter(chunkDelayMs);
  let down: Outage | undefined;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const raw = await readBody(req);
    if (down) return fail(res, down);
    const routes = ['/v1/chat/completions', '/v1/responses', '/v1/embeddings'];
    if (req.method !== 'POST' || !routes.includes(path)) {
      return sendError(res, 404, {
        message: `Invalid URL (${req.method} ${path})`,
        type: 'invalid_request_error',
        param: null,
        code: null,
      });
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return sendError(res, 401, {
        message: 'Incorrect API key provided.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      });
    }
    const body = parseJsonObject(raw) as ChatCompletionRequest | undefined;
    if (body === undefined) {
      return sendError(res, 400, {
        message: 'We could not parse the JSON body of your request.',
        type: 'invalid_request_error',
        param: null,
        code: null,
      });
    }
    requests.push({ method: req.method, path, headers: req.headers, body });
    if (path === '/v1/embeddings') return answerEmbeddings(res, body, { sendJson });
    const responses = path === '/v1/responses';
    const scripted = queue.shift();
    const modelled = scripted === undefined ? modelledText(body, responses) : undefined;
    const answer: Scripted = scripted ?? {
      kind: 'text',
      text: modelled ?? `You said: ${responses ? lastInputText(body, wire) : lastUserText(body)}`,
    };
    switch (answer.kind) {
      case 'hang':
      case 'drop':
      case 'error':
        return fail(res, answer);
    }
    if (responses) return answerResponses(res, body, answer, wire);

    const completion: Completion = {
      id: `chatcmpl-${randomBytes(12).toString('hex')}`,
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? 'gpt-4o-mini',
      choices: Math.max(1, body.n ?? 1),
    };
    const promptTokens = estimateTokens(promptText(body));
    switch (answer.kind) {
      case 'error-mid-stream':
        if (body.stream !== true) return sendError(res, 500, defaultError(500));
        return streamThenFail(res, completion, answer.text ?? 'Partial answer');
      case 'text':
      case 'tool_calls': {
        const usage = usageOf(answer, promptTokens);
        if (body.stream === true) {
          return stream(
            res,
            completion,
            answer,
            body.stream_options?.include_usage === true,
            usage,
            modelled === undefined ? splitWords : splitJson,
          );
        }
        return sendJson(res, 200, completionObject(completion, answer, usage));
      }
    }
  }

  function completionObject(c: Completion, answer: Reply, usage: Usage): object {
    const { reasoning } = answer;
    const thought = reasoning && {
      [reasoning.field ?? 'reasoning']: reasoning.text,
      ...(reasoning.details && { reasoning_details: reasoning.details }),
    };
    const answered =
      answer.kind === 'text'
        ? { role: 'assistant', content: answer.text, refusal: null, annotations: [] }
        : {
            role: 'assistant',
            content: null,
            tool_calls: answer.calls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            })),
            refusal: null,
            annotations: [],
          };
    const message = { ...answered, ...thought };
    return {
      id: c.id,
      object: 'chat.completion',
      created: c.created,
      model: c.model,
      choices: Array.from({ length: c.choices }, (_, index) => ({
        index,
        message,
        logprobs: null,
        finish_reason: finishReasonOf(answer),
      })),
      usage,
      service_tier: 'default',
      system_fingerprint: null,
    };
  }

  /**
   * The stream as OpenAI sends it: a role delta first, then content (or tool-call) deltas, then a
   * chunk with the finish reason and an empty delta. With `include_usage` every chunk carries
   * `usage: null` and one more chunk, with `choices: []`, carries the usage before `[DONE]`.
   * Text comes in `pieces`: words, or for a JSON answer fixed-size cuts as a model writes them.
   */
  async function stream(
    res: ServerResponse,
    c: Completion,
    answer: Reply,
    includeUsage: boolean,
    usage: Usage,
    pieces: (text: string) => string[],
  ): Promise<void> {
    startEventStream(res);
    const send = async (deltas: object, finishReason: FinishReason | null = null) => {
      const choices = Array.from({ length: c.choices }, (_, index) => ({
        index,
        delta: deltas,
        logprobs: null,
        finish_reason: finishReason,
      }));
      await writeEvent(res, chunk(c, choices, includeUsage ? { usage: null } : {}));
    };

    const { reasoning } = answer;
    if (reasoning) {
      // The thinking first, its own deltas, content null until the answer begins.
      const field = reasoning.field ?? 'reasoning';
      await send({ role: 'assistant', content: null, [field]: '', refusal: null });
      for (const piece of splitWords(reasoning.text)) await send({ [field]: piece });
      if (reasoning.details) await send({ reasoning_details: reasoning.details });
    }
    if (answer.kind === 'text') {
      await send({ ...(!reasoning && { role: 'assistant' }), content: '', refusal: null });
      for (const piece of pieces(answer.text)) await send({ content: piece });
    } else {
      // OpenAI opens a tool-call stream with the role in the first call's delta (content null),
      // then streams the calls one after another: a header delta with id, type, name and empty
      // arguments, then fragments that carry only the index and a piece of the arguments.
      for (const [index, call] of answer.calls.entries()) {
        const header = {
          index,
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: '' },
        };
        await send(
          index === 0 && !reasoning
            ? { role: 'assistant', content: null, tool_calls: [header], refusal: null }
            : { tool_calls: [header] },
        );
        for (const fragment of splitJson(call.arguments)) {
          await send({ tool_calls: [{ index, function: { arguments: fragment } }] });
        }
      }
    }
    await send({}, finishReasonOf(answer));
    if (includeUsage) await writeEvent(res, chunk(c, [], { usage }));
    await write(res, 'data: [DONE]\n\n');
    res.end();
  }

  /**
   * An error after the 200 headers are out: OpenAI has no status left to set, so it sends a
   * `data:` event whose payload is `{"error": {...}}` (the official SDKs throw `APIError` on
   * it) and closes the stream without `[DONE]`.
   */
  async function streamThenFail(res: ServerResponse, c: Completion, text: string): Promise<void> {
    startEventStream(res);
    const choice = (delta: object) => [{ index: 0, delta, logprobs: null, finish_reason: null }];
    await writeEvent(res, chunk(c, choice({ role: 'assistant', content: '', refusal: null }), {}));
    for (const piece of splitWords(text))
      await writeEvent(res, chunk(c, choice({ content: piece }), {}));
    await writeEvent(res, { error: defaultError(500) });
    res.end();
  }

  const wire: ResponsesWire = {
    startEventStream,
    write,
    sendJson,
    errorFor: defaultError,
    textOf,
  };

  async function writeEvent(res: ServerResponse, payload: object): Promise<void> {
    await write(res, `data: ${JSON.stringify(payload)}\n\n`);
  }

  const server = await startLoopbackServer(handle);
  return {
    baseUrl: `${server.origin}/v1`,
    requests,
    connections: server.connections,
    script(next) {
      queue.push(next);
    },
    outage(failure) {
      down = failure;
    },
    close: server.close,
  };
}

/** A failure as scripted: an error answer, no answer at all, or the socket destroyed. */
function fail(res: ServerResponse, failure: Outage) {
  switch (failure.kind) {
    case 'hang':
      return;
    case 'drop':
      res.socket?.destroy();
      return;
    case 'error':
      return sendJson(
        res,
        failure.status,
        failure.body ?? { error: defaultError(failure.status) },
        failure.headers,
      );
  }
}

type Reply = Extract<Scripted, { kind: 'text' | 'tool_calls' }>;

function chunk(c: Completion, choices: object[], extra: object): object {
  return {
    id: c.id,
    object: 'chat.completion.chunk',
    created: c.created,
    model: c.model,
    service_tier: 'default',
    system_fingerprint: null,
    choices,
    ...extra,
  };
}

function finishReasonOf(answer: Reply): FinishReason {
  return answer.kind === 'text' ? (answer.finishReason ?? 'stop') : 'tool_calls';
}

function usageOf(answer: Reply, estimatedPrompt: number): Usage {
  const completionText =
    answer.kind === 'text'
      ? answer.text
      : answer.calls.map((call) => call.name + call.arguments).join('');
  const prompt =
    (answer.kind === 'text' ? answer.usage?.prompt_tokens : undefined) ?? estimatedPrompt;
  const reasoningTokens = answer.reasoning ? estimateTokens(answer.reasoning.text) : 0;
  const completion =
    (answer.kind === 'text' ? answer.usage?.completion_tokens : undefined) ??
    estimateTokens(completionText) + reasoningTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string'
        ? part.text
        : '',
    )
    .join('');
}

function promptText(body: ChatCompletionRequest): string {
  return (body.messages ?? []).map((message) => textOf(message.content)).join('');
}

/**
 * The answer of the model the request asks for when nothing is scripted, or undefined for the
 * plain echo: a model named with `echo` answers the body as parsed, so a test sees exactly what
 * reached the provider; a chat completion asking for a JSON schema with `proposals` (the
 * gateway's memory extraction call) gets the simulated extraction of its last user message.
 * The echo model comes first: a test may want to see an extraction call as it was sent.
 */
function modelledText(body: ChatCompletionRequest, responses: boolean): string | undefined {
  if (typeof body.model === 'string' && body.model.includes('echo')) return JSON.stringify(body);
  if (responses) return undefined;
  const format = body.response_format;
  const schema =
    isRecord(format) && format.type === 'json_schema' && isRecord(format.json_schema)
      ? format.json_schema.schema
      : undefined;
  return isProposalsSchema(schema)
    ? JSON.stringify(simulatedProposals(lastUserText(body), schema))
    : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lastUserText(body: ChatCompletionRequest): string {
  const user = (body.messages ?? []).findLast((message) => message.role === 'user');
  return user ? textOf(user.content) : '';
}

function defaultError(status: number): WireError {
  if (status === 429) {
    return {
      message: 'Rate limit reached for requests. Please try again later.',
      type: 'requests',
      param: null,
      code: 'rate_limit_exceeded',
    };
  }
  if (status >= 500) {
    return {
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
      param: null,
      code: null,
    };
  }
  return {
    message: `Simulated error ${status}`,
    type: 'invalid_request_error',
    param: null,
    code: null,
  };
}

function sendError(res: ServerResponse, status: number, error: WireError): void {
  sendJson(res, status, { error });
}

function startEventStream(res: ServerResponse): void {
  openEventStream(res, { 'x-request-id': requestId() });
}

/** JSON as OpenAI answers it, with an `x-request-id` the scripted headers may override. */
function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendJsonBody(res, status, body, { 'x-request-id': requestId(), ...headers });
}

function requestId(): string {
  return `req_${randomBytes(16).toString('hex')}`;
}
