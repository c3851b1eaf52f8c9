import { expect, test } from 'vitest';
import type { Studio } from '../app/studio-context.tsx';
import type { Session } from '../auth/session.ts';
import { PLAYGROUND_KEY_NAME } from '../keys/key-lifetime.ts';
import { createTemporaryKey, type KeyStore, playgroundKey } from './temporary-key.ts';

/**
 * The key's life over time and across reloads, with the clock and the tab's storage in the
 * test's hands; the browser tests (studio/e2e/playground.test.ts) cover the same key against a
 * real mnemo.
 */

const ok = (body: unknown, status = 200) =>
  Promise.resolve({ data: body, response: new Response(JSON.stringify(body), { status }) });

/** A tab's `sessionStorage`, as a reload finds it. */
function tabStorage(): KeyStore & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (name) => items.get(name) ?? null,
    setItem: (name, value) => void items.set(name, value),
    removeItem: (name) => void items.delete(name),
  };
}

interface Made {
  name: string;
  expiresAt: string;
  orgId: string;
}

/** The platform API as the key uses it, shared by every page load of a test. */
function fakeApi() {
  const made: Made[] = [];
  const revoked: { id: string; orgId: string }[] = [];
  const api = {
    POST: (
      _path: string,
      options: {
        params: { header: { 'x-organization-id': string } };
        body: { name: string; expiresAt: string };
      },
    ) => {
      made.push({ ...options.body, orgId: options.params.header['x-organization-id'] });
      const n = made.length;
      return ok({ key: { id: `key-${n}` }, secret: `mnemo_sk_secret${n}` }, 201);
    },
    DELETE: (
      _path: string,
      options: { params: { header: { 'x-organization-id': string }; path: { id: string } } },
    ) => {
      revoked.push({
        id: options.params.path.id,
        orgId: options.params.header['x-organization-id'],
      });
      return ok({ ok: true });
    },
  };
  /** A page load's studio: who is signed in, in which organization. */
  const studio = (sub = 'ada', orgId = 'org-1') =>
    ({
      api,
      org: { id: orgId, name: 'Acme', role: 'member' },
      me: { sub, email: `${sub}@example.test`, organizations: [] },
    }) as unknown as Pick<Studio, 'api' | 'org' | 'me'>;
  return { studio, made, revoked };
}

test('one key for every call until it nears its end, then a new one, the old one revoked', async () => {
  const { studio, made, revoked } = fakeApi();
  let now = Date.parse('2026-11-22T09:00:00Z');
  const key = createTemporaryKey(studio(), { storage: tabStorage(), now: () => now });

  const [a, b] = await Promise.all([key.secret(), key.secret()]);
  expect(a).toBe('mnemo_sk_secret1');
  expect(b).toBe(a);
  expect(made).toEqual([
    { name: PLAYGROUND_KEY_NAME, expiresAt: '2026-11-22T09:55:00.000Z', orgId: 'org-1' },
  ]);

  now += 49 * 60_000;
  expect(await key.secret()).toBe('mnemo_sk_secret1');
  now += 2 * 60_000;
  expect(await key.secret()).toBe('mnemo_sk_secret2');
  expect(revoked.map((r) => r.id)).toEqual(['key-1']);

  await key.revoke();
  expect(revoked.map((r) => r.id)).toEqual(['key-1', 'key-2']);
  // Revoked, it is made again on the next need.
  expect(await key.secret()).toBe('mnemo_sk_secret3');
  await key.revoke();
});

test('a reload of the tab finds its key and uses it: no second key', async () => {
  const { studio, made, revoked } = fakeApi();
  const storage = tabStorage();
  const first = createTemporaryKey(studio(), { storage });
  expect(await first.secret()).toBe('mnemo_sk_secret1');

  const reloaded = createTemporaryKey(studio(), { storage });
  expect(await reloaded.secret()).toBe('mnemo_sk_secret1');
  expect(made).toHaveLength(1);
  expect(revoked).toEqual([]);

  // Refused by /v1 (revoked on the Keys page, say): one new key, kept in its place.
  reloaded.refused('mnemo_sk_secret1');
  expect(await reloaded.secret()).toBe('mnemo_sk_secret2');
  expect(await createTemporaryKey(studio(), { storage }).secret()).toBe('mnemo_sk_secret2');
  expect(made).toHaveLength(2);
  // Nothing left to revoke of the refused one.
  expect(revoked).toEqual([]);

  // Revoked, it leaves nothing behind for the next page load.
  await reloaded.revoke();
  expect(storage.items.size).toBe(0);
  expect(await createTemporaryKey(studio(), { storage }).secret()).toBe('mnemo_sk_secret3');
});

test('a key kept for another person is never used; one of another organization is revoked there', async () => {
  const { studio, made, revoked } = fakeApi();
  const storage = tabStorage();
  await createTemporaryKey(studio('ada', 'org-1'), { storage }).secret();

  // Someone else signs in in the same tab: their own key; Ada's is not theirs to revoke.
  expect(await createTemporaryKey(studio('grace', 'org-1'), { storage }).secret()).toBe(
    'mnemo_sk_secret2',
  );
  expect(revoked).toEqual([]);

  // Grace in another organization: a key there, and hers in the first one goes.
  expect(await createTemporaryKey(studio('grace', 'org-2'), { storage }).secret()).toBe(
    'mnemo_sk_secret3',
  );
  expect(made.map((m) => m.orgId)).toEqual(['org-1', 'org-1', 'org-2']);
  expect(revoked).toEqual([{ id: 'key-2', orgId: 'org-1' }]);

  // What is not a key is dropped.
  storage.items.set('mnemo.studio.playground-key', '{"id": 7}');
  expect(await createTemporaryKey(studio('grace', 'org-2'), { storage }).secret()).toBe(
    'mnemo_sk_secret4',
  );
});

test('the page has one key per page load and organization, revoked at sign-out', async () => {
  const { studio, revoked } = fakeApi();
  const cleanups: (() => Promise<void>)[] = [];
  const session = {
    onSignOut: (cleanup: () => Promise<void>) => {
      cleanups.push(cleanup);
      return () => {};
    },
  } as unknown as Session;
  const tab = (orgId: string) => ({ ...studio('ada', orgId), session });
  const storage = tabStorage();
  globalThis.sessionStorage = storage as unknown as Storage;
  try {
    const key = playgroundKey(tab('org-1'));
    expect(playgroundKey(tab('org-1'))).toBe(key);
    await key.secret();

    // Another organization: another key, and the first one's goes.
    const other = playgroundKey(tab('org-2'));
    expect(other).not.toBe(key);
    await other.secret();
    await expect.poll(() => revoked).toEqual([{ id: 'key-1', orgId: 'org-1' }]);

    expect(cleanups).toHaveLength(1);
    await cleanups[0]?.();
    expect(revoked).toEqual([
      { id: 'key-1', orgId: 'org-1' },
      { id: 'key-2', orgId: 'org-2' },
    ]);
    expect(storage.items.size).toBe(0);
  } finally {
    Reflect.deleteProperty(globalThis, 'sessionStorage');
  }
});
