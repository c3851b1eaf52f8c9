/**
 * The platform credential: RS256 JWTs only, from a trusted issuer, for this audience, not
 * expired (30 s of clock skew), with a subject; the built-in issuer's keys come from the store
 * (a key added later is picked up without restart), an outside issuer's from its JWKS URL. Each
 * refusal is a 401 whose message says why, repeated in its RFC 6750 challenge.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey as JoseKey,
  type JWK,
  SignJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { API_KEY_PREFIX } from './api-key-secret.ts';
import { CREDENTIAL_MESSAGES as M } from './credential-refusals.ts';
import { builtInIssuer } from './platform-credential.ts';
import { rotateSigningKey } from './signing-keys.ts';

const BASE = '/api/v1/memory';
const now = () => Math.floor(Date.now() / 1000);

/** Claims to set or, with `undefined`, to leave out. */
type Claims = Record<string, unknown>;

/** A JWKS endpoint on loopback, as an outside issuer (Keycloak, Auth0, …) publishes one. */
async function startJwksServer(keys: JWK[]): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.url !== '/jwks') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/jwks`, server };
}

async function rsaKey(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { privateKey, jwk };
}

function unsigned(header: object, payload: object): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(payload)}.`;
}

const OUTSIDE = { issuer: 'https://id.example.test/realms/acme', audience: 'mnemo-api' };

let t: TestApp;
let jwks: { url: string; server: Server };
let outsideKey: Awaited<ReturnType<typeof rsaKey>>;
let orgId: string;
let userId: string;
let storeKid: string;
let storePrivateJwk: JWK;

beforeAll(async () => {
  outsideKey = await rsaKey('outside-1');
  jwks = await startJwksServer([outsideKey.jwk]);
  t = await buildTestApp({
    MNEMO_AUTH_ISSUER: OUTSIDE.issuer,
    MNEMO_AUTH_JWKS_URL: jwks.url,
    MNEMO_AUTH_AUDIENCE: OUTSIDE.audience,
  });
  orgId = await t.fixtures.org();
  userId = (await t.fixtures.user(orgId)).id;
  const row = await t.database.db.selectFrom('signing_keys').selectAll().executeTakeFirstOrThrow();
  storeKid = row.kid;
  storePrivateJwk = JSON.parse(row.private_jwk) as JWK;
});

afterAll(async () => {
  await t.close();
  jwks.server.close();
});

const builtIn = () => builtInIssuer(t.config.publicUrl);

/** A token like the built-in issuer's, with any claim or header changed. */
async function storeToken(
  options: { alg?: string; claims?: Claims; kid?: string; key?: JoseKey | Uint8Array } = {},
) {
  const alg = options.alg ?? 'RS256';
  const key = options.key ?? ((await importJWK(storePrivateJwk, alg)) as JoseKey);
  const { issuer, audience } = builtIn();
  return new SignJWT({
    sub: userId,
    iss: issuer,
    aud: audience,
    exp: now() + 600,
    ...options.claims,
  })
    .setProtectedHeader({ alg, kid: options.kid ?? storeKid })
    .sign(key);
}

async function outsideToken(claims: Claims = {}, key: JoseKey = outsideKey.privateKey) {
  return new SignJWT({
    sub: userId,
    iss: OUTSIDE.issuer,
    aud: OUTSIDE.audience,
    exp: now() + 600,
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid: 'outside-1' })
    .sign(key);
}

async function status(token: string, scheme = 'Bearer'): Promise<number> {
  const res = await t.app.inject({
    method: 'GET',
    url: BASE,
    headers: { authorization: `${scheme} ${token}`, 'x-organization-id': orgId },
  });
  expect(res.headers['cache-control']).toBe('no-store');
  if (res.statusCode === 401) expect(Object.keys(res.json())).toEqual(['error']);
  return res.statusCode;
}

/**
 * The 401 that `authorization` gets, as its message: `{"error"}` only, no-store, and the
 * challenge `invalid_token` with the same message as its description (RFC 6750 §3), neither
 * repeating the token.
 */
async function refused(authorization: string, app: TestApp = t): Promise<string> {
  const res = await app.app.inject({
    method: 'GET',
    url: BASE,
    headers: { authorization, 'x-organization-id': orgId },
  });
  const what = `${res.statusCode} ${res.body}`;
  expect(res.statusCode, what).toBe(401);
  expect(res.headers['cache-control'], what).toBe('no-store');
  const body = res.json() as { error: string };
  expect(Object.keys(body), what).toEqual(['error']);
  expect(res.headers['www-authenticate'], what).toBe(
    `Bearer realm="mnemo", error="invalid_token", error_description="${body.error}"`,
  );
  const token = authorization.slice(authorization.indexOf(' ') + 1);
  if (token.length > 16) {
    for (const part of token.split('.').filter((p) => p.length > 16)) {
      expect(res.body + String(res.headers['www-authenticate'])).not.toContain(part);
    }
  }
  return body.error;
}

const bearer = (token: string) => `Bearer ${token}`;

describe('the built-in issuer', () => {
  test('a token signed with the store key, for this audience: 200, whatever the case of Bearer', async () => {
    const token = await storeToken();
    expect(await status(token)).toBe(200);
    expect(await status(token, 'bearer')).toBe(200);
  });

  test.each([
    ['RS384', 'the same key'],
    ['RS512', 'the same key'],
    ['PS256', 'the same key'],
  ])('%s (%s) is refused: RS256 only', async (alg) => {
    expect(await refused(bearer(await storeToken({ alg })))).toBe(M.algorithm);
  });

  test('alg none is refused', async () => {
    const { issuer, audience } = builtIn();
    const token = unsigned(
      { alg: 'none', kid: storeKid },
      { sub: userId, iss: issuer, aud: audience, exp: now() + 600 },
    );
    expect(await refused(bearer(token))).toBe(M.algorithm);
  });

  test('HS256 keyed with the public key (the classic confusion) is refused', async () => {
    const row = await t.database.db
      .selectFrom('signing_keys')
      .select('public_jwk')
      .where('kid', '=', storeKid)
      .executeTakeFirstOrThrow();
    const secret = new TextEncoder().encode(row.public_jwk);
    expect(await refused(bearer(await storeToken({ alg: 'HS256', key: secret })))).toBe(
      M.algorithm,
    );
  });

  test('a foreign key under the store key id: the signature does not verify', async () => {
    const foreign = await rsaKey(storeKid);
    expect(await refused(bearer(await storeToken({ key: foreign.privateKey })))).toBe(M.signature);
    // Nor does a genuine token whose payload was changed.
    const [header, , signature] = (await storeToken()).split('.');
    const { issuer: iss, audience: aud } = builtIn();
    const payload = Buffer.from(
      JSON.stringify({ iss, aud, sub: randomUUID(), exp: now() + 600 }),
    ).toString('base64url');
    expect(await refused(bearer(`${header}.${payload}.${signature}`))).toBe(M.signature);
  });

  test.each<[string, Claims, () => string]>([
    [
      'another issuer',
      { iss: 'https://evil.example.test/oauth' },
      () => M.untrustedIssuer([builtIn().issuer, OUTSIDE.issuer]),
    ],
    ['no issuer', { iss: undefined }, () => M.claimMissing('iss')],
    [
      'another audience, named with the one this API takes',
      { aud: 'https://other.example.test/api' },
      () => M.wrongAudience(builtIn().audience),
    ],
    ['no audience', { aud: undefined }, () => M.wrongAudience(builtIn().audience)],
    ['no subject', { sub: undefined }, () => M.claimMissing('sub')],
    ['no expiry', { exp: undefined }, () => M.claimMissing('exp')],
    ['a subject that is not a string', { sub: 7 }, () => M.claimInvalid('sub')],
    ['not valid yet (nbf beyond the skew)', { nbf: now() + 300 }, () => M.notYetValid('nbf')],
    [
      'issued in the future (iat beyond the skew)',
      { iat: now() + 300 },
      () => M.notYetValid('iat'),
    ],
    ['an nbf that is not a number', { nbf: 'soon' }, () => M.claimInvalid('nbf')],
  ])('%s: 401 saying so', async (_, claims, message) => {
    expect(await refused(bearer(await storeToken({ claims })))).toBe(message());
  });

  test('nbf and iat within the clock skew are accepted', async () => {
    expect(await status(await storeToken({ claims: { nbf: now() + 10, iat: now() + 10 } }))).toBe(
      200,
    );
  });

  test.each([
    ['another scheme', 'Basic dXNlcjpwYXNz', M.notBearer],
    ['no scheme', 'just-a-token', M.notBearer],
    ['an empty bearer', 'Bearer ', M.notBearer],
    ['two tokens', 'Bearer a.b.c d.e.f', M.notBearer],
    ['not a JWT', 'Bearer garbage', M.notJwt],
    ['JWT-looking garbage', 'Bearer aaa.bbb.ccc', M.notJwt],
  ])('malformed (%s): 401 saying so', async (_, authorization, message) => {
    expect(await refused(authorization)).toBe(message);
  });

  test('no credential: 401 with the bare challenge, no error code (RFC 6750 §3.1)', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: BASE,
      headers: { 'x-organization-id': orgId },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="mnemo"');
    expect(res.json()).toEqual({ error: M.missing });
  });

  test('an API key: 401 telling that /api takes a platform credential, and where to get one', async () => {
    const key = `${API_KEY_PREFIX}${'A'.repeat(49)}`;
    const message = await refused(bearer(key));
    expect(message).toBe(M.apiKey(builtIn().issuer));
    expect(message).toBe(
      `an API key is not a platform credential: /api takes an OAuth access token from the authorization server at ${builtIn().issuer} (mnemo login gets one); API keys (mnemo_sk_...) are for the chat interface under /v1`,
    );
  });

  test('a verified credential of no known account: 401 saying so', async () => {
    expect(await refused(bearer(await t.fixtures.token(randomUUID())))).toBe(M.unknownAccount);
  });

  test('expiry: 10 s ago is within the clock skew; 120 s ago is 401 credential has expired', async () => {
    expect(await status(await storeToken({ claims: { exp: now() - 10 } }))).toBe(200);
    expect(await refused(bearer(await storeToken({ claims: { exp: now() - 120 } })))).toBe(
      'credential has expired',
    );
  });

  test('an unknown key id: 401; a key added to the store later: accepted on first use, without restart', async () => {
    expect(await refused(bearer(await storeToken({ kid: 'no-such-kid' })))).toBe(M.unknownKey);
    const kid = await rotateSigningKey(t.database.db);
    const row = await t.database.db
      .selectFrom('signing_keys')
      .select('private_jwk')
      .where('kid', '=', kid)
      .executeTakeFirstOrThrow();
    const key = (await importJWK(JSON.parse(row.private_jwk) as JWK, 'RS256')) as JoseKey;
    // Right after a miss: the new key is still found on its first use.
    expect(await status(await storeToken({ kid, key }))).toBe(200);
    // The older key keeps verifying.
    expect(await status(await storeToken())).toBe(200);
  });
});

describe('an outside issuer (MNEMO_AUTH_ISSUER, MNEMO_AUTH_JWKS_URL, MNEMO_AUTH_AUDIENCE)', () => {
  test('its RS256 token for a provisioned user: 200', async () => {
    expect(await status(await outsideToken())).toBe(200);
  });

  test('its audience only: a token for the built-in audience is 401 naming its own', async () => {
    expect(await refused(bearer(await outsideToken({ aud: builtIn().audience })))).toBe(
      M.wrongAudience(OUTSIDE.audience),
    );
  });

  test('a subject that is not a provisioned user: 401', async () => {
    expect(await refused(bearer(await outsideToken({ sub: randomUUID() })))).toBe(M.unknownAccount);
    expect(await refused(bearer(await outsideToken({ sub: 'auth0|12345' })))).toBe(
      M.unknownAccount,
    );
  });

  test('its key cannot speak for the built-in issuer, nor the store key for it', async () => {
    expect(await refused(bearer(await outsideToken({ iss: builtIn().issuer })))).toBe(M.unknownKey);
    const storeKey = (await importJWK(storePrivateJwk, 'RS256')) as JoseKey;
    expect(await refused(bearer(await outsideToken({}, storeKey)))).toBe(M.signature);
  });

  test('a token signed by a key its JWKS does not publish: 401', async () => {
    const stranger = await rsaKey('outside-1');
    expect(await refused(bearer(await outsideToken({}, stranger.privateKey)))).toBe(M.signature);
    const unpublished = await rsaKey('outside-2');
    const token = await new SignJWT({
      sub: userId,
      iss: OUTSIDE.issuer,
      aud: OUTSIDE.audience,
      exp: now() + 600,
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'outside-2' })
      .sign(unpublished.privateKey);
    expect(await refused(bearer(token))).toBe(M.unknownKey);
  });

  test('an audience outside RFC 6750 characters is made safe in the challenge, kept in the body', async () => {
    const audience = 'urn:mnemo "api" \\ é';
    const other = await buildTestApp(
      {
        MNEMO_AUTH_ISSUER: OUTSIDE.issuer,
        MNEMO_AUTH_JWKS_URL: jwks.url,
        MNEMO_AUTH_AUDIENCE: audience,
      },
      { sharedStore: t.store },
    );
    try {
      const res = await other.app.inject({
        method: 'GET',
        url: BASE,
        headers: { authorization: bearer(await outsideToken()), 'x-organization-id': orgId },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: M.wrongAudience(audience) });
      expect(res.headers['www-authenticate']).toBe(
        `Bearer realm="mnemo", error="invalid_token", error_description="invalid credential: not issued for this API; its aud must be urn:mnemo 'api' / ?"`,
      );
    } finally {
      await other.close();
    }
  });
});

describe('scopes (RFC 9068 `scope`)', () => {
  async function call(token: string, method: 'GET' | 'POST') {
    const res = await t.app.inject({
      method,
      url: BASE,
      headers: {
        authorization: `Bearer ${token}`,
        'x-organization-id': orgId,
        ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      },
      ...(method === 'POST' ? { payload: { content: 'scoped' } } : {}),
    });
    return { status: res.statusCode, body: res.json() as unknown };
  }

  test('no scope claim: everything, as the spec’s credential (mnemo token, outside issuers)', async () => {
    expect((await call(await storeToken(), 'GET')).status).toBe(200);
    expect((await call(await outsideToken(), 'GET')).status).toBe(200);
    const posted = await call(await t.fixtures.token(userId), 'POST');
    expect(posted.status).toBe(201);
  });

  test('memory:read reads and cannot write; memory:write writes and cannot read', async () => {
    const read = await storeToken({ claims: { scope: 'openid memory:read' } });
    expect((await call(read, 'GET')).status).toBe(200);
    expect(await call(read, 'POST')).toEqual({
      status: 403,
      body: { error: 'the credential lacks the memory:write scope' },
    });
    const write = await outsideToken({ scope: 'memory:write' });
    expect(await call(write, 'GET')).toEqual({
      status: 403,
      body: { error: 'the credential lacks the memory:read scope' },
    });
  });

  test('an empty scope reaches nothing; a scope that is not a string is an invalid credential', async () => {
    expect((await call(await storeToken({ claims: { scope: '' } }), 'GET')).status).toBe(403);
    expect(await refused(bearer(await storeToken({ claims: { scope: ['memory:read'] } })))).toBe(
      M.claimInvalid('scope'),
    );
    expect(await refused(bearer(await storeToken({ claims: { scope: 7 } })))).toBe(
      M.claimInvalid('scope'),
    );
  });

  test('a missing scope is 403 with its challenge naming it', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: BASE,
      headers: {
        authorization: bearer(await storeToken({ claims: { scope: 'memory:write' } })),
        'x-organization-id': orgId,
      },
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="mnemo", error="insufficient_scope", error_description="the credential lacks the memory:read scope", scope="memory:read"',
    );
  });
});

describe('the OpenAPI document', () => {
  test('every operation on the platform credential documents its 401 and the challenge', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    interface Response {
      readonly headers?: Record<
        string,
        { readonly schema?: unknown; readonly description?: string }
      >;
    }
    const document = res.json() as {
      paths: Record<
        string,
        Record<string, { security?: unknown; responses: Record<string, Response> }>
      >;
    };
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.security !== undefined)
        .map(([method, operation]) => ({ at: `${method} ${path}`, operation })),
    );
    expect(operations.length).toBeGreaterThan(20);
    for (const { at, operation } of operations) {
      const challenge = operation.responses['401']?.headers?.['www-authenticate'];
      expect(challenge?.schema, at).toEqual({ type: 'string' });
      expect(challenge?.description, at).toMatch(/^RFC 6750 challenge: Bearer realm="mnemo"/);
    }
  });
});
