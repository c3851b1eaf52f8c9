/**
 * The change stream through the client, against the real server (the suite's engine): its
 * events typed, resumed from an event's cursor, a refusal thrown before the first event; and the
 * mirror following the stream — changes applied a batch at a time with no pull but the first,
 * equal to the server's list under random writes by others, ended by a refusal the stream sends.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type OAuthServer, startOAuthServer } from '../../../src/testing/oauth-server.ts';
import {
  type MemoryEvent,
  type MemoryItem,
  type MirrorChange,
  Mnemo,
  MnemoError,
} from './index.ts';

let server: OAuthServer;
let orgId: string;

beforeAll(async () => {
  server = await startOAuthServer();
  orgId = await server.t.fixtures.org();
});
afterAll(() => server?.close());

/** A client of `token` that counts its list requests (pulls). */
function client(token: string) {
  let pulls = 0;
  const mnemo = new Mnemo({
    baseUrl: server.url,
    organizationId: orgId,
    auth: token,
    fetch: async (input, init) => {
      const url = new URL(String(input));
      if (url.pathname === '/api/v1/memory' && (init?.method ?? 'GET') === 'GET') pulls += 1;
      return fetch(input, init);
    },
  });
  return { mnemo, pulls: () => pulls };
}

/** The memory an add created. */
async function added(mnemo: Mnemo, content: string, user?: string): Promise<MemoryItem> {
  const result = await mnemo.memories.add({ content, ...(user === undefined ? {} : { user }) });
  if (!result.created) throw new Error(`folded: ${content}`);
  return result.memory;
}

/** Events of `stream` until one of `type` (included). */
async function until(
  events: AsyncIterator<MemoryEvent>,
  type: MemoryEvent['type'],
): Promise<MemoryEvent[]> {
  const taken: MemoryEvent[] = [];
  for (;;) {
    const { done, value } = await events.next();
    if (done) throw new Error(`the stream ended before ${type}`);
    taken.push(value);
    if (value.type === type) return taken;
  }
}

describe('memories.events', () => {
  test('changes and deletions as typed events, each with a cursor to resume from', async () => {
    const { token } = await server.t.fixtures.user(orgId);
    const { mnemo } = client(token);
    const { cursor } = await mnemo.memories.list();
    const controller = new AbortController();
    const stream = (await mnemo.memories.events({ since: cursor }, { signal: controller.signal }))[
      Symbol.asyncIterator
    ]();
    await until(stream, 'sync');

    const first = await added(mnemo, 'Prefers tea');
    const second = await added(mnemo, 'Walks to work');
    await mnemo.memories.delete(first.id);
    const events: MemoryEvent[] = [];
    while (!events.some((event) => event.type === 'delete')) {
      events.push(...(await until(stream, 'sync')));
    }
    const changes = events.filter((event) => event.type !== 'sync');
    expect(changes).toEqual([
      { type: 'change', memory: first, cursor: expect.any(String) },
      { type: 'change', memory: second, cursor: expect.any(String) },
      { type: 'delete', id: first.id, cursor: expect.any(String) },
    ]);
    controller.abort();

    // From the first change's cursor, as Last-Event-ID: the rest, and where it ends.
    const resumed = (await mnemo.memories.events({}, { lastEventId: changes[0]?.cursor ?? '' }))[
      Symbol.asyncIterator
    ]();
    const rest = await until(resumed, 'sync');
    expect(rest.map((event) => event.type)).toEqual(['change', 'delete', 'sync']);
    await resumed.return?.();
  });

  test('a refusal is thrown before the first event, as a MnemoError', async () => {
    const { token } = await server.t.fixtures.user(orgId);
    const { mnemo } = client(token);
    const refused = await mnemo.memories.events({ since: 'nope' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MnemoError);
    expect(refused).toMatchObject({ status: 400, message: 'invalid cursor' });
  });
});

describe('a mirror following the stream', () => {
  test('applies each batch as one change, pulling only once, until its signal ends it', async () => {
    const { id, token } = await server.t.fixtures.user(orgId);
    const owner = new Mnemo({
      baseUrl: server.url,
      organizationId: orgId,
      auth: (await server.t.fixtures.user(orgId, 'owner')).token,
    });
    const { mnemo, pulls } = client(token);
    const mirror = mnemo.memories.mirror();
    const heard: MirrorChange[] = [];
    let heardOne = () => {};
    mirror.onChange((change) => {
      heard.push(change);
      heardOne();
    });
    const next = () =>
      new Promise<void>((resolve) => {
        heardOne = resolve;
      });
    const controller = new AbortController();
    const pulled = next();
    // Pulls an hour apart: only the stream can bring a change in time.
    const following = mirror.follow({ signal: controller.signal, intervalMs: 3_600_000 });
    await pulled;
    expect(heard).toEqual([{ full: true, upserted: [], removed: [], cursor: expect.any(String) }]);
    heard.length = 0;

    const first = next();
    const written = await added(owner, 'Written by the owner', id);
    await first;
    expect(heard.at(-1)).toEqual({
      full: false,
      upserted: [written],
      removed: [],
      cursor: expect.any(String),
    });
    const second = next();
    await owner.memories.delete(written.id, { user: id });
    await second;
    expect(heard.at(-1)).toMatchObject({ full: false, upserted: [], removed: [written.id] });
    expect(await mirror.memories()).toEqual([]);
    expect(heard.at(-1)?.cursor).toBe((await mnemo.memories.list()).cursor);
    expect(pulls()).toBe(2);

    controller.abort();
    await expect(following).resolves.toBeUndefined();
  });

  test('under random writes by others, the copy ends equal to the list', async () => {
    const owner = new Mnemo({
      baseUrl: server.url,
      organizationId: orgId,
      auth: (await server.t.fixtures.user(orgId, 'owner')).token,
    });
    const write = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), text: fc.nat(20) }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('edit' as const), pick: fc.nat(), text: fc.nat(20) }),
      fc.constant({ kind: 'erase' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(write, { maxLength: 20 }), async (writes) => {
        const { id, token } = await server.t.fixtures.user(orgId);
        const { mnemo } = client(token);
        const mirror = mnemo.memories.mirror();
        const controller = new AbortController();
        const following = mirror.follow({ signal: controller.signal, intervalMs: 3_600_000 });
        for (const step of writes) {
          const acting = { user: id };
          if (step.kind === 'add') {
            await owner.memories.add({ content: `memory ${step.text}`, ...acting });
          } else if (step.kind === 'erase') {
            await owner.memories.erase(acting);
          } else {
            const { memories } = await owner.memories.list(acting);
            const target = memories[step.pick % Math.max(1, memories.length)];
            if (!target) continue;
            if (step.kind === 'delete') await owner.memories.delete(target.id, acting);
            else {
              await owner.memories.update(target.id, { content: `edited ${step.text}` }, acting);
            }
          }
        }
        const final = await mnemo.memories.list();
        const deadline = Date.now() + 5_000;
        while ((await mirror.storage.cursor()) !== final.cursor) {
          if (Date.now() > deadline) throw new Error('the mirror did not catch up');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        const byId = (a: MemoryItem, b: MemoryItem) => a.id.localeCompare(b.id);
        expect([...(await mirror.memories())].sort(byId)).toEqual([...final.memories].sort(byId));
        controller.abort();
        await following;
      }),
      { numRuns: 15 },
    );
  }, 120_000);

  test('a refusal the stream sends (the member suspended) ends following with it', async () => {
    const { id, token } = await server.t.fixtures.user(orgId);
    const owner = new Mnemo({
      baseUrl: server.url,
      organizationId: orgId,
      auth: (await server.t.fixtures.user(orgId, 'owner')).token,
    });
    const { mnemo } = client(token);
    const mirror = mnemo.memories.mirror();
    let synced = () => {};
    const ready = new Promise<void>((resolve) => {
      synced = resolve;
    });
    mirror.onChange(() => synced());
    await added(owner, 'Something to start with', id);
    const following = mirror.follow({ intervalMs: 3_600_000 }).catch((error: unknown) => error);
    await ready;
    await server.t.fixtures.status(id, 'suspended');
    // A write to their store wakes the stream, which judges the caller again.
    await added(owner, 'Written after the suspension', id);
    const error = await following;
    expect(error).toBeInstanceOf(MnemoError);
    expect(error).toMatchObject({ status: 403, message: 'account is suspended' });
  });
});
