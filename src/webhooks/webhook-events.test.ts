/**
 * Webhook events through HTTP, on the suite's engine: each event type's body exactly as a
 * receiver on loopback gets it, its signature verified with the Standard Webhooks library; an
 * organization's and a project's subscriptions, and a choice of types; the outbox written only
 * when a subscription takes the store's events; nothing of an erased end user left behind; and
 * the order of each store's events under concurrent writes to several stores.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { call } from '../testing/management-client.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MEMORY = '/api/v1/memory';

let t: TestApp;
let receiver: WebhookReceiver;
beforeAll(async () => {
  t = await buildTestApp(
    { MNEMO_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1', MNEMO_WEBHOOKS_ALLOW_HTTP: '1' },
    { webhookDelivery: { pollMs: 50 } },
  );
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});
afterEach(() => {
  receiver.received.length = 0;
  receiver.answer(() => ({ status: 204 }));
});

type Who = { orgId: string; token: string; userId: string };

/** An organization with its owner, subscribed (`body`) to the receiver at `path`. */
async function subscribed(body: Record<string, unknown> = {}, path = 'org') {
  const who = await t.fixtures.caller(undefined, 'owner');
  const webhook = await subscribe(who, body, path);
  return { who, ...webhook };
}

async function subscribe(who: Who, body: Record<string, unknown>, path: string) {
  const res = await call(t, who.token, 'POST', `/api/v1/orgs/${who.orgId}/webhooks`, {
    url: `${receiver.url}/${path}`,
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { webhook, secret } = res.body as { webhook: { id: string }; secret: string };
  receiver.setSecret(secret, `/hooks/${path}`);
  return { webhookId: webhook.id, secret };
}

async function send(
  who: Who,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
  url: string,
  payload?: object,
) {
  const res = await t.request(who, { method, url, ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}

/** The `count` deliveries to `path`, each verified, as `{type, timestamp, data}`. */
async function events(count: number, path = 'org') {
  const got = await receiver.waitFor(count, { filter: (d) => d.path === `/hooks/${path}` });
  for (const delivery of got) expect(delivery.verified).toBe(true);
  return got.map((d) => d.event);
}

describe('each event, its body exactly', () => {
  test('memory.created, memory.folded, memory.updated, memory.deleted', async () => {
    const { who } = await subscribed();
    const created = (await send(who, 'POST', MEMORY, { content: 'Prefers tea' })).memory;
    const folded = (
      await send(who, 'POST', MEMORY, { content: 'prefers tea.', category: 'preference' })
    ).memory;
    const afterFold = (await send(who, 'GET', `${MEMORY}/${created.id}`)).memory;
    const updated = (
      await send(who, 'PATCH', `${MEMORY}/${created.id}`, { content: 'Prefers green tea' })
    ).memory;
    await send(who, 'DELETE', `${MEMORY}/${created.id}`);
    const store = { user: who.userId };
    expect(await events(4)).toEqual([
      { type: 'memory.created', timestamp: created.createdAt, data: { store, memory: created } },
      {
        type: 'memory.folded',
        timestamp: expect.any(String),
        // Folded into the memory, which took the category it brought: as it now is.
        data: { store, memory: afterFold },
      },
      { type: 'memory.updated', timestamp: expect.any(String), data: { store, memory: updated } },
      {
        type: 'memory.deleted',
        timestamp: expect.any(String),
        data: { store, memory: { id: created.id } },
      },
    ]);
    expect(folded).toEqual({ id: created.id, content: 'Prefers tea' });
    expect(afterFold).toEqual({
      ...created,
      category: 'preference',
      updatedAt: expect.not.stringMatching(created.updatedAt),
    });
    expect(updated).toMatchObject({
      id: created.id,
      content: 'Prefers green tea',
      category: 'preference',
    });
    const received = receiver.received;
    // The event's id is the delivery's webhook-id, a UUID; each event its own.
    expect(new Set(received.map((d) => d.id)).size).toBe(4);
    for (const delivery of received) {
      expect(delivery.id).toMatch(UUID);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Math.abs(Number(delivery.timestamp) - Date.now() / 1000)).toBeLessThan(60);
    }
  });

  test('a fold that changes nothing is an event all the same', async () => {
    const { who } = await subscribed();
    const created = (
      await send(who, 'POST', MEMORY, { content: 'Runs on Sundays', category: 'goal' })
    ).memory;
    await send(who, 'POST', MEMORY, { content: 'runs on sundays' });
    const [, folded] = await events(2);
    expect(folded).toEqual({
      type: 'memory.folded',
      timestamp: expect.any(String),
      data: { store: { user: who.userId }, memory: created },
    });
  });

  test('store.erased: one event for the erase, with the count and the category', async () => {
    const { who } = await subscribed({ events: ['store.erased'] });
    await send(who, 'POST', MEMORY, { content: 'Likes tea', category: 'preference' });
    await send(who, 'POST', MEMORY, { content: 'Likes coffee', category: 'preference' });
    await send(who, 'POST', MEMORY, { content: 'Lives in Porto', category: 'identity' });
    expect(await send(who, 'DELETE', `${MEMORY}?category=preference`)).toEqual({
      ok: true,
      deleted: 2,
    });
    // Nothing left to erase: no event.
    expect(await send(who, 'DELETE', `${MEMORY}?category=preference`)).toEqual({
      ok: true,
      deleted: 0,
    });
    await send(who, 'DELETE', MEMORY);
    const store = { user: who.userId };
    expect(await events(2)).toEqual([
      {
        type: 'store.erased',
        timestamp: expect.any(String),
        data: { store, category: 'preference', deleted: 2 },
      },
      { type: 'store.erased', timestamp: expect.any(String), data: { store, deleted: 1 } },
    ]);
  });

  test('end_user.registered and end_user.erased, and an end user’s store named by the app’s id', async () => {
    const { who } = await subscribed();
    const registered = (
      await send(who, 'PUT', `/api/v1/orgs/${who.orgId}/end-users/customer-42`, { name: 'Jane' })
    ).endUser;
    const memory = (
      await send(who, 'POST', MEMORY, { content: 'Allergic to nuts', user: registered.id })
    ).memory;
    // Sent before the erasure, which takes away whatever of them still waits.
    await events(2);
    await send(who, 'DELETE', `/api/v1/orgs/${who.orgId}/end-users/customer-42`);
    const store = { user: registered.id, endUser: 'customer-42' };
    expect(await events(3)).toEqual([
      {
        type: 'end_user.registered',
        timestamp: registered.createdAt,
        data: { store, endUser: registered },
      },
      { type: 'memory.created', timestamp: memory.createdAt, data: { store, memory } },
      {
        type: 'end_user.erased',
        timestamp: expect.any(String),
        // The app's id to act on; the name is not repeated.
        data: {
          store,
          endUser: {
            id: registered.id,
            externalId: 'customer-42',
            createdAt: registered.createdAt,
          },
        },
      },
    ]);
    expect(registered).toEqual({
      id: expect.stringMatching(UUID),
      externalId: 'customer-42',
      name: 'Jane',
      createdAt: expect.any(String),
    });
  });

  test('an import: memory.created and memory.folded for each item, in order', async () => {
    const { who } = await subscribed();
    const res = await send(who, 'POST', `${MEMORY}/import`, {
      memories: [
        { content: 'Speaks Portuguese', createdAt: '2024-01-02T03:04:05.678Z' },
        { content: 'Plays chess' },
        { content: 'speaks portuguese', category: 'identity' },
      ],
    });
    const [first, second, third] = res.results as { memory: Record<string, unknown> }[];
    const store = { user: who.userId };
    expect(await events(3)).toEqual([
      {
        type: 'memory.created',
        timestamp: expect.any(String),
        data: { store, memory: first?.memory },
      },
      {
        type: 'memory.created',
        timestamp: expect.any(String),
        data: { store, memory: second?.memory },
      },
      {
        type: 'memory.folded',
        timestamp: expect.any(String),
        data: { store, memory: third?.memory },
      },
    ]);
    expect(first?.memory).toMatchObject({ createdAt: '2024-01-02T03:04:05.678Z' });
    expect(third?.memory).toMatchObject({ id: first?.memory.id, category: 'identity' });
  });
});

describe('who is told what', () => {
  test("a project's webhook gets its pool's events only; the organization's gets every store's", async () => {
    const who = await t.fixtures.caller(undefined, 'owner');
    const project = await t.fixtures.project(who.orgId, { [who.userId]: 'owner' });
    const other = await t.fixtures.project(who.orgId, { [who.userId]: 'owner' });
    await subscribe(who, {}, 'org');
    await subscribe(who, { project }, 'pool');
    const pooled = (await send(who, 'POST', MEMORY, { content: 'Deploys on Fridays', project }))
      .memory;
    await send(who, 'POST', MEMORY, { content: 'Uses Postgres', project: other });
    await send(who, 'POST', MEMORY, { content: 'Own note' });
    await send(who, 'DELETE', `${MEMORY}?project=${project}`);
    const pool = { project };
    expect(await events(2, 'pool')).toEqual([
      {
        type: 'memory.created',
        timestamp: pooled.createdAt,
        data: { store: pool, memory: pooled },
      },
      { type: 'store.erased', timestamp: expect.any(String), data: { store: pool, deleted: 1 } },
    ]);
    const everything = await events(4, 'org');
    expect(everything.map((e) => [e.type, e.data.store])).toEqual([
      ['memory.created', pool],
      ['memory.created', { project: other }],
      ['memory.created', { user: who.userId }],
      ['store.erased', pool],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received.filter((d) => d.path === '/hooks/pool')).toHaveLength(2);
  });

  test('a webhook gets only the types it chose; a disabled one nothing', async () => {
    const who = await t.fixtures.caller(undefined, 'owner');
    await subscribe(who, { events: ['memory.deleted', 'memory.updated'] }, 'chosen');
    const off = await subscribe(who, {}, 'off');
    await call(t, who.token, 'PATCH', `/api/v1/orgs/${who.orgId}/webhooks/${off.webhookId}`, {
      enabled: false,
    });
    const memory = (await send(who, 'POST', MEMORY, { content: 'Likes jazz' })).memory;
    await send(who, 'DELETE', `${MEMORY}/${memory.id}`);
    expect((await events(1, 'chosen')).map((e) => e.type)).toEqual(['memory.deleted']);
    expect(await outboxRows(who.orgId)).toEqual({ events: 1, deliveries: 1 });
  });

  test('no subscription: a write leaves no row in the outbox', async () => {
    const who = await t.fixtures.caller(undefined, 'owner');
    const project = await t.fixtures.project(who.orgId, { [who.userId]: 'owner' });
    // A project's webhook takes nothing of the other stores: they record nothing either.
    await subscribe(who, { project }, 'elsewhere');
    const memory = (await send(who, 'POST', MEMORY, { content: 'Quiet write' })).memory;
    await send(who, 'PATCH', `${MEMORY}/${memory.id}`, { content: 'Quiet rewrite' });
    await send(who, 'POST', `${MEMORY}/import`, { memories: [{ content: 'Quiet import' }] });
    await send(who, 'DELETE', `${MEMORY}/${memory.id}`);
    await send(who, 'PUT', `/api/v1/orgs/${who.orgId}/end-users/quiet`);
    await send(who, 'DELETE', MEMORY);
    expect(await outboxRows(who.orgId)).toEqual({ events: 0, deliveries: 0 });
  });
});

async function outboxRows(orgId: string) {
  const events = await t.database.db
    .selectFrom('webhook_events')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  const deliveries = await t.database.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('w.org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  return { events: Number(events.n), deliveries: Number(deliveries.n) };
}

test('an erased end user leaves nothing behind: what waited for them, and the log of what was sent', async () => {
  const { who, webhookId } = await subscribed({}, 'erasure');
  const project = await t.fixtures.project(who.orgId, { [who.userId]: 'owner' });
  const endUser = (await send(who, 'PUT', `/api/v1/orgs/${who.orgId}/end-users/customer-9`))
    .endUser;
  await t.fixtures.grant(project, endUser.id, 'editor');
  await send(who, 'POST', MEMORY, { content: 'Delivered secret', user: endUser.id });
  await events(2, 'erasure');
  // The endpoint stops answering: what comes next waits in the outbox.
  receiver.answer(() => ({ status: 503 }));
  await send(who, 'POST', MEMORY, { content: 'Waiting secret', user: endUser.id });
  const contributed = (
    await t.request(
      { orgId: who.orgId, token: await t.fixtures.token(endUser.id) },
      { method: 'POST', url: MEMORY, payload: { content: 'Pooled secret', project } },
    )
  ).json().memory;
  await receiver.waitFor(3, { filter: (d) => d.path === '/hooks/erasure' });
  const before = await payloads();
  expect(before.some((p) => p.includes('Waiting secret'))).toBe(true);
  expect(before.some((p) => p.includes('Pooled secret'))).toBe(true);

  await send(who, 'DELETE', `/api/v1/orgs/${who.orgId}/end-users/customer-9`);
  const after = await t.database.db
    .selectFrom('webhook_events')
    .select(['type', 'store', 'payload', 'person_id', 'memory_id'])
    .where('org_id', '=', who.orgId)
    .orderBy('seq')
    .execute();
  // Left: the pool's delete of their contribution (its id only) and the erasure's own event,
  // whose body names them by the app's id until it is sent.
  expect(after.map((row) => [row.type, JSON.parse(row.store ?? 'null')])).toEqual([
    ['memory.deleted', { project }],
    ['end_user.erased', { user: endUser.id }],
  ]);
  for (const row of after) {
    expect(row.payload ?? '').not.toMatch(/secret/i);
  }
  expect(after[0]?.payload).toBe(
    JSON.stringify({ store: { project }, memory: { id: contributed.id } }),
  );
  const log = await call(
    t,
    who.token,
    'GET',
    `/api/v1/orgs/${who.orgId}/webhooks/${webhookId}/deliveries`,
  );
  expect(JSON.stringify(log.body)).not.toContain('customer-9');
  expect((log.body as { deliveries: { type: string }[] }).deliveries.map((d) => d.type)).toEqual([
    'end_user.erased',
    'memory.deleted',
  ]);

  async function payloads() {
    const rows = await t.database.db
      .selectFrom('webhook_events')
      .select('payload')
      .where('org_id', '=', who.orgId)
      .execute();
    return rows.map((row) => row.payload ?? '');
  }
});

test('order per store: concurrent writes to several stores, each store’s events in the order they were made', async () => {
  const { who } = await subscribed({}, 'order');
  const stores = await Promise.all(
    Array.from({ length: 4 }, async (_, i) => {
      const id = (await send(who, 'PUT', `/api/v1/orgs/${who.orgId}/end-users/order-${i}`)).endUser
        .id as string;
      return id;
    }),
  );
  await events(4, 'order');
  receiver.received.length = 0;
  // Slow answers: each store's next event waits for the one before.
  receiver.answer((_, index) => ({ status: 204, delayMs: index % 3 === 0 ? 15 : 0 }));
  const writes = 12;
  await Promise.all(
    stores.map(async (user) => {
      for (let n = 0; n < writes; n++) {
        const memory = (await send(who, 'POST', MEMORY, { content: `note ${n}`, user })).memory;
        if (n % 4 === 3)
          await send(who, 'PATCH', `${MEMORY}/${memory.id}?user=${user}`, {
            content: `note ${n}!`,
          });
      }
    }),
  );
  const got = await events(stores.length * (writes + writes / 4), 'order');
  for (const user of stores) {
    const mine = got.filter((e) => (e.data.store as { user: string }).user === user);
    expect(mine.map((e) => (e.data.memory as { content: string }).content)).toEqual(
      Array.from({ length: writes }, (_, n) =>
        n % 4 === 3 ? [`note ${n}`, `note ${n}!`] : [`note ${n}`],
      ).flat(),
    );
  }
}, 30_000);
