/**
 * What mnemo adds around oidc-provider: the request as the provider sees it (public host and
 * scheme, whatever the request claims), cookies, security headers, JWKS and userinfo from the
 * store, the pages' failure paths, and several processes sharing one store.
 */
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Browser } from '../testing/browser.ts';
import { buildTestApp } from '../testing/build-test-app.ts';
import { type OAuthServer, startOAuthServer, startSecondProcess } from '../testing/oauth-server.ts';

let server: OAuthServer;
let orgId: string;

beforeAll(async () => {
  server = await startOAuthServer();
  orgId = await server.t.fixtures.org({ name: 'Acme' });
});
afterAll(() => server.close());

const discovery = (headers: Record<string, string> = {}) =>
  fetch(`${server.issuer}/.well-known/openid-configuration`, { headers });

describe('discovery', () => {
  test('names every endpoint under the issuer, and the grants and PKCE method offered', async () => {
    const config = await server.discover('mnemo-studio');
    const metadata = config.serverMetadata();
    expect(metadata).toMatchObject({
      issuer: server.issuer,
      authorization_endpoint: `${server.issuer}/auth`,
      token_endpoint: `${server.issuer}/token`,
      jwks_uri: `${server.issuer}/jwks`,
      userinfo_endpoint: `${server.issuer}/me`,
      revocation_endpoint: `${server.issuer}/token/revocation`,
      device_authorization_endpoint: `${server.issuer}/device/auth`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    expect(metadata.grant_types_supported).toEqual(
      expect.arrayContaining([
        'authorization_code',
        'refresh_token',
        'client_credentials',
        'urn:ietf:params:oauth:grant-type:device_code',
      ]),
    );
  });

  test('scopes_supported lists the identity scopes and every platform scope', async () => {
    const response = await discovery();
    expect(response.status).toBe(200);
    const { scopes_supported } = (await response.json()) as { scopes_supported: string[] };
    expect(scopes_supported).toEqual([
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
  });

  test('a forged Host or X-Forwarded-Host cannot move the endpoints elsewhere', async () => {
    for (const headers of [
      { host: 'evil.example' },
      { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
      { forwarded: 'host=evil.example;proto=https' },
    ]) {
      const body = await (await discovery(headers)).text();
      expect(body).not.toContain('evil.example');
      expect(JSON.parse(body).token_endpoint).toBe(`${server.issuer}/token`);
    }
  });

  test('answers carry no-store and headers that keep the pages out of frames', async () => {
    const response = await discovery();
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});

describe('the /oauth page', () => {
  test('GET /oauth (and /oauth/) is a page: sign in through the studio, and where to go next', async () => {
    for (const path of ['/oauth', '/oauth/']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-security-policy')).toBe(
        "default-src 'none'; script-src 'report-sample'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
      );
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      const page = await response.text();
      expect(page).toContain('<title>Sign in · mnemo</title>');
      expect(page).toContain(
        `<a class="button" href="${server.url}/studio/">Sign in to the studio</a>`,
      );
      for (const link of [
        '/oauth/device',
        '/openapi.json',
        '/oauth/.well-known/openid-configuration',
      ]) {
        expect(page).toContain(`href="${server.url}${link}"`);
      }
    }
    const head = await fetch(`${server.url}/oauth`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    // Other methods are the provider's, which serves nothing there.
    const posted = await fetch(`${server.url}/oauth`, { method: 'POST' });
    expect(posted.status).toBe(404);
    expect(await posted.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('JWKS', () => {
  test('publishes the public half of the store’s key, nothing private', async () => {
    const response = await fetch(`${server.issuer}/jwks`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/jwk-set+json; charset=utf-8');
    const { keys } = (await response.json()) as { keys: Array<Record<string, string>> };
    const stored = await server.t.database.db.selectFrom('signing_keys').select('kid').execute();
    expect(keys.map((k) => k.kid)).toEqual(stored.map((k) => k.kid));
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    }
  });
});

describe('userinfo', () => {
  test('without a token or with a bad one: 401 invalid_token with a challenge', async () => {
    for (const authorization of [undefined, 'Bearer nope', 'Basic abc']) {
      const response = await fetch(`${server.issuer}/me`, {
        headers: authorization ? { authorization } : {},
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_token');
    }
  });

  test('POST answers as GET, whatever its body', async () => {
    const ada = await server.person({ orgId });
    const token = await server.t.fixtures.token(ada.id);
    const posted = await fetch(`${server.issuer}/me`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'ignored=1',
    });
    expect(posted.status).toBe(200);
    expect(((await posted.json()) as { sub: string }).sub).toBe(ada.id);
  });

  test('a platform credential of this issuer gets the user and all their organizations', async () => {
    const other = await server.t.fixtures.org({ name: 'Beta' });
    const ada = await server.person({ orgId, role: 'admin', name: 'Ada' });
    await server.t.fixtures.member(other, ada.id, 'member');
    const token = await server.t.fixtures.token(ada.id);
    const response = await fetch(`${server.issuer}/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      sub: ada.id,
      email: ada.email,
      name: 'Ada',
      organizations: [
        { id: orgId, name: 'Acme', role: 'admin' },
        { id: other, name: 'Beta', role: 'member' },
      ],
    });
  });
});

describe('the sign-in pages', () => {
  test('an interaction opened without its cookie (another browser) is refused on a page', async () => {
    const response = await fetch(`${server.issuer}/interaction/abc123`);
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('This sign-in has expired or was started in another browser.');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  test('a sign-in posted from another browser (no interaction cookie) changes nothing', async () => {
    const response = await fetch(`${server.issuer}/interaction/abc123/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40b.c&password=x',
    });
    expect(response.status).toBe(400);
  });

  test('cookies are HttpOnly and SameSite=Lax, without Secure on an http public URL', async () => {
    const browser = new Browser();
    const config = await server.discover('mnemo-studio');
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: `${server.url}/studio/callback`,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    await browser.open(url.href);
    expect(browser.setCookies.length).toBeGreaterThan(0);
    for (const line of browser.setCookies) {
      expect(line.toLowerCase()).toContain('httponly');
      expect(line.toLowerCase()).toContain('samesite=lax');
      expect(line.toLowerCase()).not.toContain('secure');
    }
  });

  test('behind TLS termination (an https public URL) every cookie is Secure', async () => {
    const t = await buildTestApp({ MNEMO_PUBLIC_URL: 'https://mnemo.example.test' });
    try {
      const challenge = await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier());
      const response = await t.app.inject({
        method: 'GET',
        url: `/oauth/auth?client_id=mnemo-studio&response_type=code&scope=openid&redirect_uri=${encodeURIComponent('https://mnemo.example.test/studio/callback')}&code_challenge=${challenge}&code_challenge_method=S256`,
      });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toMatch(
        /^https:\/\/mnemo\.example\.test\/oauth\/interaction\//,
      );
      const cookies = [response.headers['set-cookie'] ?? []].flat();
      expect(cookies.length).toBeGreaterThan(0);
      for (const line of cookies) expect(line.toLowerCase()).toContain('; secure');
    } finally {
      await t.close();
    }
  });
});

describe('a public URL with a path (a proxy that strips it in front)', () => {
  test('discovery, redirects, cookies and the pages’ forms all keep the path', async () => {
    const publicUrl = 'https://example.test/mnemo';
    const t = await buildTestApp({ MNEMO_PUBLIC_URL: publicUrl });
    try {
      const discovered = await t.app.inject({
        method: 'GET',
        url: '/oauth/.well-known/openid-configuration',
      });
      expect(discovered.json()).toMatchObject({
        issuer: `${publicUrl}/oauth`,
        authorization_endpoint: `${publicUrl}/oauth/auth`,
        token_endpoint: `${publicUrl}/oauth/token`,
        jwks_uri: `${publicUrl}/oauth/jwks`,
      });
      const challenge = await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier());
      const started = await t.app.inject({
        method: 'GET',
        url: `/oauth/auth?client_id=mnemo-studio&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(`${publicUrl}/studio/callback`)}&code_challenge=${challenge}&code_challenge_method=S256`,
      });
      const location = started.headers.location as string;
      expect(location).toMatch(/^https:\/\/example\.test\/mnemo\/oauth\/interaction\/[\w-]+$/);
      const cookies = [started.headers['set-cookie'] ?? []].flat();
      expect(cookies.some((c) => c.includes('path=/mnemo/oauth/interaction/'))).toBe(true);
      const page = await t.app.inject({
        method: 'GET',
        url: new URL(location).pathname.replace('/mnemo', ''),
        headers: { cookie: cookies.map((c) => c.split(';')[0]).join('; ') },
      });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`action="${location}/login"`);
    } finally {
      await t.close();
    }
  });
});

describe('several processes on one store', () => {
  test('a person signs in on one process, and the code is redeemed and refreshed on another', async () => {
    const second = await startSecondProcess(server);
    try {
      const ada = await server.person({ orgId });
      const config = await server.discover('mnemo-studio');
      // The relying party's calls land on the second process, as a load balancer may send them.
      const viaSecond: typeof fetch = (input, init) =>
        fetch(
          String(input instanceof Request ? input.url : input).replace(server.url, second.localUrl),
          init,
        );
      // @ts-expect-error openid-client's documented hook is a symbol-keyed property
      config[client.customFetch] = viaSecond;

      const codeVerifier = client.randomPKCECodeVerifier();
      const redirectUri = `${server.url}/studio/callback`;
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid memory:read',
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      });
      const browser = new Browser();
      const signIn = await browser.open(url.href);
      const done = await browser.submit(
        signIn,
        { email: ada.email, password: ada.password },
        { stopAt: (u) => u.startsWith(redirectUri) },
      );
      const tokens = await client.authorizationCodeGrant(config, new URL(done.url), {
        pkceCodeVerifier: codeVerifier,
        idTokenExpected: true,
      });
      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
      expect(refreshed.claims()?.sub).toBe(ada.id);
      const info = await client.fetchUserInfo(config, refreshed.access_token, ada.id);
      expect(info.sub).toBe(ada.id);
    } finally {
      await second.close();
    }
  });
});
