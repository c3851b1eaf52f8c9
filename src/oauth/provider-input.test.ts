/**
 * The text rule at the authorization server, over a real port on the suite's engine: a NUL in
 * any parameter the provider reads (query or form body) is RFC 6749's `invalid_request` naming
 * the parameter, before anything is looked up, on SQLite and PostgreSQL alike (where it was a
 * 500 that anyone could cause without a credential); and the same at the sign-in form. A form
 * body read to be checked still reaches the provider whole.
 */
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Browser } from '../testing/browser.ts';
import { type OAuthServer, startOAuthServer } from '../testing/oauth-server.ts';

const NUL = 'must not contain NUL characters (U+0000)';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

let server: OAuthServer;

beforeAll(async () => {
  server = await startOAuthServer();
});
afterAll(() => server.close());

const records = async () =>
  (await server.t.database.db.selectFrom('oauth_records').select(['model', 'id']).execute()).map(
    (row) => ({ ...row }),
  );

const post = (path: string, body: string | Uint8Array) =>
  fetch(`${server.issuer}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });

async function expectInvalidRequest(response: Response, description: string) {
  expect(response.status).toBe(400);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await response.json()).toStrictEqual({
    error: 'invalid_request',
    error_description: description,
  });
}

describe('token, revocation and device endpoints (no credential needed)', () => {
  test('a NUL in a form parameter: 400 invalid_request naming it; nothing stored', async () => {
    const before = await records();
    const cases: ReadonlyArray<readonly [path: string, body: string, description: string]> = [
      [
        '/token',
        'grant_type=refresh_token&client_id=mnemo-cli&refresh_token=abc%00def',
        `refresh_token ${NUL}`,
      ],
      [
        '/token',
        `grant_type=${encodeURIComponent(DEVICE_GRANT)}&client_id=mnemo-cli&device_code=%00`,
        `device_code ${NUL}`,
      ],
      [
        '/token',
        'grant_type=authorization_code&client_id=mnemo-studio&code=a%00b&code_verifier=x',
        `code ${NUL}`,
      ],
      [
        '/token',
        'grant_type=refresh_token&client_id=mnemo-cli%00&refresh_token=abc',
        `client_id ${NUL}`,
      ],
      ['/token/revocation', 'client_id=mnemo-cli&token=a%00', `token ${NUL}`],
      ['/device/auth', 'client_id=mnemo-cli%00&scope=openid', `client_id ${NUL}`],
      ['/device', 'xsrf=x&user_code=%00', `user_code ${NUL}`],
    ];
    for (const [path, body, description] of cases) {
      await expectInvalidRequest(await post(path, body), description);
    }
    expect(await records()).toStrictEqual(before);
  });

  test('a raw NUL byte in the body, not percent-encoded: the same 400', async () => {
    const body = Buffer.concat([
      Buffer.from('grant_type=refresh_token&client_id=mnemo-cli&refresh_token=ab'),
      Buffer.from([0]),
      Buffer.from('cd'),
    ]);
    await expectInvalidRequest(await post('/token', body), `refresh_token ${NUL}`);
  });

  test('a form body read for the check still reaches the provider whole', async () => {
    // The provider answers this request itself: it read every parameter of the body.
    const unknown = await post(
      '/token',
      'grant_type=refresh_token&client_id=mnemo-cli&refresh_token=unknown-token',
    );
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toStrictEqual({
      error: 'invalid_grant',
      error_description: 'grant request is invalid',
    });
    const device = await post('/device/auth', 'client_id=mnemo-cli&scope=openid');
    expect(device.status).toBe(200);
    expect(await device.json()).toMatchObject({
      device_code: expect.any(String),
      user_code: expect.any(String),
    });
  });
});

describe('query parameters of the browser endpoints', () => {
  test('a NUL in the authorization, device or end-session query: 400 invalid_request', async () => {
    const before = await records();
    for (const [path, description] of [
      ['/auth?client_id=mnemo-studio%00&response_type=code&scope=openid', `client_id ${NUL}`],
      ['/auth?client_id=mnemo-studio&response_type=code&state=a%00b', `state ${NUL}`],
      ['/device?user_code=%00', `user_code ${NUL}`],
      ['/session/end?client_id=%00', `client_id ${NUL}`],
    ] as const) {
      const response = await fetch(`${server.issuer}${path}`, { redirect: 'manual' });
      await expectInvalidRequest(response, description);
    }
    expect(await records()).toStrictEqual(before);
  });
});

describe('the sign-in form', () => {
  test('an email with a NUL: a 400 page saying why; the same sign-in then goes on', async () => {
    const person = await server.person();
    const config = await server.discover('mnemo-studio');
    const redirectUri = `${server.url}/studio/callback`;
    const atCallback = (u: string) => u.startsWith(redirectUri);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const browser = new Browser();
    const signIn = await browser.open(url.href, { stopAt: atCallback });
    expect(signIn.status).toBe(200);

    const refused = await browser.submit(signIn, {
      email: `${person.email}\u0000`,
      password: person.password,
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(refused.html).toContain(`email ${NUL}`);

    const done = await browser.submit(
      signIn,
      { email: person.email, password: person.password },
      { stopAt: atCallback },
    );
    expect(done.url).toMatch(new RegExp(`^${redirectUri}\\?code=`));
  });
});
