import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { purgeTombstones } from './tombstone-retention.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

test('a cursor older than a purged tombstone answers 410; newer cursors go on working', async () => {
  const orgId = await t.fixtures.org();
  const who = { token: (await t.fixtures.user(orgId)).token, orgId };
  const post = (content: string) =>
    t.request(who, { method: 'POST', url: '/api/v1/memory', payload: { content } });
  const pull = (since: string) =>
    t.request(who, { method: 'GET', url: `/api/v1/memory?since=${encodeURIComponent(since)}` });

  const kept = (await post('kept')).json().memory;
  const gone = (await post('gone')).json().memory;
  const before = (await t.request(who, { method: 'GET', url: '/api/v1/memory' })).json().cursor;
  expect(
    (await t.request(who, { method: 'DELETE', url: `/api/v1/memory/${gone.id}` })).statusCode,
  ).toBe(200);
  const after = (await pull(before)).json();
  expect(after.deleted).toEqual([gone.id]);

  // Nothing is old enough yet: nothing is purged.
  expect(await purgeTombstones(t.database, 30)).toBe(0);
  expect((await pull(before)).statusCode).toBe(200);

  expect(await purgeTombstones(t.database, 30, Date.now() + 31 * 24 * 3600 * 1000)).toBe(1);
  const stale = await pull(before);
  expect(stale.statusCode).toBe(410);
  expect(stale.json()).toEqual({
    error: 'cursor can no longer be served: pull the full list again without since',
  });
  expect(stale.headers['cache-control']).toBe('no-store');

  const fresh = await pull(after.cursor);
  expect(fresh.statusCode).toBe(200);
  expect(fresh.json()).toEqual({ memories: [], deleted: [], cursor: after.cursor });
  const full = (await t.request(who, { method: 'GET', url: '/api/v1/memory' })).json();
  expect(full.memories.map((m: { id: string }) => m.id)).toEqual([kept.id]);
  // Deleting the purged id is now an unknown id.
  expect(
    (await t.request(who, { method: 'DELETE', url: `/api/v1/memory/${gone.id}` })).statusCode,
  ).toBe(404);
});
