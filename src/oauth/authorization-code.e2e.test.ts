/**
 * Authorization code with PKCE, end to end: openid-client (an independent, certified relying
 * party) against the running server, a person signing in through the real pages over HTTP.
 */
import { decodeJwt, decodeProtectedHeader } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Browser } from '../testing/browser.ts';
import { type OAuthServer, startOAuthServer } from '../testing/oauth-server.ts';

let server: OAuthServer;
let orgId: string;
const STUDIO = 'mnemo-studio';

beforeAll(async () => {
  server = await startOAuthServer();
  orgId = await server.t.fixtures.org({ name: 'Acme' });
});
afterAll(() => server.close());

async function authorize(
  config: client.Configuration,
  who: { email: string; password: string },
  params: Record<string, string> = {},
  redirectUri = `${server.url}/studio/callback`,
) {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email profile memory:read memory:write',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    ...params,
  });
  const browser = new Browser();
  const signIn = await browser.open(url.href, { stopAt: atCallback(redirectUri) });
  expect(signIn.status).toBe(200);
  expect(signIn.html).toContain('<h1>Sign in</h1>');
  const done = await browser.submit(
    signIn,
    { email: who.email, password: who.password },
    { stopAt: atCallback(redirectUri) },
  );
  return { browser, done, codeVerifier, state, redirectUri };
}

const atCallback = (redirectUri: string) => (u: string) => u.startsWith(redirectUri);

/** Signs in with the studio and exchanges the code: the tokens a person's studio holds. */
async function studioTokens(who: { email: string; password: string }, scope?: string) {
  const config = await server.discover(STUDIO);
  const { done, codeVerifier, state } = await authorize(config, who, scope ? { scope } : {});
  const tokens = await client.authorizationCodeGrant(config, new URL(done.url), {
    pkceCodeVerifier: codeVerifier,
    expectedState: state,
  });
  return { config, tokens };
}

const memory = (token: string, method?: string, body?: unknown) =>
  server.memory(token, orgId, method, body);

/** The studio's sign-in page, opened in a new browser, as a person following the app's link. */
async function openStudioSignIn(scope = 'openid') {
  const config = await server.discover(STUDIO);
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: `${server.url}/studio/callback`,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const browser = new Browser();
  return { browser, signIn: await browser.open(url.href) };
}

/** openid-client's error for an OAuth error response, as `{error, status}`. */
async function oauthError(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    const e = error as {
      error?: string;
      status?: number;
      cause?: Array<{ parameters?: { error?: string } }>;
    };
    // A 401 comes as a WWW-Authenticate challenge, which carries the error instead of the body.
    const error_ = e.error ?? e.cause?.[0]?.parameters?.error;
    return { error: error_, status: e.status };
  }
  throw new Error('expected the request to fail');
}

describe('authorization code + PKCE through the sign-in pages', () => {
  test('the studio signs a person in and its token works on the memory API', async () => {
    const ada = await server.person({ orgId, role: 'owner' });
    const config = await server.discover(STUDIO);
    const { done, codeVerifier, state } = await authorize(config, ada);
    expect(done.status).toBe(303);
    const tokens = await client.authorizationCodeGrant(config, new URL(done.url), {
      pkceCodeVerifier: codeVerifier,
      expectedState: state,
    });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(tokens.claims()?.sub).toBe(ada.id);

    const header = decodeProtectedHeader(tokens.access_token);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({
      iss: server.issuer,
      aud: `${server.url}/api`,
      sub: ada.id,
      client_id: STUDIO,
      scope: 'memory:read memory:write',
      org_ids: [orgId],
    });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(900);

    const added = await fetch(`${server.url}/api/v1/memory`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'x-organization-id': orgId,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ content: 'Prefers tea', category: 'preference' }),
    });
    expect(added.status).toBe(201);

    const info = await client.fetchUserInfo(config, tokens.access_token, ada.id);
    expect(info).toEqual({
      sub: ada.id,
      email: ada.email,
      name: 'Ada Lovelace',
      organizations: [{ id: orgId, name: 'Acme', role: 'owner' }],
    });
  });
});

describe('refresh tokens', () => {
  test('each refresh rotates the refresh token; a used one is refused and ends the grant', async () => {
    const ada = await server.person({ orgId });
    const { config, tokens } = await studioTokens(ada);
    const first = tokens.refresh_token as string;
    const second = await client.refreshTokenGrant(config, first);
    expect(second.refresh_token).toEqual(expect.any(String));
    expect(second.refresh_token).not.toBe(first);
    expect(decodeJwt(second.access_token)).toMatchObject({
      sub: ada.id,
      scope: 'memory:read memory:write',
    });
    expect((await memory(second.access_token)).status).toBe(200);

    // Reuse of a rotated token is a sign of theft: refused, and the grant it came from ends.
    expect(await oauthError(client.refreshTokenGrant(config, first))).toEqual({
      error: 'invalid_grant',
      status: 400,
    });
    expect(
      await oauthError(client.refreshTokenGrant(config, second.refresh_token as string)),
    ).toEqual({ error: 'invalid_grant', status: 400 });
  });

  test('a revoked refresh token no longer refreshes', async () => {
    const ada = await server.person({ orgId });
    const { config, tokens } = await studioTokens(ada);
    await client.tokenRevocation(config, tokens.refresh_token as string);
    expect(
      await oauthError(client.refreshTokenGrant(config, tokens.refresh_token as string)),
    ).toEqual({ error: 'invalid_grant', status: 400 });
  });
});

describe('scopes', () => {
  test('a token with only memory:read reads but cannot write', async () => {
    const ada = await server.person({ orgId });
    const { tokens } = await studioTokens(ada, 'openid memory:read');
    expect(decodeJwt(tokens.access_token).scope).toBe('memory:read');
    expect((await memory(tokens.access_token)).status).toBe(200);
    const refused = await memory(tokens.access_token, 'POST', { content: 'x' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer realm="mnemo", error="insufficient_scope", error_description="the credential lacks the memory:write scope", scope="memory:write"',
    );
    expect(await refused.json()).toEqual({ error: 'the credential lacks the memory:write scope' });
    // Nothing was written.
    const list = (await (await memory(tokens.access_token)).json()) as { memories: unknown[] };
    expect(list.memories).toEqual([]);
  });

  test('a token with no platform scope can do nothing on the memory API', async () => {
    const ada = await server.person({ orgId });
    const { tokens } = await studioTokens(ada, 'openid');
    expect(decodeJwt(tokens.access_token).scope).toBe('');
    expect((await memory(tokens.access_token)).status).toBe(403);
  });
});

describe('third-party clients', () => {
  const redirectUri = 'https://app.example.test/callback';

  test('ask for consent; allowed, the confidential client gets tokens with the scopes shown', async () => {
    const ada = await server.person({ orgId });
    const app = await server.client({
      type: 'confidential',
      grants: ['authorization_code', 'refresh_token'],
      redirectUris: [redirectUri],
    });
    const config = await server.discover(app.id, client.ClientSecretBasic(app.secret));
    const { browser, done, codeVerifier, state } = await authorize(config, ada, {}, redirectUri);
    expect(done.status).toBe(200);
    expect(done.html).toContain('Third Party App wants to access your mnemo account');
    for (const scope of ['memory:read', 'memory:write', 'email', 'profile']) {
      expect(done.html).toContain(`<code>${scope}</code>`);
    }
    const allowed = await browser.submit(
      done,
      {},
      {
        actionIncludes: '/consent',
        stopAt: atCallback(redirectUri),
      },
    );
    const tokens = await client.authorizationCodeGrant(config, new URL(allowed.url), {
      pkceCodeVerifier: codeVerifier,
      expectedState: state,
    });
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      sub: ada.id,
      client_id: app.id,
      scope: 'memory:read memory:write',
    });
  });

  test('denied, the client is told access_denied and gets no code', async () => {
    const ada = await server.person({ orgId });
    const app = await server.client({
      type: 'public',
      grants: ['authorization_code'],
      redirectUris: [redirectUri],
    });
    const config = await server.discover(app.id);
    const { browser, done, state } = await authorize(config, ada, {}, redirectUri);
    const denied = await browser.submit(
      done,
      {},
      {
        actionIncludes: '/abort',
        stopAt: atCallback(redirectUri),
      },
    );
    const params = new URL(denied.url).searchParams;
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe(state);
    expect(params.has('code')).toBe(false);
  });

  test('a wrong client secret is invalid_client', async () => {
    const app = await server.client({
      type: 'confidential',
      grants: ['client_credentials'],
      serviceUserId: (await server.person({ orgId })).id,
    });
    const config = await server.discover(app.id, client.ClientSecretBasic(`${app.secret}x`));
    expect(
      await oauthError(client.clientCredentialsGrant(config, { scope: 'memory:read' })),
    ).toEqual({
      error: 'invalid_client',
      status: 401,
    });
  });
});

describe('the authorization request is checked before anyone signs in', () => {
  const plain = (params: Record<string, string>) => {
    const url = new URL(`${server.issuer}/auth`);
    for (const [k, v] of Object.entries({
      client_id: STUDIO,
      response_type: 'code',
      scope: 'openid memory:read',
      redirect_uri: `${server.url}/studio/callback`,
      ...params,
    })) {
      url.searchParams.set(k, v);
    }
    return fetch(url, { redirect: 'manual' });
  };

  test('PKCE is required, with S256 only', async () => {
    const missing = await plain({});
    expect(missing.status).toBe(303);
    expect(
      new URL(missing.headers.get('location') as string).searchParams.get('error_description'),
    ).toBe('Authorization Server policy requires PKCE to be used for this request');
    const plainMethod = await plain({
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'plain',
    });
    expect(new URL(plainMethod.headers.get('location') as string).searchParams.get('error')).toBe(
      'invalid_request',
    );
  });

  test('a redirect URI that is not registered exactly is refused on a page, never redirected to', async () => {
    for (const redirect of [
      `${server.url}/studio/callback/`,
      `${server.url}/studio/callback?x=1`,
      'https://evil.example/callback',
    ]) {
      const response = await plain({
        redirect_uri: redirect,
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      });
      expect(response.status, redirect).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      const page = await response.text();
      expect(page).toContain('redirect_uri did not match any of the client');
      expect(page).not.toContain('<script');
    }
  });
});

describe('accounts', () => {
  test('a suspended person cannot sign in; their live token gets 403; their refresh fails', async () => {
    const ada = await server.person({ orgId });
    const { config, tokens } = await studioTokens(ada);
    await server.t.fixtures.status(ada.id, 'suspended');

    const refused = await memory(tokens.access_token);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: 'account is suspended' });
    const info = await fetch(`${server.issuer}/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(info.status).toBe(403);
    expect(
      await oauthError(client.refreshTokenGrant(config, tokens.refresh_token as string)),
    ).toEqual({ error: 'invalid_grant', status: 400 });

    const { browser, signIn } = await openStudioSignIn('openid memory:read');
    const page = await browser.submit(signIn, { email: ada.email, password: ada.password });
    expect(page.status).toBe(403);
    expect(page.html).toContain('This account is suspended.');
    expect(page.html).toContain('role="alert"');
  });

  test('a wrong password is refused without telling whether the email exists', async () => {
    const ada = await server.person({ orgId });
    const { browser, signIn } = await openStudioSignIn();
    const wrong = await browser.submit(signIn, { email: ada.email, password: 'nope' });
    const unknown = await browser.submit(signIn, {
      email: 'nobody@example.test',
      password: 'nope',
    });
    for (const page of [wrong, unknown]) {
      expect(page.status).toBe(401);
      expect(page.html).toContain('Wrong email or password.');
    }
    // The form is still usable: the right password signs in.
    const done = await browser.submit(
      wrong,
      { email: ada.email, password: ada.password },
      {
        stopAt: atCallback(`${server.url}/studio/callback`),
      },
    );
    expect(new URL(done.url).searchParams.get('code')).toEqual(expect.any(String));
  });

  test('failed sign-ins are throttled per account: after ten, even the right password waits', async () => {
    const ada = await server.person({ orgId });
    const { browser, signIn } = await openStudioSignIn();
    for (let i = 0; i < 10; i++) {
      const page = await browser.submit(signIn, {
        email: ada.email.toUpperCase(),
        password: `wrong ${i}`,
      });
      expect(page.status).toBe(401);
    }
    // The rolling window counts the previous window's failures in whole requests, so across a
    // window's edge one more attempt may pass; never two.
    let extra = 0;
    while (
      extra < 3 &&
      (await browser.submit(signIn, { email: ada.email, password: 'wrong' })).status === 401
    ) {
      extra++;
    }
    expect(extra).toBeLessThanOrEqual(1);
    const throttled = await browser.submit(signIn, { email: ada.email, password: ada.password });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(throttled.html).toMatch(/Too many failed sign-ins\. Try again in \d+ s\./);
  });
});
