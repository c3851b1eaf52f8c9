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
import { estimateTokens, splitWords } from './scripted-text.ts';

/**
 * A loopback stand-in for Google's Gemini API, speaking the wire format of its public
 * reference: `POST /v1beta/models/{model}:generateContent` answers a GenerateContentResponse
 * (candidates, usageMetadata, modelVersion, responseId), and `:streamGenerateContent?alt=sse`
 * the same in pieces as server-sent events (`data: {json}\r\n\r\n`), the finishReason and the
 * final usageMetadata on the last. Without `alt=sse` the stream is one JSON array, as Google
 * sends it. The key comes in `x-goog-api-key` or `?key=`; errors are Google's
 * `{"error": {"code", "message", "status", "details"}}`. Tests script what it answers next;
 * without a script it echoes the last user text.
 *
 * Token counts are an estimate, not a tokenizer: `ceil(characters / 4)`, where the prompt's
 * characters are the text parts of `systemInstruction` and of every content, and the answer's
 * are its text, or each function call's name and JSON arguments.
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
  /** Stops listening and destroys live connections, hung ones included. */
  close(): Promise<void>;
}

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
    }
  | { kind: 'tool_calls'; calls: readonly ScriptedFunctionCall[] }
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
  readonly generationConfig?: { candidateCount?: number; [key: string]: unknown };
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

const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

export async function startGeminiSimulator(
  options: GeminiSimulatorOptions = {},
): Promise<GeminiSimulator> {
  const apiKey = options.apiKey ?? 'gemini-simulator-key';
  const chunkDelayMs = options.chunkDelayMs ?? 2;
  const requests: RecordedRequest[] = [];
  const queue: Scripted[] = [];
  const write = pacedWriter(chunkDelayMs);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const raw = await readBody(req);
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
    const stream = route[2] === 'streamGenerateContent';
    requests.push({
      method: req.method,
      path: url.pathname,
      search: url.search,
      model,
      stream,
      headers: req.headers,
      body,
    });
    if (!Array.isArray(body.contents) || body.contents.length === 0) {
      return sendError(res, {
        code: 400,
        message: '* GenerateContentRequest.contents: contents is not specified\n',
        status: 'INVALID_ARGUMENT',
      });
    }

    const script = queue.shift() ?? { kind: 'text', text: `You said: ${lastUserText(body)}` };
    const answer: Answer = {
      model,
      responseId: randomBytes(16).toString('base64url').slice(0, 22),
      candidates: Math.max(1, body.generationConfig?.candidateCount ?? 1),
      promptTokens: estimateTokens(promptText(body)),
    };
    const sse = url.searchParams.get('alt') === 'sse';

    switch (script.kind) {
      case 'hang':
        return;
      case 'drop':
        res.socket?.destroy();
        return;
      case 'error':
        return sendJson(
          res,
          script.status,
          script.body ?? { error: defaultError(script.status) },
          script.headers,
        );
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
      case 'tool_calls':
        return stream
          ? sendEvents(res, streamedEvents(answer, script), sse)
          : sendJson(res, 200, responseObject(answer, partsOf(script), finalOf(answer, script)));
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
    close: server.close,
  };
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
 * The answer in pieces: text word by word, function calls one per event. Every event carries
 * usageMetadata, the prompt's only until the last, which has the whole count.
 */
function streamedEvents(answer: Answer, reply: Reply): object[] {
  const pieces =
    reply.kind === 'text'
      ? splitWords(reply.text).map((text) => [textPart(text)])
      : partsOf(reply).map((part) => [part]);
  return pieces.map((parts, index) =>
    responseObject(answer, parts, index === pieces.length - 1 ? finalOf(answer, reply) : {}, true),
  );
}

function partsOf(reply: Reply): object[] {
  if (reply.kind === 'text') return [textPart(reply.text)];
  return reply.calls.map((call) => ({
    functionCall: {
      ...(call.id !== undefined && { id: call.id }),
      name: call.name,
      args: call.args,
    },
    ...(call.thoughtSignature !== undefined && { thoughtSignature: call.thoughtSignature }),
  }));
}

function finalOf(answer: Answer, reply: Reply): Final {
  const scripted = reply.kind === 'text' ? reply.usage : undefined;
  const completionText =
    reply.kind === 'text'
      ? reply.text
      : reply.calls.map((call) => call.name + JSON.stringify(call.args)).join('');
  const prompt = scripted?.promptTokenCount ?? answer.promptTokens;
  const candidates =
    scripted?.candidatesTokenCount ?? estimateTokens(completionText) * answer.candidates;
  const thoughts = scripted?.thoughtsTokenCount;
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
