/**
 * `mnemo admin keys rotate`: the new key signs from the next few seconds on; the old one stays
 * published and trusted until the last token it signed expired, then is trusted no more.
 * Tokens live 4 s here and clocks are taken as exact, so the whole life of a key fits a test.
 */
import { decodeJwt, decodeProtectedHeader, importJWK, type JWK, SignJWT } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { rotateSigningKey } from '../credentials/signing-keys.ts';
import { type OAuthServer, startOAuthServer } from '../testing/oauth-server.ts';

let server: OAuthServer;
let orgId: string;

beforeAll(async () => {
  server = await startOAuthServer({
    MNEMO_ACCESS_TOKEN_TTL_SECONDS: '4',
    MNEMO_AUTH_CLOCK_TOLERANCE_SECONDS: '0',
  });
  orgId = await server.t.fixtures.org();
});
afterAll(() => server.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const list = (token: string) =>
  fetch(`${server.url}/api/v1/memory`, {
    headers: { authorization: `Bearer ${token}`, 'x-organization-id': orgId },
  });

const published = async () =>
  (
    (await (await fetch(`${server.issuer}/jwks`)).json()) as { keys: Array<{ kid: string }> }
  ).keys.map((k) => k.kid);

async function until<T>(what: string, probe: () => Promise<T | undefined>, withinMs: number) {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await sleep(250);
  }
}

test('a rotated-out key works until its tokens expired, and then no more', async () => {
  const service = await server.person({ orgId });
  const app = await server.client({
    type: 'confidential',
    grants: ['client_credentials'],
    serviceUserId: service.id,
  });
  const config = await server.discover(app.id, client.ClientSecretBasic(app.secret));
  const token = async () =>
    (await client.clientCredentialsGrant(config, { scope: 'memory:read' })).access_token;

  const old = await token();
  const oldKid = decodeProtectedHeader(old).kid as string;
  const row = await server.t.database.db
    .selectFrom('signing_keys')
    .select('private_jwk')
    .where('kid', '=', oldKid)
    .executeTakeFirstOrThrow();
  const oldPrivate = await importJWK(JSON.parse(row.private_jwk) as JWK, 'RS256');
  /** What only the holder of the old private key could make: a token that outlives the rest. */
  const forged = () =>
    new SignJWT({ scope: 'memory:read' })
      .setProtectedHeader({ alg: 'RS256', kid: oldKid, typ: 'at+jwt' })
      .setIssuer(server.issuer)
      .setAudience(`${server.url}/api`)
      .setSubject(service.id)
      .setIssuedAt()
      .setExpirationTime('1 min')
      .sign(oldPrivate);

  const newKid = await rotateSigningKey(server.t.database.db);
  expect(newKid).not.toBe(oldKid);

  // At once: both published, the old token and the old key still good.
  expect(await published()).toEqual([newKid, oldKid]);
  expect((await list(old)).status).toBe(200);
  expect((await list(await forged())).status).toBe(200);

  // Within the check interval the server signs with the new key; the memory API takes it.
  const fresh = await until(
    'the new key signs',
    async () => {
      const candidate = await token();
      return decodeProtectedHeader(candidate).kid === newKid ? candidate : undefined;
    },
    10_000,
  );
  expect((await list(fresh)).status).toBe(200);

  // The old token expires on its own terms…
  await sleep(Math.max(0, (decodeJwt(old).exp as number) * 1000 - Date.now() + 50));
  const expired = await list(old);
  expect(expired.status).toBe(401);
  expect(await expired.json()).toEqual({ error: 'credential has expired' });

  // …and once every token the old key signed has expired, the key is gone from the JWKS and
  // trusted no more, even for a token it could still sign.
  await until(
    'the old key is unpublished',
    async () => ((await published()).includes(oldKid) ? undefined : true),
    20_000,
  );
  expect(await published()).toEqual([newKid]);
  const refused = await list(await forged());
  expect(refused.status).toBe(401);
  expect(await refused.json()).toEqual({
    error: 'invalid credential: signed with a key this server does not know',
  });
  expect((await list(await token())).status).toBe(200);
}, 60_000);
