/**
 * `/mcp` over Streamable HTTP through the official client, both protocol eras, with API keys:
 * the tools (testing/mcp-world.ts, the same scenarios as `mnemo mcp`), and the door's own
 * answers outside MCP: 401, 403, 405, 413, 415 and 429 as `{"error"}`, shared with the API.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, test } from 'vitest';
import { generateApiKey } from '../credentials/api-key-secret.ts';
import { MCP_CREDENTIAL_MESSAGES } from '../oauth/mcp-authenticate.ts';
import {
  type Connect,
  callTool,
  describeMemoryTools,
  ERAS,
  type McpWorld,
  type Person,
  withMcpWorld,
} from '../testing/mcp-world.ts';
import { clearOfMinuteEnd } from '../testing/rate-window.ts';

const world = withMcpWorld({ MNEMO_CORS_ORIGINS: 'https://studio.example.test' });

/** A new API key of `who` in `orgId`, made through the API as a person makes one. */
async function apiKey(
  w: McpWorld,
  who: Person,
  orgId = w.orgId,
  settings: { memoryAccess?: string } = {},
): Promise<{ id: string; secret: string }> {
  const response = await w.api(who, '/api/v1/api-keys', {
    method: 'POST',
    body: { name: 'MCP client', ...settings },
    orgId,
  });
  expect(response.status).toBe(201);
  const { key, secret } = (await response.json()) as { key: { id: string }; secret: string };
  return { id: key.id, secret };
}

async function connectWithKey(url: string, secret: string, mode: 'legacy' | 'auto') {
  const client = new Client(
    { name: 'mnemo-test', version: '1.0.0' },
    { versionNegotiation: { mode } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  return client;
}

const connect: Connect = async (who, orgId, era) => {
  const { secret } = await apiKey(world(), who, orgId);
  const mode = ERAS.find((e) => e.era === era)?.mode ?? 'legacy';
  return connectWithKey(world().url, secret, mode);
};

describeMemoryTools('/mcp', world, connect);

/** A 2025 `initialize`, as any client opens a session, and as the README's curl sends it. */
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-03-26',
    capabilities: {},
    clientInfo: { name: 'curl', version: '8' },
  },
};

function post(
  url: string,
  headers: Record<string, string>,
  body: string = JSON.stringify(INITIALIZE),
) {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
}

/** An answer outside MCP: its status, the headers that matter, and its `{"error"}`. */
async function refused(response: Response) {
  return {
    status: response.status,
    cacheControl: response.headers.get('cache-control'),
    challenge: response.headers.get('www-authenticate'),
    body: (await response.json()) as unknown,
  };
}

describe('/mcp outside MCP', () => {
  test('a 2025-03-26 initialize with an API key: the server answers in that revision', async () => {
    const w = world();
    const { secret } = await apiKey(w, await w.person());
    const response = await post(w.url, { authorization: `Bearer ${secret}` });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text()).split('\n').filter((line) => line.startsWith('data: '));
    expect(events.map((line) => JSON.parse(line.slice('data: '.length)))).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: '2025-03-26',
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'mnemo', version: '0.1.0' },
          instructions: expect.stringMatching(/^mnemo keeps long-term memories/),
        },
      },
    ]);
  });

  test('no credential, a malformed one, an unknown or a revoked key: 401 with the challenge', async () => {
    const w = world();
    const ada = await w.person();
    const revoked = await apiKey(w, ada);
    const gone = await w.api(ada, `/api/v1/api-keys/${revoked.id}`, { method: 'DELETE' });
    expect(gone.status).toBe(200);
    const M = MCP_CREDENTIAL_MESSAGES;
    const cases: [Record<string, string>, string][] = [
      [{}, M.missing],
      [{ authorization: 'Basic YWRhOnB3' }, M.notBearer],
      [{ authorization: 'Bearer mnemo_sk_short' }, M.malformedKey],
      [{ authorization: `Bearer ${revoked.secret}` }, M.revokedKey],
      // Well formed, its checksum right, and held by no one.
      [{ authorization: `Bearer ${generateApiKey().secret}` }, M.unknownKey],
    ];
    for (const [headers, message] of cases) {
      const answer = await refused(await post(w.url, headers));
      expect(answer, message).toEqual({
        status: 401,
        cacheControl: 'no-store',
        challenge: expect.stringMatching(/^Bearer realm="mnemo"/),
        body: { error: message },
      });
      // RFC 6750 §3.1: no error code for a request that sent no credential.
      if (message === M.missing) expect(answer.challenge).not.toContain('error=');
      else
        expect(answer.challenge).toContain(`error="invalid_token", error_description="${message}"`);
    }
  });

  test("a key whose user is suspended, or left the organization: 403, as for any of that user's credentials", async () => {
    const w = world();
    const [suspended, leaver] = [await w.person(), await w.person()];
    const [one, two] = [await apiKey(w, suspended), await apiKey(w, leaver)];
    await w.t.fixtures.status(suspended.id, 'suspended');
    await w.t.database.db
      .deleteFrom('memberships')
      .where('user_id', '=', leaver.id)
      .where('org_id', '=', w.orgId)
      .execute();
    expect(await refused(await post(w.url, { authorization: `Bearer ${one.secret}` }))).toEqual({
      status: 403,
      cacheControl: 'no-store',
      challenge: null,
      body: { error: 'account is suspended' },
    });
    expect(
      (await refused(await post(w.url, { authorization: `Bearer ${two.secret}` }))).body,
    ).toEqual({
      error: 'not a member of this organization',
    });
  });

  test('Origin: absent, the service’s own or a configured CORS origin pass; any other is 403', async () => {
    const w = world();
    const { secret } = await apiKey(w, await w.person());
    const authorization = `Bearer ${secret}`;
    for (const origin of [w.url, 'https://studio.example.test']) {
      expect((await post(w.url, { authorization, origin })).status, origin).toBe(200);
    }
    for (const origin of ['https://evil.example', 'null', `${w.url}.evil.example`]) {
      expect(await refused(await post(w.url, { authorization, origin })), origin).toEqual({
        status: 403,
        cacheControl: 'no-store',
        challenge: null,
        body: { error: `requests from the origin ${origin} are not allowed` },
      });
    }
    // Refused before the credential is even looked at.
    expect((await refused(await post(w.url, { origin: 'https://evil.example' }))).status).toBe(403);
  });

  test('bodies: not JSON 415, over 64 KiB 413, malformed 400, all as {"error"}', async () => {
    const w = world();
    const { secret } = await apiKey(w, await w.person());
    const authorization = `Bearer ${secret}`;
    const form = await post(w.url, { authorization, 'content-type': 'text/plain' });
    expect(await refused(form)).toMatchObject({
      status: 415,
      cacheControl: 'no-store',
      body: { error: 'Content-Type must be application/json' },
    });
    const huge = JSON.stringify({ ...INITIALIZE, padding: 'x'.repeat(70 * 1024) });
    expect(await refused(await post(w.url, { authorization }, huge))).toMatchObject({
      status: 413,
      body: { error: 'request body is too large: at most 64 KiB' },
    });
    expect(await refused(await post(w.url, { authorization }, '{"jsonrpc":'))).toMatchObject({
      status: 400,
      body: { error: 'malformed JSON body' },
    });
  });

  test('methods: PUT is 405 with Allow; GET, a 2025 session stream, is the SDK’s 405 (stateless)', async () => {
    const w = world();
    const { secret } = await apiKey(w, await w.person());
    const put = await fetch(`${w.url}/mcp`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE, HEAD');
    expect(await put.json()).toEqual({ error: 'method not allowed' });
    const stream = await fetch(`${w.url}/mcp`, {
      headers: { authorization: `Bearer ${secret}`, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(405);
    // Without a credential, GET is refused like any request.
    expect((await fetch(`${w.url}/mcp`)).status).toBe(401);
  });

  test('a key’s memory rights bound it here too: none, nothing; read, no writing tool', async () => {
    const w = world();
    const ada = await w.person();
    const none = await apiKey(w, ada, w.orgId, { memoryAccess: 'off' });
    const refusedAll = await refused(await post(w.url, { authorization: `Bearer ${none.secret}` }));
    expect(refusedAll).toMatchObject({
      status: 403,
      body: { error: 'the credential lacks the memory:read scope' },
    });
    const reader = await apiKey(w, ada, w.orgId, { memoryAccess: 'read' });
    const client = await connectWithKey(w.url, reader.secret, 'legacy');
    try {
      expect((await callTool(client, 'list_memories')).isError).toBeFalsy();
      const add = await callTool(client, 'add_memory', { content: 'Likes tea.' }).catch(
        (error: Error) => ({ isError: true, message: error.message }),
      );
      expect(add.isError).toBe(true);
      expect(JSON.stringify(add)).toContain('memory:write');
    } finally {
      await client.close();
    }
  });

  test('a platform credential of /api is not an MCP credential', async () => {
    const w = world();
    const ada = await w.person();
    const answer = await refused(await post(w.url, { authorization: `Bearer ${ada.token}` }));
    expect(answer.status).toBe(401);
  });
});

describe('the rate limit, shared with the API', () => {
  const limited = withMcpWorld({ MNEMO_RATE_LIMIT_PER_MINUTE: '4' });

  test('one budget per user: requests to /mcp and to /api count together', async () => {
    const w = limited();
    const ada = await w.person();
    await clearOfMinuteEnd(20_000);
    // Made through the API: the first of the user's four.
    const { secret } = await apiKey(w, ada);
    const authorization = `Bearer ${secret}`;
    const first = await post(w.url, { authorization });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit')).toMatch(/^"credential";r=2;t=\d+$/);
    expect((await w.api(ada, '/api/v1/memory')).status).toBe(200);
    expect((await post(w.url, { authorization })).status).toBe(200);
    const over = await post(w.url, { authorization });
    const seconds = Number(over.headers.get('retry-after'));
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(await refused(over)).toEqual({
      status: 429,
      cacheControl: 'no-store',
      challenge: null,
      body: { error: `rate limit exceeded: retry in ${seconds} s` },
    });
    expect((await w.api(ada, '/api/v1/memory')).status).toBe(429);
    // Another user's budget is their own.
    const bob = await w.person();
    expect((await w.api(bob, '/api/v1/memory')).status).toBe(200);
  });
});

describe('the rate limit, met by an MCP client', () => {
  const limited = withMcpWorld({ MNEMO_RATE_LIMIT_PER_MINUTE: '8' });

  test('a tool call is one request of the budget, and a client sees the 429 as an error', async () => {
    const w = limited();
    await clearOfMinuteEnd(20_000);
    const { secret } = await apiKey(w, await w.person());
    const client = await connectWithKey(w.url, secret, 'legacy');
    try {
      // Connecting took some of the budget; calls take the rest, then one is refused.
      const outcomes: string[] = [];
      while (outcomes.length < 8 && outcomes.at(-1) !== 'refused') {
        outcomes.push(
          await callTool(client, 'list_memories').then(
            (answer) => (answer.isError ? 'tool error' : 'answer'),
            (error: Error) =>
              /rate limit exceeded/.test(error.message) ? 'refused' : error.message,
          ),
        );
      }
      expect(outcomes.length).toBeGreaterThan(1);
      expect(outcomes).toEqual([...outcomes.slice(0, -1).map(() => 'answer'), 'refused']);
    } finally {
      await client.close();
    }
  });
});
