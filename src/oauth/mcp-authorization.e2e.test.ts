/**
 * Authorization of the MCP server, end to end, as MCP's 2026-07-28 revision has clients do it:
 * the official client SDK over Streamable HTTP meets a 401 on /mcp, finds the authorization
 * server from the protected resource metadata (RFC 9728) and that server's metadata (RFC 8414),
 * registers (RFC 7591) or names its client ID metadata document, and gets a token for the MCP
 * resource (RFC 8707) by authorization code with PKCE, a person signing in and allowing it
 * through the real pages over HTTP, choosing the organization it acts in.
 */
import { auth, InsufficientScopeError, UnauthorizedError } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { deleteMembership, upsertMembership } from '../tenancy/orgs.repository.ts';
import { Browser, type Page, readForms } from '../testing/browser.ts';
import { buildTestApp } from '../testing/build-test-app.ts';
import {
  type HttpsDocumentServer,
  startHttpsDocumentServer,
} from '../testing/https-document-server.ts';
import {
  CALLBACK,
  connectMcp,
  MemoryOAuthProvider,
  startAuthorization,
} from '../testing/mcp-oauth-client.ts';
import { type OAuthServer, startOAuthServer, startSecondProcess } from '../testing/oauth-server.ts';
import { scopedToken } from '../testing/scoped-token.ts';
import { testRedisUrl } from '../testing/test-store.ts';

let server: OAuthServer;
let mcpUrl: string;
let acme: string;
let globex: string;
/** Where client ID metadata documents are published: https on loopback. */
let documents: HttpsDocumentServer;

beforeAll(async () => {
  documents = await startHttpsDocumentServer();
  // Metadata documents on loopback: only with the operator's switch.
  server = await startOAuthServer({ MNEMO_CLIENT_METADATA_PRIVATE_ADDRESSES: 'on' });
  mcpUrl = `${server.url}/mcp`;
  acme = await server.t.fixtures.org({ name: 'Acme' });
  globex = await server.t.fixtures.org({ name: 'Globex' });
});
afterAll(async () => {
  await server.close();
  await documents.close();
});

type Person = Awaited<ReturnType<OAuthServer['person']>>;

/** A person in Acme (owner) and Globex (member). */
async function twoOrgPerson(): Promise<Person> {
  const person = await server.person({ orgId: acme, role: 'owner' });
  await upsertMembership(server.t.database.db, globex, person.id, 'member');
  return person;
}

const atCallback = (url: string) => url.startsWith(CALLBACK);

/** Signs `who` in at the authorization request: the page that follows (consent). */
async function signIn(authorizationUrl: URL, who: Person) {
  const browser = new Browser();
  const page = await browser.open(authorizationUrl.href, { stopAt: atCallback });
  expect(page.status).toBe(200);
  expect(page.html).toContain('<h1>Sign in</h1>');
  const next = await browser.submit(
    page,
    { email: who.email, password: who.password },
    { stopAt: atCallback },
  );
  return { browser, page: next };
}

/** Allows on the consent page, in `organization` when given: the callback's parameters. */
async function allow(browser: Browser, consent: Page, organization?: string) {
  const done = await browser.submit(consent, organization ? { organization } : {}, {
    actionIncludes: '/consent',
    stopAt: atCallback,
  });
  expect(done.status).toBe(303);
  expect(done.url.startsWith(CALLBACK)).toBe(true);
  return new URL(done.url).searchParams;
}

/**
 * The whole authorization of a new MCP client: connect (401), authorize through the pages in
 * `organization`, finish with the code, connect again with the token.
 */
async function connectThroughPages(
  provider: MemoryOAuthProvider,
  who: Person,
  organization?: string,
) {
  const { transport, authorizationUrl } = await startAuthorization(mcpUrl, provider);
  const { browser, page } = await signIn(authorizationUrl, who);
  expect(page.status).toBe(200);
  const callback = await allow(browser, page, organization);
  await transport.finishAuth(callback);
  return { ...(await connectMcp(mcpUrl, provider)), authorizationUrl, consent: page };
}

type McpClient = Awaited<ReturnType<typeof connectMcp>>['client'];

async function call(client: McpClient, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError ?? false).toBe(false);
  return result.structuredContent as Record<string, unknown>;
}

const challengeUrl = () => `${server.url}/.well-known/oauth-protected-resource/mcp`;

/** A JSON-RPC request to /mcp with `token`, as a client sends one. */
const rawMcp = (token: string | undefined, body: unknown) =>
  fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });

const toolCall = (name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('discovery', () => {
  test('a request without a credential is told where the protected resource metadata is', async () => {
    const response = await rawMcp(undefined, toolCall('whoami'));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer realm="mnemo", resource_metadata="${challengeUrl()}", scope="memory:read memory:write"`,
    );
  });

  test('the protected resource metadata names the MCP resource, its server and scopes', async () => {
    const expected = {
      resource: mcpUrl,
      authorization_servers: [server.issuer],
      scopes_supported: ['memory:read', 'memory:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'mnemo',
      resource_documentation: `${server.url}/oauth`,
    };
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(`${server.url}${path}`, {
        headers: { origin: 'https://app.example.test' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual(expected);
    }
    const preflight = await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.test',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('mcp-protocol-version');
  });

  test('the authorization server metadata is where RFC 8414 puts it for the issuer /oauth', async () => {
    const response = await fetch(`${server.url}/.well-known/oauth-authorization-server/oauth`, {
      headers: { origin: 'https://app.example.test' },
    });
    expect(response.status).toBe(200);
    // Any origin may read it: the provider answers each with its own.
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.test');
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: server.issuer,
      authorization_endpoint: `${server.issuer}/auth`,
      token_endpoint: `${server.issuer}/token`,
      registration_endpoint: `${server.issuer}/reg`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      response_types_supported: ['code'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(metadata.scopes_supported).toEqual([
      'openid',
      'offline_access',
      'email',
      'profile',
      'memory:read',
      'memory:write',
      'keys',
      'usage',
      'admin',
    ]);
    // The same document as OpenID discovery's.
    const openid = await fetch(`${server.issuer}/.well-known/openid-configuration`);
    expect(await openid.json()).toEqual(metadata);
  });
});

describe('a client that registers itself (RFC 7591)', () => {
  test('connects a two-organization person in the organization they choose; its tools act there', async () => {
    const ada = await twoOrgPerson();
    // As the SDK's own examples: a client that says it refreshes asks for offline_access too.
    const provider = new MemoryOAuthProvider({
      metadata: {
        client_name: 'Notes Desktop',
        grant_types: ['authorization_code', 'refresh_token'],
      },
    });
    const { client, authorizationUrl, consent } = await connectThroughPages(provider, ada, globex);

    // Registered as the SDK does it, and kept in the store.
    const registered = provider.clientInformation();
    expect(registered?.client_id).toMatch(/^mnemo_client_[A-Za-z0-9_-]{22}$/);
    expect(registered).not.toHaveProperty('client_secret');
    const row = await server.t.database.db
      .selectFrom('oauth_records')
      .select('payload')
      .where('model', '=', 'Client')
      .where('id', '=', registered?.client_id ?? '')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.payload)).toMatchObject({
      client_name: 'Notes Desktop',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      scope: 'memory:read memory:write offline_access',
    });

    // The request the SDK made: the MCP resource, the scopes of the challenge, PKCE.
    expect(Object.fromEntries(authorizationUrl.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: registered?.client_id,
      redirect_uri: CALLBACK,
      resource: mcpUrl,
      scope: 'memory:read memory:write offline_access',
      code_challenge_method: 'S256',
    });

    // The consent page named the client, said it is unverified, and asked for an organization.
    expect(consent.html).toContain('<h1>Notes Desktop wants to access your mnemo account</h1>');
    expect(consent.html).toContain('It registered itself: mnemo has not checked its name.');
    expect(consent.html).toContain('<legend>Which organization does it act in?</legend>');
    for (const [i, id] of [acme, globex].entries()) {
      expect(consent.html).toContain(
        `<input type="radio" id="organization-${i}" name="organization" value="${id}" required>`,
      );
    }

    // The token: for the MCP server only, in Globex.
    const tokens = provider.tokens();
    const claims = decodeJwt(tokens?.access_token ?? '');
    expect(claims).toMatchObject({
      iss: server.issuer,
      aud: mcpUrl,
      sub: ada.id,
      client_id: registered?.client_id,
      scope: 'memory:read memory:write',
      org_id: globex,
      connection_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(claims).not.toHaveProperty('org_ids');
    expect(tokens?.refresh_token).toEqual(expect.any(String));

    // The tools act in Globex: whoami says so, and what is added is Globex's.
    expect(await call(client, 'whoami')).toMatchObject({
      user: { id: ada.id, email: ada.email },
      organization: { id: globex, name: 'Globex' },
      role: 'member',
    });
    const added = await call(client, 'add_memory', { content: 'Prefers tea to coffee' });
    const listed = await call(client, 'list_memories');
    expect(listed.memories).toEqual([
      expect.objectContaining({ id: (added.memory as { id: string }).id }),
    ]);
    const platform = await server.t.fixtures.token(ada.id);
    const inGlobex = await server.memory(platform, globex);
    expect(((await inGlobex.json()) as { memories: unknown[] }).memories).toHaveLength(1);
    const inAcme = await server.memory(platform, acme);
    expect(((await inAcme.json()) as { memories: unknown[] }).memories).toEqual([]);
    await client.close();
  });
});

describe('a connection', () => {
  test('refreshes in its organization, and once revoked is refused at once on every process', async () => {
    const ada = await twoOrgPerson();
    const provider = new MemoryOAuthProvider({ metadata: { client_name: 'Refresher' } });
    const { client } = await connectThroughPages(provider, ada, acme);
    const first = provider.tokens();
    const connectionId = decodeJwt(first?.access_token ?? '').connection_id;

    // An access token the server no longer takes: the SDK refreshes, and carries on.
    provider.saveTokens({ ...(first as NonNullable<typeof first>), access_token: 'expired' });
    expect(await call(client, 'whoami')).toMatchObject({ organization: { id: acme } });
    const refreshed = provider.tokens();
    expect(refreshed?.refresh_token).not.toBe(first?.refresh_token);
    expect(decodeJwt(refreshed?.access_token ?? '')).toMatchObject({
      aud: mcpUrl,
      org_id: acme,
      connection_id: connectionId,
      scope: 'memory:read memory:write',
    });

    // The person sees it among their connections.
    const platform = await server.t.fixtures.token(ada.id);
    const api = (method: string, path: string) =>
      fetch(`${server.url}/api/v1/me/connections${path}`, {
        method,
        headers: { authorization: `Bearer ${platform}` },
      });
    const listed = await api('GET', '');
    expect(listed.status).toBe(200);
    const { connections } = (await listed.json()) as { connections: Array<{ createdAt: string }> };
    expect(connections).toEqual([
      {
        id: connectionId,
        clientId: provider.clientInformation()?.client_id,
        clientName: 'Refresher',
        organization: { id: acme, name: 'Acme' },
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    ]);

    // A second process of the service, on the same store, takes the token too.
    const second = await startSecondProcess(server);
    try {
      const elsewhere = (token: string) =>
        fetch(`${second.localUrl}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${token}`,
          },
          body: JSON.stringify(toolCall('whoami')),
        });
      const token = refreshed?.access_token ?? '';
      expect((await elsewhere(token)).status).toBe(200);

      const revoked = await api('DELETE', `/${connectionId}`);
      expect(revoked.status).toBe(200);
      expect(await revoked.json()).toEqual({ ok: true });

      // The very next request, on either process, is refused.
      const message = 'invalid credential: the connection was revoked; authorize the client again';
      for (const response of [await rawMcp(token, toolCall('whoami')), await elsewhere(token)]) {
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({ error: message });
        expect(response.headers.get('www-authenticate')).toBe(
          `Bearer realm="mnemo", resource_metadata="${challengeUrl()}", error="invalid_token", error_description="${message}", scope="memory:read memory:write"`,
        );
      }
    } finally {
      await second.close();
    }

    // Its refresh token is spent with the grant: the SDK can only send the person to authorize.
    provider.authorizationUrl = undefined;
    await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(provider.authorizationUrl).toBeDefined();
    expect(await (await api('GET', '')).json()).toEqual({ connections: [] });
    expect((await api('DELETE', `/${connectionId}`)).status).toBe(404);
  });

  test('a member removed from the organization is refused at once', async () => {
    const bob = await twoOrgPerson();
    const provider = new MemoryOAuthProvider({});
    const { client } = await connectThroughPages(provider, bob, globex);
    await deleteMembership(server.t.database.db, globex, bob.id);
    const response = await rawMcp(provider.tokens()?.access_token, toolCall('whoami'));
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: 'not a member of this organization' });
    await client.close();
  });

  test('the connections routes are the account’s: the keys scope, no organization header', async () => {
    const ada = await server.person({ orgId: acme });
    const response = await fetch(`${server.url}/api/v1/me/connections`);
    expect(response.status).toBe(401);
    // A token for the MCP server is not one for the API.
    const provider = new MemoryOAuthProvider({});
    const { client } = await connectThroughPages(provider, ada);
    const mcpToken = provider.tokens()?.access_token ?? '';
    const refused = await fetch(`${server.url}/api/v1/me/connections`, {
      headers: { authorization: `Bearer ${mcpToken}` },
    });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      error: `invalid credential: not issued for this API; its aud must be ${server.url}/api`,
    });
    // Without the keys scope: 403, naming it; with it, the person's (empty) list.
    for (const [scope, status] of [
      ['memory:read memory:write', 403],
      ['keys', 200],
    ] as const) {
      const response = await fetch(`${server.url}/api/v1/me/connections`, {
        headers: { authorization: `Bearer ${await scopedToken(server.t, ada.id, scope)}` },
      });
      expect(response.status).toBe(status);
      if (status === 403) {
        expect(await response.json()).toEqual({ error: 'the credential lacks the keys scope' });
      }
    }
    expect((await fetch(`${server.url}/api/v1/me/connections/x`, { method: 'PUT' })).status).toBe(
      405,
    );
    await client.close();
  });
});

describe('a client ID metadata document', () => {
  const document = (url: string, extra: Record<string, unknown> = {}) => ({
    client_id: url,
    client_name: 'Claude (test)',
    client_uri: 'https://claude.example.test',
    redirect_uris: [CALLBACK],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });

  test('is the client: no registration, its host on the consent page, one organization stated', async () => {
    const url = `${documents.origin}/clients/claude.json`;
    documents.serve('/clients/claude.json', document(url), {
      headers: { 'cache-control': 'max-age=600' },
    });
    const ada = await server.person({ orgId: acme, role: 'admin' });
    const provider = new MemoryOAuthProvider({ clientMetadataUrl: url });
    const { client, consent, authorizationUrl } = await connectThroughPages(provider, ada);

    expect(provider.clientInformation()?.client_id).toBe(url);
    expect(authorizationUrl.searchParams.get('client_id')).toBe(url);
    expect(consent.html).toContain('<h1>Claude (test) wants to access your mnemo account</h1>');
    expect(consent.html).toContain(
      `<p>Its details are published by <strong>${new URL(url).host}</strong>.</p>`,
    );
    expect(consent.html).toContain('<p>It will act in the organization <strong>Acme</strong>.</p>');
    expect(consent.html).not.toContain('type="radio"');
    expect(await call(client, 'whoami')).toMatchObject({
      organization: { id: acme },
      role: 'admin',
    });
    // Not stored: the document is the client, fetched once and kept as long as it said.
    const stored = await server.t.database.db
      .selectFrom('oauth_records')
      .select('id')
      .where('model', '=', 'Client')
      .where('id', '=', url)
      .execute();
    expect(stored).toEqual([]);
    expect(documents.fetches.get('/clients/claude.json')).toBe(1);
    await client.close();
  });

  /** Opens an authorization request of the client `clientId`: the page the person sees. */
  async function authorizeAs(clientId: string, on = server) {
    const url = new URL(`${on.issuer}/auth`);
    for (const [name, value] of Object.entries({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: CALLBACK,
      scope: 'memory:read',
      resource: `${on.url}/mcp`,
      code_challenge: oidc.randomPKCECodeVerifier().padEnd(43, 'x').slice(0, 43),
      code_challenge_method: 'S256',
    })) {
      url.searchParams.set(name, value);
    }
    return new Browser().open(url.href, { stopAt: atCallback });
  }

  const refusedClient = (page: Page, description: string) => {
    expect(page.status).toBe(400);
    expect(page.html).toContain('<code>invalid_client</code>');
    expect(page.html).toContain(description);
  };

  test('must be https', async () => {
    const url = `http://127.0.0.1:${new URL(documents.origin).port}/clients/plain.json`;
    refusedClient(await authorizeAs(url), 'client is invalid');
  });

  test('larger than 5 KiB, slower than 2.5 s, naming another client or mnemo’s own properties: refused', async () => {
    const big = `${documents.origin}/clients/big.json`;
    documents.serve('/clients/big.json', document(big, { padding: 'x'.repeat(5 * 1024) }));
    refusedClient(await authorizeAs(big), 'client_id metadata document fetch failed');

    const slow = `${documents.origin}/clients/slow.json`;
    documents.serve('/clients/slow.json', document(slow), { delayMs: 3000 });
    refusedClient(await authorizeAs(slow), 'client_id metadata document fetch failed');
    // Once: a failed document is not fetched again at once (the provider looks twice).
    expect(documents.fetches.get('/clients/slow.json')).toBe(1);

    const other = `${documents.origin}/clients/other.json`;
    documents.serve('/clients/other.json', document(`${documents.origin}/clients/x.json`));
    const otherPage = await authorizeAs(other);
    expect(otherPage.status).toBe(400);
    expect(otherPage.html).toContain(
      'client_id metadata document client_id does not match the expected value',
    );

    const firstParty = `${documents.origin}/clients/first-party.json`;
    documents.serve('/clients/first-party.json', document(firstParty, { mnemo_first_party: true }));
    const firstPartyPage = await authorizeAs(firstParty);
    expect(firstPartyPage.status).toBe(400);
    expect(firstPartyPage.html).toContain('mnemo_first_party is not a property a client may set');

    const grants = `${documents.origin}/clients/grants.json`;
    documents.serve('/clients/grants.json', document(grants, { redirect_uris: ['myapp:/cb'] }));
    const grantsPage = await authorizeAs(grants);
    expect(grantsPage.status).toBe(400);
    expect(grantsPage.html).toContain('redirect_uris must be https, http on a loopback host');
  });

  test('on a private or loopback address: refused unless the operator allows it', async () => {
    const guarded = await startOAuthServer();
    try {
      const url = `${documents.origin}/clients/guarded.json`;
      documents.serve('/clients/guarded.json', document(url));
      refusedClient(await authorizeAs(url, guarded), 'client_id metadata document fetch failed');
      // The connection was cut before a request was sent.
      expect(documents.fetches.get('/clients/guarded.json')).toBeUndefined();
    } finally {
      await guarded.close();
    }
  });
});

describe('registration (RFC 7591)', () => {
  const register = (body: unknown, remoteAddress = '192.0.2.10') =>
    server.t.app.inject({
      method: 'POST',
      url: '/oauth/reg',
      remoteAddress,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const client = (extra: Record<string, unknown> = {}) => ({
    client_name: 'Some client',
    redirect_uris: [CALLBACK],
    ...extra,
  });

  test('a public client: no secret; persisted, so another process knows it', async () => {
    const response = await register(client({ scope: 'memory:read offline_access' }));
    expect(response.statusCode).toBe(201);
    const body = response.json() as Record<string, unknown>;
    expect(body).toMatchObject({
      client_id: expect.stringMatching(/^mnemo_client_/),
      client_name: 'Some client',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const pub = await register(client({ token_endpoint_auth_method: 'none' }));
    expect(pub.statusCode).toBe(201);
    const registered = pub.json() as Record<string, unknown>;
    expect(registered).not.toHaveProperty('client_secret');
    expect(registered).not.toHaveProperty('registration_access_token');

    const second = await startSecondProcess(server);
    try {
      const url = new URL(`${second.localUrl}/oauth/auth`);
      url.search = new URLSearchParams({
        client_id: String(registered.client_id),
        response_type: 'code',
        redirect_uri: CALLBACK,
        scope: 'memory:read',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      }).toString();
      const page = await new Browser().open(url.href, { stopAt: atCallback });
      expect(page.status).toBe(200);
      expect(page.html).toContain('<h1>Sign in</h1>');
      expect(page.html).toContain('to continue to Some client');
    } finally {
      await second.close();
    }
  });

  test('a confidential client gets its secret once; only its hash is kept, and it works', async () => {
    const response = await register(client({ token_endpoint_auth_method: 'client_secret_basic' }));
    expect(response.statusCode).toBe(201);
    const { client_id: id, client_secret: secret } = response.json() as {
      client_id: string;
      client_secret: string;
    };
    expect(secret).toMatch(/^mnemo_cs_/);
    const row = await server.t.database.db
      .selectFrom('oauth_records')
      .select('payload')
      .where('model', '=', 'Client')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.payload).not.toContain(secret);

    const ada = await server.person({ orgId: acme });
    const config = await oidc.discovery(
      new URL(server.issuer),
      id,
      undefined,
      oidc.ClientSecretBasic(secret),
      { execute: [oidc.allowInsecureRequests] },
    );
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'memory:read',
      resource: mcpUrl,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const { browser, page } = await signIn(url, ada);
    const callback = await allow(browser, page);
    const tokens = await oidc.authorizationCodeGrant(
      config,
      new URL(`${CALLBACK}?${callback}`),
      { pkceCodeVerifier: verifier },
      { resource: mcpUrl },
    );
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      aud: mcpUrl,
      client_id: id,
      scope: 'memory:read',
      org_id: acme,
    });
  });

  test('what a client may not register: 400 in RFC 7591’s shape', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [
        client({ redirect_uris: ['http://app.example.test/cb'] }),
        'invalid_redirect_uri',
        'redirect_uris must be https, http on a loopback host (127.0.0.1, [::1], localhost) or a private-use scheme with a dot (com.example.app:/callback), not "http://app.example.test/cb"',
      ],
      [
        client({ redirect_uris: ['myapp:/cb'], application_type: 'native' }),
        'invalid_redirect_uri',
        'redirect_uris must be https, http on a loopback host (127.0.0.1, [::1], localhost) or a private-use scheme with a dot (com.example.app:/callback), not "myapp:/cb"',
      ],
      [client({ redirect_uris: [] }), 'invalid_redirect_uri', 'redirect_uris must contain members'],
      [
        client({ grant_types: ['authorization_code', 'client_credentials'] }),
        'invalid_client_metadata',
        'grant_types can only contain authorization_code and refresh_token',
      ],
      [
        client({ mnemo_first_party: true }),
        'invalid_client_metadata',
        'mnemo_first_party is not a property a client may set',
      ],
      [
        client({ mnemo_service_user: '00000000-0000-4000-8000-000000000000' }),
        'invalid_client_metadata',
        'mnemo_service_user is not a property a client may set',
      ],
      [
        client({ scope: 'memory:read everything' }),
        'invalid_client_metadata',
        'scope must only contain Authorization Server supported scope values',
      ],
    ];
    for (const [body, error, description] of cases) {
      const response = await register(body, '192.0.2.20');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error, error_description: description });
    }
    // A private-use scheme with a dot is a native app's.
    const native = await register(
      client({
        redirect_uris: ['com.example.notes:/oauth/callback'],
        application_type: 'native',
        token_endpoint_auth_method: 'none',
      }),
      '192.0.2.20',
    );
    expect(native.statusCode).toBe(201);
  });

  test('each address registers at most 10 clients an hour: then 429 with when to retry', async () => {
    for (let i = 0; i < 10; i++) {
      expect((await register(client(), '198.51.100.7')).statusCode).toBe(201);
    }
    const refused = await register(client(), '198.51.100.7');
    expect(refused.statusCode).toBe(429);
    const body = refused.json() as { error: string; error_description: string };
    expect(body.error).toBe('temporarily_unavailable');
    expect(body.error_description).toMatch(
      /^too many client registrations from this address: retry in \d+ s$/,
    );
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.headers['ratelimit-policy']).toBe('"client-registration";q=10;w=3600');
    // Another address is not held back.
    expect((await register(client(), '198.51.100.8')).statusCode).toBe(201);
  });

  test.skipIf(testRedisUrl() === undefined)(
    'counted in Redis: the cap holds across the processes of the service',
    async () => {
      const redis = { MNEMO_REDIS_URL: testRedisUrl() ?? '' };
      const processes = [
        await buildTestApp(redis, { sharedStore: server.t.store }),
        await buildTestApp(redis, { sharedStore: server.t.store }),
      ];
      try {
        // An address of this run alone: the counts outlive it in Redis.
        const address = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
        const statuses: number[] = [];
        for (let i = 0; i < 11; i++) {
          const response = await processes[i % 2]?.app.inject({
            method: 'POST',
            url: '/oauth/reg',
            remoteAddress: address,
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify(client()),
          });
          statuses.push(response?.statusCode ?? 0);
        }
        expect(statuses).toEqual([...Array(10).fill(201), 429]);
      } finally {
        for (const app of processes) await app.close();
      }
    },
  );

  test('switched off, there is no registration endpoint', async () => {
    const closed = await startOAuthServer({ MNEMO_CLIENT_REGISTRATION: 'off' });
    try {
      const metadata = await (
        await fetch(`${closed.url}/.well-known/oauth-authorization-server/oauth`)
      ).json();
      expect(metadata).not.toHaveProperty('registration_endpoint');
      const response = await fetch(`${closed.issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(client()),
      });
      expect(response.status).toBe(404);
    } finally {
      await closed.close();
    }
  });
});

describe('refusals', () => {
  test('a token for the API is refused by /mcp, one for /mcp by the API', async () => {
    const ada = await server.person({ orgId: acme });
    const apiToken = await server.t.fixtures.token(ada.id);
    const refused = await rawMcp(apiToken, toolCall('whoami'));
    expect(refused.status).toBe(401);
    const message = `invalid credential: not issued for this API; its aud must be ${mcpUrl}`;
    expect(await refused.json()).toEqual({ error: message });
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer realm="mnemo", resource_metadata="${challengeUrl()}", error="invalid_token", error_description="${message}", scope="memory:read memory:write"`,
    );

    const provider = new MemoryOAuthProvider({});
    const { client } = await connectThroughPages(provider, ada);
    const memory = await server.memory(provider.tokens()?.access_token ?? '', acme);
    expect(memory.status).toBe(401);
    expect(await memory.json()).toEqual({
      error: `invalid credential: not issued for this API; its aud must be ${server.url}/api`,
    });
    await client.close();
  });

  test('client credentials get no token for the MCP server: it acts for a person', async () => {
    const serviceUser = await server.person({ orgId: acme });
    const app = await server.client({
      type: 'confidential',
      grants: ['client_credentials'],
      serviceUserId: serviceUser.id,
    });
    const response = await fetch(`${server.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'memory:read',
        resource: mcpUrl,
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'invalid_target',
      error_description:
        'the MCP server takes tokens of a connection a person allowed, not client credentials',
    });
  });

  test('a resource this server does not serve: invalid_target', async () => {
    const provider = new MemoryOAuthProvider({});
    const { authorizationUrl } = await startAuthorization(mcpUrl, provider);
    authorizationUrl.searchParams.set('resource', 'https://elsewhere.example.test/mcp');
    const done = await new Browser().open(authorizationUrl.href, { stopAt: atCallback });
    const callback = new URL(done.url).searchParams;
    expect(callback.get('error')).toBe('invalid_target');
    expect(callback.get('code')).toBeNull();
  });

  test('a token granted only memory:read may read, and a write gets 403 insufficient_scope', async () => {
    const ada = await server.person({ orgId: acme });
    const provider = new MemoryOAuthProvider({});
    expect(await auth(provider, { serverUrl: mcpUrl, scope: 'memory:read' })).toBe('REDIRECT');
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.searchParams.get('scope')).toBe('memory:read');
    const { browser, page } = await signIn(authorizationUrl, ada);
    expect(page.html).toContain('<code>memory:read</code>');
    expect(page.html).not.toContain('<code>memory:write</code>');
    const callback = await allow(browser, page);
    expect(
      await auth(provider, {
        serverUrl: mcpUrl,
        authorizationCode: callback.get('code') ?? '',
        iss: callback.get('iss') ?? '',
      }),
    ).toBe('AUTHORIZED');
    const token = provider.tokens()?.access_token ?? '';
    expect(decodeJwt(token).scope).toBe('memory:read');

    const denied = await rawMcp(token, toolCall('add_memory', { content: 'Likes jazz' }));
    expect(denied.status).toBe(403);
    const message = 'the credential lacks the memory:write scope';
    expect(await denied.json()).toEqual({ error: message });
    expect(denied.headers.get('www-authenticate')).toBe(
      `Bearer realm="mnemo", resource_metadata="${challengeUrl()}", error="insufficient_scope", error_description="${message}", scope="memory:write"`,
    );

    const { client } = await connectMcp(mcpUrl, provider, { onInsufficientScope: 'throw' });
    expect(await call(client, 'whoami')).toMatchObject({ organization: { id: acme } });
    const error = await client
      .callTool({ name: 'add_memory', arguments: { content: 'Likes jazz' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientScopeError);
    expect((error as InsufficientScopeError).requiredScope).toBe('memory:write');
    await client.close();
  });

  test('a person in no organization cannot connect, and is told so', async () => {
    const loner = await server.person();
    const provider = new MemoryOAuthProvider({});
    const { authorizationUrl } = await startAuthorization(mcpUrl, provider);
    const { browser, page } = await signIn(authorizationUrl, loner);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>Test MCP client cannot connect yet</h1>');
    expect(page.html).toContain('you do not belong to any');
    expect(readForms(page).map((form) => form.action)).toEqual([expect.stringMatching(/\/abort$/)]);
    // Going back tells the client.
    const back = await browser.submit(page, {}, { stopAt: atCallback });
    expect(new URL(back.url).searchParams.get('error')).toBe('access_denied');
  });

  test('a two-organization person must choose: without a choice the page asks again', async () => {
    const ada = await twoOrgPerson();
    const provider = new MemoryOAuthProvider({});
    const { authorizationUrl } = await startAuthorization(mcpUrl, provider);
    const { browser, page } = await signIn(authorizationUrl, ada);
    // No radio checked (the form sends none: the helper would send a radio's value), or one
    // that is not hers.
    for (const organization of ['', await server.t.fixtures.org({ name: 'Not hers' })]) {
      const again = await browser.submit(
        page,
        { organization },
        { actionIncludes: '/consent', stopAt: atCallback },
      );
      expect(again.status).toBe(400);
      expect(again.html).toContain('role="alert">Choose the organization it acts in.</p>');
      expect(again.html).toContain('aria-invalid="true"');
    }
  });
});
