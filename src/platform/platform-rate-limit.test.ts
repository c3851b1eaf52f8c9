/**
 * One rate limit for the whole platform: the memory API and the platform API count against the
 * same budget per credential subject, and answer 429 the same way.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({ MNEMO_RATE_LIMIT_PER_MINUTE: '4' });
});
afterAll(() => t.close());

test('the memory API and the platform API share one budget per subject', async () => {
  const orgId = await t.fixtures.org();
  const ada = await t.fixtures.user(orgId, 'owner');
  const who = { token: ada.token, orgId };
  const paths = [
    '/api/v1/memory',
    '/api/v1/me',
    '/api/v1/api-keys',
    `/api/v1/orgs/${orgId}/members`,
    '/api/v1/usage',
  ];
  const answers = [];
  for (const url of paths) answers.push(await t.request(who, { method: 'GET', url }));
  expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 429]);
  for (const [i, answer] of answers.slice(0, 4).entries()) {
    expect(answer.headers.ratelimit).toMatch(new RegExp(`^"credential";r=${3 - i};t=\\d+$`));
  }
  const refused = answers[4];
  expect(refused?.json()).toEqual({
    error: expect.stringMatching(/^rate limit exceeded: retry in \d+ s$/),
  });
  expect(Number(refused?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(refused?.headers['cache-control']).toBe('no-store');
});
