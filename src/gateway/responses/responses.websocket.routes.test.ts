/**
 * The WebSocket mode of `/v1/responses` with the official `openai` package's `ResponsesWS`
 * (and `ws` itself where the SDK hides what is checked: the upgrade refused, the close codes),
 * over each provider kind: responses in sequence on one socket, continuation by
 * `previous_response_id`, `previous_response_not_found`, the same events as over server-sent
 * events, usage per response, and the connection's bounds (message size, idle time, shutdown).
 */
import OpenAI from 'openai';
import type { ResponsesStreamMessage } from 'openai/resources/responses/internal-base';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { type ClientsGateway, KINDS, startClientsGateway } from '../../testing/gateway-clients.ts';
import { type GatewayServer, startGatewayServer } from '../../testing/gateway-server.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../../testing/simulators/openai-simulator.ts';
import { WS_MESSAGE_LIMIT } from './responses.websocket.routes.ts';

type ServerEvent = OpenAI.Responses.ResponsesServerEvent;

let setup: ClientsGateway;

beforeAll(async () => {
  setup = await startClientsGateway();
});
afterAll(async () => {
  await setup?.close();
});

const client = (gateway: GatewayServer = setup.gateway) =>
  new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey, maxRetries: 0 });

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

/** A socket of the SDK, read message by message. */
function connect(gateway?: GatewayServer) {
  const ws = new ResponsesWS(client(gateway));
  const messages = ws.stream();
  const next = async (): Promise<ResponsesStreamMessage | undefined> => {
    const read = await messages.next();
    return read.done ? undefined : read.value;
  };
  return {
    ws,
    /** The server's events up to and including the next that ends a response. */
    async response(): Promise<ServerEvent[]> {
      const events: ServerEvent[] = [];
      for (let message = await next(); message; message = await next()) {
        // The SDK hands `error` events to its error listeners, the event attached.
        if (message.type === 'error' && message.error.error) {
          events.push(message.error.error);
          return events;
        }
        if (message.type !== 'message') continue;
        events.push(message.message);
        if (TERMINAL.has(message.message.type)) return events;
      }
      throw new Error(`the socket closed after ${JSON.stringify(events)}`);
    },
    /** How the socket closed. */
    async closed(): Promise<{ code: number; reason: string }> {
      for (let message = await next(); message; message = await next()) {
        if (message.type === 'close') return { code: message.code, reason: message.reason };
      }
      throw new Error('the socket ended without a close');
    },
  };
}

const lastOf = (events: ServerEvent[]) => events.at(-1) as ServerEvent;
const completed = (events: ServerEvent[]) => {
  const last = lastOf(events);
  if (last.type !== 'response.completed') throw new Error(`not completed: ${JSON.stringify(last)}`);
  return last.response;
};

/** Events with what differs between two runs of the same answer replaced. */
const normalized = (events: readonly unknown[]) =>
  JSON.parse(
    JSON.stringify(events)
      .replace(/"(resp|msg|fc|rs)_[0-9a-f]+"/g, '"$1_…"')
      .replace(/"(created_at|completed_at)":\d+/g, '"$1":0'),
  ) as unknown[];

describe.each(KINDS)('over a %s provider', (kind) => {
  test('two responses in sequence, the second continuing the first; usage of each', async () => {
    const under = setup.kinds[kind];
    const socket = connect();
    under.text('Paris.', { prompt: 11, completion: 2 });
    socket.ws.send({
      type: 'response.create',
      model: under.model,
      instructions: 'Answer in one word.',
      input: 'Capital of France?',
      store: false,
    });
    const first = completed(await socket.response());
    expect(first.output_text ?? first.output).toBeTruthy();
    expect(first).toMatchObject({
      status: 'completed',
      model: under.model,
      previous_response_id: null,
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'Paris.' }] }],
    });

    under.text('Rome.', { prompt: 17, completion: 2 });
    socket.ws.send({
      type: 'response.create',
      model: under.model,
      previous_response_id: first.id,
      input: [{ role: 'user', content: 'And Italy?' }],
      store: false,
    });
    const second = completed(await socket.response());
    expect(second).toMatchObject({
      status: 'completed',
      previous_response_id: first.id,
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'Rome.' }] }],
    });
    expect(second.id).not.toBe(first.id);
    // The provider got the whole conversation: the first turn from the connection's memory.
    const asked = JSON.stringify(under.requests.at(-1)?.body);
    expect(asked.indexOf('Capital of France?')).toBeGreaterThan(-1);
    expect(asked.indexOf('Paris.')).toBeGreaterThan(asked.indexOf('Capital of France?'));
    expect(asked.indexOf('And Italy?')).toBeGreaterThan(asked.indexOf('Paris.'));
    // Instructions are the request's own: the first one's are not carried over.
    expect(asked).not.toContain('Answer in one word.');

    const calls = await setup.gateway.calls(
      (all) =>
        all.filter((call) => call.model === under.model && call.completionTokens === 2).length >= 2,
    );
    expect(
      calls
        .filter((call) => call.model === under.model && call.completionTokens === 2)
        .map(({ promptTokens, status }) => ({ promptTokens, status })),
    ).toEqual([
      { promptTokens: 11, status: 200 },
      { promptTokens: 17, status: 200 },
    ]);
    socket.ws.close();
  });

  test('the same events as over server-sent events', async () => {
    const under = setup.kinds[kind];
    const body = { model: under.model, input: 'Say hello', max_output_tokens: 50 };
    under.text('Hello there, friend!', { prompt: 5, completion: 4 });
    const sse: unknown[] = [];
    for await (const event of await client().responses.create({ ...body, stream: true })) {
      sse.push(event);
    }
    under.text('Hello there, friend!', { prompt: 5, completion: 4 });
    const socket = connect();
    socket.ws.send({ type: 'response.create', ...body });
    const overSocket = await socket.response();
    expect(overSocket.length).toBeGreaterThan(5);
    expect(normalized(overSocket)).toEqual(normalized(sse));
    socket.ws.close();
  });
});

describe('one connection', () => {
  test('a response.create sent while one runs waits its turn', async () => {
    const under = setup.kinds.openai;
    under.text('One.');
    under.text('Two.');
    const socket = connect();
    socket.ws.send({ type: 'response.create', model: under.model, input: 'First' });
    socket.ws.send({ type: 'response.create', model: under.model, input: 'Second' });
    const first = await socket.response();
    const second = await socket.response();
    expect(completed(first).output).toMatchObject([{ content: [{ text: 'One.' }] }]);
    expect(completed(second).output).toMatchObject([{ content: [{ text: 'Two.' }] }]);
    // Each response is numbered on its own, from 0.
    expect(second[0]).toMatchObject({ type: 'response.created', sequence_number: 0 });
    socket.ws.close();
  });

  test('previous_response_not_found, and a failed turn forgets the last response', async () => {
    const under = setup.kinds.openai;
    const socket = connect();
    under.text('Remembered.');
    socket.ws.send({ type: 'response.create', model: under.model, input: 'Remember this.' });
    const first = completed(await socket.response());
    const before = under.requests.length;

    socket.ws.send({
      type: 'response.create',
      model: under.model,
      previous_response_id: 'resp_unknown',
      input: 'Go on.',
    });
    const refused = await socket.response();
    expect(refused).toEqual([
      {
        type: 'error',
        status: 400,
        error: {
          type: 'invalid_request_error',
          code: 'previous_response_not_found',
          message: "Previous response with id 'resp_unknown' not found.",
          param: 'previous_response_id',
        },
      },
    ]);
    socket.ws.send({
      type: 'response.create',
      model: under.model,
      previous_response_id: first.id,
      input: 'Go on.',
    });
    expect(lastOf(await socket.response())).toMatchObject({
      type: 'error',
      status: 400,
      error: { code: 'previous_response_not_found', param: 'previous_response_id' },
    });
    expect(under.requests.length).toBe(before);
    socket.ws.close();
  });

  test('a message that is not a response.create, and a bad body, are error events', async () => {
    const socket = connect();
    socket.ws.sendRaw('{"type":"response.cancel"}');
    expect(await socket.response()).toEqual([
      {
        type: 'error',
        status: 400,
        error: {
          type: 'invalid_request_error',
          code: 'invalid_value',
          message:
            "Unsupported event type 'response.cancel': this server takes 'response.create' events.",
          param: 'type',
        },
      },
    ]);
    socket.ws.sendRaw('{"type":"response.create","input":"Hi"}');
    expect(await socket.response()).toEqual([
      {
        type: 'error',
        status: 400,
        error: {
          type: 'invalid_request_error',
          code: 'missing_required_parameter',
          message: "Missing required parameter: 'model'.",
          param: 'model',
        },
      },
    ]);
    socket.ws.sendRaw('not json');
    expect(lastOf(await socket.response())).toMatchObject({
      type: 'error',
      status: 400,
      error: { code: 'invalid_json' },
    });
    socket.ws.send({ type: 'response.create', model: 'nobody/knows', input: 'Hi' });
    expect(lastOf(await socket.response())).toMatchObject({
      type: 'error',
      status: 404,
      error: { code: 'model_not_found', param: 'model' },
    });
    socket.ws.close();
  });
});

describe('the upgrade', () => {
  const url = () => `${setup.gateway.baseUrl.replace(/^http/, 'ws')}/responses`;

  test('a refused key is refused at the upgrade, in OpenAI’s shape', async () => {
    const socket = new WebSocket(url(), { headers: { authorization: 'Bearer mk_not_a_key' } });
    const answer = await new Promise<{ status: number | undefined; body: string }>(
      (resolve, reject) => {
        socket.once('open', () => reject(new Error('upgraded')));
        socket.once('error', () => undefined);
        socket.once('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          response.on('end', () => resolve({ status: response.statusCode, body }));
        });
      },
    );
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { type: 'invalid_request_error', code: 'invalid_api_key' },
    });
  });

  test('a plain GET is told to upgrade', async () => {
    const response = await fetch(`${setup.gateway.baseUrl}/responses`, {
      headers: { authorization: `Bearer ${setup.gateway.apiKey}` },
    });
    expect(response.status).toBe(426);
    expect(response.headers.get('upgrade')).toBe('websocket');
    expect(await response.json()).toMatchObject({
      error: { type: 'invalid_request_error', code: 'upgrade_required' },
    });
  });

  test('a message over the limit closes the socket with 1009', async () => {
    const socket = new WebSocket(url(), {
      headers: { authorization: `Bearer ${setup.gateway.apiKey}` },
    });
    await new Promise((resolve) => socket.once('open', resolve));
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    socket.send(`{"type":"response.create","input":"${'x'.repeat(WS_MESSAGE_LIMIT)}"}`);
    expect(await closed).toBe(1009);
  });
});

describe('bounds of a connection', () => {
  let sim: OpenAiSimulator;
  let gateway: GatewayServer;
  let closed = false;

  beforeAll(async () => {
    sim = await startOpenAiSimulator({ apiKey: 'sk-sim', chunkDelayMs: 20 });
    gateway = await startGatewayServer(
      {
        providers: { sim: { kind: 'openai', baseUrl: sim.baseUrl, apiKeyEnv: 'TEST_SIM_KEY' } },
        models: [
          {
            id: 'sim/gpt-4o',
            provider: 'sim',
            upstream: 'gpt-4o',
            contextWindow: 128000,
            price: { input: 2, output: 8 },
          },
        ],
      },
      { TEST_SIM_KEY: 'sk-sim', MNEMO_GATEWAY_WS_IDLE_SECONDS: '1' },
    );
  });
  afterAll(async () => {
    // The last test closes the server (a shutdown); this is for when it did not get that far.
    if (!closed) await gateway?.close();
    await sim?.close();
  });

  test('an idle connection is closed with 1000 after MNEMO_GATEWAY_WS_IDLE_SECONDS', async () => {
    const socket = connect(gateway);
    sim.script({ kind: 'text', text: 'Hi.' });
    socket.ws.send({ type: 'response.create', model: 'sim/gpt-4o', input: 'Hello' });
    completed(await socket.response());
    const startedIdle = Date.now();
    expect(await socket.closed()).toEqual({
      code: 1000,
      reason: 'idle for 1 seconds: open a new connection',
    });
    expect(Date.now() - startedIdle).toBeGreaterThanOrEqual(900);
  });

  test('on shutdown, the response running finishes, then the socket closes with 1001', async () => {
    const socket = connect(gateway);
    sim.script({ kind: 'text', text: 'A rather long answer, streamed word by word to the end.' });
    socket.ws.send({ type: 'response.create', model: 'sim/gpt-4o', input: 'Talk' });
    const events: ServerEvent[] = [];
    const collected = socket.response();
    // Once the response runs, the server is asked to stop.
    await new Promise((resolve) => setTimeout(resolve, 50));
    closed = true;
    const closing = gateway.close();
    events.push(...(await collected));
    expect(completed(events).output).toMatchObject([
      { content: [{ text: 'A rather long answer, streamed word by word to the end.' }] },
    ]);
    expect(await socket.closed()).toEqual({ code: 1001, reason: 'server is shutting down' });
    await closing;
  });
});
