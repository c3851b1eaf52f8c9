/**
 * The edges of HTTP, over a real socket (fetch and inject normalise URLs and headers): requests
 * Node's parser refuses, requests Fastify refuses before routing, bodies too large or too deep,
 * body-less requests that say they send JSON, and methods a path does not serve. Every error
 * is in the shape of the interface its path belongs to — `{"error"}` on /api and everything
 * else, OpenAI's on /v1 (with `x-should-retry`), RFC 6749's on /oauth — with no-store and a
 * JSON content type.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GatewayServer, startGatewayServer } from '../testing/gateway-server.ts';

interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

let gateway: GatewayServer;
let port: number;
let owner: { id: string; token: string };
let orgId: string;

beforeAll(async () => {
  gateway = await startGatewayServer({
    providers: {
      nowhere: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'NOWHERE_KEY' },
    },
    models: [
      {
        id: 'nowhere/gpt-4.1',
        provider: 'nowhere',
        upstream: 'gpt-4.1',
        vision: true,
        tools: true,
        contextWindow: 1047576,
        price: { input: 2, output: 8 },
      },
    ],
  });
  port = Number(new URL(gateway.server.url).port);
  orgId = gateway.orgId;
  owner = await gateway.server.t.fixtures.user(orgId, 'owner');
});
afterAll(() => gateway.close());

/** Writes `bytes` on a fresh connection and reads the one answer. */
function raw(bytes: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseAnswer(Buffer.concat(chunks).toString('utf8'))));
    socket.write(bytes);
  });
}

function parseAnswer(text: string): RawAnswer {
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  const body = text.slice(split + 4, split + 4 + Number(headers['content-length']));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

/**
 * Sends a body of `total` bytes in 64 KiB chunks, without Content-Length (chunked), and reads
 * the answer, which comes before the body is sent whole. `torn` says whether the upload then
 * failed (the server reset the connection under it) within a second of the answer.
 */
function streamed(path: string, headers: Record<string, string>, total: number) {
  return new Promise<RawAnswer & { torn: Promise<string | undefined> }>((resolve, reject) => {
    let answered = false;
    let uploadError: string | undefined;
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        answered = true;
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers as Record<string, string>,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          torn: new Promise((done) => setTimeout(() => done(uploadError), 1000)),
        });
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered) reject(error);
      uploadError = error.code ?? error.message;
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = () => {
      while (sent < total && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    req.write('{"content":"');
    pump();
  });
}

const SURFACES = ['/api/v1/memory', '/v1/models', '/oauth/token'] as const;

/** The error `message` of `path`'s interface, with its headers: no-store, JSON, and the rest. */
function expectShape(
  answer: RawAnswer,
  path: string,
  status: number,
  message: string,
  code: string,
) {
  const what = `${path}: ${answer.status} ${JSON.stringify(answer.body)}`;
  expect(answer.status, what).toBe(status);
  expect(answer.headers['cache-control'], what).toBe('no-store');
  expect(answer.headers['content-type'], what).toBe('application/json; charset=utf-8');
  if (path.startsWith('/v1')) {
    expect(answer.body, what).toEqual({
      error: { message, type: 'invalid_request_error', param: null, code },
    });
    expect(answer.headers['x-should-retry'], what).toBe('false');
  } else if (path.startsWith('/oauth')) {
    expect(answer.body, what).toEqual({ error: 'invalid_request', error_description: message });
  } else {
    expect(answer.body, what).toEqual({ error: message });
  }
}

describe('requests Node’s HTTP parser refuses: in the shape of the path’s interface', () => {
  test.each(SURFACES)('a raw non-ASCII byte in the URL (%s): 400', async (path) => {
    const line = Buffer.from(`GET ${path}/\xe9 HTTP/1.1\r\nHost: x\r\n\r\n`, 'latin1');
    expectShape(
      await raw(line),
      path,
      400,
      'malformed URL: characters other than printable ASCII must be percent-encoded (RFC 3986)',
      'malformed_url',
    );
  });

  test.each(SURFACES)('a control character in a header value (%s): 400', async (path) => {
    expectShape(
      await raw(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-Note: a\x01b\r\n\r\n`),
      path,
      400,
      'malformed header: a header value may not contain control characters',
      'malformed_header',
    );
  });

  test.each(SURFACES)('a 100 KB URL (%s): 431, and the answer is read whole', async (path) => {
    expectShape(
      await raw(`GET ${path}?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      path,
      431,
      'the request line and headers are too large: at most 16 KiB together',
      'request_header_fields_too_large',
    );
  });

  test.each(SURFACES)('a bad percent-encoding after %s: 400', async (path) => {
    expectShape(
      await raw(`GET ${path}/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      path,
      400,
      'malformed URL: a % must begin a percent-encoded UTF-8 sequence',
      'malformed_url',
    );
  });
});

describe('a request that says it sends JSON and sends nothing', () => {
  const platform = () => ({
    authorization: `Bearer ${owner.token}`,
    'x-organization-id': orgId,
  });

  test('DELETE of a memory, an API key and a member: served; the Content-Type is ignored', async () => {
    const { t } = gateway.server;
    const memory = await fetch(`${gateway.server.url}/api/v1/memory`, {
      method: 'POST',
      headers: { ...platform(), 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'to delete' }),
    });
    const memoryId = ((await memory.json()) as { memory: { id: string } }).memory.id;
    const key = await fetch(`${gateway.server.url}/api/v1/api-keys`, {
      method: 'POST',
      headers: { ...platform(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'to revoke' }),
    });
    const keyId = ((await key.json()) as { key: { id: string } }).key.id;
    const member = async () => (await t.fixtures.user(orgId, 'member')).id;
    for (const [path, type] of [
      [async () => `/api/v1/memory/${memoryId}`, 'application/json'],
      [async () => `/api/v1/api-keys/${keyId}`, 'application/json'],
      [
        async () => `/api/v1/orgs/${orgId}/members/${await member()}`,
        'application/json; charset=utf-8',
      ],
    ] as const) {
      // Deleting twice is fine for a memory and a key; a member is a new one each time.
      for (const length of ['Content-Length: 0\r\n', '']) {
        const answer = await raw(
          `DELETE ${await path()} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${owner.token}\r\n` +
            `X-Organization-Id: ${orgId}\r\nContent-Type: ${type}\r\n${length}Connection: close\r\n\r\n`,
        );
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(answer.body).toEqual({ ok: true });
      }
    }
    // Another type the service parses nothing of: the same.
    const again = await raw(
      `DELETE /api/v1/memory/${memoryId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${owner.token}\r\n` +
        `X-Organization-Id: ${orgId}\r\nContent-Type: application/xml\r\nConnection: close\r\n\r\n`,
    );
    expect([again.status, again.body]).toEqual([200, { ok: true }]);
    // /v1 and /oauth have no DELETE; their body-less routes ignore the header as well.
    for (const [method, path, authorization] of [
      ['GET', '/v1/models', gateway.apiKey],
      ['POST', '/oauth/me', owner.token],
    ] as const) {
      const answer = await raw(
        `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${authorization}\r\n` +
          `Content-Type: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status, `${path} ${JSON.stringify(answer.body)}`).toBe(200);
    }
  });

  test('POST and PATCH with an empty body still answer 400', async () => {
    for (const [method, path] of [
      ['POST', '/api/v1/memory'],
      ['PATCH', `/api/v1/memory/${crypto.randomUUID()}`],
    ] as const) {
      const answer = await raw(
        `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${owner.token}\r\n` +
          `X-Organization-Id: ${orgId}\r\nContent-Type: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      expectShape(answer, path, 400, 'malformed JSON body: the body is empty', 'malformed_json');
    }
  });
});

describe('JSON nested too deep', () => {
  const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

  test('/v1/chat/completions and /v1/responses: 400 in OpenAI’s shape, not a stack overflow', async () => {
    const parameters = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    for (const [path, body] of [
      [
        '/v1/chat/completions',
        `{"model":"nowhere/gpt-4.1","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${parameters}}}]}`,
      ],
      ['/v1/responses', `{"model":"nowhere/gpt-4.1","input":"hi","metadata":${parameters}}`],
    ] as const) {
      const response = await fetch(`${gateway.baseUrl}${path.slice(3)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
        body,
      });
      expect(response.status, path).toBe(400);
      expect(response.headers.get('x-should-retry')).toBe('false');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toEqual({
        error: {
          message: 'JSON nesting is too deep: at most 100 levels of objects and arrays',
          type: 'invalid_request_error',
          param: null,
          code: 'json_too_deep',
        },
      });
    }
  });

  test('/api: 100 levels pass, 101 are 400; brackets inside strings do not count', async () => {
    const post = (category: string) =>
      fetch(`${gateway.server.url}/api/v1/memory`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${owner.token}`,
          'x-organization-id': orgId,
          'content-type': 'application/json',
        },
        body: `{"content":"deep ${category.length} ${'[{'.repeat(200)}\\"[","category":${category}}`,
      });
    // The body's object is the first level.
    expect((await post(deep(99))).status).toBe(201);
    const refused = await post(deep(100));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(await refused.json()).toEqual({
      error: 'JSON nesting is too deep: at most 100 levels of objects and arrays',
    });
  });
});

describe('a body over the limit, streamed without Content-Length', () => {
  test('/v1/chat/completions and /api/v1/memory: the client reads the 413; the connection is not reset under the upload', async () => {
    const v1 = await streamed(
      '/v1/chat/completions',
      { authorization: `Bearer ${gateway.apiKey}` },
      40_000_000,
    );
    expect(v1.status).toBe(413);
    expect(v1.headers['cache-control']).toBe('no-store');
    expect(v1.headers['x-should-retry']).toBe('false');
    expect(v1.body).toEqual({
      error: {
        message: 'request body is too large: at most 32 MiB',
        type: 'invalid_request_error',
        param: null,
        code: 'request_too_large',
      },
    });
    expect(await v1.torn).toBeUndefined();
    const api = await streamed(
      '/api/v1/memory',
      { authorization: `Bearer ${owner.token}`, 'x-organization-id': orgId },
      40_000_000,
    );
    expect(api.status).toBe(413);
    expect(api.headers['cache-control']).toBe('no-store');
    expect(api.body).toEqual({ error: 'request body is too large: at most 64 KiB' });
    expect(await api.torn).toBeUndefined();
  });
});

describe('paths and methods', () => {
  test('an id of any length in a memory path: 401 without a credential, else 404 as any unknown id', async () => {
    const long = 'x'.repeat(101);
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const url = `${gateway.server.url}/api/v1/memory/${long}`;
      const body = method === 'PATCH' ? JSON.stringify({ content: 'x' }) : null;
      const json = body === null ? {} : { 'content-type': 'application/json' };
      const anonymous = await fetch(url, { method, headers: json, body });
      expect(anonymous.status, method).toBe(401);
      const known = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${owner.token}`, 'x-organization-id': orgId, ...json },
        body,
      });
      expect(known.status, method).toBe(404);
      expect(known.headers.get('cache-control')).toBe('no-store');
      expect(await known.json()).toEqual({ error: 'memory not found' });
    }
  });

  test.each([
    ['TRACE', ''],
    ['QUERY', ''],
    ['QUERY', 'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'],
    ['PROPFIND', 'Content-Type: application/xml\r\nContent-Length: 9\r\n\r\n<a></a>\r\n'],
    ['MKCOL', ''],
    ['PURGE', 'Content-Length: 5\r\n\r\nhello'],
    ['PUT', 'Content-Type: application/json\r\nContent-Length: 3\r\n\r\n{x}'],
  ])('%s on an /api path it does not serve, body %j: 405 with Allow, {"error"}, whatever the body', async (method, rest) => {
    const head = `${method} /api/v1/memory HTTP/1.1\r\nHost: x\r\nConnection: close\r\n`;
    const answer = await raw(`${head}${rest || '\r\n'}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(405);
    expect(answer.headers.allow).toBe('GET, POST, DELETE, HEAD');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.body).toEqual({ error: 'method not allowed' });
  });

  test('TRACE and QUERY on /v1 and /oauth: 405 in their own shapes; on an unknown path, 404', async () => {
    const on = (method: string, path: string, key?: string) =>
      raw(
        `${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${key ? `Authorization: Bearer ${key}\r\n` : ''}\r\n`,
      );
    for (const method of ['TRACE', 'QUERY']) {
      // /v1 asks for its key first, as OpenAI's API does.
      expect((await on(method, '/v1/chat/completions')).status).toBe(401);
      const chat = await on(method, '/v1/chat/completions', gateway.apiKey);
      expect(chat.status, method).toBe(405);
      expect(chat.headers.allow).toBe('POST');
      expect(chat.body).toMatchObject({ error: { message: 'method not allowed' } });
      const token = await on(method, '/oauth/token');
      expect(token.status, method).toBe(405);
      expect(token.body).toEqual({
        error: 'invalid_request',
        error_description: 'method not allowed',
      });
      const nowhere = await on(method, '/api/v1/nothing-here');
      expect(nowhere.status, method).toBe(404);
      expect(nowhere.body).toEqual({ error: 'not found' });
    }
  });

  test('GET /oauth/token: 405 with Allow: POST, in RFC 6749’s shape; an unknown /oauth path: 404 likewise', async () => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const response = await fetch(`${gateway.server.url}/oauth/token`, {
        method,
        ...(method === 'PUT' ? { headers: { 'content-type': 'text/plain' }, body: 'x' } : {}),
      });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.json()).toEqual({
        error: 'invalid_request',
        error_description: 'method not allowed',
      });
    }
    const unknown = await fetch(`${gateway.server.url}/oauth/nothing-here`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('cache-control')).toBe('no-store');
    expect(unknown.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await unknown.json()).toEqual({
      error: 'invalid_request',
      error_description: 'not found',
    });
  });
});

describe('x-should-retry on every /v1 error', () => {
  const v1 = (path: string, init: RequestInit = {}, key: string | null = gateway.apiKey) =>
    fetch(`${gateway.baseUrl}${path}`, {
      ...init,
      headers: {
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  const json = { 'content-type': 'application/json' };

  test('false on 400, 401, 404, 413 and 415; true on a provider that cannot be reached', async () => {
    const cases: Array<[string, Promise<Response>, number]> = [
      [
        'a bad body',
        v1('/chat/completions', { method: 'POST', headers: json, body: '{"model":1}' }),
        400,
      ],
      [
        'malformed JSON',
        v1('/chat/completions', { method: 'POST', headers: json, body: '{' }),
        400,
      ],
      ['no key', v1('/models', {}, null), 401],
      ['an unknown path', v1('/nothing-here'), 404],
      ['an unknown model', v1('/models/nowhere/gpt-9'), 404],
      [
        'a body over 32 MiB',
        v1('/chat/completions', {
          method: 'POST',
          headers: json,
          body: `{"model":"${'a'.repeat(33 * 1024 * 1024)}"}`,
        }),
        413,
      ],
      [
        'application/xml',
        v1('/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/xml' },
          body: '<x/>',
        }),
        415,
      ],
    ];
    for (const [what, pending, status] of cases) {
      const response = await pending;
      expect(response.status, what).toBe(status);
      expect(response.headers.get('x-should-retry'), what).toBe('false');
      expect(response.headers.get('cache-control'), what).toBe('no-store');
      const body = (await response.json()) as { error: Record<string, unknown> };
      expect(Object.keys(body.error).sort(), what).toEqual(['code', 'message', 'param', 'type']);
    }
    const unreachable = await v1('/chat/completions', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        model: 'nowhere/gpt-4.1',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(unreachable.status).toBe(502);
    expect(unreachable.headers.get('x-should-retry')).toBe('true');
  });

  test('a role that does not exist: OpenAI’s words, the parameter and invalid_value', async () => {
    const response = await v1('/chat/completions', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        model: 'nowhere/gpt-4.1',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'foo', content: 'hi' },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(await response.json()).toEqual({
      error: {
        message:
          "Invalid value: 'foo'. Supported values are: 'system', 'developer', 'user', 'assistant', and 'tool'.",
        type: 'invalid_request_error',
        param: 'messages[1].role',
        code: 'invalid_value',
      },
    });
  });
});
