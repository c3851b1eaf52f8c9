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
) {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const redirectUri = `${server.url}/studio/callback`;
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email profile memory:read memory:write',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    ...params,
  });
  const browser = new Browser();
  const atCallback = (u: string) => u.startsWith(redirectUri);
  const signIn = await browser.open(url.href, { stopAt: atCallback });
  expect(signIn.status).toBe(200);
  expect(signIn.html).toContain('<h1>Sign in</h1>');
  const done = await browser.submit(
    signIn,
    { email: who.email, password: who.password },
    { stopAt: atCallback },
  );
  return { browser, done, codeVerifier, state, redirectUri };
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
