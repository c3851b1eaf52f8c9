/**
 * The change stream through HTTP on a real port (the suite's engine): what it sends without a
 * cursor and from one, live changes, reconnection with Last-Event-ID, the refusals a pull gives
 * (answered before the stream starts), pings, a caller judged again (suspended, removed, memory
 * switched off), the limit on open streams, and the server closing with streams open.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp } from '../testing/build-test-app.ts';
import { openEventStream, type StreamEvent } from '../testing/event-stream.ts';
import { type OAuthServer, startOAuthServer } from '../testing/oauth-server.ts';
import { purgeTombstones } from './tombstone-retention.ts';

const PING_MS = 300;
const MONTH_AHEAD_MS = 31 * 24 * 3600 * 1000;

let server: OAuthServer;
let orgId: string;

beforeAll(async () => {
  server = await startOAuthServer(
    {},
    { eventStreams: { pingMs: PING_MS, recheckMs: PING_MS, pageSize: 2 } },
  );
  orgId = await server.t.fixtures.org();
});
afterAll(() => server?.close());

interface Item {
  id: string;
  content: string;
  category?: string;
  createdAt: string;
  updatedAt: string;
}

/** A member of the organization, and their requests to the memory API. */
async function member(role: 'member' | 'owner' = 'member') {
  const { id, token } = await server.t.fixtures.user(orgId, role);
  const who = { token, orgId };
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}/api/v1/memory${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-organization-id': orgId,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return {
    id,
    who,
    send,
    add: async (content: string, extra: Record<string, unknown> = {}) =>
      (await send('POST', '', { content, ...extra })).body.memory as Item,
    list: async (query = '') =>
      (await send('GET', query)).body as { memories: Item[]; deleted?: string[]; cursor: string },
    open: (query = '', headers: Record<string, string> = {}) =>
      openEventStream(server.url, who, query, headers),
  };
}

const named = (name: string) => (event: StreamEvent) => event.event === name;

describe('what a stream sends', () => {
  test('without a cursor: every memory in commit order, then sync with the list’s cursor; then each change as it happens', async () => {
    const me = await member();
    const first = await me.add('Prefers tea', { category: 'preference' });
    const second = await me.add('Walks to work');
    await me.send('PATCH', `/${first.id}`, { content: 'Prefers green tea' });
    const { memories, cursor } = await me.list();

    const stream = await me.open();
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.response.headers.get('cache-control')).toBe('no-store');
    const initial = await stream.take(named('sync'));
    expect(initial.map((event) => [event.event, event.data])).toEqual([
      ['change', second],
      ['change', memories.find((memory) => memory.id === first.id)],
      ['sync', { cursor }],
    ]);
    expect(initial.at(-1)?.id).toBe(cursor);

    const third = await me.add('Reads at night', { category: 'goal' });
    const added = await stream.take(named('sync'));
    expect(added.map((event) => [event.event, event.data])).toEqual([
      ['change', third],
      ['sync', { cursor: added.at(-1)?.id }],
    ]);
    await me.send('DELETE', `/${second.id}`);
    const deleted = await stream.take(named('sync'));
    expect(deleted.map((event) => [event.event, event.data])).toEqual([
      ['delete', { id: second.id }],
      ['sync', { cursor: deleted.at(-1)?.id }],
    ]);
    // Every id is a cursor the list takes: from the last, nothing more has changed.
    expect(await me.list(`?since=${deleted.at(-1)?.id}`)).toEqual({
      memories: [],
      deleted: [],
      cursor: deleted.at(-1)?.id,
    });
    stream.close();
  });

  test('from a cursor: the changes after it, as the pull from it gives them; an event’s id resumes after that event', async () => {
    const me = await member();
    const kept = await me.add('Kept');
    const { cursor } = await me.list();
    const gone = await me.add('Gone');
    const changed = await me.add('Changed');
    await me.send('DELETE', `/${gone.id}`);
    await me.send('PATCH', `/${changed.id}`, { category: 'goal' });
    const pull = await me.list(`?since=${cursor}`);

    const stream = await me.open(`?since=${cursor}`);
    const events = await stream.take(named('sync'));
    stream.close();
    const changes = events.filter(named('change')).map((event) => event.data);
    const deletes = events.filter(named('delete')).map((event) => (event.data as Item).id);
    expect(changes).toEqual(pull.memories);
    expect(deletes).toEqual(pull.deleted);
    expect(events.at(-1)).toEqual({
      id: pull.cursor,
      event: 'sync',
      data: { cursor: pull.cursor },
    });
    expect(changes).not.toContainEqual(kept);

    // Reconnecting with the first event's id as Last-Event-ID (which wins over `since`) sends
    // the events after it, and the same end.
    const [firstEvent, ...rest] = events;
    const again = await me.open(`?since=${cursor}`, { 'last-event-id': firstEvent?.id ?? '' });
    expect(await again.take(named('sync'))).toEqual(rest);
    again.close();
  });

  test('more changes than a page (two here) come page after page, each with its own cursor', async () => {
    const me = await member();
    const added: Item[] = [];
    for (const text of ['one', 'two', 'three', 'four', 'five']) added.push(await me.add(text));
    const whole = await me.open();
    const initial = await whole.take(named('sync'));
    expect(initial.map((event) => event.data)).toEqual([...added, { cursor: initial.at(-1)?.id }]);
    // Each memory's cursor is its own version's; the last one's is the store's, as is sync's.
    expect(new Set(initial.map((event) => event.id)).size).toBe(5);
    expect(initial.at(-1)?.id).toBe(initial.at(-2)?.id);

    const erased = await me.send('DELETE', '');
    expect(erased.body).toEqual({ ok: true, deleted: 5 });
    const deletes = await whole.take(named('sync'));
    expect(deletes.filter(named('delete')).map((event) => (event.data as Item).id)).toEqual(
      added.map((memory) => memory.id),
    );
    expect(deletes.at(-1)?.id).toBe((await me.list()).cursor);
    whole.close();
  });

  test('a comment line at every ping, and no event when nothing changed', async () => {
    const me = await member();
    const stream = await me.open();
    await stream.take(named('sync'));
    await new Promise((resolve) => setTimeout(resolve, PING_MS * 3.5));
    expect(stream.raw().match(/^: ping$/gm)?.length).toBeGreaterThanOrEqual(2);
    expect(stream.raw().match(/^event: /gm)).toEqual(['event: ']);
    stream.close();
  });

  test('a write the stream was not told of (another program’s, a lost wake-up) is found at the next ping', async () => {
    const me = await member();
    const stream = await me.open();
    await stream.take(named('sync'));
    // A second server on the same store whose notifications go nowhere.
    const silent = await buildTestApp(
      { MNEMO_PUBLIC_URL: server.url },
      {
        sharedStore: server.t.store,
        wrapDatabase: (database) => ({
          ...database,
          notifications: { ...database.notifications, notify: async () => {} },
        }),
      },
    );
    try {
      const response = await silent.request(me.who, {
        method: 'POST',
        url: '/api/v1/memory',
        payload: { content: 'Written elsewhere' },
      });
      expect(response.statusCode).toBe(201);
      const events = await stream.take(named('sync'), PING_MS * 5);
      expect(events.filter(named('change')).map((event) => event.data)).toEqual([
        response.json().memory,
      ]);
    } finally {
      await silent.close();
      stream.close();
    }
  });
});

describe('refusals come before the stream, as a pull gives them', () => {
  test.each([
    ['?since=bogus', 400, 'invalid cursor'],
    ['?since=', 400, 'invalid cursor'],
    [`?user=${crypto.randomUUID()}`, 400, 'user is not a member of this organization'],
    [
      `?user=${crypto.randomUUID()}&project=${crypto.randomUUID()}`,
      400,
      'project cannot be combined with user',
    ],
    ['?limit=5', 400, 'unknown query parameter: limit'],
  ])('%s: %i %s', async (query, status, error) => {
    const me = await member();
    const stream = await me.open(query);
    expect(stream.response.status).toBe(status);
    expect(stream.response.headers.get('cache-control')).toBe('no-store');
    expect(await stream.response.json()).toEqual({ error });
  });

  test('a Last-Event-ID that is no cursor of the store: 400', async () => {
    const me = await member();
    const other = await member();
    const foreign = (await other.list()).cursor;
    const stream = await me.open('', { 'last-event-id': foreign });
    expect(stream.response.status).toBe(400);
    expect(await stream.response.json()).toEqual({ error: 'invalid cursor' });
  });

  test('a cursor older than purged tombstones: 410, as the pull answers', async () => {
    const me = await member();
    const memory = await me.add('Soon gone');
    const { cursor } = await me.list();
    await me.send('DELETE', `/${memory.id}`);
    await purgeTombstones(server.t.database, 30, Date.now() + MONTH_AHEAD_MS);
    const stream = await me.open(`?since=${cursor}`);
    expect(stream.response.status).toBe(410);
    expect(await stream.response.json()).toEqual({
      error: 'cursor can no longer be served: pull the full list again without since',
    });
  });

  test('no credential: 401; a pool the caller cannot read: 403', async () => {
    const anonymous = await fetch(`${server.url}/api/v1/memory/events`, {
      headers: { 'x-organization-id': orgId },
    });
    expect(anonymous.status).toBe(401);
    const me = await member();
    const project = await server.t.fixtures.project(orgId);
    const pool = await me.open(`?project=${project}`);
    expect(pool.response.status).toBe(403);
  });

  test('POST is 405 with Allow: GET, HEAD', async () => {
    const me = await member();
    const response = await fetch(`${server.url}/api/v1/memory/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${me.who.token}`, 'x-organization-id': orgId },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('the caller is judged again', () => {
  test('suspended while a stream is open: an error event says why, and the stream ends', async () => {
    const me = await member();
    const stream = await me.open();
    await stream.take(named('sync'));
    await server.t.fixtures.status(me.id, 'suspended');
    const [refusal] = await stream.take(named('error'), PING_MS * 5);
    expect(refusal?.data).toEqual({ error: 'account is suspended', status: 403 });
    expect(await stream.next()).toBeUndefined();
  });

  test('removed from the organization: the stream ends with 403', async () => {
    const me = await member();
    const stream = await me.open();
    await stream.take(named('sync'));
    await server.t.database.db
      .deleteFrom('memberships')
      .where('user_id', '=', me.id)
      .where('org_id', '=', orgId)
      .execute();
    const [refusal] = await stream.take(named('error'), PING_MS * 5);
    expect(refusal?.data).toEqual({ error: 'not a member of this organization', status: 403 });
    expect(await stream.next()).toBeUndefined();
  });

  test('an owner acting for a member: audited once when the stream opens, and ended when acting for others is restricted', async () => {
    const owner = await member('owner');
    const target = await member();
    await target.add('Theirs');
    const stream = await owner.open(`?user=${target.id}`);
    const events = await stream.take(named('sync'));
    expect(events.filter(named('change'))).toHaveLength(1);
    const audited = await server.t.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor_id', 'target_id'])
      .where('target_id', '=', target.id)
      .execute();
    expect(audited).toEqual([{ action: 'list', actor_id: owner.id, target_id: target.id }]);
    stream.close();
  });
});

describe('open streams per account', () => {
  test('20 at once; the 21st is 429 with Retry-After; closing one frees a place', async () => {
    const me = await member();
    const open = await Promise.all(Array.from({ length: 20 }, () => me.open()));
    expect(open.map((stream) => stream.response.status)).toEqual(Array(20).fill(200));
    const refused = await me.open();
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get('retry-after')).toBe('5');
    expect(await refused.response.json()).toEqual({
      error: 'too many open event streams: at most 20 per account; close one and retry in 5 s',
    });
    // Other requests are not held up by the streams.
    expect((await me.send('GET', '')).status).toBe(200);
    open[0]?.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = await me.open();
    expect(again.response.status).toBe(200);
    again.close();
    for (const stream of open) stream.close();
  });
});

test('the server closes with streams open: they end, and closing does not wait for them', async () => {
  const own = await startOAuthServer();
  const orgOfOwn = await own.t.fixtures.org();
  const { token } = await own.t.fixtures.user(orgOfOwn);
  const stream = await openEventStream(own.url, { token, orgId: orgOfOwn });
  await stream.take(named('sync'));
  const started = Date.now();
  await own.close();
  expect(Date.now() - started).toBeLessThan(3_000);
  expect(await stream.next()).toBeUndefined();
});

describe('a client that applies the events holds what the server holds', () => {
  type Step =
    | { kind: 'add'; by: 0 | 1; text: number }
    | { kind: 'edit'; by: 0 | 1; pick: number; text: number }
    | { kind: 'delete'; by: 0 | 1; pick: number }
    | { kind: 'erase' }
    | { kind: 'read' }
    | { kind: 'reconnect' }
    | { kind: 'rewind'; pick: number }
    | { kind: 'fresh'; text: number };
  const by = fc.constantFrom(0 as const, 1 as const);
  const step: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({ kind: fc.constant('add' as const), by, text: fc.nat(30) }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('edit' as const),
        by,
        pick: fc.nat(),
        text: fc.nat(30),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant('delete' as const), by, pick: fc.nat() }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'erase' as const }) },
    { weight: 3, arbitrary: fc.constant({ kind: 'read' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'reconnect' as const }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewind' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('fresh' as const), text: fc.nat(30) }) },
  );

  test('under random writes by two clients; reconnecting by Last-Event-ID, from any earlier event, or from nothing while writes go on', async () => {
    const owner = await member('owner');
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        const me = await member();
        // The member writes from a second device; the owner writes for them.
        const writers = [
          (method: string, path: string, body?: unknown) => me.send(method, path, body),
          (method: string, path: string, body?: unknown) =>
            owner.send(method, `${path}?user=${me.id}`, body),
        ] as const;
        const held = new Map<string, unknown>();
        const seen: string[] = [];
        let lastSync: string | undefined;
        let stream = await me.open();
        const apply = (event: StreamEvent) => {
          if (event.event === 'change') held.set((event.data as Item).id, event.data);
          if (event.event === 'delete') held.delete((event.data as Item).id);
          if (event.event === 'sync') lastSync = event.id;
          if (event.event === 'error')
            throw new Error(`error event: ${JSON.stringify(event.data)}`);
          if (event.id !== undefined) seen.push(event.id);
        };
        /** Applies what has arrived, without waiting for more. */
        const read = async () => {
          for (;;) {
            const next = await stream.next(1).catch(() => undefined);
            if (next === undefined) return;
            apply(next);
          }
        };
        const reopen = async (headers: Record<string, string>) => {
          stream.close();
          stream = await me.open('', headers);
          expect(stream.response.status).toBe(200);
        };
        const ids = async () => (await me.list()).memories.map((memory) => memory.id);
        for (const s of steps) {
          if (s.kind === 'read') await read();
          else if (s.kind === 'reconnect') {
            await read();
            const last = seen.at(-1);
            await reopen(last === undefined ? {} : { 'last-event-id': last });
          } else if (s.kind === 'rewind') {
            // Any earlier cursor: what came after it is sent again, and converges.
            const earlier = seen[s.pick % Math.max(1, seen.length)];
            await reopen(earlier === undefined ? {} : { 'last-event-id': earlier });
          } else if (s.kind === 'fresh') {
            // A new client: nothing held, no cursor, opened while two writes are under way.
            stream.close();
            held.clear();
            seen.length = 0;
            const [opened] = await Promise.all([
              me.open(),
              writers[0]('POST', '', { content: `fresh ${s.text}` }),
              writers[1]('POST', '', { content: `fresh too ${s.text}` }),
            ]);
            stream = opened;
          } else if (s.kind === 'add') {
            await writers[s.by]('POST', '', { content: `memory ${s.text}` });
          } else if (s.kind === 'erase') {
            await writers[0]('DELETE', '');
          } else {
            const all = await ids();
            const id = all[s.pick % Math.max(1, all.length)];
            if (id === undefined) continue;
            if (s.kind === 'edit') {
              await writers[s.by]('PATCH', `/${id}`, { content: `edited ${s.text}` });
            } else await writers[s.by]('DELETE', `/${id}`);
          }
        }
        const final = await me.list();
        const deadline = Date.now() + 5_000;
        while (lastSync !== final.cursor) {
          const next = await stream.next(Math.max(1, deadline - Date.now()));
          if (next === undefined) throw new Error('the stream ended');
          apply(next);
        }
        stream.close();
        const byId = (a: Item, b: Item) => a.id.localeCompare(b.id);
        expect(([...held.values()] as Item[]).sort(byId)).toEqual([...final.memories].sort(byId));
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
