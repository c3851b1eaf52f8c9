/**
 * The composition root's one cross-cutting rule about the store: no answer leaves before the
 * commits it may show are on disk (Database.durable), and a store that cannot sync fails the
 * request instead of answering with what it could lose.
 */
import { afterEach, expect, test } from 'vitest';
import { DurabilityFailed } from './db/durability.ts';
import { buildTestApp, type TestApp } from './testing/build-test-app.ts';

const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

test('an answer waits until the store says every commit so far is durable', async () => {
  let gate: Promise<void> | undefined;
  let open = () => {};
  const t = await buildTestApp({}, { wrapDatabase: (db) => ({ ...db, durable: () => gate }) });
  apps.push(t);
  const orgId = await t.fixtures.org();
  const who = { orgId, token: (await t.fixtures.user(orgId)).token };

  gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let answered = false;
  const listed = t.request(who, { method: 'GET', url: '/api/v1/memory' }).then((res) => {
    answered = true;
    return res;
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(answered).toBe(false);
  open();
  expect((await listed).statusCode).toBe(200);
  gate = undefined;
  expect((await t.request(who, { method: 'GET', url: '/api/v1/memory' })).statusCode).toBe(200);
});

test('a store that cannot sync: 500 {"error"}, nothing else', async () => {
  let failed = false;
  const t = await buildTestApp(
    {},
    {
      wrapDatabase: (db) => ({
        ...db,
        durable: () => (failed ? Promise.reject(new DurabilityFailed('EIO')) : undefined),
      }),
    },
  );
  apps.push(t);
  const orgId = await t.fixtures.org();
  const who = { orgId, token: (await t.fixtures.user(orgId)).token };
  expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  failed = true;
  const res = await t.request(who, { method: 'GET', url: '/api/v1/memory' });
  expect(res.statusCode).toBe(500);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.json()).toEqual({ error: 'internal server error' });
  // Not ready either: a load balancer stops sending it requests it would fail.
  const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
  expect(ready.statusCode).toBe(503);
  expect(ready.headers['retry-after']).toBe('2');
  expect(ready.json()).toEqual({ error: 'the store is unavailable; retry shortly' });
});
