/**
 * The mirror against the real server (the suite's engine): a property test of random writes by
 * other clients of the store between syncs, the copy equal to the server's list after each;
 * the change events; a cursor the server no longer serves (410 after tombstones are purged, a
 * foreign one) turned into a full pull; pulls of one mirror one at a time; a storage of one's
 * own; following until aborted, a 429's wait kept, and a refusal that ends it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { purgeTombstones } from '../../../src/memory/tombstone-retention.ts';
import { type OAuthServer, startOAuthServer } from '../../../src/testing/oauth-server.ts';
import {
  type AddResult,
  type Category,
  type MemoryItem,
  type MirrorChange,
  type MirrorStorage,
  Mnemo,
  MnemoError,
} from './index.ts';

const CATEGORIES: readonly Category[] = [
  'identity',
  'preference',
  'goal',
  'project',
  'relationship',
  'constraint',
];
const MONTH_AHEAD_MS = 31 * 24 * 3600 * 1000;

let server: OAuthServer;
let orgId: string;

beforeAll(async () => {
  server = await startOAuthServer();
  orgId = await server.t.fixtures.org();
});
afterAll(() => server?.close());

/** A client whose fetch records the paths of list requests (`since` or not). */
function client(token: string) {
  const pulls: string[] = [];
  const mnemo = new Mnemo({
    baseUrl: server.url,
    organizationId: orgId,
    auth: token,
    fetch: async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname === '/api/v1/memory' && (init?.method ?? 'GET') === 'GET') {
        pulls.push(url.searchParams.has('since') ? 'since' : 'full');
      }
      return fetch(input, init);
    },
  });
  return { mnemo, pulls };
}

/** The memory an add created (an add that folded fails the test). */
function created(result: AddResult): MemoryItem {
  if (!result.created) throw new Error(`folded into ${result.memory.id}`);
  return result.memory;
}

const byId = (items: readonly MemoryItem[]) => [...items].sort((a, b) => a.id.localeCompare(b.id));

/** The store as the server lists it, by id. */
async function serverList(mnemo: Mnemo, user?: string): Promise<MemoryItem[]> {
  return byId((await mnemo.memories.list(user === undefined ? {} : { user })).memories);
}

type Write =
  | { kind: 'add'; content: string; category: Category | null }
  | { kind: 'update'; pick: number; content: string | undefined; category: Category | null }
  | { kind: 'delete'; pick: number }
  | { kind: 'erase'; category: Category | undefined }
  | { kind: 'purge' };

// A few words, so that adds fold into memories of the store now and then.
const content = fc.constantFrom(
  'Likes tea',
  'likes TEA!',
  'Runs daily',
  'Lives in Oslo',
  'Owns a cat',
);
const category = fc.option(fc.constantFrom(...CATEGORIES), { nil: null });
const write: fc.Arbitrary<Write> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('add'), content, category }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('update'),
      pick: fc.nat(),
      content: fc.option(content, { nil: undefined }),
      category,
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete'), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('erase'),
      category: fc.option(fc.constantFrom(...CATEGORIES), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'purge' as const }) },
);

describe('the mirror equals the server', () => {
  test('after random writes by other clients of the store, one sync makes the copy equal to the list', async () => {
    const owner = await server.t.fixtures.user(orgId, 'owner');
    const ownerClient = new Mnemo({
      baseUrl: server.url,
      organizationId: orgId,
      auth: owner.token,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(write, { maxLength: 8 }), { minLength: 1, maxLength: 4 }),
        async (rounds) => {
          // A store of its own per run: the member's, written by a second device of theirs and
          // by an owner acting for them; mirrored by a third client.
          const member = await server.t.fixtures.user(orgId);
          const device = new Mnemo({
            baseUrl: server.url,
            organizationId: orgId,
            auth: await server.t.fixtures.token(member.id),
          });
          const mirror = client(member.token).mnemo.memories.mirror();
          await mirror.sync();
          for (const writes of rounds) {
            for (const [i, step] of writes.entries()) {
              await apply(
                step,
                i % 2 === 0 ? { mnemo: device } : { mnemo: ownerClient, user: member.id },
              );
            }
            await mirror.sync();
            expect(byId(await mirror.memories())).toEqual(await serverList(device));
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

/** One write by `mnemo`, for `user` when given; picks among the store's memories by index. */
async function apply(step: Write, by: { mnemo: Mnemo; user?: string }): Promise<void> {
  const { mnemo, user } = by;
  const acting = user === undefined ? {} : { user };
  if (step.kind === 'purge') {
    // Tombstones purged as a month from now: cursors from before any deletion get 410.
    await purgeTombstones(server.t.database, 30, Date.now() + MONTH_AHEAD_MS);
    return;
  }
  if (step.kind === 'add') {
    await mnemo.memories.add({ content: step.content, category: step.category, ...acting });
    return;
  }
  if (step.kind === 'erase') {
    await mnemo.memories.erase({
      ...acting,
      ...(step.category ? { category: step.category } : {}),
    });
    return;
  }
  const { memories } = await mnemo.memories.list(acting);
  const target = memories[step.pick % Math.max(1, memories.length)];
  if (target === undefined) return;
  if (step.kind === 'delete') {
    await mnemo.memories.delete(target.id, acting);
    return;
  }
  await mnemo.memories.update(
    target.id,
    { ...(step.content === undefined ? {} : { content: step.content }), category: step.category },
    acting,
  );
}

describe('pulls and their changes', () => {
  test('a full pull first, then what changed; listeners hear each change, and nothing when nothing changed', async () => {
    const member = await server.t.fixtures.user(orgId);
    const { mnemo, pulls } = client(member.token);
    const first = await mnemo.memories.add({ content: 'Prefers tea', category: 'preference' });
    const mirror = mnemo.memories.mirror();
    const heard: MirrorChange[] = [];
    const stop = mirror.onChange((change) => heard.push(change));

    const full = await mirror.sync();
    expect(full).toEqual({
      full: true,
      upserted: [first.memory],
      removed: [],
      cursor: expect.any(String),
    });
    expect(await mirror.get(first.memory.id)).toEqual(first.memory);

    const second = await mnemo.memories.add({ content: 'Walks to work', category: 'goal' });
    await mnemo.memories.delete(first.memory.id);
    const since = await mirror.sync();
    expect(since).toEqual({
      full: false,
      upserted: [second.memory],
      removed: [first.memory.id],
      cursor: expect.any(String),
    });
    expect(await mirror.memories()).toEqual([second.memory]);

    const idle = await mirror.sync();
    expect(idle).toEqual({ full: false, upserted: [], removed: [], cursor: since.cursor });
    expect(heard).toEqual([full, since]);
    expect(pulls).toEqual(['full', 'since', 'since']);

    stop();
    await mnemo.memories.add({ content: 'Reads at night' });
    await mirror.sync();
    expect(heard).toHaveLength(2);
  });

  test('a 410 (tombstones purged past the cursor) is a full pull in the same sync, naming what went', async () => {
    const member = await server.t.fixtures.user(orgId);
    const { mnemo, pulls } = client(member.token);
    const kept = await mnemo.memories.add({ content: 'Kept' });
    const gone = await mnemo.memories.add({ content: 'Gone' });
    const mirror = mnemo.memories.mirror();
    await mirror.sync();
    await mnemo.memories.delete(gone.memory.id);
    await purgeTombstones(server.t.database, 30, Date.now() + MONTH_AHEAD_MS);

    const change = await mirror.sync();
    expect(change).toEqual({
      full: true,
      upserted: [kept.memory],
      removed: [gone.memory.id],
      cursor: expect.any(String),
    });
    expect(await mirror.memories()).toEqual([kept.memory]);
    expect(pulls).toEqual(['full', 'since', 'full']);
  });

  test('a foreign cursor (a storage kept for another store) is a full pull of this one', async () => {
    const [a, b] = [await server.t.fixtures.user(orgId), await server.t.fixtures.user(orgId)];
    const ofA = client(a.token).mnemo;
    const ofB = client(b.token);
    await ofA.memories.add({ content: "A's memory" });
    const bMemory = await ofB.mnemo.memories.add({ content: "B's memory" });
    const storage = ofA.memories.mirror().storage;
    await ofA.memories.mirror({ storage }).sync();

    const change = await ofB.mnemo.memories.mirror({ storage }).sync();
    expect(change).toMatchObject({ full: true, upserted: [bMemory.memory] });
    expect(await storage.all()).toEqual([bMemory.memory]);
    expect(ofB.pulls).toEqual(['since', 'full']);
  });

  test('calls made while a pull runs wait for it and share one more pull, which sees their writes', async () => {
    const member = await server.t.fixtures.user(orgId);
    const { mnemo } = client(member.token);
    // The first pull's answer is held back after the server gave it, until the test lets it go.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let answered = () => {};
    const firstAnswer = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const pulls: string[] = [];
    const gated = new Mnemo({
      baseUrl: server.url,
      organizationId: orgId,
      auth: member.token,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        pulls.push(new URL(String(input)).searchParams.has('since') ? 'since' : 'full');
        if (pulls.length === 1) {
          answered();
          await held;
        }
        return response;
      },
    });
    const mirror = gated.memories.mirror();

    const running = mirror.sync();
    const waiting = mirror.sync();
    expect(mirror.sync()).toBe(waiting);
    await firstAnswer;
    const added = await mnemo.memories.add({
      content: 'Written after the first pull was answered',
    });
    release();

    expect((await running).upserted).toEqual([]);
    expect((await waiting).upserted).toEqual([added.memory]);
    expect(pulls).toEqual(['full', 'since']);
    expect(await mirror.get(added.memory.id)).toEqual(added.memory);
  });

  test('a storage of its own (asynchronous) keeps the copy and its cursor, and a new mirror goes on from it', async () => {
    const member = await server.t.fixtures.user(orgId);
    const { mnemo, pulls } = client(member.token);
    const saved = { items: new Map<string, MemoryItem>(), cursor: undefined as string | undefined };
    const later = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 1));
    const storage: MirrorStorage = {
      cursor: () => later(saved.cursor),
      get: (id) => later(saved.items.get(id)),
      all: () => later([...saved.items.values()]),
      apply: async (change) => {
        const items = change.full ? new Map() : new Map(saved.items);
        for (const id of change.removed) items.delete(id);
        for (const item of change.upserted) items.set(item.id, item);
        await later(undefined);
        Object.assign(saved, { items, cursor: change.cursor });
      },
    };
    const one = created(await mnemo.memories.add({ content: 'One' }));
    await mnemo.memories.mirror({ storage }).sync();
    const two = created(await mnemo.memories.add({ content: 'Two' }));

    const change = await mnemo.memories.mirror({ storage }).sync();
    expect(change).toMatchObject({ full: false, upserted: [two], removed: [] });
    expect(byId([...saved.items.values()])).toEqual(byId([one, two]));
    expect(pulls).toEqual(['full', 'since']);
  });
});

describe('following', () => {
  test('pulls again and again until its signal ends it', async () => {
    const member = await server.t.fixtures.user(orgId);
    const { mnemo } = client(member.token);
    const mirror = mnemo.memories.mirror();
    const controller = new AbortController();
    const seen = new Promise<MemoryItem>((resolve) =>
      mirror.onChange(({ upserted }) => upserted[0] && resolve(upserted[0])),
    );
    const following = mirror.follow({ intervalMs: 50, signal: controller.signal });
    const added = await mnemo.memories.add({ content: 'Seen while following' });
    expect(await seen).toEqual(added.memory);
    controller.abort();
    await expect(following).resolves.toBeUndefined();
  });

  test("after a 429 the next pull waits the refusal's Retry-After, not the shorter interval", async () => {
    const member = await server.t.fixtures.user(orgId);
    const pulls: number[] = [];
    const mnemo = new Mnemo({
      baseUrl: server.url,
      organizationId: orgId,
      auth: member.token,
      retry: { maxRetries: 0 },
      fetch: async (input, init) => {
        pulls.push(Date.now());
        if (pulls.length > 1) return fetch(input, init);
        return Response.json(
          { error: 'Too many requests' },
          { status: 429, headers: { 'retry-after': '1' } },
        );
      },
    });
    const mirror = mnemo.memories.mirror();
    const controller = new AbortController();
    const errors: unknown[] = [];
    const synced = new Promise<void>((resolve) => mirror.onChange(() => resolve()));
    const following = mirror.follow({
      intervalMs: 10,
      stream: false,
      signal: controller.signal,
      onError: (e) => errors.push(e),
    });
    await synced;
    controller.abort();
    await following;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ status: 429, retryAfter: 1 });
    const [refused = 0, next = 0] = pulls;
    expect(next - refused).toBeGreaterThanOrEqual(1000);
  });

  test('a refusal that asking again cannot change ends it with that error', async () => {
    const member = await server.t.fixtures.user(orgId);
    const stranger = await server.t.fixtures.user(await server.t.fixtures.org());
    const mirror = client(member.token).mnemo.memories.mirror({ user: stranger.id });
    const errors: unknown[] = [];
    const error = await mirror
      .follow({ intervalMs: 10, onError: (e) => errors.push(e) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MnemoError);
    expect(error).toMatchObject({
      status: 400,
      message: 'user is not a member of this organization',
    });
    expect(errors).toEqual([]);
  });
});
