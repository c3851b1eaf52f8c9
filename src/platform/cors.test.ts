/**
 * MNEMO_CORS_ORIGINS: browser apps of the origins listed call `/api` and `/v1` (preflight
 * included); any other origin, any other path, and a server without the variable answer without
 * a CORS header.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';

const APP = 'https://app.example.test';
const OTHER = 'https://elsewhere.example.test';

let t: TestApp;
let plain: TestApp;
let member: { token: string; orgId: string };
let apiKey: string;

beforeAll(async () => {
  [t, plain] = await Promise.all([
    buildTestApp({ MNEMO_CORS_ORIGINS: `${APP}, http://localhost:5173` }),
    buildTestApp(),
  ]);
  const orgId = await t.fixtures.org();
  const { token } = await t.fixtures.user(orgId, 'owner');
  member = { token, orgId };
  const created = await t.request(member, {
    method: 'POST',
    url: '/api/v1/api-keys',
    payload: { name: 'browser' },
  });
  expect(created.statusCode).toBe(201);
  apiKey = created.json().secret;
});
afterAll(() => Promise.all([t.close(), plain.close()]));

const preflight = (app: TestApp, url: string, origin: string, headers = '') =>
  app.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      ...(headers ? { 'access-control-request-headers': headers } : {}),
    },
  });

/** Every `access-control-*` header of an answer. */
const corsHeaders = (response: LightMyRequestResponse) =>
  Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => name.startsWith('access-control-')),
  );

const EXPOSED =
  'location, retry-after, ratelimit, ratelimit-policy, www-authenticate, content-disposition, x-request-id, mnemo-cursor, x-mnemo-model, x-mnemo-provider, x-mnemo-route';

describe('an allowed origin', () => {
  test('a preflight of /api answers 204 with the methods and headers allowed, before authentication', async () => {
    const response = await preflight(
      t,
      '/api/v1/memory?user=x',
      APP,
      'Authorization, Content-Type, X-Organization-Id',
    );
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(corsHeaders(response)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE',
      'access-control-allow-headers':
        'authorization, content-type, x-organization-id, openai-organization, openai-project, openai-beta',
      'access-control-expose-headers': EXPOSED,
      'access-control-max-age': '600',
    });
    expect(response.headers.vary).toContain('Origin');
  });

  test("a preflight of /v1 allows the OpenAI SDK's x-stainless-* headers, and nothing unknown", async () => {
    const response = await preflight(
      t,
      '/v1/chat/completions',
      'http://localhost:5173',
      'authorization,content-type,x-stainless-os,x-stainless-retry-count,x-unknown',
    );
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(response.headers['access-control-allow-headers']).toBe(
      'authorization, content-type, x-organization-id, openai-organization, openai-project, openai-beta, x-stainless-os, x-stainless-retry-count',
    );
  });

  test('real requests of /api and /v1, errors included, carry the origin and the exposed headers', async () => {
    const listed = await t.request(member, {
      method: 'GET',
      url: '/api/v1/memory',
      headers: { origin: APP },
    });
    expect(listed.statusCode).toBe(200);
    expect(corsHeaders(listed)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-expose-headers': EXPOSED,
    });
    expect(listed.headers.ratelimit).toBeUndefined(); // the test app runs without a rate limit

    const unauthenticated = await t.app.inject({
      method: 'GET',
      url: '/api/v1/memory',
      headers: { origin: APP },
    });
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.headers['access-control-allow-origin']).toBe(APP);

    const models = await t.app.inject({
      method: 'GET',
      url: '/v1/models',
      headers: { origin: APP, authorization: `Bearer ${apiKey}` },
    });
    expect(models.statusCode).toBe(200);
    expect(corsHeaders(models)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-expose-headers': EXPOSED,
    });
  });

  test('paths outside /api and /v1 get no CORS header, nor a preflight', async () => {
    for (const url of ['/healthz', '/openapi.json', '/studio/']) {
      const response = await t.app.inject({ method: 'GET', url, headers: { origin: APP } });
      expect(corsHeaders(response), url).toEqual({});
    }
    const response = await preflight(t, '/healthz', APP);
    expect(response.statusCode).toBe(404);
    expect(corsHeaders(response)).toEqual({});
  });
});

describe('an origin not listed', () => {
  test('gets no CORS header: the preflight is an unknown route, the request is answered bare', async () => {
    const refused = await preflight(t, '/api/v1/memory', OTHER, 'authorization');
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toEqual({ error: expect.any(String) });
    expect(corsHeaders(refused)).toEqual({});

    const listed = await t.request(member, {
      method: 'GET',
      url: '/api/v1/memory',
      headers: { origin: OTHER },
    });
    expect(listed.statusCode).toBe(200);
    expect(corsHeaders(listed)).toEqual({});
  });

  test('without MNEMO_CORS_ORIGINS no origin is allowed', async () => {
    const refused = await preflight(plain, '/api/v1/memory', APP, 'authorization');
    expect(refused.statusCode).toBe(404);
    expect(corsHeaders(refused)).toEqual({});
  });
});
