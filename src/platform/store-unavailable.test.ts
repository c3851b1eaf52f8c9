/**
 * A store that does not answer in time is a 503 with `Retry-After`, not a 500, and what failed
 * is not half-applied; `/readyz` says whether the store answers, for load balancers. On both
 * engines: another connection holds the store's lock (PostgreSQL: the write waits past
 * MNEMO_DATABASE_STATEMENT_TIMEOUT_MS; SQLite: past busy_timeout, 5 s). Outages of the network
 * are in db/store-outage.postgres.test.ts.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { holdStoreLock } from '../testing/store-lock.ts';

const BASE = '/api/v1/memory';

interface ListBody {
  memories: Array<{ content: string }>;
  cursor: string;
}
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function testApp(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await buildTestApp({ MNEMO_DATABASE_STATEMENT_TIMEOUT_MS: '300', ...env });
  apps.push(t);
  return t;
}

function expectUnavailable(res: LightMyRequestResponse): void {
  const what = `${res.statusCode} ${res.body}`;
  expect(res.statusCode, what).toBe(503);
  expect(res.headers['retry-after'], what).toBe('2');
  expect(res.headers['cache-control'], what).toBe('no-store');
  expect(res.headers['content-type'], what).toMatch(/^application\/json/);
  expect(res.json(), what).toEqual({ error: 'the store is unavailable; retry shortly' });
}

describe('the store does not answer in time', () => {
  test('a write that waits past the timeout: 503 with Retry-After, and nothing of it applied', async () => {
    const t = await testApp();
    const orgId = await t.fixtures.org();
    const who = { orgId, token: (await t.fixtures.user(orgId)).token };
    const kept = await t.request(who, { method: 'POST', url: BASE, payload: { content: 'kept' } });
    expect(kept.statusCode).toBe(201);
    const before = (await t.request(who, { method: 'GET', url: BASE })).json() as ListBody;

    // PostgreSQL: the add locks the scope's row, reads, bumps the scope's version, then waits
    // to insert the memory. SQLite: its BEGIN IMMEDIATE waits for the file's lock.
    const lock = await holdStoreLock(t.store, 'memories');
    const started = Date.now();
    let failed: LightMyRequestResponse;
    try {
      failed = await t.request(who, { method: 'POST', url: BASE, payload: { content: 'lost' } });
    } finally {
      await lock.release();
    }
    const waited = Date.now() - started;
    expectUnavailable(failed);
    // 300 ms of statement timeout on PostgreSQL, 5 s of busy_timeout on SQLite.
    expect(waited).toBeLessThan(t.store.engine === 'postgres' ? 2000 : 8000);

    // Nothing of the failed add: the same list under the same cursor (the scope's version was
    // not bumped), nothing since that cursor, and the same content saved again is a new memory
    // (201), not a fold into a leftover (200).
    const after = (await t.request(who, { method: 'GET', url: BASE })).json() as ListBody;
    expect(after).toEqual(before);
    expect(after.memories.map((m) => m.content)).toEqual(['kept']);
    const since = await t.request(who, {
      method: 'GET',
      url: `${BASE}?since=${encodeURIComponent(before.cursor)}`,
    });
    expect(since.json()).toMatchObject({ memories: [], deleted: [] });
    const again = await t.request(who, { method: 'POST', url: BASE, payload: { content: 'lost' } });
    expect(again.statusCode).toBe(201);
  });
});

describe('GET /readyz', () => {
  test('200 {"ready": true} while the store answers: no credential, no rate limit, no-store', async () => {
    const t = await testApp({
      MNEMO_RATE_LIMIT_PER_MINUTE: '1',
      MNEMO_FAILED_AUTH_PER_MINUTE: '1',
    });
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers.ratelimit).toBeUndefined();
      expect(res.json()).toEqual({ ready: true });
    }
  });

  test('503 with Retry-After once the store is gone; /healthz, liveness only, still 200', async () => {
    const t = await buildTestApp();
    try {
      await t.database.close();
      expectUnavailable(await t.app.inject({ method: 'GET', url: '/readyz' }));
      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toEqual({ ok: true });
    } finally {
      await t.app.close();
      // The store is closed already.
      await t.close().catch(() => undefined);
    }
  });

  test('in /openapi.json beside /healthz, with its 200 and 503 answers', async () => {
    const t = await testApp();
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const readyz = doc.paths['/readyz'];
    expect(Object.keys(readyz ?? {})).toEqual(['get']);
    expect(Object.keys(readyz?.get?.responses ?? {}).sort()).toEqual(['200', '503']);
    expect(readyz?.get?.responses['503']).toMatchObject({
      headers: { 'retry-after': expect.any(Object) },
    });
    expect(doc.paths['/healthz']).toBeDefined();
  });
});
