/**
 * /v1 in /openapi.json, read as a client of the document would: every operation under its tag,
 * with the API key scheme and the statuses the routes answer; request bodies whose schema
 * (JSON Schema 2020-12, checked with ajv) refuses what the gateway refuses with 400 and takes
 * what it takes; and answers, whole, streamed and failed, in their documented shapes and headers.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GatewayServer, startGatewayServer } from '../testing/gateway-server.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../testing/simulators/openai-simulator.ts';

interface Response {
  readonly headers?: Record<string, { schema: object; description?: string }>;
  readonly content?: Record<string, { schema: object }>;
}
interface Operation {
  readonly tags?: string[];
  readonly security?: unknown;
  readonly description?: string;
  readonly parameters?: { name: string; in: string; required?: boolean }[];
  readonly requestBody?: { content: Record<string, { schema: object }> };
  readonly responses: Record<string, Response>;
}
interface Document {
  readonly info: { description: string };
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { schemas: Record<string, object>; securitySchemes: Record<string, object> };
}

let sim: OpenAiSimulator;
let gateway: GatewayServer;
let document: Document;

beforeAll(async () => {
  sim = await startOpenAiSimulator({ apiKey: 'sk-sim', chunkDelayMs: 0 });
  gateway = await startGatewayServer(
    {
      providers: { sim: { kind: 'openai', baseUrl: sim.baseUrl, apiKeyEnv: 'TEST_SIM_KEY' } },
      models: [
        {
          id: 'sim/gpt-4o',
          provider: 'sim',
          upstream: 'gpt-4o',
          vision: true,
          tools: true,
          jsonOutput: true,
          contextWindow: 128000,
        },
      ],
    },
    { TEST_SIM_KEY: 'sk-sim' },
  );
  document = (await (await fetch(`${gateway.server.url}/openapi.json`)).json()) as Document;
});
afterAll(async () => {
  await gateway?.close();
  await sim?.close();
});

const MODEL_CALL = ['200', '400', '401', '404', '413', '415', '429', '4XX', '502', '503', '504'];
/** Each operation of /v1, and the statuses it declares. */
const OPERATIONS: readonly [method: string, path: string, statuses: readonly string[]][] = [
  ['post', '/v1/chat/completions', [...MODEL_CALL, '403', '5XX']],
  ['post', '/v1/responses', [...MODEL_CALL, '403', '5XX']],
  ['get', '/v1/responses', ['101', '400', '401', '403', '404', '426', '4XX', '503', '5XX']],
  ['post', '/v1/responses/compact', [...MODEL_CALL, '5XX']],
  ['get', '/v1/models', ['200', '401', '4XX', '503', '5XX']],
  ['get', '/v1/models/{model}', ['200', '401', '404', '4XX', '503', '5XX']],
  ['post', '/v1/completions', ['401', '404', '4XX', '503', '5XX']],
  ['post', '/v1/embeddings', ['401', '404', '4XX', '503', '5XX']],
];

const operation = (method: string, path: string): Operation => {
  const found = document.paths[path]?.[method];
  if (!found) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
  return found;
};

// ajv-formats is CommonJS: its plugin is the module's default export's `default`.
const ajv = formats.default(new Ajv2020({ strict: false, allErrors: true }));
/** A validator of `schema`, its `#/components/…` references resolved in the document. */
const validatorOf = (schema: object) => ajv.compile({ ...schema, components: document.components });

/** The schema a body of `path` is documented with. */
const bodySchema = (path: string) => {
  const schema = operation('post', path).requestBody?.content['application/json']?.schema;
  if (!schema) throw new Error(`POST ${path} documents no JSON body`);
  return schema;
};

/** The documented answer of `status` (exactly, or its class: `4XX`). */
const declared = (op: Operation, status: number): Response | undefined =>
  op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`];

/**
 * `answer`, held to what the document says of `op` at its status: declared, its JSON body in
 * the declared shape, and every `x-` header it carries declared.
 */
async function expectDocumented(op: Operation, answer: globalThis.Response, what: string) {
  const response = declared(op, answer.status);
  expect(response, `${what}: ${answer.status} is declared`).toBeDefined();
  const sent = [...answer.headers.keys()].filter((name) => name.startsWith('x-'));
  expect(Object.keys(response?.headers ?? {}), `${what}: its headers`).toEqual(
    expect.arrayContaining(sent),
  );
  const type = answer.headers.get('content-type') ?? '';
  if (!type.startsWith('application/json')) return;
  const schema = response?.content?.['application/json']?.schema;
  expect(schema, `${what}: a JSON body is declared`).toBeDefined();
  const validate = validatorOf(schema ?? {});
  const body: unknown = await answer.json();
  expect(validate(body), `${what}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

const withKey = (init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: {
    authorization: `Bearer ${gateway.apiKey}`,
    'content-type': 'application/json',
    ...init.headers,
  },
});
const post = (path: string, body: unknown) =>
  fetch(`${gateway.server.url}${path}`, withKey({ method: 'POST', body: JSON.stringify(body) }));

describe('the operations', () => {
  test('every route of /v1, under its tag, secured by the API key scheme, with its statuses', () => {
    expect(
      Object.entries(document.paths)
        .filter(([path]) => path.startsWith('/v1'))
        .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`))
        .sort(),
    ).toEqual(OPERATIONS.map(([method, path]) => `${method} ${path}`).sort());
    for (const [method, path, statuses] of OPERATIONS) {
      const op = operation(method, path);
      expect(op.tags, path).toEqual(['Chat gateway (/v1)']);
      expect(op.security, path).toEqual([{ apiKey: [] }]);
      expect(Object.keys(op.responses).sort(), `${method} ${path}`).toEqual([...statuses].sort());
      expect(op.description, path).toMatch(/405 `method_not_allowed`, with `Allow: /);
    }
    expect(document.components.securitySchemes.apiKey).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      description: expect.stringContaining('Authorization: Bearer mnemo_sk_'),
    });
    expect(document.info.description).not.toContain('not repeated here');
    expect(document.info.description).toContain('Chat gateway (/v1)');
  });

  test('the answers a model call streams are server-sent events; the WebSocket is an upgrade', () => {
    for (const path of ['/v1/chat/completions', '/v1/responses']) {
      expect(Object.keys(operation('post', path).responses['200']?.content ?? {})).toEqual([
        'application/json',
        'text/event-stream',
      ]);
      expect(operation('post', path).parameters?.map((p) => `${p.in} ${p.name}`)).toEqual([
        'header x-mnemo-memory',
        'header x-mnemo-project',
        'header x-mnemo-user',
      ]);
    }
    const upgrade = operation('get', '/v1/responses');
    expect(upgrade.responses['101']?.content).toBeUndefined();
    expect(upgrade.parameters?.filter((p) => p.required).map((p) => p.name)).toEqual([
      'upgrade',
      'connection',
      'sec-websocket-key',
      'sec-websocket-version',
    ]);
  });

  test('a model id is one path parameter, slash included', async () => {
    const get = operation('get', '/v1/models/{model}');
    expect(get.parameters).toEqual([
      expect.objectContaining({ name: 'model', in: 'path', required: true }),
    ]);
    // As OpenAPI sends a path parameter (percent-encoded), and as OpenAI's SDKs do (as is).
    for (const id of [encodeURIComponent('sim/gpt-4o'), 'sim/gpt-4o']) {
      const answer = await fetch(`${gateway.baseUrl}/models/${id}`, withKey());
      expect(answer.status, id).toBe(200);
      await expectDocumented(get, answer, `GET /v1/models/${id}`);
    }
    // Decoded once: an id holding `%` is its own id, never decoded again into another one.
    for (const [path, id] of [
      ['sim%252Fgpt-4o', 'sim%2Fgpt-4o'],
      ['100%25', '100%'],
      ['sim%2Fgpt-4o%25', 'sim/gpt-4o%'],
    ]) {
      const answer = await fetch(`${gateway.baseUrl}/models/${path}`, withKey());
      expect(answer.status, path).toBe(404);
      expect(((await answer.json()) as { error: { message: string } }).error.message).toContain(
        `The model \`${id}\` does not exist`,
      );
    }
  });
});

describe('request bodies: the schema refuses what the gateway refuses, and takes what it takes', () => {
  const hello = [{ role: 'user', content: 'Hello there' }];
  // Bodies the gateway's own tests send (chat.routes, responses.routes, responses.compact.routes).
  test.each([
    {
      path: '/v1/chat/completions',
      refused: [
        { model: 'sim/gpt-4o' },
        { model: 'sim/gpt-4o', messages: [{ role: 'tool', content: 'x' }] },
        { model: 'sim/gpt-4o', messages: hello, temperature: 'hot' },
        { model: 'sim/gpt-4o', messages: [{ role: 'foo', content: 'x' }] },
      ],
      taken: { model: 'sim/gpt-4o', messages: hello, max_completion_tokens: 64 },
    },
    {
      path: '/v1/responses',
      refused: [{ input: 'Hi' }, { model: 'sim/gpt-4o', input: [] }],
      taken: {
        model: 'sim/gpt-4o',
        instructions: 'Answer in French.',
        input: 'Say hello',
        max_output_tokens: 64,
      },
    },
    {
      path: '/v1/responses/compact',
      refused: [{ input: 'Hello' }, { model: 'sim/gpt-4o' }],
      taken: { model: 'sim/gpt-4o', input: 'Remember: the code is 1234.' },
    },
  ])('$path', async ({ path, refused, taken }) => {
    const validate = validatorOf(bodySchema(path));
    for (const body of refused) {
      const answer = await post(path, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      await expectDocumented(operation('post', path), answer, JSON.stringify(body));
      expect(validate(body), JSON.stringify(body)).toBe(false);
    }
    expect(validate(taken), ajv.errorsText(validate.errors)).toBe(true);
    const answer = await post(path, taken);
    expect(answer.status).toBe(200);
    await expectDocumented(operation('post', path), answer, `POST ${path}`);
  });

  test('text the platform refuses (NUL) is taken by /v1 and by its documented schema alike', async () => {
    const body = { model: 'sim/gpt-4o', messages: [{ role: 'user', content: 'a\u0000b' }] };
    expect(validatorOf(bodySchema('/v1/chat/completions'))(body)).toBe(true);
    expect((await post('/v1/chat/completions', body)).status).toBe(200);
  });
});

describe('answers in their documented shapes and headers', () => {
  test('the model list, a refused key, a model not found, the endpoints not offered', async () => {
    const list = operation('get', '/v1/models');
    await expectDocumented(list, await fetch(`${gateway.baseUrl}/models`, withKey()), 'models');
    const refused = await fetch(`${gateway.baseUrl}/models`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="mnemo"');
    expect(Object.keys(list.responses['401']?.headers ?? {})).toContain('www-authenticate');
    await expectDocumented(list, refused, 'no key');

    const missing = await fetch(`${gateway.baseUrl}/models/sim%2Fnope`, withKey());
    expect(missing.status).toBe(404);
    await expectDocumented(operation('get', '/v1/models/{model}'), missing, 'unknown model');

    for (const path of ['/v1/completions', '/v1/embeddings']) {
      const answer = await post(path, { model: 'sim/gpt-4o', input: 'x' });
      expect(answer.status, path).toBe(404);
      await expectDocumented(operation('post', path), answer, path);
    }
  });

  test('a stream, a provider’s failure, and the upgrade refused without its headers', async () => {
    const chat = operation('post', '/v1/chat/completions');
    const streamed = await post('/v1/chat/completions', {
      model: 'sim/gpt-4o',
      messages: [{ role: 'user', content: 'Count to three' }],
      stream: true,
    });
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await streamed.text()).toMatch(/data: \[DONE\]\n\n$/);
    await expectDocumented(chat, streamed, 'stream');

    sim.script({ kind: 'error', status: 429, headers: { 'retry-after-ms': '10' } });
    const limited = await post('/v1/chat/completions', {
      model: 'sim/gpt-4o',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(limited.status).toBe(429);
    await expectDocumented(chat, limited, 'rate limited');

    const upgrade = await fetch(`${gateway.baseUrl}/responses`, withKey());
    expect(upgrade.status).toBe(426);
    await expectDocumented(operation('get', '/v1/responses'), upgrade, 'no upgrade');
  });
});
