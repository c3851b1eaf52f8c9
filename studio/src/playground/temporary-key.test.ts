import { afterEach, expect, test, vi } from 'vitest';
import type { Studio } from '../app/studio-context.tsx';
import { createTemporaryKey, TEMPORARY_KEY_NAME } from './temporary-key.ts';

/**
 * The key's life over time, with the clock in the test's hands; the browser tests
 * (studio/e2e/playground.test.ts) cover the same key against a real mnemo.
 */

const ok = (body: unknown, status = 200) =>
  Promise.resolve({ data: body, response: new Response(JSON.stringify(body), { status }) });

function fakeStudio() {
  const made: { name: string; expiresAt: string }[] = [];
  const revoked: string[] = [];
  const api = {
    POST: (_path: string, options: { body: { name: string; expiresAt: string } }) => {
      made.push(options.body);
      const n = made.length;
      return ok({ key: { id: `key-${n}` }, secret: `mnemo_sk_secret${n}` }, 201);
    },
    DELETE: (_path: string, options: { params: { path: { id: string } } }) => {
      revoked.push(options.params.path.id);
      return ok({ ok: true });
    },
  };
  const studio = {
    api,
    org: { id: 'org-1', name: 'Acme', role: 'member' },
    session: { accessToken: () => Promise.resolve('access-token') },
  } as unknown as Pick<Studio, 'api' | 'org' | 'session'>;
  return { studio, made, revoked };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

test('one key for every call until it nears its end, then a new one, the old one revoked', async () => {
  const { studio, made, revoked } = fakeStudio();
  let now = Date.parse('2026-11-22T09:00:00Z');
  const key = createTemporaryKey(studio, () => now);

  const [a, b] = await Promise.all([key.secret(), key.secret()]);
  expect(a).toBe('mnemo_sk_secret1');
  expect(b).toBe(a);
  expect(made).toEqual([{ name: TEMPORARY_KEY_NAME, expiresAt: '2026-11-22T09:55:00.000Z' }]);

  now += 49 * 60_000;
  expect(await key.secret()).toBe('mnemo_sk_secret1');
  now += 2 * 60_000;
  expect(await key.secret()).toBe('mnemo_sk_secret2');
  expect(revoked).toEqual(['key-1']);

  await key.revoke();
  expect(revoked).toEqual(['key-1', 'key-2']);
  // Revoked, it is made again on the next need.
  expect(await key.secret()).toBe('mnemo_sk_secret3');
  await key.revoke();
});

test('a key refused by /v1 is replaced; one being made when the page leaves is revoked too', async () => {
  const { studio, revoked } = fakeStudio();
  const key = createTemporaryKey(studio);
  const first = await key.secret();
  key.refused('mnemo_sk_other');
  expect(await key.secret()).toBe(first);
  key.refused(first);
  expect(await key.secret()).toBe('mnemo_sk_secret2');

  const pending = key.secret();
  await key.revoke();
  await pending;
  expect(revoked).toContain('key-2');
});

test('as the page goes away, the key is revoked by a request that outlives the page', async () => {
  const sent: { url: string; init: RequestInit }[] = [];
  vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
    sent.push({ url, init });
    return Promise.resolve(new Response('{"ok":true}'));
  });
  const { studio } = fakeStudio();
  const key = createTemporaryKey(studio);
  await key.secret();
  await Promise.resolve();
  key.revokeOnUnload();
  expect(sent).toEqual([
    {
      url: '/api/v1/api-keys/key-1',
      init: {
        method: 'DELETE',
        keepalive: true,
        headers: { authorization: 'Bearer access-token', 'x-organization-id': 'org-1' },
      },
    },
  ]);
  // Nothing is left to revoke twice.
  key.revokeOnUnload();
  expect(sent).toHaveLength(1);
});
