/**
 * The rate limits of docs/design.md §3 through HTTP: per credential subject, with the IETF draft's
 * fields on every answer after the credential check, and failed authentication limited per
 * client address.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';

const BASE = '/api/v1/memory';
const apps: TestApp[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function limitedApp(env: Record<string, string>) {
  const t = await buildTestApp(env);
  apps.push(t);
  const orgId = await t.fixtures.org();
  const user = await t.fixtures.user(orgId);
  return { t, orgId, user, as: { orgId, token: user.token } };
}

function rateState(res: LightMyRequestResponse) {
  const match = /^"credential";r=(\d+);t=(\d+)$/.exec(String(res.headers.ratelimit));
  expect(match, `RateLimit of ${res.statusCode} ${res.body}`).not.toBeNull();
  return { remaining: Number(match?.[1]), reset: Number(match?.[2]) };
}

describe('the limit per credential subject', () => {
  test('every answer after the credential check carries the policy and the state, whatever its status', async () => {
    const { t, as } = await limitedApp({ MNEMO_RATE_LIMIT_PER_MINUTE: '10' });
    const other = await t.fixtures.org();
    const json = { 'content-type': 'application/json' };
    const answers = [
      await t.request(as, { method: 'GET', url: BASE }),
      await t.request(as, { method: 'POST', url: BASE, payload: { content: 'x' } }),
      await t.request(as, { method: 'POST', url: BASE, headers: json, payload: '{"content":' }),
      await t.request({ ...as, orgId: 'nope' }, { method: 'GET', url: BASE }),
      await t.request({ ...as, orgId: other }, { method: 'GET', url: BASE }),
      await t.request(as, { method: 'GET', url: `${BASE}/${randomUUID()}` }),
      await t.request(as, { method: 'GET', url: `${BASE}?since=nope` }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 201, 400, 400, 403, 404, 400]);
    for (const [i, res] of answers.entries()) {
      expect(res.headers['ratelimit-policy']).toBe('"credential";q=10;w=60');
      expect(rateState(res).remaining).toBe(9 - i);
      expect(rateState(res).reset).toBeGreaterThanOrEqual(1);
      expect(res.headers['retry-after']).toBeUndefined();
    }
  });

  test('over the limit: 429 with Retry-After, the state, {"error"} and no-store; nothing is done', async () => {
    const { t, as } = await limitedApp({ MNEMO_RATE_LIMIT_PER_MINUTE: '2' });
    for (let i = 0; i < 2; i++) {
      expect((await t.request(as, { method: 'GET', url: BASE })).statusCode).toBe(200);
    }
    const res = await t.request(as, { method: 'POST', url: BASE, payload: { content: 'lost' } });
    expect(res.statusCode).toBe(429);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ error: expect.stringMatching(/^rate limit exceeded/) });
    const retry = Number(res.headers['retry-after']);
    expect(Number.isInteger(retry) && retry >= 1 && retry <= 60).toBe(true);
    expect(res.headers['ratelimit-policy']).toBe('"credential";q=2;w=60');
    expect(rateState(res)).toEqual({ remaining: 0, reset: retry });
    // The refused add stored nothing (read from the store: another request would be refused).
    const count = await t.database.db
      .selectFrom('memories')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  test('MNEMO_RATE_LIMIT_PER_MINUTE=0 turns both limits off: no fields, no 429', async () => {
    const { t, as, orgId } = await limitedApp({
      MNEMO_RATE_LIMIT_PER_MINUTE: '0',
      MNEMO_FAILED_AUTH_PER_MINUTE: '1',
    });
    for (let i = 0; i < 150; i++) {
      const res = await t.request(as, { method: 'GET', url: BASE });
      expect(res.statusCode).toBe(200);
      expect(res.headers.ratelimit).toBeUndefined();
      expect(res.headers['ratelimit-policy']).toBeUndefined();
    }
    for (let i = 0; i < 5; i++) {
      const res = await t.request({ orgId, token: 'wrong' }, { method: 'GET', url: BASE });
      expect(res.statusCode).toBe(401);
    }
  });
});

describe('failed authentication per client address', () => {
  test('past the limit, failures from the address get 429; other addresses do not', async () => {
    const { t, as, orgId } = await limitedApp({
      MNEMO_RATE_LIMIT_PER_MINUTE: '60',
      MNEMO_FAILED_AUTH_PER_MINUTE: '3',
    });
    const from = (remoteAddress: string, token: string) =>
      t.app.inject({
        method: 'GET',
        url: BASE,
        remoteAddress,
        headers: { authorization: `Bearer ${token}`, 'x-organization-id': orgId },
      });
    // Successes do not count against the address.
    for (let i = 0; i < 5; i++) expect((await from('192.0.2.7', as.token)).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await from('192.0.2.7', 'guess')).statusCode).toBe(401);
    const refused = await from('192.0.2.7', 'guess');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: expect.stringMatching(
        /^rate limit exceeded: too many failed authentications from this address; retry in \d+ s$/,
      ),
    });
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['ratelimit-policy']).toBe('"failed-auth";q=3;w=60');
    expect(refused.headers['www-authenticate']).toBeUndefined();
    // Another address is judged on its own.
    expect((await from('198.51.100.1', 'guess')).statusCode).toBe(401);
    expect((await from('198.51.100.1', as.token)).statusCode).toBe(200);
  });

  test('behind one address (a NAT), a valid credential passes however many others failed', async () => {
    const { t, orgId } = await limitedApp({
      MNEMO_RATE_LIMIT_PER_MINUTE: '60',
      MNEMO_FAILED_AUTH_PER_MINUTE: '3',
    });
    const colleague = await t.fixtures.user(orgId);
    const from = (token: string) =>
      t.app.inject({
        method: 'GET',
        url: BASE,
        remoteAddress: '203.0.113.9',
        headers: { authorization: `Bearer ${token}`, 'x-organization-id': orgId },
      });
    // A broken client uses up the address's failures with a bad token, then an expired one.
    const expired = await t.fixtures.token(colleague.id, -120);
    const bad = `${colleague.token.slice(0, -4)}AAAA`;
    expect((await from(bad)).statusCode).toBe(401);
    expect((await from(expired)).statusCode).toBe(401);
    expect((await from('guess')).statusCode).toBe(401);
    expect((await from(bad)).statusCode).toBe(429);
    // A colleague's credential, never verified before (nothing cached), still gets in.
    const fresh = await from(colleague.token);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers.ratelimit).toMatch(/^"credential";r=59;t=\d+$/);
    // Failures from there still wait, whatever they are: malformed, expired, an API key.
    expect((await from('guess')).statusCode).toBe(429);
    expect((await from(expired)).statusCode).toBe(429);
    expect((await from(`mnemo_sk_${'A'.repeat(49)}`)).statusCode).toBe(429);
    // Valid credentials keep passing, without growing the wait.
    for (let i = 0; i < 3; i++) expect((await from(colleague.token)).statusCode).toBe(200);
  });

  describe('behind a load balancer', () => {
    const guess = async (t: TestApp, orgId: string, forwardedFor: string) =>
      (
        await t.app.inject({
          method: 'GET',
          url: BASE,
          remoteAddress: '10.0.0.5',
          headers: {
            authorization: 'Bearer guess',
            'x-organization-id': orgId,
            'x-forwarded-for': forwardedFor,
          },
        })
      ).statusCode;

    test('with MNEMO_TRUST_PROXY naming it, each client behind it has its own budget', async () => {
      const { t, orgId } = await limitedApp({
        MNEMO_RATE_LIMIT_PER_MINUTE: '60',
        MNEMO_FAILED_AUTH_PER_MINUTE: '2',
        MNEMO_TRUST_PROXY: '10.0.0.0/8',
      });
      expect([
        await guess(t, orgId, '192.0.2.7'),
        await guess(t, orgId, '192.0.2.7'),
        await guess(t, orgId, '192.0.2.7'),
      ]).toEqual([401, 401, 429]);
      expect(await guess(t, orgId, '198.51.100.1')).toBe(401);
      // A client cannot pick its own address: only the proxy's entry is believed.
      expect(await guess(t, orgId, '198.51.100.9, 192.0.2.7')).toBe(429);
    });

    test('without it, X-Forwarded-For is not believed: the peer address is the client', async () => {
      const { t, orgId } = await limitedApp({
        MNEMO_RATE_LIMIT_PER_MINUTE: '60',
        MNEMO_FAILED_AUTH_PER_MINUTE: '2',
      });
      expect([
        await guess(t, orgId, '192.0.2.7'),
        await guess(t, orgId, '198.51.100.1'),
        await guess(t, orgId, '203.0.113.3'),
      ]).toEqual([401, 401, 429]);
    });
  });
});
