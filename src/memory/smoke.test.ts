import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

test('add then list', async () => {
  const orgId = await t.fixtures.org();
  const alice = await t.fixtures.user(orgId);
  const who = { token: alice.token, orgId };
  const add = await t.request(who, {
    method: 'POST',
    url: '/api/v1/memory',
    payload: { content: 'hi' },
  });
  expect(add.statusCode).toBe(201);
  const list = await t.request(who, { method: 'GET', url: '/api/v1/memory' });
  expect(list.json().memories).toHaveLength(1);
});
