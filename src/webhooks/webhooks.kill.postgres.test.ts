/**
 * At least once, in order, across a crash (docs/design.md §3.9): a real server process on
 * PostgreSQL takes a burst of 1,000 changes to 20 stores and delivers them to a slow receiver,
 * and is killed with SIGKILL mid-burst — writes in flight, deliveries in flight, its claims left
 * behind. A second process is started on the same store; the rest of the burst is written
 * through it, and it delivers what waited, the dead process's claims once their lease ran out.
 * Every change the store holds reaches the receiver at least once (those whose write was cut off
 * by the kill too, if they committed), each store's in the order they were made (a repeat only
 * of the change the kill cut off, and only after the lease: never two processes at once), every
 * delivery signed; then no body is kept.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createDatabase, type Database } from '../db/database.ts';
import { createFixtures, testConfig } from '../testing/build-test-app.ts';
import { type ServerProcess, startServerProcess } from '../testing/server-process.ts';
import { createTestStore, type TestStore } from '../testing/test-store.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';

const PUBLIC_URL = 'http://mnemo.test';
const STORES = 20;
const PER_STORE = 50;

let store: TestStore;
let database: Database;
let receiver: WebhookReceiver;
const servers: ServerProcess[] = [];

const env = () => ({
  MNEMO_DATABASE_URL: store.url,
  MNEMO_PUBLIC_URL: PUBLIC_URL,
  MNEMO_SEED_DEMO: 'off',
  MNEMO_LOG_LEVEL: 'warn',
  MNEMO_RATE_LIMIT_PER_MINUTE: '0',
  MNEMO_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1',
  MNEMO_WEBHOOKS_ALLOW_HTTP: '1',
});

beforeAll(async () => {
  store = await createTestStore('postgres');
  receiver = await startWebhookReceiver();
  servers.push(await startServerProcess({ env: env() }));
  database = createDatabase(store.url);
}, 60_000);
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop().catch(() => server.kill())));
  await database?.close();
  await receiver?.close();
  await store?.dispose();
});

test('kill -9 mid-delivery: every change delivered at least once, each store in order, after a restart', async () => {
  const fixtures = createFixtures(
    database,
    testConfig({ MNEMO_DATABASE_URL: store.url, MNEMO_PUBLIC_URL: PUBLIC_URL }),
  );
  const orgId = await fixtures.org();
  const owner = await fixtures.user(orgId, 'owner');
  const [first] = servers as [ServerProcess];
  let target = first;
  const api = async (server: ServerProcess, method: string, path: string, body?: object) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${owner.token}`,
        'x-organization-id': orgId,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300)
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const stores: string[] = [];
  for (let i = 0; i < STORES; i++) {
    const { endUser } = await api(first, 'PUT', `/api/v1/orgs/${orgId}/end-users/customer-${i}`);
    stores.push((endUser as { id: string }).id);
  }
  const made = await api(first, 'POST', `/api/v1/orgs/${orgId}/webhooks`, {
    url: receiver.url,
    events: ['memory.created'],
  });
  receiver.setSecret(made.secret as string);
  // A slow endpoint.
  receiver.answer(() => ({ status: 204, delayMs: 10 }));

  // The burst: each store's memories one after another, the stores side by side, through the
  // process that delivers them. A write the kill cuts off is sent again to the next process
  // once it is up (the same content: if the first had committed, it folds into it).
  let killed: Promise<void> | undefined;
  let writes = 0;
  const add = async (user: string, n: number) => {
    for (;;) {
      try {
        await api(target, 'POST', '/api/v1/memory', { content: `note ${n} of ${user}`, user });
        writes++;
        return;
      } catch (error) {
        if (!killed) throw error;
        await killed;
      }
    }
  };
  const burst = Promise.all(
    stores.map(async (user) => {
      for (let n = 0; n < PER_STORE; n++) await add(user, n);
    }),
  );
  const total = STORES * PER_STORE;
  await receiver.waitFor(200, { timeoutMs: 30_000 });
  killed = (async () => {
    await first.kill();
    target = await startServerProcess({ env: env() });
    servers.push(target);
  })();
  await killed;
  // Killed mid-burst: writes still to make, most of it still to deliver.
  expect(writes).toBeLessThan(total);
  expect(new Set(receiver.received.map((d) => d.id)).size).toBeLessThan(total / 2);
  await burst;

  // What the stores hold, in the order each changed: what must arrive.
  const held = await database.db
    .selectFrom('memories as m')
    .innerJoin('scopes as s', 's.id', 'm.scope_id')
    .select(['s.owner_id', 'm.id'])
    .where('s.org_id', '=', orgId)
    .orderBy('m.version')
    .execute();
  expect(held).toHaveLength(total);
  const written = new Map<string, string[]>();
  for (const row of held) written.set(row.owner_id, [...(written.get(row.owner_id) ?? []), row.id]);

  const distinct = () => new Set(receiver.received.map((d) => d.id)).size;
  for (let waited = 0; distinct() < total && waited < 60_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(distinct()).toBe(total);
  for (const delivery of receiver.received) expect(delivery.verified).toBe(true);

  // Per store, the first arrival of each memory, in the order they were written: nothing sent
  // before an earlier change of its store had arrived.
  for (const user of stores) {
    const arrivals = receiver.received
      .filter((d) => (d.event.data.store as { user: string }).user === user)
      .map((d) => (d.event.data.memory as { id: string }).id);
    const firstSeen = [...new Set(arrivals)];
    expect(firstSeen).toEqual(written.get(user));
    // A repeat is of the change last sent (an attempt the kill cut off), never an older one, and
    // only once the dead process's lease ran out: never two processes delivering it at once.
    const times = receiver.received
      .filter((d) => (d.event.data.store as { user: string }).user === user)
      .map((d) => d.at);
    for (const [i, id] of arrivals.entries()) {
      const earlier = arrivals.indexOf(id);
      if (earlier !== i) {
        expect((times[i] ?? 0) - (times[earlier] ?? 0)).toBeGreaterThan(10_000);
      }
    }
    for (const [i, id] of arrivals.entries()) {
      if (arrivals.indexOf(id) !== i) {
        expect(arrivals.slice(arrivals.indexOf(id) + 1, i).every((other) => other === id)).toBe(
          true,
        );
      }
    }
  }
  // Once all are recorded as delivered, no body of a change is kept.
  const waiting = async () =>
    Number(
      (
        await database.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('status', '<>', 'delivered')
          .executeTakeFirstOrThrow()
      ).n,
    );
  for (let waited = 0; (await waiting()) > 0 && waited < 10_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(await waiting()).toBe(0);
  const payloads = await database.db
    .selectFrom('webhook_events')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('payload', 'is not', null)
    .executeTakeFirstOrThrow();
  expect(Number(payloads.n)).toBe(0);
}, 150_000);

test('two processes delivering side by side: each change once, each store in order', async () => {
  const fixtures = createFixtures(
    database,
    testConfig({ MNEMO_DATABASE_URL: store.url, MNEMO_PUBLIC_URL: PUBLIC_URL }),
  );
  const orgId = await fixtures.org();
  const owner = await fixtures.user(orgId, 'owner');
  const alive = servers.filter((server) => !server.hasExited());
  while (alive.length < 2) {
    const started = await startServerProcess({ env: env() });
    servers.push(started);
    alive.push(started);
  }
  const [a, b] = alive as [ServerProcess, ServerProcess];
  const api = async (server: ServerProcess, method: string, path: string, body?: object) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${owner.token}`,
        'x-organization-id': orgId,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status}`);
    return json;
  };
  const made = await api(a, 'POST', `/api/v1/orgs/${orgId}/webhooks`, {
    url: `${receiver.url}/pair`,
    events: ['memory.created'],
  });
  receiver.setSecret(made.secret as string, '/hooks/pair');
  receiver.answer(() => ({ status: 204, delayMs: 2 }));
  const users = await Promise.all(
    Array.from({ length: 10 }, async () => (await fixtures.user(orgId, 'member')).id),
  );
  const written = new Map<string, string[]>();
  // Each store written through both processes in turn, so both are woken and both deliver.
  await Promise.all(
    users.map(async (user, u) => {
      const ids: string[] = [];
      written.set(user, ids);
      for (let n = 0; n < 30; n++) {
        const through = (u + n) % 2 === 0 ? a : b;
        const { memory } = await api(through, 'POST', '/api/v1/memory', {
          content: `pair ${n}`,
          user,
        });
        ids.push((memory as { id: string }).id);
      }
    }),
  );
  const got = await receiver.waitFor(300, {
    timeoutMs: 60_000,
    filter: (d) => d.path === '/hooks/pair',
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const pair = receiver.received.filter((d) => d.path === '/hooks/pair');
  // No repeat: no attempt was cut off, and no two processes sent one event.
  expect(pair).toHaveLength(300);
  expect(new Set(got.map((d) => d.id)).size).toBe(300);
  for (const delivery of pair) expect(delivery.verified).toBe(true);
  for (const user of users) {
    expect(
      pair
        .filter((d) => (d.event.data.store as { user: string }).user === user)
        .map((d) => (d.event.data.memory as { id: string }).id),
    ).toEqual(written.get(user));
  }
}, 120_000);
