/**
 * The platform credential: RS256 JWTs only, from a trusted issuer, for this audience, not
 * expired (30 s of clock skew), with a subject; the built-in issuer's keys come from the store
 * (a key added later is picked up without restart), an outside issuer's from its JWKS URL.
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
import { builtInIssuer } from '../oauth/platform-credential.ts';
import { rotateSigningKey } from '../oauth/signing-keys.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';

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
    expect(await status(await storeToken({ alg }))).toBe(401);
  });

  test('alg none is refused', async () => {
    const { issuer, audience } = builtIn();
    const token = unsigned(
      { alg: 'none', kid: storeKid },
      { sub: userId, iss: issuer, aud: audience, exp: now() + 600 },
    );
    expect(await status(token)).toBe(401);
  });

  test('HS256 keyed with the public key (the classic confusion) is refused', async () => {
    const row = await t.database.db
      .selectFrom('signing_keys')
      .select('public_jwk')
      .where('kid', '=', storeKid)
      .executeTakeFirstOrThrow();
    const secret = new TextEncoder().encode(row.public_jwk);
    expect(await status(await storeToken({ alg: 'HS256', key: secret }))).toBe(401);
  });

  test('a foreign key under the store key id is refused', async () => {
    const foreign = await rsaKey(storeKid);
    expect(await status(await storeToken({ key: foreign.privateKey }))).toBe(401);
  });

  test.each<[string, Claims]>([
    ['another issuer', { iss: 'https://evil.example.test/oauth' }],
    ['another audience', { aud: 'https://other.example.test/api' }],
    ['no subject', { sub: undefined }],
    ['no expiry', { exp: undefined }],
    ['not valid yet (nbf beyond the skew)', { nbf: now() + 300 }],
  ])('%s: 401', async (_, claims) => {
    expect(await status(await storeToken({ claims }))).toBe(401);
  });

  test('expiry: 10 s ago is within the clock skew; 120 s ago is 401 credential has expired', async () => {
    expect(await status(await storeToken({ claims: { exp: now() - 10 } }))).toBe(200);
    const res = await t.app.inject({
      method: 'GET',
      url: BASE,
      headers: {
        authorization: `Bearer ${await storeToken({ claims: { exp: now() - 120 } })}`,
        'x-organization-id': orgId,
      },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'credential has expired' });
  });

  test('an unknown key id: 401; a key added to the store later: accepted on first use, without restart', async () => {
    expect(await status(await storeToken({ kid: 'no-such-kid' }))).toBe(401);
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

  test('its audience only: a token for the built-in audience is 401', async () => {
    expect(await status(await outsideToken({ aud: builtIn().audience }))).toBe(401);
  });

  test('a subject that is not a provisioned user: 401', async () => {
    expect(await status(await outsideToken({ sub: randomUUID() }))).toBe(401);
    expect(await status(await outsideToken({ sub: 'auth0|12345' }))).toBe(401);
  });

  test('its key cannot speak for the built-in issuer, nor the store key for it', async () => {
    expect(await status(await outsideToken({ iss: builtIn().issuer }))).toBe(401);
    const storeKey = (await importJWK(storePrivateJwk, 'RS256')) as JoseKey;
    expect(await status(await outsideToken({}, storeKey))).toBe(401);
  });

  test('a token signed by a key its JWKS does not publish: 401', async () => {
    const stranger = await rsaKey('outside-1');
    expect(await status(await outsideToken({}, stranger.privateKey))).toBe(401);
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
    expect(await status(await storeToken({ claims: { scope: ['memory:read'] } }))).toBe(401);
    expect(await status(await storeToken({ claims: { scope: 7 } }))).toBe(401);
  });
});
