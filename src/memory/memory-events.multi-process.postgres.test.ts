/**
 * The change stream across processes: two real server processes on one PostgreSQL, with the
 * server's own timings (a ping every 20 s, so an event that comes sooner was woken by the other
 * process's notification). A stream held on one process gets every write made through the
 * other, in order, and a client applying it ends equal to the list; a stream opened on either
 * can be resumed on the other with its Last-Event-ID.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createDatabase, type Database } from '../db/database.ts';
import { createFixtures, type Fixtures, testConfig } from '../testing/build-test-app.ts';
import { openEventStream, type StreamEvent } from '../testing/event-stream.ts';
import { type ServerProcess, startServerProcess } from '../testing/server-process.ts';
import { createTestStore, type TestStore } from '../testing/test-store.ts';

const PUBLIC_URL = 'http://mnemo.test';
/** Well under the 20 s ping: only a notification from the other process wakes a stream in time. */
const WOKEN_WITHIN_MS = 5_000;

let store: TestStore;
let database: Database;
let fixtures: Fixtures;
let pair: [ServerProcess, ServerProcess];

beforeAll(async () => {
  store = await createTestStore('postgres');
  const env = {
    MNEMO_DATABASE_URL: store.url,
    MNEMO_PUBLIC_URL: PUBLIC_URL,
    MNEMO_SEED_DEMO: 'off',
    MNEMO_LOG_LEVEL: 'warn',
    MNEMO_RATE_LIMIT_PER_MINUTE: '0',
  };
  const first = await startServerProcess({ env });
  pair = [first, await startServerProcess({ env })];
  database = createDatabase(store.url);
  fixtures = createFixtures(
    database,
    testConfig({ MNEMO_DATABASE_URL: store.url, MNEMO_PUBLIC_URL: PUBLIC_URL }),
  );
}, 60_000);
afterAll(async () => {
  await Promise.all((pair ?? []).map((server) => server?.stop()));
  await database?.close();
  await store?.dispose();
});

async function write(server: ServerProcess, who: { token: string; orgId: string }, body: object) {
  const response = await fetch(`${server.url}/api/v1/memory`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${who.token}`,
      'x-organization-id': who.orgId,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { memory: { id: string } }).memory;
}

test('a write through one process reaches a stream held on the other, woken by its notification', async () => {
  const orgId = await fixtures.org();
  const { token } = await fixtures.user(orgId);
  const who = { token, orgId };
  const [a, b] = pair;
  const stream = await openEventStream(b.url, who);
  await stream.take((event) => event.event === 'sync');
  const sent: unknown[] = [];
  const received: StreamEvent[] = [];
  for (let i = 0; i < 20; i++) {
    sent.push(await write(a, who, { content: `written through the first process ${i}` }));
    received.push(...(await stream.take((event) => event.event === 'change', WOKEN_WITHIN_MS)));
  }
  expect(received.filter((event) => event.event === 'change').map((event) => event.data)).toEqual(
    sent,
  );
  stream.close();
});

test('a stream cut on one process resumes on the other from its Last-Event-ID', async () => {
  const orgId = await fixtures.org();
  const { token } = await fixtures.user(orgId);
  const who = { token, orgId };
  const [a, b] = pair;
  const first = await openEventStream(a.url, who);
  await first.take((event) => event.event === 'sync');
  const before = await write(b, who, { content: 'Before the cut' });
  const [seen] = await first.take((event) => event.event === 'change', WOKEN_WITHIN_MS);
  expect(seen?.data).toEqual(before);
  first.close();

  const after = await write(a, who, { content: 'While no stream was open' });
  const resumed = await openEventStream(b.url, who, '', { 'last-event-id': seen?.id ?? '' });
  const events = await resumed.take((event) => event.event === 'sync');
  expect(events.filter((event) => event.event === 'change').map((event) => event.data)).toEqual([
    after,
  ]);
  const later = await write(a, who, { content: 'After the resumption' });
  const [live] = await resumed.take((event) => event.event === 'change', WOKEN_WITHIN_MS);
  expect(live?.data).toEqual(later);
  resumed.close();
});
