import fastifyWebsocket from '@fastify/websocket';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { RawData, WebSocket } from 'ws';
import type { KeyHolder } from '../../keys/index.ts';
import type { CallUsage } from '../call-usage.ts';
import { GATEWAY_BODY_LIMIT } from '../chat.routes.ts';
import { checkBody } from '../chat.validation.ts';
import type { Dispatcher } from '../dispatch.ts';
import {
  API_KEY_SECURITY,
  COMMON_ERRORS,
  documentedOnly,
  errorAnswer,
  GATEWAY_TAG,
  MemoryHeaders,
  otherMethods,
} from '../gateway.openapi.ts';
import type { MemoryCalls } from '../memory/memory-calls.ts';
import { type MemoryUse, memoryUseOf } from '../memory/memory-switch.ts';
import { GatewayError, invalidRequest, serverError } from '../openai-errors.ts';
import type { Sealer } from '../sealing.ts';
import { expandCompactions, previousResponseNotFound } from './responses.compact.ts';
import { newResponseIds } from './responses.mapping.ts';
import { toChatRequest } from './responses.request.ts';
import { startStreamedResponse } from './responses.run.ts';
import { type InputItem, ResponsesRequest } from './responses.schemas.ts';
import type { ResponseStreamEvent } from './responses.stream.ts';

/** The largest message a client may send: a `response.create` is as large as a POST body may be. */
export const WS_MESSAGE_LIMIT = GATEWAY_BODY_LIMIT;

/**
 * WebSocket upgrades, for the whole server: an upgrade request goes through the routes and
 * hooks like any request, and is upgraded only by a route that takes WebSockets. Registered
 * before any hook, so that an upgrade refused by one (a refused key, a shutdown, a path that
 * takes none) has its socket closed once answered, instead of held open. Closing the sockets
 * on shutdown is left to their routes (registerResponsesWebSocket).
 *
 * @example
 * const app = Fastify();
 * await registerWebSocketSupport(app); // before any hook or route
 */
export async function registerWebSocketSupport(app: FastifyInstance): Promise<void> {
  await app.register(fastifyWebsocket, {
    // `ws` closes a socket whose message is larger with 1009 (message too big).
    options: { maxPayload: WS_MESSAGE_LIMIT },
    preClose: async () => undefined,
  });
}

/**
 * On shutdown, how long a response in progress has to finish before its socket is closed
 * anyway: below Fastify's 10 seconds for a close hook, so the shutdown never fails on it.
 */
export const WS_SHUTDOWN_GRACE_MS = 5000;

/**
 * How many `response.create` may wait behind the one running. They are run one at a time, in
 * the order sent; the bound keeps one connection from holding many bodies in memory.
 */
export const WS_MAX_WAITING = 4;

/** WebSocket close codes (RFC 6455 §7.4.1). */
const NORMAL_CLOSURE = 1000;
const GOING_AWAY = 1001;

const checkRequest = Compile(ResponsesRequest);

export interface ResponsesWebSocketDeps {
  readonly dispatcher: Dispatcher;
  readonly usage: CallUsage;
  readonly sealer: Sealer;
  /** Recall and learning for connections that ask for memory (docs/memory-chat.md). */
  readonly memory: MemoryCalls;
  /**
   * How long a connection may sit with no message and no response running before it is closed
   * (MNEMO_GATEWAY_WS_IDLE_SECONDS, 600 s by default: config.ts).
   */
  readonly idleTimeoutMs: number;
}

/**
 * The WebSocket mode of `/v1/responses`, as OpenAI's API has it: a client opens a WebSocket to
 * `/v1/responses` with its API key (`Authorization: Bearer` on the upgrade request, refused
 * there as any `/v1` call is), then sends `{"type": "response.create", …}` messages, each with
 * the body of `POST /v1/responses`. Each response is streamed back as the same events as over
 * server-sent events, one JSON message each. Responses run one at a time, in the order asked.
 * The connection remembers its last response (input and output), and only that, so that the
 * next `response.create` may continue it with `previous_response_id` and only the new input;
 * any other id is `previous_response_not_found`.
 *
 * @example
 * await registerResponsesWebSocket(app, { dispatcher, usage, sealer, idleTimeoutMs });
 */
export function registerResponsesWebSocket(
  app: FastifyInstance,
  deps: ResponsesWebSocketDeps,
): void {
  if (!app.hasDecorator('websocketServer')) {
    throw new Error('WebSocket support must be registered first: registerWebSocketSupport');
  }
  const connections = new Set<ResponsesConnection>();
  // On shutdown each socket lets its response in progress finish, then closes.
  app.addHook('preClose', async () => {
    await Promise.all([...connections].map((connection) => connection.shutDown()));
  });

  app.route({
    method: 'GET',
    url: '/responses',
    config: documentedOnly(WEBSOCKET_OPERATION),
    handler: async () => {
      throw new GatewayError(
        426,
        {
          message:
            'GET /v1/responses opens a WebSocket: send the upgrade headers (Upgrade: websocket). To create a response over HTTP, POST to /v1/responses.',
          type: 'invalid_request_error',
          param: null,
          code: 'upgrade_required',
        },
        { upgrade: 'websocket' },
      );
    },
    // The connection's memory is decided by its upgrade request, and refused before the upgrade
    // as a POST would be: a bad header, rights the key lacks, memory off, a project not there.
    preValidation: async (request) => {
      const use = memoryUseOf(request.headers, request.keyHolder);
      if (use instanceof GatewayError) throw use;
      if (use) await deps.memory.check(use, request.keyHolder);
    },
    wsHandler: (socket, request) => {
      const use = memoryUseOf(request.headers, request.keyHolder);
      const connection = new ResponsesConnection(socket, request.keyHolder, request.log, {
        ...deps,
        memoryUse: use instanceof GatewayError ? undefined : use,
      });
      connections.add(connection);
      socket.once('close', () => connections.delete(connection));
    },
  });
}

/**
 * `GET /v1/responses` in /openapi.json (gateway.openapi.ts). OpenAPI describes the upgrade, its
 * headers and its refusals; the messages that follow it are described in words.
 */
const WEBSOCKET_OPERATION = {
  summary: 'Open a WebSocket for many responses on one connection (OpenAI’s WebSocket mode)',
  description: [
    'The upgrade to a WebSocket (RFC 6455), authenticated on this request as any /v1 call is; the memory headers decide the memory of every response of the connection.',
    'Once open, each client message is one JSON text, `{"type": "response.create", …}` with the body of POST /v1/responses beside `type` (`stream` is implied). Each response comes back as the events POST /v1/responses streams, one JSON message per event. Responses run one at a time, in the order asked; at most 4 may wait behind the one running. A `previous_response_id` may name the connection’s last response, to continue it with only the new input; any other is refused.',
    'A request that cannot start (a message that is no JSON, another `type`, a body POST /v1/responses refuses, a provider’s error before the first event) is answered with one message `{"type": "error", "status", "error": {"message", "type", "param", "code"}}`, and the connection stays open. A connection idle for MNEMO_GATEWAY_WS_IDLE_SECONDS (600 by default) is closed with 1000; a message over 32 MiB closes it with 1009; a shutdown lets the response running finish, then closes with 1001.',
    `A malformed handshake (no valid \`sec-websocket-key\`, a version other than 13) is refused by the WebSocket layer with a plain-text 400. ${otherMethods('GET, POST, HEAD')}`,
  ].join('\n\n'),
  tags: [GATEWAY_TAG],
  security: API_KEY_SECURITY,
  headers: Type.Object({
    upgrade: Type.Literal('websocket'),
    connection: Type.String({ description: '`Upgrade`' }),
    'sec-websocket-key': Type.String({ description: 'The handshake’s key (RFC 6455 §4.1)' }),
    'sec-websocket-version': Type.Literal('13'),
    ...MemoryHeaders.properties,
  }),
  response: {
    101: {
      type: 'null',
      description: 'Switching Protocols: the WebSocket is open',
      headers: {
        upgrade: { type: 'string', description: '`websocket`' },
        'sec-websocket-accept': { type: 'string', description: 'RFC 6455 §4.2.2' },
      },
    },
    ...COMMON_ERRORS,
    400: errorAnswer(
      'A memory header is wrong (`invalid_memory_mode`, `invalid_project`, `invalid_user`, `user_with_project`), or `x-mnemo-user` names no one of the organization',
    ),
    403: errorAnswer(
      '`memory_not_allowed`: memory beyond the key’s `memoryAccess`; or the key owner may not use the project or act for the user named',
    ),
    404: errorAnswer(
      'With memory on: the project named is not in the organization, or memory is not enabled for it',
    ),
    426: errorAnswer('`upgrade_required`: a GET without the upgrade headers', {
      upgrade: { type: 'string', description: '`websocket`' },
    }),
  },
};

/** The last response of a connection: what a `previous_response_id` naming it continues. */
interface LastResponse {
  readonly id: string;
  /** Its input (after any earlier continuation) and then its output items. */
  readonly items: readonly InputItem[];
}

/** One client's socket: its queue of `response.create`, the response running, its memory. */
class ResponsesConnection {
  readonly #socket: WebSocket;
  readonly #caller: KeyHolder;
  readonly #log: FastifyBaseLogger;
  readonly #deps: ResponsesWebSocketDeps & { readonly memoryUse: MemoryUse | undefined };
  /** Aborts the provider's call of the response running when the client goes away. */
  readonly #gone = new AbortController();
  readonly #waiting: string[] = [];
  #running: Promise<void> | undefined;
  #last: LastResponse | undefined;
  #idle: NodeJS.Timeout | undefined;
  #closing = false;

  constructor(
    socket: WebSocket,
    caller: KeyHolder,
    log: FastifyBaseLogger,
    deps: ResponsesWebSocketDeps & { readonly memoryUse: MemoryUse | undefined },
  ) {
    this.#socket = socket;
    this.#caller = caller;
    this.#log = log;
    this.#deps = deps;
    socket.on('message', (data) => this.#received(data));
    socket.once('close', () => {
      this.#gone.abort();
      clearTimeout(this.#idle);
    });
    this.#armIdleTimer();
  }

  /** Ends the connection for a shutdown: the response running may finish, none other starts. */
  async shutDown(): Promise<void> {
    this.#closing = true;
    this.#waiting.length = 0;
    clearTimeout(this.#idle);
    if (this.#running) {
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        this.#running,
        new Promise((resolve) => {
          grace = setTimeout(resolve, WS_SHUTDOWN_GRACE_MS);
        }),
      ]);
      clearTimeout(grace);
    }
    this.#socket.close(GOING_AWAY, 'server is shutting down');
  }

  #received(data: RawData): void {
    if (this.#closing) return;
    clearTimeout(this.#idle);
    if (this.#waiting.length >= WS_MAX_WAITING) {
      this.#sendError(
        invalidRequest(
          `Too many response.create events are waiting on this connection (at most ${WS_MAX_WAITING} behind the one running): wait for a response to end before sending more.`,
        ),
      );
      return;
    }
    this.#waiting.push(textOf(data));
    if (!this.#running) {
      this.#running = this.#drainQueue().finally(() => {
        this.#running = undefined;
        this.#armIdleTimer();
      });
    }
  }

  async #drainQueue(): Promise<void> {
    for (let text = this.#waiting.shift(); text !== undefined; text = this.#waiting.shift()) {
      if (this.#closing || this.#gone.signal.aborted) return;
      try {
        await this.#respond(text);
      } catch (error) {
        this.#log.error({ err: error }, 'a WebSocket response failed');
        this.#last = undefined;
        this.#sendError(serverError());
      }
    }
  }

  /** One `response.create`: its events sent, or one `error` event when it cannot start. */
  async #respond(text: string): Promise<void> {
    const startedAt = Date.now();
    const request = await this.#toRequest(text);
    if (request instanceof GatewayError) {
      // A failed turn forgets the last response, as OpenAI's does: no stale continuation.
      this.#last = undefined;
      this.#sendError(request);
      return;
    }
    const { body, input, previous } = request;
    const translated = await toChatRequest(body, this.#deps.sealer);
    if (translated instanceof GatewayError) {
      this.#last = undefined;
      this.#sendError(translated);
      return;
    }
    // Each response recalls for itself; no header can say per response what it recalled.
    const use = this.#deps.memoryUse;
    const recall = use && (await this.#deps.memory.prepare(use, this.#caller, translated));
    const chat = recall ? recall.chat : translated;
    const ids = newResponseIds();
    const started = await startStreamedResponse(
      { ...this.#deps, log: this.#log },
      {
        body,
        chat,
        ids,
        caller: this.#caller,
        startedAt,
        signal: this.#gone.signal,
        answered: recall?.answered,
      },
    );
    if (started instanceof GatewayError) {
      this.#last = undefined;
      this.#sendError(started);
      return;
    }
    this.#last = undefined;
    await started.run(async (event) => {
      if (event.type === 'response.completed' || event.type === 'response.incomplete') {
        this.#last = { id: ids.response, items: [...input, ...event.response.output] };
      }
      return this.#send(previous ? withPrevious(event, previous) : event);
    });
  }

  /**
   * The body a `response.create` asks for, with the remembered conversation before its input
   * when it continues the last response, and its compaction items opened.
   */
  async #toRequest(
    text: string,
  ): Promise<
    | { body: ResponsesRequest; input: readonly InputItem[]; previous: string | undefined }
    | GatewayError
  > {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return invalidRequest(
        'The message is not valid JSON: send each event as one JSON object.',
        'invalid_json',
      );
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return invalidRequest('The message must be a JSON object with a `type`.', 'invalid_type');
    }
    // `stream` is implied over a WebSocket, and ignored when sent.
    const { type, stream: _stream, ...params } = message as Record<string, unknown>;
    if (type !== 'response.create') {
      return invalidRequest(
        `Unsupported event type '${String(type)}': this server takes 'response.create' events.`,
        'invalid_value',
        'type',
      );
    }
    if (params.generate === false) {
      return invalidRequest(
        'generate: false (warming up a response) is not supported by this server; leave it out.',
        'unsupported_parameter',
        'generate',
      );
    }
    const checked = checkBody(checkRequest, params);
    if (checked instanceof GatewayError) return checked;
    const own: readonly InputItem[] =
      typeof checked.input === 'string'
        ? [{ role: 'user', content: checked.input }]
        : checked.input;
    const previous = checked.previous_response_id ?? undefined;
    if (previous !== undefined && previous !== this.#last?.id) {
      return previousResponseNotFound(previous);
    }
    const input = previous !== undefined && this.#last ? [...this.#last.items, ...own] : own;
    const expanded = await expandCompactions(
      { ...checked, input: [...input], previous_response_id: null, stream: true },
      this.#deps.sealer,
    );
    if (expanded instanceof GatewayError) return expanded;
    return { body: expanded, input: expanded.input, previous };
  }

  /** Resolves false once the client is gone: nothing more should be sent. */
  #send(event: unknown): Promise<boolean> {
    if (this.#socket.readyState !== this.#socket.OPEN) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.#socket.send(JSON.stringify(event), (error) => resolve(error == null));
    });
  }

  /** An error that ends a `response.create` before its response began, in OpenAI's shape. */
  #sendError(error: GatewayError): void {
    void this.#send({ type: 'error', status: error.status, error: error.body.error });
  }

  #armIdleTimer(): void {
    clearTimeout(this.#idle);
    if (this.#closing) return;
    const { idleTimeoutMs } = this.#deps;
    this.#idle = setTimeout(() => {
      this.#socket.close(
        NORMAL_CLOSURE,
        `idle for ${Math.round(idleTimeoutMs / 1000)} seconds: open a new connection`,
      );
    }, idleTimeoutMs);
    this.#idle.unref();
  }
}

/** A message's text: clients send JSON as text frames, and a binary frame is read as UTF-8. */
function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** The Response an event carries says which response it continued. */
function withPrevious(event: ResponseStreamEvent, previous: string): unknown {
  if (!('response' in event)) return event;
  return { ...event, response: { ...event.response, previous_response_id: previous } };
}
