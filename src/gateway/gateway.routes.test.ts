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

  test('each refusal says why, in OpenAI’s shape and in its RFC 6750 challenge', async () => {
    const { deleteMembership } = await import('../tenancy/orgs.repository.ts');
    const f = server.t.fixtures;
    const db = server.t.database.db;
    const keyOf = async (token: string, name: string) => {
      const res = await fetch(`${server.url}/api/v1/api-keys`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'x-organization-id': orgId,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { key: { id: string }; secret: string }).secret;
    };
    const suspended = await f.user(orgId);
    const banned = await f.user(orgId);
    const leaver = await f.user(orgId);
    const suspendedKey = await keyOf(suspended.token, 'suspended');
    const bannedKey = await keyOf(banned.token, 'banned');
    const leaverKey = await keyOf(leaver.token, 'leaver');
    await f.status(suspended.id, 'suspended');
    await f.status(banned.id, 'banned');
    await deleteMembership(db, orgId, leaver.id);
    const expired = await createKey('to expire');
    await db
      .updateTable('api_keys')
      .set({ expires_at: Date.now() - 1000 })
      .where('id', '=', expired.key.id)
      .execute();
    const unknown = (await import('../credentials/api-key-secret.ts')).generateApiKey().secret;

    const cases: Array<[string, string]> = [
      [
        'not-a-key',
        'Incorrect API key format: an API key is mnemo_sk_ followed by 49 letters and digits, sent as Authorization: Bearer mnemo_sk_...',
      ],
      [
        ownerToken,
        'A platform credential is not an API key: /v1 takes an API key (mnemo_sk_...), created in the studio under Settings > API Keys or with POST /api/v1/api-keys; platform credentials (OAuth access tokens) are for the memory and platform APIs under /api.',
      ],
      [unknown, 'Incorrect API key provided.'],
      [expired.secret, 'This API key has expired.'],
      [suspendedKey, "This API key's user account is suspended."],
      [bannedKey, "This API key's user account is banned."],
      [leaverKey, "This API key's user is no longer a member of its organization."],
    ];
    for (const [key, message] of cases) {
      const res = await fetch(`${server.url}/v1/models`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status, message).toBe(401);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer realm="mnemo", error="invalid_token", error_description="${message}"`,
      );
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({
        error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
      });
      // Nothing of the key comes back.
      expect(text + res.headers.get('www-authenticate')).not.toContain(key.slice(-20));
    }

    // No key at all: the challenge names the realm only (RFC 6750 §3.1).
    const bare = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST' });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe('Bearer realm="mnemo"');
    expect(await bare.json()).toEqual({
      error: {
        message:
          "You didn't provide an API key. Send it in the Authorization header as a bearer token (Authorization: Bearer mnemo_sk_...).",
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
  });

  test('the platform credential is not an API key', async () => {
    const error = await client(ownerToken)
      .models.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).message).toMatch(
      /^401 A platform credential is not an API key: \/v1 takes an API key/,
    );
  });
});

describe('what is not offered', () => {
  test('/v1/completions and /v1/embeddings: 404 in OpenAI’s shape, saying so', async () => {
    const embeddings = await client(secret)
      .embeddings.create({ model: 'openai/gpt-4.1', input: 'x' })
      .catch((e: unknown) => e);
    expect(embeddings).toBeInstanceOf(OpenAI.NotFoundError);
    expect((embeddings as Error).message).toBe(
      '404 Embeddings (/v1/embeddings) are not offered by this server; use /v1/chat/completions or /v1/responses.',
    );
    const completions = await client(secret)
      .completions.create({ model: 'openai/gpt-4.1', prompt: 'x' })
      .catch((e: unknown) => e);
    expect(completions).toBeInstanceOf(OpenAI.NotFoundError);
    expect((completions as Error).message).toBe(
      '404 The legacy completions endpoint (/v1/completions) is not offered by this server; use /v1/chat/completions or /v1/responses.',
    );
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
