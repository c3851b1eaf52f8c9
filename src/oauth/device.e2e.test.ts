/**
 * The device authorization grant (RFC 8628), as the CLI uses it: openid-client starts it and
 * polls, while a person enters the code and signs in on the real pages in a browser.
 */
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Browser } from '../testing/browser.ts';
import { type OAuthServer, startOAuthServer } from '../testing/oauth-server.ts';

let server: OAuthServer;
let orgId: string;

beforeAll(async () => {
  server = await startOAuthServer();
  orgId = await server.t.fixtures.org({ name: 'Acme' });
});
afterAll(() => server.close());

describe('device flow', () => {
  test('the CLI client gets tokens once the person entered the code and signed in', async () => {
    const ada = await server.person({ orgId });
    const config = await server.discover('mnemo-cli');
    const started = await client.initiateDeviceAuthorization(config, {
      scope: 'openid memory:read memory:write',
    });
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri).toBe(`${server.issuer}/device`);

    const browser = new Browser();
    const entry = await browser.open(started.verification_uri);
    expect(entry.status).toBe(200);
    expect(entry.html).toContain('<label for="user_code"');
    const confirm = await browser.submit(entry, { user_code: started.user_code.toLowerCase() });
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain(started.user_code);
    const signIn = await browser.submit(confirm, {}, { actionIncludes: '/device' });
    expect(signIn.html).toContain('<h1>Sign in</h1>');
    const done = await browser.submit(signIn, { email: ada.email, password: ada.password });
    expect(done.status).toBe(200);
    expect(done.html).toContain('mnemo CLI');

    const tokens = await client.pollDeviceAuthorizationGrant(config, started);
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      sub: ada.id,
      client_id: 'mnemo-cli',
      scope: 'memory:read memory:write',
      org_ids: [orgId],
    });
    expect(tokens.refresh_token).toEqual(expect.any(String));
  });

  test('a wrong code is told on the page, labelled, and nothing is granted', async () => {
    const config = await server.discover('mnemo-cli');
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const browser = new Browser();
    const entry = await browser.open(started.verification_uri);
    const wrong = await browser.submit(entry, { user_code: 'BBBB-BBBB' });
    expect(wrong.status).toBe(200);
    expect(wrong.html).toContain('role="alert"');
    expect(wrong.html).toContain('That code is not known. Check it and try again.');
    expect(wrong.html).toContain('aria-invalid="true"');
    // The right code still works from the same page.
    const confirm = await browser.submit(wrong, { user_code: started.user_code });
    expect(confirm.html).toContain(started.user_code);
  });

  test('cancelled on the confirm page, the device is told access_denied', async () => {
    const config = await server.discover('mnemo-cli');
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const browser = new Browser();
    const entry = await browser.open(started.verification_uri_complete as string);
    // verification_uri_complete carries the code: the provider posts it on by itself, with
    // its one inline script, which the CSP allows by hash (a browser without scripts gets a
    // button). The person then only confirms or cancels.
    expect(entry.html).toContain('<noscript>');
    expect(entry.headers.get('content-security-policy')).toMatch(
      /script-src 'report-sample' 'sha256-[\w+/=]+';/,
    );
    const confirm = await browser.submit(entry, {});
    expect(confirm.html).toContain(started.user_code);
    const cancelled = await browser.submit(
      confirm,
      {},
      { button: { name: 'abort', value: 'yes' }, actionIncludes: '/device' },
    );
    expect(cancelled.status).toBe(200);
    let error: unknown;
    try {
      await client.pollDeviceAuthorizationGrant(config, started);
    } catch (e) {
      error = e;
    }
    expect((error as { error?: string }).error).toBe('access_denied');
  });
});
