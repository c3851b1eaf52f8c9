/**
 * The webhooks API through HTTP, on the suite's engine: made (the secret shown once, kept sealed),
 * listed, read, changed, disabled and enabled again, its secret replaced, deleted with what it
 * had to send; a test event and its outcome; the delivery log a page at a time; redelivery; who
 * may (owners and admins); every refusal, each with what it says; 405s; the audit log.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { OPERATOR_ACTOR_ID } from '../audit/index.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { auditTrail, call } from '../testing/management-client.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { Webhook } from './webhook-secrets.ts';
import { FORBIDDEN_ADDRESS } from './webhook-targets.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** An app that sends to loopback over http (tests' receivers), and one as production is. */
let t: TestApp;
let strict: TestApp;
let receiver: WebhookReceiver;
beforeAll(async () => {
  [t, strict, receiver] = await Promise.all([
    buildTestApp(
      { MNEMO_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1', MNEMO_WEBHOOKS_ALLOW_HTTP: '1' },
      { webhookDelivery: { pollMs: 50 } },
    ),
    buildTestApp(),
    startWebhookReceiver(),
  ]);
});
afterAll(async () => {
  await Promise.all([t?.close(), strict?.close(), receiver?.close()]);
});
afterEach(() => {
  receiver.received.length = 0;
  receiver.answer(() => ({ status: 204 }));
});

async function org(app: TestApp = t) {
  const orgId = await app.fixtures.org({ name: 'Acme' });
  const owner = await app.fixtures.user(orgId, 'owner');
  const admin = await app.fixtures.user(orgId, 'admin');
  const member = await app.fixtures.user(orgId, 'member');
  const base = `/api/v1/orgs/${orgId}/webhooks`;
  return { orgId, owner, admin, member, base, one: (id: string) => `${base}/${id}` };
}
type Org = Awaited<ReturnType<typeof org>>;

async function create(o: Org, body: Record<string, unknown> = {}) {
  const res = await call(t, o.owner.token, 'POST', o.base, { url: receiver.url, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { webhook, secret } = res.body as { webhook: { id: string }; secret: string };
  receiver.setSecret(secret);
  return { ...(res.body as { webhook: Record<string, unknown> }), id: webhook.id, secret };
}

describe('making and reading', () => {
  test('201 with the webhook and its secret, shown this once; the store keeps it sealed', async () => {
    const o = await org();
    const project = await t.fixtures.project(o.orgId);
    const res = await call(t, o.admin.token, 'POST', o.base, {
      url: 'https://hooks.example.test/mnemo',
      events: ['memory.created', 'memory.deleted', 'memory.created'],
      project,
      description: 'CRM sync',
    });
    expect(res).toEqual({
      status: 201,
      body: {
        webhook: {
          id: expect.stringMatching(UUID),
          url: 'https://hooks.example.test/mnemo',
          description: 'CRM sync',
          events: ['memory.created', 'memory.deleted'],
          project,
          enabled: true,
          disabledReason: null,
          disabledAt: null,
          createdAt: expect.stringMatching(TIMESTAMP),
          updatedAt: expect.stringMatching(TIMESTAMP),
        },
        secret: expect.stringMatching(SECRET),
      },
    });
    const { webhook, secret } = res.body as { webhook: { id: string }; secret: string };
    expect(await call(t, o.owner.token, 'GET', o.one(webhook.id))).toEqual({
      status: 200,
      body: { webhook: (res.body as { webhook: unknown }).webhook },
    });
    const minimal = await create(o);
    expect(minimal.webhook).toEqual({
      id: minimal.id,
      url: receiver.url,
      events: null,
      project: null,
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const list = await call(t, o.member.token === '' ? '' : o.owner.token, 'GET', o.base);
    expect(list).toEqual({
      status: 200,
      body: {
        webhooks: [(res.body as { webhook: unknown }).webhook, minimal.webhook],
      },
    });
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const row = await t.database.db
      .selectFrom('webhooks')
      .select('secret')
      .where('id', '=', webhook.id)
      .executeTakeFirstOrThrow();
    // A compact JWE of direct encryption: header, no wrapped key, IV, ciphertext, tag.
    expect(row.secret).toMatch(/^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(row.secret).not.toContain(secret.slice('whsec_'.length, 20));
  });

  test('members may not: 403 on every route; another organization’s webhook is 404', async () => {
    const o = await org();
    const { id } = await create(o);
    const forbidden = (what: string) => ({
      status: 403,
      body: { error: `only owners and admins can ${what}` },
    });
    const m = o.member.token;
    expect(await call(t, m, 'GET', o.base)).toEqual(forbidden('list webhooks'));
    expect(await call(t, m, 'POST', o.base, { url: receiver.url })).toEqual(
      forbidden('manage webhooks'),
    );
    expect(await call(t, m, 'GET', o.one(id))).toEqual(forbidden('read webhooks'));
    expect(await call(t, m, 'PATCH', o.one(id), { enabled: false })).toEqual(
      forbidden('manage webhooks'),
    );
    expect(await call(t, m, 'DELETE', o.one(id))).toEqual(forbidden('manage webhooks'));
    expect(await call(t, m, 'POST', `${o.one(id)}/secret`)).toEqual(forbidden('manage webhooks'));
    expect(await call(t, m, 'POST', `${o.one(id)}/test`)).toEqual(forbidden('test webhooks'));
    expect(await call(t, m, 'GET', `${o.one(id)}/deliveries`)).toEqual(
      forbidden('read webhook deliveries'),
    );
    expect(await call(t, m, 'POST', `${o.one(id)}/deliveries/${id}/redeliver`)).toEqual(
      forbidden('manage webhooks'),
    );

    const other = await org();
    const notFound = { status: 404, body: { error: 'webhook not found' } };
    expect(await call(t, other.owner.token, 'GET', other.one(id))).toEqual(notFound);
    expect(await call(t, other.owner.token, 'PATCH', other.one(id), { enabled: false })).toEqual(
      notFound,
    );
    expect(await call(t, other.owner.token, 'DELETE', other.one(id))).toEqual(notFound);
    expect(await call(t, other.owner.token, 'POST', `${other.one(id)}/test`)).toEqual(notFound);
    expect(await call(t, o.owner.token, 'GET', o.one('not-a-uuid'))).toEqual(notFound);
    expect(await call(t, o.owner.token, 'GET', `${o.one(id)}/deliveries?cursor=abc`)).toEqual({
      status: 400,
      body: { error: 'invalid cursor' },
    });
  });
});

describe('refusals', () => {
  const refused = (error: string) => ({ status: 400, body: { error } });

  test('a URL that is not https, carries credentials, or names a forbidden address', async () => {
    const o = await org(strict);
    const post = (body: Record<string, unknown>) =>
      call(strict, o.owner.token, 'POST', o.base, body);
    expect(await post({ url: 'http://hooks.example.test/' })).toEqual(
      refused('url must use https (this server does not send webhooks over plain http)'),
    );
    expect(await post({ url: 'ftp://hooks.example.test/' })).toEqual(
      refused('url must be an absolute https:// URL'),
    );
    expect(await post({ url: 'https://' })).toEqual(
      refused('url must be an absolute https:// URL'),
    );
    expect(await post({ url: 'https://[nope/' })).toEqual(
      refused('url must be an absolute https:// URL'),
    );
    expect(await post({ url: 'https://user:pw@hooks.example.test/' })).toEqual(
      refused('url must not contain a user name or password'),
    );
    for (const host of [
      '127.0.0.1',
      '127.8.9.10',
      '[::1]',
      '0.0.0.0',
      '[::]',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '[fc00::1]',
      '[fd12:3456::1]',
      '169.254.169.254',
      '169.254.1.1',
      '[fe80::1]',
      '[fd00:ec2::254]',
      '100.64.0.1',
      '224.0.0.251',
      '[ff02::1]',
      '255.255.255.255',
      '[::ffff:127.0.0.1]',
      '[::ffff:169.254.169.254]',
      '[64:ff9b::10.0.0.1]',
      // Spellings the URL parser turns into an address.
      '2130706433',
      '0x7f.1',
    ]) {
      expect(await post({ url: `https://${host}/hook` }), host).toEqual(refused(FORBIDDEN_ADDRESS));
    }
    // A name is resolved, and checked, when a delivery is made: accepted here.
    expect((await post({ url: 'https://localhost/hook' })).status).toBe(201);
    expect((await post({ url: 'https://93.184.216.34/hook' })).status).toBe(201);
    expect((await post({ url: 'https://[2606:4700::1111]/hook' })).status).toBe(201);
    // With the operator's leave, both.
    const open = await org();
    expect(
      (await call(t, open.owner.token, 'POST', open.base, { url: 'http://127.0.0.1:9/hook' }))
        .status,
    ).toBe(201);
    expect(await strict.database.db.selectFrom('webhooks').select('url').execute()).toHaveLength(3);
  });

  test('events, project and fields as the schema states them', async () => {
    const o = await org();
    const post = (body: Record<string, unknown>) => call(t, o.owner.token, 'POST', o.base, body);
    expect(await post({ url: receiver.url, events: [] })).toEqual(
      refused('events must name at least one event type'),
    );
    expect((await post({ url: receiver.url, events: ['memory.exploded'] })).status).toBe(400);
    expect((await post({ url: receiver.url, secret: 'mine' })).status).toBe(400);
    expect((await post({})).status).toBe(400);
    const project = await t.fixtures.project(o.orgId);
    expect(
      await post({ url: receiver.url, project, events: ['memory.created', 'end_user.erased'] }),
    ).toEqual(
      refused(
        "a project's webhook takes only memory and store events: end_user events are the organization's",
      ),
    );
    const elsewhere = await t.fixtures.project((await org()).orgId);
    expect(await post({ url: receiver.url, project: elsewhere })).toEqual({
      status: 404,
      body: { error: 'project not found' },
    });
    const { id } = await create(o, { project });
    expect(await call(t, o.owner.token, 'PATCH', o.one(id), {})).toEqual(
      refused('at least one of url, events, description or enabled is required'),
    );
    expect(
      await call(t, o.owner.token, 'PATCH', o.one(id), { events: ['end_user.registered'] }),
    ).toEqual(
      refused(
        "a project's webhook takes only memory and store events: end_user events are the organization's",
      ),
    );
  });

  test('methods a path does not serve: 405 with Allow', async () => {
    const o = await org();
    const { id } = await create(o);
    for (const [method, url, allow] of [
      ['PUT', o.base, 'GET, POST, HEAD'],
      ['POST', o.one(id), 'GET, PATCH, DELETE, HEAD'],
      ['GET', `${o.one(id)}/secret`, 'POST'],
      ['GET', `${o.one(id)}/test`, 'POST'],
      ['DELETE', `${o.one(id)}/deliveries`, 'GET, HEAD'],
      ['GET', `${o.one(id)}/deliveries/${id}/redeliver`, 'POST'],
    ] as const) {
      const res = await t.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${o.owner.token}` },
      });
      expect([res.statusCode, res.headers.allow, res.json()], `${method} ${url}`).toEqual([
        405,
        allow,
        { error: 'method not allowed' },
      ]);
    }
  });
});

describe('changing, disabling, deleting', () => {
  test('PATCH changes what it names; disabling and enabling again keep why and when; audited', async () => {
    const o = await org();
    const { id, webhook } = await create(o, { description: 'first' });
    const patch = (body: Record<string, unknown>) =>
      call(t, o.owner.token, 'PATCH', o.one(id), body);
    const changed = await patch({
      url: `${receiver.url}/v2`,
      events: ['memory.updated'],
      description: null,
    });
    expect(changed).toEqual({
      status: 200,
      body: {
        webhook: {
          ...webhook,
          url: `${receiver.url}/v2`,
          events: ['memory.updated'],
          description: undefined,
          updatedAt: expect.stringMatching(TIMESTAMP),
        },
      },
    });
    expect((changed.body as { webhook: object }).webhook).not.toHaveProperty('description');
    const disabled = await patch({ enabled: false });
    expect((disabled.body as { webhook: unknown }).webhook).toMatchObject({
      enabled: false,
      disabledReason: 'disabled by an owner or admin',
      disabledAt: expect.stringMatching(TIMESTAMP),
    });
    expect(
      ((await patch({ enabled: true, events: null })).body as { webhook: unknown }).webhook,
    ).toMatchObject({
      events: null,
      enabled: true,
      disabledReason: null,
      disabledAt: null,
    });
    // A PATCH that changes nothing is no act.
    await patch({ enabled: true });
    const trail = (await auditTrail(t, o.orgId)).filter((row) => row.action.startsWith('webhook.'));
    expect(trail).toEqual([
      {
        actorId: o.owner.id,
        targetId: id,
        action: 'webhook.create',
        details: { webhookId: id, url: receiver.url, events: null, project: null },
      },
      {
        actorId: o.owner.id,
        targetId: id,
        action: 'webhook.update',
        details: {
          webhookId: id,
          url: { from: receiver.url, to: `${receiver.url}/v2` },
          events: { from: null, to: '["memory.updated"]' },
          description: { from: 'first', to: null },
        },
      },
      {
        actorId: o.owner.id,
        targetId: id,
        action: 'webhook.update',
        details: { webhookId: id, enabled: { from: 1, to: 0 } },
      },
      {
        actorId: o.owner.id,
        targetId: id,
        action: 'webhook.update',
        details: {
          webhookId: id,
          events: { from: '["memory.updated"]', to: null },
          enabled: { from: 0, to: 1 },
        },
      },
    ]);
  });

  test('a disabled webhook records nothing; enabled again, what waited goes out', async () => {
    const o = await org();
    const { id } = await create(o);
    const who = { orgId: o.orgId, token: o.owner.token };
    await call(t, o.owner.token, 'PATCH', o.one(id), { enabled: false });
    await t.request(who, { method: 'POST', url: '/api/v1/memory', payload: { content: 'Unsent' } });
    await call(t, o.owner.token, 'PATCH', o.one(id), { enabled: true });
    await t.request(who, { method: 'POST', url: '/api/v1/memory', payload: { content: 'Sent' } });
    const [got] = await receiver.waitFor(1);
    expect((got?.event.data.memory as { content: string }).content).toBe('Sent');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(receiver.received).toHaveLength(1);
  });

  test('a new secret signs from now on; the old one no longer verifies', async () => {
    const o = await org();
    const { id, secret, webhook } = await create(o);
    const rotated = await call(t, o.owner.token, 'POST', `${o.one(id)}/secret`);
    expect(rotated).toEqual({
      status: 200,
      body: {
        webhook: { ...webhook, updatedAt: expect.stringMatching(TIMESTAMP) },
        secret: expect.stringMatching(SECRET),
      },
    });
    const fresh = (rotated.body as { secret: string }).secret;
    expect(fresh).not.toBe(secret);
    receiver.setSecret(fresh);
    const test_ = await call(t, o.owner.token, 'POST', `${o.one(id)}/test`);
    expect((test_.body as { delivery: { status: string } }).delivery.status).toBe('delivered');
    const [got] = receiver.received;
    expect(got?.verified).toBe(true);
    expect(() =>
      new Webhook(secret).verify(got?.body ?? '', {
        'webhook-id': got?.id ?? '',
        'webhook-timestamp': got?.timestamp ?? '',
        'webhook-signature': String(got?.headers['webhook-signature']),
      }),
    ).toThrow('No matching signature found');
    expect((await auditTrail(t, o.orgId)).map((row) => row.action)).toContain('webhook.secret');
  });

  test('DELETE drops what it had to send, and its log; again: 404', async () => {
    const o = await org();
    const { id } = await create(o);
    const kept = await create(o, { url: `${receiver.url}/kept` });
    receiver.answer(() => ({ status: 500 }));
    const who = { orgId: o.orgId, token: o.owner.token };
    await t.request(who, { method: 'POST', url: '/api/v1/memory', payload: { content: 'Held' } });
    await receiver.waitFor(2);
    expect(await call(t, o.owner.token, 'DELETE', o.one(id))).toEqual({
      status: 200,
      body: { ok: true },
    });
    expect(await call(t, o.owner.token, 'DELETE', o.one(id))).toEqual({
      status: 404,
      body: { error: 'webhook not found' },
    });
    const rows = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('webhook_id')
      .where('webhook_id', 'in', [id, kept.id])
      .execute();
    expect(rows).toEqual([{ webhook_id: kept.id }]);
    // Its event stays for the other webhook only; deleting that one too leaves nothing.
    await call(t, o.owner.token, 'DELETE', o.one(kept.id));
    const events = await t.database.db
      .selectFrom('webhook_events')
      .select('seq')
      .where('org_id', '=', o.orgId)
      .execute();
    expect(events).toEqual([]);
    const trail = (await auditTrail(t, o.orgId)).filter((r) => r.action === 'webhook.delete');
    expect(trail).toEqual([
      {
        actorId: o.owner.id,
        targetId: id,
        action: 'webhook.delete',
        details: { webhookId: id, url: receiver.url },
      },
      {
        actorId: o.owner.id,
        targetId: kept.id,
        action: 'webhook.delete',
        details: { webhookId: kept.id, url: `${receiver.url}/kept` },
      },
    ]);
  });
});

/** Waits until every delivery of the webhook is recorded as delivered (after its 2xx). */
async function allDelivered(o: Org, id: string) {
  for (let i = 0; i < 100; i++) {
    const log = await call(t, o.owner.token, 'GET', `${o.one(id)}/deliveries`);
    const { deliveries } = log.body as { deliveries: { status: string }[] };
    if (deliveries.every((d) => d.status === 'delivered')) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('deliveries not recorded as delivered');
}

describe('a test event, the log, redelivery', () => {
  test('a test: webhook.test now, signed; the answer is the attempt’s outcome', async () => {
    const o = await org();
    const { id } = await create(o);
    receiver.answer(() => ({ status: 200, body: 'thanks' }));
    const res = await call(t, o.admin.token, 'POST', `${o.one(id)}/test`);
    expect(res).toEqual({
      status: 200,
      body: {
        delivery: {
          id: expect.stringMatching(UUID),
          eventId: expect.stringMatching(UUID),
          type: 'webhook.test',
          status: 'delivered',
          attempts: 1,
          responseStatus: 200,
          latencyMs: expect.any(Number),
          error: null,
          response: 'thanks',
          redeliverable: false,
          createdAt: expect.stringMatching(TIMESTAMP),
          lastAttemptAt: expect.stringMatching(TIMESTAMP),
          nextAttemptAt: null,
          deliveredAt: expect.stringMatching(TIMESTAMP),
        },
      },
    });
    const delivery = (res.body as { delivery: { eventId: string; createdAt: string } }).delivery;
    const [got] = receiver.received;
    expect(got?.verified).toBe(true);
    expect(got?.id).toBe(delivery.eventId);
    expect(got?.event).toEqual({
      type: 'webhook.test',
      timestamp: delivery.createdAt,
      data: { webhook: { id } },
    });
    // A failing endpoint: failed, once, with what it answered.
    receiver.answer(() => ({ status: 500, body: 'x'.repeat(5000) }));
    const failed = await call(t, o.owner.token, 'POST', `${o.one(id)}/test`);
    expect((failed.body as { delivery: unknown }).delivery).toMatchObject({
      status: 'failed',
      attempts: 1,
      responseStatus: 500,
      error: 'HTTP 500',
      response: 'x'.repeat(1024),
      nextAttemptAt: null,
      deliveredAt: null,
      redeliverable: false,
    });
    const failedId = (failed.body as { delivery: { id: string } }).delivery.id;
    expect(
      await call(t, o.owner.token, 'POST', `${o.one(id)}/deliveries/${failedId}/redeliver`),
    ).toEqual({
      status: 409,
      body: { error: 'a test delivery is not sent again: send another test' },
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(receiver.received).toHaveLength(2);
  });

  test('the log: newest first, a page at a time; a delivered event is not sent again, a waiting one is', async () => {
    const o = await org();
    const { id } = await create(o);
    const who = { orgId: o.orgId, token: o.owner.token, userId: o.owner.id };
    for (const content of ['one', 'two', 'three']) {
      await t.request(who, { method: 'POST', url: '/api/v1/memory', payload: { content } });
    }
    await receiver.waitFor(3);
    await allDelivered(o, id);
    const page = await call(t, o.owner.token, 'GET', `${o.one(id)}/deliveries?limit=2`);
    const first = page.body as { deliveries: Record<string, unknown>[]; cursor: string };
    expect(first.deliveries.map((d) => [d.type, d.status, d.attempts])).toEqual([
      ['memory.created', 'delivered', 1],
      ['memory.created', 'delivered', 1],
    ]);
    expect(first.deliveries[0]).toEqual({
      id: expect.stringMatching(UUID),
      eventId: receiver.received[2]?.id,
      type: 'memory.created',
      store: { user: o.owner.id },
      status: 'delivered',
      attempts: 1,
      responseStatus: 204,
      latencyMs: expect.any(Number),
      error: null,
      response: null,
      redeliverable: false,
      createdAt: expect.stringMatching(TIMESTAMP),
      lastAttemptAt: expect.stringMatching(TIMESTAMP),
      nextAttemptAt: null,
      deliveredAt: expect.stringMatching(TIMESTAMP),
    });
    const rest = await call(
      t,
      o.owner.token,
      'GET',
      `${o.one(id)}/deliveries?limit=2&cursor=${first.cursor}`,
    );
    const second = rest.body as { deliveries: { id: string; eventId: string }[]; cursor?: string };
    expect(second.deliveries.map((d) => d.eventId)).toEqual([receiver.received[0]?.id]);
    expect(second.cursor).toBeUndefined();

    const delivered = second.deliveries[0]?.id ?? '';
    expect(
      await call(t, o.owner.token, 'POST', `${o.one(id)}/deliveries/${delivered}/redeliver`),
    ).toEqual({
      status: 409,
      body: {
        error: 'a delivered event is not sent again: its body is not kept once it is delivered',
      },
    });
    expect(await call(t, o.owner.token, 'POST', `${o.one(id)}/deliveries/${id}/redeliver`)).toEqual(
      { status: 404, body: { error: 'delivery not found' } },
    );

    // A failing endpoint: the delivery retries; redelivered, it is due at once.
    receiver.received.length = 0;
    receiver.answer((_, index) => ({ status: index === 0 ? 500 : 204 }));
    await t.request(who, { method: 'POST', url: '/api/v1/memory', payload: { content: 'four' } });
    await receiver.waitFor(1);
    let waiting: { id: string; status: string; redeliverable: boolean } | undefined;
    for (let i = 0; i < 50 && waiting?.status !== 'retrying'; i++) {
      const log = await call(t, o.owner.token, 'GET', `${o.one(id)}/deliveries?limit=1`);
      waiting = (log.body as { deliveries: (typeof waiting)[] }).deliveries[0];
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(waiting).toMatchObject({ status: 'retrying', redeliverable: true });
    const again = await call(
      t,
      o.owner.token,
      'POST',
      `${o.one(id)}/deliveries/${waiting?.id}/redeliver`,
    );
    expect(again.status).toBe(200);
    expect((again.body as { delivery: unknown }).delivery).toMatchObject({
      id: waiting?.id,
      status: 'pending',
      attempts: 1,
      responseStatus: 500,
      error: 'HTTP 500',
    });
    const [, redelivered] = await receiver.waitFor(2);
    expect(redelivered?.id).toBe(receiver.received[0]?.id);
    expect(redelivered?.verified).toBe(true);
  });
});

test('a webhook disabled by its failures is audited as mnemo’s own act', async () => {
  // (webhook-delivery.test.ts runs the schedule; here: what the audit log and the API show.)
  const app = await buildTestApp(
    { MNEMO_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1', MNEMO_WEBHOOKS_ALLOW_HTTP: '1' },
    {
      webhookDelivery: {
        pollMs: 20,
        schedule: { delaysMs: [10], repeatMs: [10, 10], windowMs: 50, jitter: 0 },
      },
    },
  );
  try {
    const orgId = await app.fixtures.org();
    const owner = await app.fixtures.user(orgId, 'owner');
    receiver.answer(() => ({ status: 503 }));
    const made = await call(app, owner.token, 'POST', `/api/v1/orgs/${orgId}/webhooks`, {
      url: receiver.url,
    });
    const id = (made.body as { webhook: { id: string } }).webhook.id;
    await app.request(
      { orgId, token: owner.token },
      { method: 'POST', url: '/api/v1/memory', payload: { content: 'Never arrives' } },
    );
    let webhook: Record<string, unknown> = {};
    for (let i = 0; i < 200 && webhook.enabled !== false; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      webhook = (
        (await call(app, owner.token, 'GET', `/api/v1/orgs/${orgId}/webhooks/${id}`)).body as {
          webhook: Record<string, unknown>;
        }
      ).webhook;
    }
    expect(webhook).toMatchObject({
      enabled: false,
      disabledReason: expect.stringMatching(
        /^deliveries failed for \d+ seconds? \(last: HTTP 503\)$/,
      ),
      disabledAt: expect.stringMatching(TIMESTAMP),
    });
    const trail = (await auditTrail(app, orgId)).filter((r) => r.action === 'webhook.disable');
    expect(trail).toEqual([
      {
        actorId: OPERATOR_ACTOR_ID,
        targetId: id,
        action: 'webhook.disable',
        details: { webhookId: id, reason: webhook.disabledReason },
      },
    ]);
  } finally {
    await app.close();
  }
});
