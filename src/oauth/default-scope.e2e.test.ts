/**
 * An authorization request without `scope` (RFC 6749 §3.3), end to end against the running
 * server: the client's default scope is used, through the real sign-in and consent pages, or the
 * request fails as `invalid_scope` at once, before any page.
 */
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Browser, type Page } from '../testing/browser.ts';
import { type OAuthServer, startOAuthServer } from '../testing/oauth-server.ts';

let server: OAuthServer;
let orgId: string;
const CALLBACK = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  server = await startOAuthServer({ MNEMO_CLIENT_REGISTRATIONS_PER_HOUR: '0' });
  orgId = await server.t.fixtures.org({ name: 'Acme' });
});
afterAll(() => server.close());

const atCallback = (url: string) => url.startsWith(CALLBACK);

/** Registers a public client over HTTP (RFC 7591), with `scope` when given: its client_id. */
async function register(scope?: string): Promise<string> {
  const response = await fetch(`${server.issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Notes',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      ...(scope === undefined ? {} : { scope }),
    }),
  });
  expect(response.status).toBe(201);
  const registered = (await response.json()) as { client_id: string; scope?: string };
  expect(registered.scope).toBe(scope);
  return registered.client_id;
}

/** An authorization request of `clientId`, with PKCE and a state: without scope unless given. */
async function authorizationRequest(
  clientId: string,
  params: Record<string, string> = {},
  redirectUri = CALLBACK,
) {
  const config = await server.discover(clientId);
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    ...params,
  });
  expect(url.searchParams.has('scope')).toBe('scope' in params);
  return { config, url, codeVerifier, state };
}

/** The scopes a consent page lists, in its order. */
const listedScopes = (page: Page) =>
  [...page.html.matchAll(/<li><code>([^<]+)<\/code>/g)].map((match) => match[1]);

/**
 * Signs a new person in and allows on the consent page: the scopes the page listed, and the
 * tokens for the code.
 */
async function signInAndAllow(
  request: Awaited<ReturnType<typeof authorizationRequest>>,
  resource?: string,
) {
  const ada = await server.person({ orgId });
  const browser = new Browser();
  const signIn = await browser.open(request.url.href, { stopAt: atCallback });
  expect(signIn.status).toBe(200);
  expect(signIn.html).toContain('<h1>Sign in</h1>');
  const consent = await browser.submit(
    signIn,
    { email: ada.email, password: ada.password },
    { stopAt: atCallback },
  );
  expect(consent.status).toBe(200);
  const done = await browser.submit(
    consent,
    {},
    { actionIncludes: '/consent', stopAt: atCallback },
  );
  expect(done.status).toBe(303);
  const tokens = await oidc.authorizationCodeGrant(
    request.config,
    new URL(done.url),
    { pkceCodeVerifier: request.codeVerifier, expectedState: request.state },
    resource === undefined ? undefined : { resource },
  );
  return { ada, listed: listedScopes(consent), tokens };
}

/** The first answer to `url`, not followed: an invalid request is redirected at once. */
const firstAnswer = (url: URL) => fetch(url, { redirect: 'manual' });

describe('an authorization request without scope gets the client’s default scope', () => {
  test('a client registered with a scope: that scope, on the consent page and in the token', async () => {
    const clientId = await register('memory:read usage');
    const request = await authorizationRequest(clientId);
    const { ada, listed, tokens } = await signInAndAllow(request);
    expect(listed).toEqual(['memory:read', 'usage']);
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      aud: `${server.url}/api`,
      sub: ada.id,
      client_id: clientId,
      scope: 'memory:read usage',
    });
    // Not an OpenID request: no ID token.
    expect(tokens.id_token).toBeUndefined();
    expect(tokens.scope).toBe('memory:read usage');
  });

  test('for the MCP server: the memory scopes of the registered scope, without OpenID’s', async () => {
    const clientId = await register('openid memory:read memory:write offline_access');
    const mcp = `${server.url}/mcp`;
    const request = await authorizationRequest(clientId, { resource: mcp });
    const { listed, tokens } = await signInAndAllow(request, mcp);
    expect(listed).toEqual(['memory:read', 'memory:write']);
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      aud: mcp,
      client_id: clientId,
      scope: 'memory:read memory:write',
      org_id: orgId,
    });
    expect(tokens.id_token).toBeUndefined();
  });

  test('a client registered without scope: memory:read memory:write', async () => {
    const clientId = await register();
    const { listed, tokens } = await signInAndAllow(await authorizationRequest(clientId));
    expect(listed).toEqual(['memory:read', 'memory:write']);
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      aud: `${server.url}/api`,
      client_id: clientId,
      scope: 'memory:read memory:write',
    });
  });

  test('pushed first (RFC 9126): the same default, carried to the authorization request', async () => {
    const clientId = await register();
    const request = await authorizationRequest(clientId);
    const pushed = await oidc.buildAuthorizationUrlWithPAR(
      request.config,
      Object.fromEntries(request.url.searchParams),
    );
    expect([...pushed.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const { listed, tokens } = await signInAndAllow({ ...request, url: pushed });
    expect(listed).toEqual(['memory:read', 'memory:write']);
    expect(decodeJwt(tokens.access_token).scope).toBe('memory:read memory:write');
  });

  test('an operator’s client: memory:read memory:write', async () => {
    const app = await server.client({
      type: 'public',
      grants: ['authorization_code'],
      redirectUris: [CALLBACK],
    });
    const { listed, tokens } = await signInAndAllow(await authorizationRequest(app.id));
    expect(listed).toEqual(['memory:read', 'memory:write']);
    expect(decodeJwt(tokens.access_token).scope).toBe('memory:read memory:write');
  });

  test('the studio: every platform scope, without a consent page', async () => {
    const studioCallback = `${server.url}/studio/callback`;
    const ada = await server.person({ orgId });
    const request = await authorizationRequest('mnemo-studio', {}, studioCallback);
    const browser = new Browser();
    const toCallback = (url: string) => url.startsWith(studioCallback);
    const signIn = await browser.open(request.url.href, { stopAt: toCallback });
    const done = await browser.submit(
      signIn,
      { email: ada.email, password: ada.password },
      { stopAt: toCallback },
    );
    expect(done.status).toBe(303);
    const tokens = await oidc.authorizationCodeGrant(request.config, new URL(done.url), {
      pkceCodeVerifier: request.codeVerifier,
      expectedState: request.state,
    });
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      sub: ada.id,
      client_id: 'mnemo-studio',
      scope: 'memory:read memory:write keys usage admin',
    });
    expect(tokens.id_token).toBeUndefined();
  });

  test('the CLI’s device flow: every platform scope', async () => {
    const ada = await server.person({ orgId });
    const config = await server.discover('mnemo-cli');
    const started = await oidc.initiateDeviceAuthorization(config, {});
    const browser = new Browser();
    const entry = await browser.open(started.verification_uri);
    const confirm = await browser.submit(entry, { user_code: started.user_code });
    const signIn = await browser.submit(confirm, {}, { actionIncludes: '/device' });
    const done = await browser.submit(signIn, { email: ada.email, password: ada.password });
    expect(done.status).toBe(200);
    const tokens = await oidc.pollDeviceAuthorizationGrant(config, started);
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      sub: ada.id,
      client_id: 'mnemo-cli',
      scope: 'memory:read memory:write keys usage admin',
    });
  });
});

describe('without a usable scope, the request fails as invalid_scope before any page', () => {
  /** The redirect's parameters, once asserted to be the first answer, to the client. */
  async function refusedAtOnce(url: URL) {
    const response = await firstAnswer(url);
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    return Object.fromEntries(location.searchParams);
  }

  test('a default the requested resource takes none of', async () => {
    const clientId = await register('keys');
    const mcp = `${server.url}/mcp`;
    const { url, state } = await authorizationRequest(clientId, { resource: mcp });
    expect(await refusedAtOnce(url)).toEqual({
      error: 'invalid_scope',
      error_description: `scope is missing, and the client's default scope (keys) grants nothing at ${mcp}: ask for a scope`,
      scope: 'keys',
      state,
      iss: server.issuer,
    });
  });

  test('a default of OpenID’s scopes alone: an OpenID request names its scope', async () => {
    const clientId = await register('openid email profile');
    const { url, state } = await authorizationRequest(clientId);
    expect(await refusedAtOnce(url)).toEqual({
      error: 'invalid_scope',
      error_description: `scope is missing, and the client's default scope (openid email profile) grants nothing at ${server.url}/api: ask for a scope`,
      scope: 'openid email profile',
      state,
      iss: server.issuer,
    });
  });

  test('a scope that names nothing this server knows', async () => {
    const clientId = await register();
    const { url, state } = await authorizationRequest(clientId, { scope: 'calendar contacts' });
    expect(await refusedAtOnce(url)).toEqual({
      error: 'invalid_scope',
      error_description:
        'none of the scopes asked for is one this server knows (discovery lists them in scopes_supported)',
      scope: 'calendar contacts',
      state,
      iss: server.issuer,
    });
  });

  test('a redirect URI the client did not register: the error page, never a redirect', async () => {
    const clientId = await register('keys');
    const { url } = await authorizationRequest(
      clientId,
      { resource: `${server.url}/mcp` },
      'https://evil.example/callback',
    );
    const response = await firstAnswer(url);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('redirect_uri did not match any of the client');
  });
});
