import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { answerEmbedding } from './gemini-embeddings-simulator.ts';
import {
  openEventStream,
  pacedWriter,
  parseJsonObject,
  readBody,
  sendJson as sendJsonBody,
  startLoopbackServer,
} from './loopback-server.ts';
import { estimateTokens, splitWords } from './scripted-text.ts';
import { isProposalsSchema, simulatedProposals } from './simulated-extraction.ts';

/**
 * A loopback stand-in for Google's Gemini API, speaking the wire format of its public
 * reference: `POST /v1beta/models/{model}:generateContent` answers a GenerateContentResponse
 * (candidates, usageMetadata, modelVersion, responseId), and `:streamGenerateContent?alt=sse`
 * the same in pieces as server-sent events (`data: {json}\r\n\r\n`), the finishReason and the
 * final usageMetadata on the last. Without `alt=sse` the stream is one JSON array, as Google
 * sends it. The key comes in `x-goog-api-key` or `?key=`; errors are Google's
 * `{"error": {"code", "message", "status", "details"}}`. Tests script what it answers next;
 * without a script it echoes the last user text, or plays one of two deterministic models
 * (modelledReply): a model named with `echo` (in the URL) answers the JSON of the request body
 * as its text, and a request whose `generationConfig.responseJsonSchema` has a `proposals`
 * property gets simulated-extraction.ts's proposals as JSON text.
 *
 * Token counts are an estimate, not a tokenizer: `ceil(characters / 4)`, where the prompt's
 * characters are the text parts of `systemInstruction` and of every content, and the answer's
 * are its text, or each function call's name and JSON arguments.
 *
 * A thinking model: an answer scripted with `thoughts` thought (unless the request's
 * `thinkingConfig.thinkingBudget` is 0), so it counts them in `thoughtsTokenCount`, sends them as
 * `thought: true` parts when `includeThoughts` asks for them, and signs its answer
 * (`thoughtSignature`, minted unless scripted): the first function call of a step, or the
 * answer's last text part. It checks signatures as Gemini does: one it did not issue is
 * refused (400 "Corrupted thought signature."), and a Gemini 3 model (`gemini-3…`) refuses a
 * function call of the current turn (the model turns since the last user text) sent back
 * without its signature. It checks `thinkingConfig` against each model's documented range:
 * Gemini 2.5 budgets, Gemini 3 levels, never both.
 *
 * It embeds too (`:embedContent`, `:batchEmbedContents`, gemini-embeddings-simulator.ts), with
 * vectors that carry a real signal; scripts are not theirs. An outage fails every request until
 * it ends.
 *
 * @example
 * const sim = await startGeminiSimulator({ apiKey: 'gemini-test' });
 * sim.script({ kind: 'error', status: 429 });
 * // The SDK's default version is v1; mnemo speaks v1beta, and so does the simulator.
 * const ai = new GoogleGenAI({
 *   apiKey: 'gemini-test',
 *   apiVersion: 'v1beta',
 *   httpOptions: { baseUrl: sim.baseUrl },
 * });
 * await sim.close();
 */
export interface GeminiSimulator {
  /** `http://127.0.0.1:PORT`, what the Google Gen AI SDK takes as `httpOptions.baseUrl`. */
  readonly baseUrl: string;
  /** Every request that passed the key check and whose body is JSON, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Queues the answer to a later request (first in, first out). */
  script(next: Scripted): void;
  /**
   * Fails every request, of any method and before its key is checked, the way given, until
   * called without one. Scripted answers wait for the outage to end.
   */
  outage(failure?: Outage): void;
  /** Stops listening and destroys live connections, hung ones included. */
  close(): Promise<void>;
}

/** How a provider down fails: an error status, an answer that never comes, a dropped socket. */
export type Outage = Extract<Scripted, { kind: 'error' | 'hang' | 'drop' }>;

export interface GeminiSimulatorOptions {
  /** The key the requests must carry. Default `gemini-simulator-key`. */
  apiKey?: string;
  /** Pause between streamed events, in milliseconds. Default 2. */
  chunkDelayMs?: number;
}

export interface RecordedRequest {
  readonly method: string;
  /** The path without the query, e.g. `/v1beta/models/gemini-2.5-flash:generateContent`. */
  readonly path: string;
  /** The query string with its `?`, or empty. */
  readonly search: string;
  readonly model: string;
  /** The model's method called: `generateContent`, `streamGenerateContent`, `embedContent`… */
  readonly rpc: string;
  readonly stream: boolean;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  readonly body: GenerateContentBody;
}

export interface ScriptedFunctionCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** Sent as the call's `id` (some models set one). */
  readonly id?: string;
  /** Sent as the part's `thoughtSignature`, as thinking models sign their calls. */
  readonly thoughtSignature?: string;
}

export type Scripted =
  | {
      kind: 'text';
      text: string;
      /** Default STOP. */
      finishReason?: string;
      usage?: {
        promptTokenCount?: number;
        candidatesTokenCount?: number;
        thoughtsTokenCount?: number;
        cachedContentTokenCount?: number;
      };
      /** What a thinking model thought before it answered. */
      thoughts?: string;
      /** The answer's signature; minted when the model thought and none is scripted. */
      thoughtSignature?: string;
    }
  | {
      kind: 'tool_calls';
      calls: readonly ScriptedFunctionCall[];
      /** What a thinking model thought before it called. */
      thoughts?: string;
    }
  /** The prompt refused: `promptFeedback.blockReason` (default SAFETY) and no candidates. */
  | { kind: 'blocked'; blockReason?: string }
  | { kind: 'error'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Accepts the request and never answers. */
  | { kind: 'hang' }
  /** Destroys the socket without a response. */
  | { kind: 'drop' }
  /** Streams `text` (default "Partial answer") then an error event and ends; 500 when not streaming. */
  | { kind: 'error-mid-stream'; text?: string };

/** The parts of a request body the simulator reads; the rest is recorded as sent. */
export interface GenerateContentBody {
  readonly contents?: readonly { role?: string; parts?: readonly WirePart[] }[];
  readonly systemInstruction?: { parts?: readonly WirePart[] };
  readonly generationConfig?: {
    candidateCount?: number;
    thinkingConfig?: {
      includeThoughts?: boolean;
      thinkingBudget?: number;
      thinkingLevel?: string;
    };
    [key: string]: unknown;
  };
  readonly [key: string]: unknown;
}

type WirePart = { readonly text?: unknown; readonly [key: string]: unknown };

interface WireError {
  code: number;
  message: string;
  status: string;
  details?: object[];
}

/** What one request gets: the fields shared by every event of one answer. */
interface Answer {
  readonly model: string;
  readonly responseId: string;
  readonly candidates: number;
  readonly promptTokens: number;
}

type Reply = Extract<Scripted, { kind: 'text' | 'tool_calls' }>;

const ROUTE =
  /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|embedContent|batchEmbedContents)$/;

export async function startGeminiSimulator(
  options: GeminiSimulatorOptions = {},
): Promise<GeminiSimulator> {
  const apiKey = options.apiKey ?? 'gemini-simulator-key';
  const chunkDelayMs = options.chunkDelayMs ?? 2;
  const requests: RecordedRequest[] = [];
  const queue: Scripted[] = [];
  const write = pacedWriter(chunkDelayMs);
  let down: Outage | undefined;
  /** Every signature sent, the only ones taken back. */
  const issued = new Set<string>();
  const sign = (scripted?: string) => {
    const signature = scripted ?? randomBytes(24).toString('base64');
    issued.add(signature);
    return signature;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const raw = await readBody(req);
    if (down) return fail(res, down);
    const route = ROUTE.exec(url.pathname);
    if (req.method !== 'POST' || !route) {
      return sendError(res, {
        code: 404,
        message: `The requested URL ${url.pathname} was not found on this server.`,
        status: 'NOT_FOUND',
      });
    }
    const key = req.headers['x-goog-api-key'] ?? url.searchParams.get('key');
    if (key === undefined || key === null) return sendError(res, unregisteredCaller());
    if (key !== apiKey) return sendError(res, invalidKey());
    const body = parseJsonObject(raw) as GenerateContentBody | undefined;
    if (body === undefined) {
      return sendError(res, {
        code: 400,
        message: 'Invalid JSON payload received. Unexpected token.',
        status: 'INVALID_ARGUMENT',
      });
    }
    const model = decodeURIComponent(route[1] ?? '');
    const rpc = route[2] ?? '';
    const stream = rpc === 'streamGenerateContent';
    requests.push({
      method: req.method,
      path: url.pathname,
      search: url.search,
      model,
      rpc,
      stream,
      headers: req.headers,
      body,
    });
    if (rpc === 'embedContent' || rpc === 'batchEmbedContents') {
      const answer = answerEmbedding(rpc, model, body);
      return answer.ok ? sendJson(res, 200, answer.body) : sendError(res, answer.error);
    }
    if (!Array.isArray(body.contents) || body.contents.length === 0) {
      return sendError(res, {
        code: 400,
        message: '* GenerateContentRequest.contents: contents is not specified\n',
        status: 'INVALID_ARGUMENT',
      });
    }

    const refusal = thinkingConfigRefusal(model, body) ?? signatureRefusal(model, body, issued);
    if (refusal !== undefined) return sendError(res, refusal);

    const script = queue.shift() ??
      modelledReply(model, body) ?? { kind: 'text', text: `You said: ${lastUserText(body)}` };
    const answer: Answer = {
      model,
      responseId: randomBytes(16).toString('base64url').slice(0, 22),
      candidates: Math.max(1, body.generationConfig?.candidateCount ?? 1),
      promptTokens: estimateTokens(promptText(body)),
    };
    const sse = url.searchParams.get('alt') === 'sse';

    switch (script.kind) {
      case 'hang':
      case 'drop':
      case 'error':
        return fail(res, script);
      case 'blocked': {
        const event = blockedResponse(answer, script.blockReason ?? 'SAFETY');
        return stream ? sendEvents(res, [event], sse) : sendJson(res, 200, event);
      }
      case 'error-mid-stream': {
        if (!stream) return sendError(res, defaultError(500));
        const pieces = splitWords(script.text ?? 'Partial answer').map((text) =>
          responseObject(answer, [textPart(text)], {}, true),
        );
        return sendEvents(res, [...pieces, { error: defaultError(500) }], sse);
      }
      case 'text':
      case 'tool_calls': {
        const thinking = thinkingOf(body, script);
        const parts = partsOf(script, thinking, sign);
        const final = finalOf(answer, script, thinking);
        return stream
          ? sendEvents(res, streamedEvents(answer, parts, final), sse)
          : sendJson(res, 200, responseObject(answer, [...parts.thoughts, ...parts.answer], final));
      }
    }
  }

  /**
   * Server-sent events, `data: {json}` each ended by a blank line as Google ends them (CRLF);
   * without `alt=sse`, Google's other stream format: one JSON array, its elements sent as they
   * come.
   */
  async function sendEvents(res: ServerResponse, events: object[], sse: boolean): Promise<void> {
    openEventStream(res, {
      'content-type': sse ? 'text/event-stream' : 'application/json; charset=UTF-8',
    });
    for (const [index, event] of events.entries()) {
      const json = JSON.stringify(event);
      await write(res, sse ? `data: ${json}\r\n\r\n` : `${index === 0 ? '[' : ',\r\n'}${json}`);
    }
    if (!sse) res.write(']');
    res.end();
  }

  const server = await startLoopbackServer(handle);
  return {
    baseUrl: server.origin,
    requests,
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

/** What the last event (or the whole answer) adds: the finish reason and the full usage. */
interface Final {
  readonly finishReason?: string;
  readonly usageMetadata?: object;
}

/**
 * One GenerateContentResponse with the same parts in each candidate. proto3 JSON leaves zero
 * values out, so in a stream's events the first candidate carries no `index`.
 */
function responseObject(answer: Answer, parts: object[], final: Final, streamed = false): object {
  return {
    candidates: Array.from({ length: answer.candidates }, (_, index) => ({
      content: { parts, role: 'model' },
      ...(final.finishReason !== undefined && { finishReason: final.finishReason }),
      ...((index > 0 || !streamed) && { index }),
    })),
    usageMetadata: final.usageMetadata ?? promptUsage(answer),
    modelVersion: answer.model,
    responseId: answer.responseId,
  };
}

/**
 * The answer in pieces: thoughts and text word by word (a text answer's signature on its last
 * piece), function calls one per event. Every event carries usageMetadata, the prompt's only
 * until the last, which has the whole count.
 */
function streamedEvents(answer: Answer, parts: AnswerParts, final: Final): object[] {
  const pieces = [...parts.thoughts, ...parts.answer].flatMap((part): WirePart[][] => {
    if (typeof part.text !== 'string') return [[part]];
    const { text, thoughtSignature, ...rest } = part;
    const words = splitWords(text);
    return words.map((word, index) => [
      {
        ...rest,
        text: word,
        ...(index === words.length - 1 && thoughtSignature !== undefined && { thoughtSignature }),
      },
    ]);
  });
  return pieces.map((piece, index) =>
    responseObject(answer, piece, index === pieces.length - 1 ? final : {}, true),
  );
}

/** Whether the model thinks on this request, and whether its thoughts are sent. */
interface Thinking {
  /** Undefined when it does not think: nothing scripted, or thinking turned off. */
  readonly thoughts: string | undefined;
  readonly shown: boolean;
}

function thinkingOf(body: GenerateContentBody, reply: Reply): Thinking {
  const config = body.generationConfig?.thinkingConfig;
  const thinks = reply.thoughts !== undefined && config?.thinkingBudget !== 0;
  return {
    thoughts: thinks ? reply.thoughts : undefined,
    shown: thinks && config?.includeThoughts === true,
  };
}

interface AnswerParts {
  readonly thoughts: WirePart[];
  readonly answer: WirePart[];
}

/**
 * The answer's parts, signed as a thinking model signs them: a scripted signature is sent as
 * it is; else, when the model thought, the first function call (the others of a parallel step
 * go unsigned) or the text gets a minted one.
 */
function partsOf(
  reply: Reply,
  thinking: Thinking,
  sign: (scripted?: string) => string,
): AnswerParts {
  const thinks = thinking.thoughts !== undefined;
  const thoughts =
    thinking.shown && thinking.thoughts !== undefined
      ? [{ text: thinking.thoughts, thought: true }]
      : [];
  const signature = (scripted: string | undefined, signs: boolean) =>
    scripted !== undefined || signs ? { thoughtSignature: sign(scripted) } : {};
  if (reply.kind === 'text') {
    return {
      thoughts,
      answer: [{ ...textPart(reply.text), ...signature(reply.thoughtSignature, thinks) }],
    };
  }
  const answer = reply.calls.map((call, index) => ({
    functionCall: {
      ...(call.id !== undefined && { id: call.id }),
      name: call.name,
      args: call.args,
    },
    ...signature(call.thoughtSignature, thinks && index === 0),
  }));
  return { thoughts, answer };
}

function finalOf(answer: Answer, reply: Reply, thinking: Thinking): Final {
  const scripted = reply.kind === 'text' ? reply.usage : undefined;
  const completionText =
    reply.kind === 'text'
      ? reply.text
      : reply.calls.map((call) => call.name + JSON.stringify(call.args)).join('');
  const prompt = scripted?.promptTokenCount ?? answer.promptTokens;
  const candidates =
    scripted?.candidatesTokenCount ?? estimateTokens(completionText) * answer.candidates;
  const thoughts =
    scripted?.thoughtsTokenCount ??
    (thinking.thoughts !== undefined ? estimateTokens(thinking.thoughts) : undefined);
  const cached = scripted?.cachedContentTokenCount;
  return {
    finishReason: reply.kind === 'text' ? (reply.finishReason ?? 'STOP') : 'STOP',
    usageMetadata: {
      promptTokenCount: prompt,
      candidatesTokenCount: candidates,
      totalTokenCount: prompt + candidates + (thoughts ?? 0),
      ...(cached !== undefined && { cachedContentTokenCount: cached }),
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
      ...(thoughts !== undefined && { thoughtsTokenCount: thoughts }),
    },
  };
}

/**
 * The answer of the model the request asks for when nothing is scripted, or undefined for the
 * plain echo: a model named with `echo` answers the body as parsed, so a test sees exactly what
 * reached the provider; a request for JSON with a `proposals` schema (the gateway's memory
 * extraction call) gets the simulated extraction of its last user text. The echo model comes
 * first: a test may want to see an extraction call as it was sent.
 */
function modelledReply(model: string, body: GenerateContentBody): Reply | undefined {
  if (model.includes('echo')) return { kind: 'text', text: JSON.stringify(body) };
  const schema = body.generationConfig?.responseJsonSchema;
  if (!isProposalsSchema(schema)) return undefined;
  return { kind: 'text', text: JSON.stringify(simulatedProposals(lastUserText(body), schema)) };
}

function blockedResponse(answer: Answer, blockReason: string): object {
  return {
    promptFeedback: {
      blockReason,
      safetyRatings: [
        { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
      ],
    },
    usageMetadata: promptUsage(answer),
    modelVersion: answer.model,
    responseId: answer.responseId,
  };
}

function promptUsage(answer: Answer): object {
  return {
    promptTokenCount: answer.promptTokens,
    totalTokenCount: answer.promptTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: answer.promptTokens }],
  };
}

const textPart = (text: string) => ({ text });

function textOf(parts: readonly WirePart[] | undefined): string {
  return (parts ?? []).map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
}

function promptText(body: GenerateContentBody): string {
  return (
    textOf(body.systemInstruction?.parts) +
    (body.contents ?? []).map((content) => textOf(content.parts)).join('')
  );
}

function lastUserText(body: GenerateContentBody): string {
  const user = (body.contents ?? []).findLast((content) => (content.role ?? 'user') === 'user');
  return textOf(user?.parts);
}

/** Gemini 2.5's thinking budgets, by model (Gemini's thinking guide); -1 lets the model decide. */
const BUDGETS: readonly { prefix: string; min: number; max: number; off: boolean }[] = [
  { prefix: 'gemini-2.5-pro', min: 128, max: 32_768, off: false },
  { prefix: 'gemini-2.5-flash-lite', min: 512, max: 24_576, off: true },
  { prefix: 'gemini-2.5-flash', min: 1, max: 24_576, off: true },
];

/** Gemini 3's levels, by model: its Pro takes only two. */
const LEVELS: readonly { prefix: string; levels: readonly string[] }[] = [
  { prefix: 'gemini-3-pro', levels: ['LOW', 'HIGH'] },
  { prefix: 'gemini-3', levels: ['MINIMAL', 'LOW', 'MEDIUM', 'HIGH'] },
];

/** A thinkingConfig the model cannot take, refused as Gemini refuses it. */
function thinkingConfigRefusal(model: string, body: GenerateContentBody): WireError | undefined {
  const config = body.generationConfig?.thinkingConfig;
  if (config === undefined) return undefined;
  const invalid = (message: string): WireError => ({
    code: 400,
    message,
    status: 'INVALID_ARGUMENT',
  });
  const { thinkingBudget: budget, thinkingLevel } = config;
  if (budget !== undefined && thinkingLevel !== undefined) {
    return invalid('You can only set only one of thinking budget and thinking level.');
  }
  if (thinkingLevel !== undefined) {
    const level = thinkingLevel.toUpperCase();
    const levels = LEVELS.find((entry) => model.startsWith(entry.prefix))?.levels;
    if (levels === undefined) return invalid('Thinking level is not supported for this model.');
    if (!levels.includes(level)) {
      return invalid(
        `Thinking level ${level} is not supported for this model. Please retry with other thinking level`,
      );
    }
  }
  const range = BUDGETS.find((entry) => model.startsWith(entry.prefix));
  if (budget === undefined || budget === -1 || range === undefined) return undefined;
  if (budget === 0) {
    return range.off
      ? undefined
      : invalid('Budget 0 is invalid. This model only works in thinking mode.');
  }
  if (!Number.isInteger(budget) || budget < range.min || budget > range.max) {
    return invalid(
      `The thinking budget ${budget} is invalid. Please choose a value between ${range.min} and ${range.max}.`,
    );
  }
  return undefined;
}

/**
 * Signatures sent back as Gemini checks them: any must be one it issued; and for Gemini 3,
 * each step of the current turn (the model turns since the last user turn with text) must
 * carry its signature on its first function call.
 */
function signatureRefusal(
  model: string,
  body: GenerateContentBody,
  issued: ReadonlySet<string>,
): WireError | undefined {
  const contents = body.contents ?? [];
  for (const content of contents) {
    for (const part of content.parts ?? []) {
      const signature = part.thoughtSignature;
      if (signature !== undefined && (typeof signature !== 'string' || !issued.has(signature))) {
        return { code: 400, message: 'Corrupted thought signature.', status: 'INVALID_ARGUMENT' };
      }
    }
  }
  if (!model.startsWith('gemini-3')) return undefined;
  const turnStart = contents.findLastIndex(
    (content) =>
      (content.role ?? 'user') === 'user' &&
      (content.parts ?? []).some((part) => typeof part.text === 'string'),
  );
  for (const [index, content] of contents.entries()) {
    if (index <= turnStart || content.role !== 'model') continue;
    const call = (content.parts ?? []).find((part) => isRecord(part.functionCall));
    if (call === undefined || call.thoughtSignature !== undefined) continue;
    const name = isRecord(call.functionCall) ? String(call.functionCall.name) : '';
    return {
      code: 400,
      message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      status: 'INVALID_ARGUMENT',
    };
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Google's answer to a key it does not know: a 400, not a 401. */
function invalidKey(): WireError {
  const message = 'API key not valid. Please pass a valid API key.';
  return {
    code: 400,
    message,
    status: 'INVALID_ARGUMENT',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
      { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message },
    ],
  };
}

function unregisteredCaller(): WireError {
  return {
    code: 403,
    message:
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    status: 'PERMISSION_DENIED',
  };
}

function defaultError(code: number): WireError {
  switch (code) {
    case 400:
      return { code, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' };
    case 403:
      return {
        code,
        message: 'The caller does not have permission',
        status: 'PERMISSION_DENIED',
      };
    case 404:
      return { code, message: 'Requested entity was not found.', status: 'NOT_FOUND' };
    case 429:
      return {
        code,
        message:
          'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }],
      };
    case 500:
      return {
        code,
        message:
          'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
        status: 'INTERNAL',
      };
    case 503:
      return {
        code,
        message: 'The model is overloaded. Please try again later.',
        status: 'UNAVAILABLE',
      };
    case 504:
      return {
        code,
        message: 'Deadline expired before operation could complete.',
        status: 'DEADLINE_EXCEEDED',
      };
    default:
      return { code, message: `Simulated error ${code}`, status: 'UNKNOWN' };
  }
}

function sendError(res: ServerResponse, error: WireError): void {
  sendJson(res, error.code, { error });
}

/** JSON as Google answers it: with a charset, and no request id header. */
function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendJsonBody(res, status, body, {
    'content-type': 'application/json; charset=UTF-8',
    ...headers,
  });
}
