/**
 * `/v1` when its key check cannot read the store: OpenAI's shape, 503, and what an SDK needs
 * to retry — `retry-after` (the same seconds as the rest of the service) and
 * `x-should-retry: true`. The read waits behind a lock another connection holds, past
 * MNEMO_DATABASE_STATEMENT_TIMEOUT_MS, as in platform/store-unavailable.test.ts.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { holdStoreLock } from '../testing/store-lock.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await buildTestApp({ MNEMO_DATABASE_STATEMENT_TIMEOUT_MS: '300' });
  const orgId = await t.fixtures.org();
  const owner = await t.fixtures.user(orgId, 'owner');
  const created = await t.request(
    { token: owner.token, orgId },
    { method: 'POST', url: '/api/v1/api-keys', payload: { name: 'outage' } },
  );
  expect(created.statusCode).toBe(201);
  key = (created.json() as { secret: string }).secret;
});
afterAll(() => t.close());

const models = () =>
  t.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer ${key}` } });

test('the key lookup cannot read the store: 503 with retry-after and x-should-retry: true', async () => {
  expect((await models()).statusCode).toBe(200);
  const lock = await holdStoreLock(t.store, 'api_keys', { blockReads: true });
  let res: Awaited<ReturnType<typeof models>>;
  try {
    res = await models();
  } finally {
    await lock.release();
  }
  expect(res.statusCode, res.body).toBe(503);
  expect(res.headers['retry-after']).toBe('2');
  expect(res.headers['x-should-retry']).toBe('true');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  expect(res.json()).toEqual({
    error: {
      message: 'the store is unavailable; retry shortly',
      type: 'api_error',
      param: null,
      code: 'service_unavailable',
    },
  });
  expect((await models()).statusCode).toBe(200);
});
