/**
 * A 429 with Retry-After, on a server with a low request rate: thrown at once when no retry is
 * allowed, a wait ended by an abort signal, and waited out, then answered.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type OAuthServer, startOAuthServer } from '../../../src/testing/oauth-server.ts';
import { Mnemo, MnemoError } from './index.ts';

const LIMIT = 30;
const MINUTE_MS = 60_000;

let server: OAuthServer;
let orgId: string;
let token: string;

beforeAll(async () => {
  server = await startOAuthServer({ MNEMO_RATE_LIMIT_PER_MINUTE: String(LIMIT) });
  orgId = await server.t.fixtures.org();
  token = (await server.t.fixtures.user(orgId)).token;
});
afterAll(() => server?.close());

test('a 429 is waited out as long as Retry-After says, then the call is answered', async () => {
  // The limit is a sliding window over the clock's minutes: spent a few seconds before a
  // minute's end, it frees a request a few seconds later rather than up to a minute later.
  const left = MINUTE_MS - (Date.now() % MINUTE_MS);
  await new Promise((resolve) => setTimeout(resolve, (left - 8_000 + MINUTE_MS) % MINUTE_MS));

  const statuses: number[] = [];
  const client = (retry: { maxRetries?: number }) =>
    new Mnemo({
      baseUrl: server.url,
      organizationId: orgId,
      auth: token,
      retry,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        statuses.push(response.status);
        return response;
      },
    });
  const spend = client({ maxRetries: 0 });
  for (let i = 0; i < LIMIT; i++) await spend.memories.list();

  const refused = await spend.memories.list().catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(MnemoError);
  const { status, retryAfter } = refused as MnemoError;
  expect(status).toBe(429);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(15);

  const controller = new AbortController();
  const abortedAt = Date.now();
  setTimeout(() => controller.abort(new Error('no longer needed')), 200);
  await expect(client({}).memories.list({}, { signal: controller.signal })).rejects.toThrow(
    'no longer needed',
  );
  expect(Date.now() - abortedAt).toBeLessThan(1_000);

  statuses.length = 0;
  const started = Date.now();
  const answered = await client({ maxRetries: 5 }).memories.add({ content: 'Waited its turn' });
  expect(answered.created).toBe(true);
  expect(statuses[0]).toBe(429);
  expect(statuses.at(-1)).toBe(201);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
}, 120_000);
