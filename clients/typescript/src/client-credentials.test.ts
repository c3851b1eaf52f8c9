/**
 * An app's client credentials: an app registered through the platform API, its tokens fetched
 * by the client at /oauth/token, one fetch for many calls at once, a new one as the token nears
 * its expiry, and a refused secret as a MnemoError.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type OAuthServer, startOAuthServer } from '../../../src/testing/oauth-server.ts';
import { Mnemo, MnemoError } from './index.ts';

/** Tokens live 4 s here, so the client replaces one after half its life (2 s). */
const TOKEN_TTL_SECONDS = 4;

let server: OAuthServer;
let orgId: string;
let app: { id: string; userId: string; secret: string };

beforeAll(async () => {
  server = await startOAuthServer({ MNEMO_ACCESS_TOKEN_TTL_SECONDS: String(TOKEN_TTL_SECONDS) });
  orgId = await server.t.fixtures.org();
  const owner = await server.t.fixtures.user(orgId, 'owner');
  const created = await fetch(`${server.url}/api/v1/orgs/${orgId}/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Support bot', role: 'member' }),
  });
  expect(created.status).toBe(201);
  const body = (await created.json()) as { app: { id: string; userId: string }; secret: string };
  app = { id: body.app.id, userId: body.app.userId, secret: body.secret };
});
afterAll(() => server?.close());

/** A client of the app whose fetch counts the token requests. */
function appClient(secret = app.secret) {
  const tokenRequests: Request[] = [];
  const mnemo = new Mnemo({
    baseUrl: server.url,
    organizationId: orgId,
    auth: { clientId: app.id, clientSecret: secret },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname === '/oauth/token') tokenRequests.push(request.clone());
      return fetch(request);
    },
  });
  return { mnemo, tokenRequests };
}

test('twenty calls at once fetch one token, asked for the memory scopes; it acts as the app', async () => {
  const { mnemo, tokenRequests } = appClient();
  const added = await Promise.all(
    Array.from({ length: 20 }, (_, i) => mnemo.memories.add({ content: `Ticket ${i} is open` })),
  );
  expect(added.every((result) => result.created)).toBe(true);
  expect(tokenRequests).toHaveLength(1);
  const [request] = tokenRequests;
  expect(request?.method).toBe('POST');
  expect(request?.headers.get('authorization')).toBe(`Basic ${btoa(`${app.id}:${app.secret}`)}`);
  expect(Object.fromEntries(new URLSearchParams(await request?.text()))).toEqual({
    grant_type: 'client_credentials',
    scope: 'memory:read memory:write',
  });
  // The memories are the app's own identity's, as its owner sees them with `user`.
  const owner = await server.t.fixtures.user(orgId, 'owner');
  const asOwner = new Mnemo({ baseUrl: server.url, organizationId: orgId, auth: owner.token });
  expect((await asOwner.memories.list({ user: app.userId })).memories).toHaveLength(20);
});

test('the token is kept while fresh and replaced as it nears its expiry', async () => {
  const { mnemo, tokenRequests } = appClient();
  await mnemo.memories.list();
  await mnemo.memories.list();
  expect(tokenRequests).toHaveLength(1);
  await new Promise((resolve) => setTimeout(resolve, (TOKEN_TTL_SECONDS / 2) * 1000 + 200));
  await Promise.all([mnemo.memories.list(), mnemo.memories.list(), mnemo.memories.list()]);
  expect(tokenRequests).toHaveLength(2);
  await mnemo.memories.list();
  expect(tokenRequests).toHaveLength(2);
});

test("a refused secret is a MnemoError with the token endpoint's status and message; the next call asks again", async () => {
  const { mnemo, tokenRequests } = appClient('mnemo_cs_wrong');
  const error = await mnemo.memories.list().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MnemoError);
  expect(error).toMatchObject({
    status: 401,
    body: { error: 'invalid_client' },
  });
  expect((error as MnemoError).message).toBe(
    (error as { body: { error_description: string } }).body.error_description,
  );
  await expect(mnemo.memories.list()).rejects.toBeInstanceOf(MnemoError);
  expect(tokenRequests).toHaveLength(2);
});
