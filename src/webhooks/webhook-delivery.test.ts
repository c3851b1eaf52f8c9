/**
 * The delivery worker on the suite's engine, its schedule run in milliseconds: a failing
 * delivery retried with its backoff, the next event of its store held back meanwhile and other
 * stores' going on, given up after the window and its webhook disabled, then enabled again and
 * everything delivered in order; no redirect followed; an endpoint too slow; and targets refused
 * when connected to: a name resolving to each forbidden class of address (a DNS of the test's
 * own, and `localhost` by the system's), a literal address or plain http the operator no longer
 * allows, while an allowed name is reached at the very address checked.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { call } from '../testing/management-client.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule, retryDelay } from './webhook-delivery.ts';
import type { Resolve } from './webhook-targets.ts';

const OPEN = { MNEMO_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1', MNEMO_WEBHOOKS_ALLOW_HTTP: '1' };
const SCHEDULE: RetrySchedule = {
  delaysMs: [100, 200, 300],
  repeatMs: [400, 400],
  windowMs: 1500,
  jitter: 0,
};

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());
afterEach(() => {
  receiver.received.length = 0;
  receiver.answer(() => ({ status: 204 }));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function owner(t: TestApp) {
  const orgId = await t.fixtures.org();
  const user = await t.fixtures.user(orgId, 'owner');
  return { orgId, token: user.token, userId: user.id, base: `/api/v1/orgs/${orgId}/webhooks` };
}
type Owner = Awaited<ReturnType<typeof owner>>;

async function subscribe(t: TestApp, who: Owner, url: string) {
  const res = await call(t, who.token, 'POST', who.base, { url });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { webhook, secret } = res.body as { webhook: { id: string }; secret: string };
  receiver.setSecret(secret);
  return webhook.id;
}

const content = (d: { event: { data: Record<string, unknown> } }) =>
  (d.event.data.memory as { content: string }).content;

test('the schedule: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h ± 10 %, then 2 to 4 h, for 24 h', () => {
  const at = (failures: number, random: number) =>
    retryDelay(DEFAULT_RETRY_SCHEDULE, failures, () => random);
  expect([1, 2, 3, 4, 5, 6].map((n) => at(n, 0.5))).toEqual([
    5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000,
  ]);
  expect([at(1, 0), at(1, 1)]).toEqual([4_500, 5_500]);
  expect([at(7, 0), at(7, 1), at(40, 0.5)]).toEqual([7_200_000, 14_400_000, 10_800_000]);
  expect(DEFAULT_RETRY_SCHEDULE.windowMs).toBe(24 * 3_600_000);
});

describe('retries, giving up, resuming', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(OPEN, { webhookDelivery: { pollMs: 10, schedule: SCHEDULE } });
  });
  afterAll(() => t?.close());

  test('retried with backoff while its store waits and others go on; disabled after the window; enabled again, all in order', async () => {
    const who = await owner(t);
    const id = await subscribe(t, who, receiver.url);
    const other = await t.fixtures.user(who.orgId, 'member');
    const otherWho = { orgId: who.orgId, token: other.token };
    receiver.answer((delivery) => ({ status: content(delivery) === 'Blocked' ? 500 : 204 }));
    const add = (as: { orgId: string; token: string }, text: string) =>
      t.request(as, { method: 'POST', url: '/api/v1/memory', payload: { content: text } });
    await add(who, 'Blocked');
    await receiver.waitFor(1);
    await add(who, 'Behind it');
    await add(otherWho, 'Another store');
    // The other store's event goes on; this store's next waits for the one failing.
    await receiver.waitFor(1, { filter: (d) => content(d) === 'Another store' });

    let webhook: Record<string, unknown> = {};
    for (let i = 0; i < 500 && webhook.enabled !== false; i++) {
      await sleep(10);
      webhook = (
        (await call(t, who.token, 'GET', `${who.base}/${id}`)).body as {
          webhook: Record<string, unknown>;
        }
      ).webhook;
    }
    expect(webhook).toMatchObject({
      enabled: false,
      disabledReason: expect.stringMatching(
        /^deliveries failed for \d+ seconds? \(last: HTTP 500\)$/,
      ),
    });
    const attempts = receiver.received.filter((d) => content(d) === 'Blocked');
    // Nominally at 0, 100, 300, 600, 1000, 1400 and 1800 ms; each wait a little longer (a
    // poll, a claim, a busy machine): given up at the first failure once 1.5 s have passed.
    const since = (d: { at: number }) => d.at - (attempts[0]?.at ?? 0);
    expect(attempts.length).toBeGreaterThanOrEqual(4);
    expect(attempts.length).toBeLessThanOrEqual(7);
    const window = await t.database.db
      .selectFrom('webhook_deliveries')
      .select(['retry_since', 'last_attempt_at'])
      .where('webhook_id', '=', id)
      .where('status', '=', 'failed')
      .executeTakeFirstOrThrow();
    expect((window.last_attempt_at ?? 0) - (window.retry_since ?? 0)).toBeGreaterThanOrEqual(1500);
    expect(since(attempts.at(-2) ?? { at: 0 })).toBeLessThan(1700);
    expect(new Set(attempts.map((d) => d.id)).size).toBe(1);
    for (const attempt of attempts) expect(attempt.verified).toBe(true);
    const gaps = attempts.slice(1).map((d, i) => d.at - (attempts[i]?.at ?? 0));
    const waits = [100, 200, 300, 400, 400, 400];
    for (const [i, gap] of gaps.entries()) {
      expect(gap, `gap ${i + 1} of ${gaps.join(', ')}`).toBeGreaterThanOrEqual((waits[i] ?? 0) - 2);
      expect(gap, `gap ${i + 1} of ${gaps.join(', ')}`).toBeLessThan((waits[i] ?? 0) + 500);
    }
    expect(receiver.received.map(content)).not.toContain('Behind it');
    const log = await call(t, who.token, 'GET', `${who.base}/${id}/deliveries`);
    const deliveries = (log.body as { deliveries: Record<string, unknown>[] }).deliveries;
    expect(deliveries.map((d) => [d.status, d.attempts, d.error, d.redeliverable])).toEqual([
      ['delivered', 1, null, false],
      ['pending', 0, null, true],
      ['failed', attempts.length, 'HTTP 500', true],
    ]);
    expect(deliveries[2]).toMatchObject({ responseStatus: 500, nextAttemptAt: null });

    // Disabled: nothing recorded meanwhile.
    await add(who, 'While disabled');
    receiver.answer(() => ({ status: 204 }));
    await call(t, who.token, 'PATCH', `${who.base}/${id}`, { enabled: true });
    const resumed = await receiver.waitFor(2, {
      filter: (d) =>
        ['Blocked', 'Behind it'].includes(content(d)) && d.at > (attempts.at(-1)?.at ?? 0),
    });
    expect(resumed.map(content)).toEqual(['Blocked', 'Behind it']);
    await sleep(100);
    expect(receiver.received.map(content)).not.toContain('While disabled');
  }, 20_000);

  test('no redirect is followed: a 3xx is a failed attempt, logged with where it pointed', async () => {
    const who = await owner(t);
    const id = await subscribe(t, who, receiver.url);
    receiver.answer(() => ({
      status: 302,
      headers: { location: `${receiver.url}/elsewhere` },
    }));
    const res = await call(t, who.token, 'POST', `${who.base}/${id}/test`);
    expect((res.body as { delivery: unknown }).delivery).toMatchObject({
      status: 'failed',
      responseStatus: 302,
      error: `redirect not followed (HTTP 302 to ${receiver.url}/elsewhere)`,
    });
    await sleep(100);
    expect(receiver.received.map((d) => d.path)).toEqual(['/hooks']);
  });
});

test('an endpoint slower than the limit: no answer within it, a failed attempt', async () => {
  const t = await buildTestApp(OPEN, { webhookDelivery: { timeoutMs: 100 } });
  try {
    const who = await owner(t);
    const id = await subscribe(t, who, receiver.url);
    receiver.answer(() => ({ status: 204, delayMs: 400 }));
    const res = await call(t, who.token, 'POST', `${who.base}/${id}/test`);
    expect((res.body as { delivery: unknown }).delivery).toMatchObject({
      status: 'failed',
      responseStatus: null,
      error: 'no answer within 0.1 s',
    });
  } finally {
    await t.close();
  }
});

describe('targets refused when connected to', () => {
  /** A DNS of the test's own: each name to the addresses given. */
  const names: Record<string, string[]> = {
    'loopback.test': ['127.0.0.1'],
    'loopback6.test': ['::1'],
    'unspecified.test': ['0.0.0.0'],
    'private10.test': ['10.1.2.3'],
    'private172.test': ['172.20.0.5'],
    'private192.test': ['192.168.0.10'],
    'ula.test': ['fd12:3456::1'],
    'metadata.test': ['169.254.169.254'],
    'metadata6.test': ['fd00:ec2::254'],
    'linklocal.test': ['169.254.10.20'],
    'linklocal6.test': ['fe80::1'],
    'cgnat.test': ['100.100.0.1'],
    'multicast.test': ['239.1.2.3'],
    'broadcast.test': ['255.255.255.255'],
    'mapped.test': ['::ffff:10.0.0.1'],
    'nat64.test': ['64:ff9b::7f00:1'],
    'mixed.test': ['93.184.216.34', '192.168.1.1'],
  };
  const expected: Record<string, string> = {
    'loopback.test': '127.0.0.1, a loopback',
    'loopback6.test': '::1, a loopback',
    'unspecified.test': '0.0.0.0, an unspecified',
    'private10.test': '10.1.2.3, a private',
    'private172.test': '172.20.0.5, a private',
    'private192.test': '192.168.0.10, a private',
    'ula.test': 'fd12:3456::1, a private',
    'metadata.test': '169.254.169.254, a cloud metadata',
    'metadata6.test': 'fd00:ec2::254, a cloud metadata',
    'linklocal.test': '169.254.10.20, a link-local',
    'linklocal6.test': 'fe80::1, a link-local',
    'cgnat.test': '100.100.0.1, a shared (carrier-grade NAT)',
    'multicast.test': '239.1.2.3, a multicast',
    'broadcast.test': '255.255.255.255, a broadcast',
    'mapped.test': '::ffff:10.0.0.1, a private',
    'nat64.test': '64:ff9b::7f00:1, a loopback',
    'mixed.test': '192.168.1.1, a private',
  };
  const resolve: Resolve = async (hostname) => {
    const found = names[hostname] ?? (hostname === 'receiver.test' ? ['127.0.0.1'] : undefined);
    if (!found)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  let t: TestApp;
  let open: TestApp;
  beforeAll(async () => {
    [t, open] = await Promise.all([
      buildTestApp({ MNEMO_WEBHOOKS_ALLOW_HTTP: '1' }, { webhookDelivery: { resolve } }),
      buildTestApp(OPEN, { webhookDelivery: { resolve } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([t?.close(), open?.close()]);
  });

  test.each(Object.keys(names))('%s: refused, nothing sent', async (name) => {
    const who = await owner(t);
    const id = await subscribe(t, who, `http://${name}:${receiver.port}/hooks`);
    const res = await call(t, who.token, 'POST', `${who.base}/${id}/test`);
    expect((res.body as { delivery: unknown }).delivery).toMatchObject({
      status: 'failed',
      responseStatus: null,
      error: `refused: ${name} resolves to ${expected[name]} address`,
    });
    expect(receiver.received).toEqual([]);
  });

  test('localhost, by the system’s resolver: refused', async () => {
    const system = await buildTestApp({ MNEMO_WEBHOOKS_ALLOW_HTTP: '1' });
    try {
      const who = await owner(system);
      const id = await subscribe(system, who, `http://localhost:${receiver.port}/hooks`);
      const res = await call(system, who.token, 'POST', `${who.base}/${id}/test`);
      expect((res.body as { delivery: { error: string } }).delivery.error).toMatch(
        /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
      );
      expect(receiver.received).toEqual([]);
    } finally {
      await system.close();
    }
  });

  test('a name the DNS does not know: a failed attempt that says so', async () => {
    const who = await owner(t);
    const id = await subscribe(t, who, `http://nowhere.test:${receiver.port}/hooks`);
    const res = await call(t, who.token, 'POST', `${who.base}/${id}/test`);
    expect((res.body as { delivery: { error: string } }).delivery.error).toMatch(/ENOTFOUND/);
  });

  test('allowed, a name is reached at the address checked: no second look-up', async () => {
    const who = await owner(open);
    // Only the test's DNS knows receiver.test: the connection went where it said.
    const id = await subscribe(open, who, `http://receiver.test:${receiver.port}/hooks`);
    const res = await call(open, who.token, 'POST', `${who.base}/${id}/test`);
    expect((res.body as { delivery: unknown }).delivery).toMatchObject({
      status: 'delivered',
      responseStatus: 204,
    });
    expect(receiver.received.map((d) => [d.headers.host, d.verified])).toEqual([
      [`receiver.test:${receiver.port}`, true],
    ]);
  });

  test('an address, or plain http, the operator no longer allows: refused before connecting', async () => {
    const strict = await buildTestApp();
    try {
      const who = await owner(strict);
      const maker = await owner(open);
      for (const [url, error] of [
        [
          `https://127.0.0.1:${receiver.port}/hooks`,
          'refused: url must not name a loopback, private, link-local, metadata or other special-use address',
        ],
        [
          `http://hooks.example.test:${receiver.port}/hooks`,
          'refused: url must use https (this server does not send webhooks over plain http)',
        ],
      ]) {
        // Made while the operator allowed it.
        const id = await subscribe(open, maker, receiver.url);
        const row = await open.database.db
          .selectFrom('webhooks')
          .selectAll()
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        await strict.database.db
          .insertInto('webhooks')
          .values({ ...row, id, org_id: who.orgId, url: url as string })
          .execute();
        const res = await call(strict, who.token, 'POST', `${who.base}/${id}/test`);
        expect((res.body as { delivery: unknown }).delivery, url).toMatchObject({
          status: 'failed',
          error,
        });
      }
      expect(receiver.received).toEqual([]);
    } finally {
      await strict.close();
    }
  });
});
