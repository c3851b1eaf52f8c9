/**
 * Every error path of the HTTP interface answers `{"error": "<message>"}` with
 * `Cache-Control: no-store`, a JSON content type and no internals (docs/design.md §3.3),
 * and the checks run in the order of docs/design.md §3.3: credential (401) → rate (429) → X-Organization-Id (400)
 * → account and membership (403) → memory feature (404) → the request itself.
 */
import { randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';

const BASE = '/api/v1/memory';

interface Who {
  token: string;
  orgId: string;
  userId: string;
}

/** What must never reach a client: stack frames, file names, framework or database internals. */
const INTERNALS =
  /\n\s+at |node_modules|\.ts:\d|\.js:\d|FST_|SQLITE|kysely|TypeError|ReferenceError|Error:|stack/i;

/**
 * The common shape of every error: the status, exactly `{"error": <non-empty string>}` (the
 * message checked when given), no-store, JSON, nothing internal.
 */
function expectError(
  res: LightMyRequestResponse,
  status: number,
  message?: string | RegExp,
): string {
  const what = `${res.statusCode} ${res.body}`;
  expect(res.statusCode, what).toBe(status);
  expect(res.headers['cache-control'], what).toBe('no-store');
  expect(res.headers['content-type'], what).toMatch(/^application\/json/);
  const body = res.json() as { error: string };
  expect(Object.keys(body), what).toEqual(['error']);
  expect(body.error, what).toMatch(/\S/);
  if (typeof message === 'string') expect(body.error, what).toBe(message);
  else if (message) expect(body.error, what).toMatch(message);
  expect(res.body, what).not.toMatch(INTERNALS);
  return body.error;
}

let t: TestApp;
let who: Who;
beforeAll(async () => {
  t = await buildTestApp();
  const orgId = await t.fixtures.org();
  const user = await t.fixtures.user(orgId);
  who = { orgId, token: user.token, userId: user.id };
});
afterAll(() => t.close());

const json = { 'content-type': 'application/json' };
const send = (options: InjectOptions, as: Who = who) => t.request(as, options);
/** The full list of the default member, to show that a refused request stored nothing. */
const memories = async () => {
  const res = await send({ method: 'GET', url: BASE });
  expect(res.statusCode).toBe(200);
  return (res.json() as { memories: unknown[] }).memories;
};

// ---------------------------------------------------------------------------------------------

describe('request bodies', () => {
  test('malformed JSON: 400', async () => {
    for (const payload of ['{"content":', '{content: "x"}', "{'content':'x'}", '{"a":1}}']) {
      expectError(await send({ method: 'POST', url: BASE, headers: json, payload }), 400);
    }
    const m = await send({ method: 'POST', url: BASE, payload: { content: 'exists' } });
    const id = m.json().memory.id as string;
    expectError(
      await send({ method: 'PATCH', url: `${BASE}/${id}`, headers: json, payload: '{"content":' }),
      400,
    );
  });

  test('an empty body with Content-Type: application/json: 400', async () => {
    expectError(await send({ method: 'POST', url: BASE, headers: json, payload: '' }), 400);
  });

  test.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/xml',
    'multipart/form-data; boundary=x',
    'application/jsonp',
  ])('Content-Type %s: 415', async (type) => {
    const before = await memories();
    const payload = JSON.stringify({ content: 'hello' });
    for (const method of ['POST', 'PATCH'] as const) {
      const url = method === 'POST' ? BASE : `${BASE}/${randomUUID()}`;
      expectError(await send({ method, url, headers: { 'content-type': type }, payload }), 415);
    }
    expect(await memories()).toEqual(before);
  });

  test('Content-Type: application/json; charset=utf-8 is accepted', async () => {
    const res = await send({
      method: 'POST',
      url: BASE,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: JSON.stringify({ content: 'charset ok' }),
    });
    expect(res.statusCode).toBe(201);
    await send({ method: 'DELETE', url: `${BASE}/${res.json().memory.id}` });
  });

  test('POST and PATCH without Content-Type: 415, with or without a body', async () => {
    for (const method of ['POST', 'PATCH'] as const) {
      const url = method === 'POST' ? BASE : `${BASE}/${randomUUID()}`;
      expectError(await send({ method, url }), 415);
      expectError(await send({ method, url, payload: JSON.stringify({ content: 'x' }) }), 415);
    }
  });

  test('a body over 64 KiB: 413', async () => {
    const payload = JSON.stringify({ content: 'a'.repeat(70_000) });
    expectError(await send({ method: 'POST', url: BASE, headers: json, payload }), 413);
    expectError(
      await send({ method: 'PATCH', url: `${BASE}/${randomUUID()}`, headers: json, payload }),
      413,
    );
  });

  test('a JSON body that is not an object: 400', async () => {
    const before = await memories();
    for (const payload of ['[]', '[{"content":"x"}]', '"I like tea"', '42', 'null', 'true']) {
      expectError(await send({ method: 'POST', url: BASE, headers: json, payload }), 400);
    }
    expect(await memories()).toEqual(before);
  });
});

// ---------------------------------------------------------------------------------------------

describe('routes and URLs', () => {
  test.each([
    '/api/v1/nope',
    '/nope',
    '/api/v1/memory/a/b',
    '/api/v2/memory',
  ])('unknown route %s: 404', async (url) => {
    expectError(await t.app.inject({ method: 'GET', url }), 404);
    expectError(await send({ method: 'GET', url }), 404);
  });

  test('a method the path does not serve: 405 with Allow', async () => {
    for (const method of ['PUT', 'PATCH'] as const) {
      const res = await send({ method, url: BASE, headers: json, payload: '{}' });
      expectError(res, 405);
      const allow = String(res.headers.allow).split(/,\s*/);
      expect(allow).toEqual(expect.arrayContaining(['GET', 'POST', 'DELETE']));
      expect(allow).not.toContain(method);
    }
    for (const method of ['PUT', 'POST'] as const) {
      const res = await send({
        method,
        url: `${BASE}/${randomUUID()}`,
        headers: json,
        payload: '{}',
      });
      expectError(res, 405);
      const allow = String(res.headers.allow).split(/,\s*/);
      expect(allow).toEqual(expect.arrayContaining(['GET', 'PATCH', 'DELETE']));
      expect(allow).not.toContain(method);
    }
  });

  test('bad URL encoding: 400', async () => {
    for (const url of [`${BASE}/%E0%A4%A`, `${BASE}?since=%E0%A4%A`, `${BASE}/%zz`]) {
      expectError(await send({ method: 'GET', url }), 400);
    }
  });

  test('an unknown query parameter: 400', async () => {
    const m = (await send({ method: 'POST', url: BASE, payload: { content: 'q' } })).json().memory;
    for (const [method, url] of [
      ['GET', `${BASE}?foo=1`],
      ['GET', `${BASE}?limit=10`],
      ['GET', `${BASE}/${m.id}?foo=1`],
      ['DELETE', `${BASE}/${m.id}?foo=1`],
      ['GET', `${BASE}/${m.id}?project=${randomUUID()}`],
    ] as const) {
      expectError(await send({ method, url }), 400);
    }
    expectError(
      await send({
        method: 'PATCH',
        url: `${BASE}/${m.id}?foo=1`,
        payload: { content: 'changed' },
      }),
      400,
    );
    // Nothing was changed or deleted by the refused requests.
    const got = await send({ method: 'GET', url: `${BASE}/${m.id}` });
    expect(got.json()).toEqual({ memory: m });
  });

  test('a repeated query parameter: 400', async () => {
    const a = randomUUID();
    const b = randomUUID();
    expectError(await send({ method: 'GET', url: `${BASE}?user=${a}&user=${b}` }), 400);
    expectError(
      await send({ method: 'GET', url: `${BASE}?user=${who.userId}&user=${who.userId}` }),
      400,
    );
    expectError(await send({ method: 'GET', url: `${BASE}?since=a&since=b` }), 400);
    expectError(
      await send({ method: 'DELETE', url: `${BASE}/${randomUUID()}?user=${a}&user=${b}` }),
      400,
    );
  });

  test('a user that is not a UUID or not a member: 400', async () => {
    for (const user of ['not-a-uuid', randomUUID()]) {
      expectError(await send({ method: 'GET', url: `${BASE}?user=${user}` }), 400);
      expectError(
        await send({ method: 'POST', url: BASE, payload: { content: 'for someone', user } }),
        400,
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('credential and organization', () => {
  test('X-Organization-Id missing or invalid (with a valid credential): 400', async () => {
    const noOrg = await t.app.inject({
      method: 'GET',
      url: BASE,
      headers: { authorization: `Bearer ${who.token}` },
    });
    expectError(noOrg, 400, /x-organization-id/i);
    for (const orgId of ['', 'not-a-uuid', `${who.orgId}x`, '12345']) {
      expectError(
        await send({ method: 'GET', url: BASE }, { ...who, orgId }),
        400,
        /x-organization-id/i,
      );
    }
  });

  test('an organization that does not exist, or one the user is not a member of: 403', async () => {
    expectError(await send({ method: 'GET', url: BASE }, { ...who, orgId: randomUUID() }), 403);
    const otherOrg = await t.fixtures.org();
    expectError(await send({ method: 'GET', url: BASE }, { ...who, orgId: otherOrg }), 403);
  });

  test('a suspended or banned account: 403', async () => {
    for (const status of ['suspended', 'banned'] as const) {
      const user = await t.fixtures.user(who.orgId);
      await t.fixtures.status(user.id, status);
      expectError(
        await send({ method: 'GET', url: BASE }, { ...who, token: user.token, userId: user.id }),
        403,
      );
    }
  });

  test('a missing credential: 401', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: BASE,
      headers: { 'x-organization-id': who.orgId },
    });
    expectError(res, 401);
  });

  test.each([
    ['garbage', 'Bearer garbage'],
    ['a JWT-looking garbage', 'Bearer aaa.bbb.ccc'],
    ['an empty bearer', 'Bearer '],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['no scheme', 'just-a-token'],
  ])('%s credential: 401', async (_, authorization) => {
    const res = await t.app.inject({
      method: 'GET',
      url: BASE,
      headers: { authorization, 'x-organization-id': who.orgId },
    });
    expectError(res, 401);
  });

  test('a tampered credential: 401', async () => {
    const [header, payload, signature] = who.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: randomUUID() })).toString(
      'base64url',
    );
    expectError(
      await send(
        { method: 'GET', url: BASE },
        { ...who, token: `${header}.${forged}.${signature}` },
      ),
      401,
    );
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    expectError(
      await send(
        { method: 'GET', url: BASE },
        { ...who, token: `${header}.${payload}.${flipped}` },
      ),
      401,
    );
  });

  test('an expired credential (beyond the clock skew): 401', async () => {
    const token = await t.fixtures.token(who.userId, -120);
    expectError(await send({ method: 'GET', url: BASE }, { ...who, token }), 401);
  });

  test('a credential of an unknown user: 401', async () => {
    const token = await t.fixtures.token(randomUUID());
    expectError(await send({ method: 'GET', url: BASE }, { ...who, token }), 401);
  });
});

// ---------------------------------------------------------------------------------------------

describe('the order of checks', () => {
  test('no credential and a bad organization header: 401', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: BASE,
      headers: { 'x-organization-id': 'nope', ...json },
      payload: '{"content":',
    });
    expectError(res, 401);
    const expired = await t.fixtures.token(who.userId, -120);
    expectError(
      await send(
        { method: 'POST', url: BASE, headers: json, payload: '{"content":' },
        { ...who, token: expired, orgId: 'nope' },
      ),
      401,
    );
  });

  test('a valid credential, a bad organization header and malformed JSON: 400 about the header', async () => {
    expectError(
      await send(
        { method: 'POST', url: BASE, headers: json, payload: '{"content":' },
        { ...who, orgId: 'nope' },
      ),
      400,
      /x-organization-id/i,
    );
    expectError(
      await send(
        { method: 'POST', url: BASE, headers: { 'content-type': 'text/plain' }, payload: 'x' },
        { ...who, orgId: 'nope' },
      ),
      400,
      /x-organization-id/i,
    );
  });

  test('a non-member with an invalid body: 403', async () => {
    const outsider = await t.fixtures.user();
    const as = { ...who, token: outsider.token, userId: outsider.id };
    expectError(
      await send({ method: 'POST', url: BASE, headers: json, payload: '{"content":' }, as),
      403,
    );
    expectError(await send({ method: 'POST', url: BASE, payload: { content: '' } }, as), 403);
    expectError(await send({ method: 'GET', url: `${BASE}?since=garbage` }, as), 403);
  });

  test('a suspended member with an invalid body: 403', async () => {
    const user = await t.fixtures.user(who.orgId);
    await t.fixtures.status(user.id, 'suspended');
    expectError(
      await send(
        { method: 'POST', url: BASE, headers: json, payload: '{"content":' },
        { ...who, token: user.token, userId: user.id },
      ),
      403,
    );
  });

  test('the feature switched off and an invalid request: 404 about the feature', async () => {
    const orgId = await t.fixtures.org({ memoryEnabled: false });
    const user = await t.fixtures.user(orgId);
    const as = { orgId, token: user.token, userId: user.id };
    const off = 'memory is not enabled for this organization';
    expectError(
      await send({ method: 'POST', url: BASE, headers: json, payload: '{"content":' }, as),
      404,
      off,
    );
    expectError(await send({ method: 'POST', url: BASE, payload: { content: '' } }, as), 404, off);
    expectError(await send({ method: 'GET', url: `${BASE}?since=garbage` }, as), 404, off);
    expectError(await send({ method: 'PATCH', url: `${BASE}/nope`, payload: {} }, as), 404, off);
  });

  test('rate (429) comes after the credential and before everything else', async () => {
    const limited = await buildTestApp({ MNEMO_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const orgId = await limited.fixtures.org();
      const user = await limited.fixtures.user(orgId);
      const as = { orgId, token: user.token };
      for (let i = 0; i < 3; i++) {
        const ok = await limited.request(as, { method: 'GET', url: BASE });
        expect(ok.statusCode).toBe(200);
        expect(ok.headers['cache-control']).toBe('no-store');
      }
      // Over the limit, with a bad organization header and malformed JSON: 429.
      const res = await limited.request(
        { ...as, orgId: 'nope' },
        { method: 'POST', url: BASE, headers: json, payload: '{"content":' },
      );
      expectError(res, 429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Another token of the same user buys no more rate.
      const second = await limited.fixtures.token(user.id);
      expectError(
        await limited.request({ ...as, token: second }, { method: 'GET', url: BASE }),
        429,
      );
      // A missing credential is judged before the rate: 401.
      expectError(
        await limited.app.inject({
          method: 'GET',
          url: BASE,
          headers: { 'x-organization-id': orgId },
        }),
        401,
      );
      // Another user is not limited by this one.
      const other = await limited.fixtures.user(orgId);
      const fine = await limited.request(
        { orgId, token: other.token },
        { method: 'GET', url: BASE },
      );
      expect(fine.statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('internal errors', () => {
  test('500 internal server error, without details', async () => {
    const broken = await buildTestApp();
    try {
      const orgId = await broken.fixtures.org();
      const user = await broken.fixtures.user(orgId);
      const as = { orgId, token: user.token };
      // Verified once, so the credential is cached and the failure comes from the store.
      expect((await broken.request(as, { method: 'GET', url: BASE })).statusCode).toBe(200);
      await broken.database.close();
      for (const options of [
        { method: 'GET', url: BASE },
        { method: 'POST', url: BASE, payload: { content: 'lost' } },
        { method: 'GET', url: `${BASE}/${randomUUID()}` },
      ] as const) {
        expectError(await broken.request(as, options), 500, 'internal server error');
      }
    } finally {
      await broken.app.close();
      await broken.close().catch(() => undefined);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('service endpoints', () => {
  test('GET /healthz: 200', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({ ok: true });
  });

  test('GET /openapi.json: 200, the memory paths with all their operations', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const doc = res.json() as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toMatch(/^3\./);
    const list = doc.paths['/api/v1/memory'];
    const one = doc.paths['/api/v1/memory/{id}'];
    expect(Object.keys(list ?? {}).sort()).toEqual(['delete', 'get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/memory/import'] ?? {})).toEqual(['post']);
    expect(Object.keys(one ?? {}).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(doc.paths['/healthz'] ?? {})).toEqual(['get']);
    type Operation = { responses: Record<string, { headers?: Record<string, unknown> }> };
    const post = list?.post as Operation;
    expect(Object.keys(post.responses['201']?.headers ?? {})).toEqual(['location']);
    for (const operation of [
      list?.get,
      list?.post,
      list?.delete,
      one?.get,
      one?.patch,
      one?.delete,
    ]) {
      const responses = (operation as Operation).responses;
      expect(Object.keys(responses['429']?.headers ?? {})).toContain('retry-after');
      expect(Object.keys(responses)).toEqual(expect.arrayContaining(['4XX', '5XX']));
    }
    // Each operation names the scope it needs, on the OpenID Connect scheme of /oauth.
    type Secured = { security: Array<Record<string, string[]>> };
    const scopes = [list?.get, one?.get, list?.post, one?.patch, one?.delete, list?.delete].map(
      (operation) => (operation as Secured).security,
    );
    expect(scopes).toEqual([
      [{ platformCredential: ['memory:read'] }],
      [{ platformCredential: ['memory:read'] }],
      [{ platformCredential: ['memory:write'] }],
      [{ platformCredential: ['memory:write'] }],
      [{ platformCredential: ['memory:write'] }],
      [{ platformCredential: ['memory:write'] }],
    ]);
    const schemes = (doc as unknown as { components: { securitySchemes: Record<string, unknown> } })
      .components.securitySchemes;
    expect(schemes.platformCredential).toMatchObject({
      type: 'openIdConnect',
      openIdConnectUrl: `${t.config.publicUrl}/oauth/.well-known/openid-configuration`,
    });
    // The authorization server is described by its discovery document, not here.
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/oauth'))).toEqual([]);
  });
});
