/**
 * `/v1` as the official `openai` package meets it: API keys, the model list, OpenAI's error
 * shape with `x-request-id` on every answer, and the endpoints that are not offered.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type OAuthServer, startOAuthServer } from '../testing/oauth-server.ts';

let server: OAuthServer;
let secret: string;
let ownerToken: string;
let orgId: string;

const CONFIG = {
  providers: {
    openai: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'TEST_OPENAI_KEY' },
    anthropic: {
      kind: 'anthropic',
      baseUrl: 'http://127.0.0.1:9',
      apiKeyEnv: 'TEST_ANTHROPIC_KEY',
    },
  },
  models: [
    {
      id: 'openai/gpt-4.1',
      provider: 'openai',
      upstream: 'gpt-4.1',
      vision: true,
      tools: true,
      contextWindow: 1047576,
      price: { input: 2, output: 8 },
    },
    {
      id: 'anthropic/claude-sonnet-4-5',
      provider: 'anthropic',
      upstream: 'claude-sonnet-4-5',
      vision: true,
      tools: true,
      contextWindow: 200000,
      price: { input: 3, output: 15 },
    },
  ],
  router: { id: 'auto', order: ['openai/gpt-4.1', 'anthropic/claude-sonnet-4-5'] },
};

async function createKey(name: string) {
  const response = await fetch(`${server.url}/api/v1/api-keys`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ownerToken}`,
      'x-organization-id': orgId,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ name }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { key: { id: string }; secret: string };
}

const client = (apiKey: string, maxRetries = 0) =>
  new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries });

beforeAll(async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const file = join(mkdtempSync(join(tmpdir(), 'mnemo-gateway-')), 'mnemo.config.json');
  writeFileSync(file, JSON.stringify(CONFIG));
  server = await startOAuthServer({ MNEMO_CONFIG: file });
  orgId = await server.t.fixtures.org();
  ownerToken = (await server.t.fixtures.user(orgId, 'owner')).token;
  const created = await createKey('gateway test');
  secret = created.secret;
});
afterAll(() => server.close());

describe('GET /v1/models', () => {
  test('lists every configured model and the router, in OpenAI’s list shape', async () => {
    const page = await client(secret).models.list();
    expect(page.data.map((m) => [m.id, m.object, m.owned_by])).toEqual([
      ['openai/gpt-4.1', 'model', 'openai'],
      ['anthropic/claude-sonnet-4-5', 'model', 'anthropic'],
      ['auto', 'model', 'mnemo'],
    ]);
    for (const model of page.data) expect(model.created).toEqual(expect.any(Number));
  });

  test('retrieves one model by its id, slash included; an unknown one is 404 model_not_found', async () => {
    const model = await client(secret).models.retrieve('anthropic/claude-sonnet-4-5');
    expect(model).toMatchObject({ id: 'anthropic/claude-sonnet-4-5', object: 'model' });
    const error = await client(secret)
      .models.retrieve('openai/gpt-9')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });
});

describe('authentication by API key', () => {
  test('a missing, malformed, unknown or revoked key is 401 in OpenAI’s shape, with a request id', async () => {
    const revoked = await createKey('to revoke');
    const revoke = await fetch(`${server.url}/api/v1/api-keys/${revoked.key.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ownerToken}`, 'x-organization-id': orgId },
    });
    expect(revoke.status).toBe(200);
    for (const [key, message] of [
      ['not-a-key', /^401 Incorrect API key format/],
      [
        `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`,
        /^401 Incorrect API key format/,
      ],
      [revoked.secret, /^401 This API key has been revoked\.$/],
    ] as const) {
      const error = await client(key)
        .models.list()
        .catch((e: unknown) => e);
      expect(error, key).toBeInstanceOf(OpenAI.AuthenticationError);
      const e = error as InstanceType<typeof OpenAI.AuthenticationError>;
      expect(e.status).toBe(401);
      expect(e.code).toBe('invalid_api_key');
      expect(e.message).toMatch(message);
      expect(e.requestID).toMatch(/^req_[0-9a-f]{32}$/);
    }
    const bare = await fetch(`${server.url}/v1/models`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get('cache-control')).toBe('no-store');
    expect(((await bare.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });

  test('the platform credential is not an API key', async () => {
    const error = await client(ownerToken)
      .models.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

describe('what is not offered', () => {
  test('/v1/completions and /v1/embeddings: 404 in OpenAI’s shape, saying so', async () => {
    const embeddings = await client(secret)
      .embeddings.create({ model: 'openai/gpt-4.1', input: 'x' })
      .catch((e: unknown) => e);
    expect(embeddings).toBeInstanceOf(OpenAI.NotFoundError);
    expect((embeddings as Error).message).toMatch(
      /Embeddings \(\/v1\/embeddings\) are not offered/,
    );
    const completions = await client(secret)
      .completions.create({ model: 'openai/gpt-4.1', prompt: 'x' })
      .catch((e: unknown) => e);
    expect(completions).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test('an unknown path under /v1 is 404 unknown_url, with a request id', async () => {
    const response = await fetch(`${server.url}/v1/nothing-here`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringMatching(/^Unknown request URL: GET \/v1\/nothing-here\./),
        type: 'invalid_request_error',
        param: null,
        code: 'unknown_url',
      },
    });
  });
});
