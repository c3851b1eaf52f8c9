/**
 * Settings › Webhooks in a real browser, against a real mnemo whose delivery worker sends to a
 * real receiver on loopback (src/testing/webhook-receiver.ts), which verifies every signature
 * with the Standard Webhooks library.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import {
  type Answer,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../src/testing/webhook-receiver.ts';
import { DESKTOP, ok, PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

interface ListedWebhook {
  id: string;
  url: string;
  description?: string;
  events: string[] | null;
  project: string | null;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: string | null;
}

interface LoggedDelivery {
  id: string;
  eventId: string;
  type: string;
  status: string;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
}

const HOUR = 3_600_000;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const PATH = '/settings/webhooks';

let t: StudioTest;
let receiver: WebhookReceiver;
/** How the receiver answers each path under /hooks; 204 for any other. */
const answers = new Map<string, Answer>();

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiver.answer((delivery) => answers.get(delivery.path) ?? { status: 204 });
  t = await startStudioTest({
    // Loopback over http, as the receiver is; as production refuses both by default.
    env: { MNEMO_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1', MNEMO_WEBHOOKS_ALLOW_HTTP: '1' },
    // A failed attempt is retried only after an hour: a test sees exactly the attempts it made.
    webhookDelivery: {
      pollMs: 100,
      schedule: {
        delaysMs: [HOUR],
        repeatMs: [2 * HOUR, 4 * HOUR],
        windowMs: 24 * HOUR,
        jitter: 0,
      },
    },
  });
});
// Each test drives a real browser through several page loads and sign-ins.
vi.setConfig({ testTimeout: 90_000 });
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const base = () => `/api/v1/orgs/${t.orgId}/webhooks`;

async function newPage(options?: Parameters<StudioTest['newPage']>[0]): Promise<Page> {
  const page = await t.newPage(options);
  page.setDefaultTimeout(20_000);
  return page;
}

/** A webhook made through the API, as an owner's script would; the receiver gets its secret. */
async function made(path: string, body: Record<string, unknown> = {}) {
  const answer = await ok<{ webhook: ListedWebhook; secret: string }>(
    t.api(t.owner.id, 'POST', base(), { url: `${receiver.url}${path}`, ...body }),
  );
  receiver.setSecret(answer.secret, `/hooks${path}`);
  return answer.webhook;
}

const webhookOf = async (id: string) =>
  (await ok<{ webhook: ListedWebhook }>(t.api(t.owner.id, 'GET', `${base()}/${id}`))).webhook;

const deliveriesOf = async (id: string) =>
  (
    await ok<{ deliveries: LoggedDelivery[] }>(
      t.api(t.owner.id, 'GET', `${base()}/${id}/deliveries`),
    )
  ).deliveries;

const remember = (content: string) => ok(t.api(t.owner.id, 'POST', '/api/v1/memory', { content }));

/** What the receiver got at `/hooks{path}`, once `count` deliveries came. */
const receivedAt = (path: string, count: number) =>
  receiver.waitFor(count, { filter: (d) => d.path === `/hooks${path}`, timeoutMs: 15_000 });

/** The log's row of a delivery, by its event type (and the n-th such, newest first). */
const logRow = (page: Page, type: string, nth = 0) =>
  page
    .getByRole('region', { name: 'Delivery log' })
    .getByRole('row')
    .filter({ has: page.getByText(type, { exact: true }) })
    .nth(nth);

/** A row's cells as the person reads them: event, status, attempts, response, latency. */
async function cellsOf(page: Page, type: string, nth = 0) {
  const cells = await logRow(page, type, nth).getByRole('cell').allTextContents();
  return cells.slice(0, 4);
}

/** Everything the page could still hold: its markup and both storages. */
const pageHolds = async (page: Page, text: string) =>
  (await page.content()).includes(text) ||
  (await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))).includes(
    text,
  );

const noOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

const card = (page: Page, name: string) => page.getByRole('article', { name, exact: true });

test('a webhook made in the page shows its secret once; a memory reaches the receiver and the log shows it delivered; Send test shows the attempt', async () => {
  answers.set('/hooks/crm', { status: 202, body: 'queued for the CRM' });
  const page = await newPage();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  await t.signIn(page, '/settings');
  await page.getByRole('heading', { level: 1, name: 'API Keys' }).waitFor();

  // A fourth place in the settings' own navigation.
  const nav = page.getByRole('navigation', { name: 'Settings' });
  expect(await nav.getByRole('link').allTextContents()).toEqual([
    'API Keys',
    'Connected apps',
    'Apps',
    'Webhooks',
  ]);
  const link = nav.getByRole('link', { name: 'Webhooks' });
  await link.click();
  await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/studio${PATH}`);
  expect(await link.getAttribute('aria-current')).toBe('page');
  expect(await page.title()).toBe('Webhooks · mnemo studio');
  await page.getByRole('region', { name: 'No webhooks yet' }).waitFor();
  expect(await t.axe(page)).toEqual([]);

  await page.getByRole('button', { name: 'Add webhook' }).click();
  const form = page.getByRole('dialog', { name: 'Add webhook' });
  const url = form.getByRole('textbox', { name: 'Endpoint URL' });
  await expect.poll(() => url.evaluate((el) => el === document.activeElement)).toBe(true);
  // A URL is needed before anything is sent.
  await form.getByRole('button', { name: 'Add webhook' }).click();
  await form
    .getByText('Give the address mnemo sends events to, such as https://example.com/hooks.')
    .waitFor();
  expect(await url.getAttribute('aria-invalid')).toBe('true');
  await url.fill(`${receiver.url}/crm`);
  await form.getByRole('textbox', { name: 'Description (optional)' }).fill('CRM sync');
  // The seven types; none ticked is every event.
  const boxes = form.getByRole('group', { name: 'Events' }).getByRole('checkbox');
  expect(await boxes.count()).toBe(7);
  await form.getByRole('checkbox', { name: 'memory.created' }).check();
  await form.getByRole('checkbox', { name: 'memory.deleted' }).check();
  expect(
    await form.getByRole('combobox', { name: 'Project' }).locator('option').first().textContent(),
  ).toBe('Whole organization');
  expect(await t.axe(page)).toEqual([]);
  await form.getByRole('button', { name: 'Add webhook' }).click();

  const shown = page.getByRole('dialog', { name: 'Save the signing secret' });
  const secretBox = shown.getByRole('textbox', { name: 'Signing secret' });
  await secretBox.waitFor();
  const secret = await secretBox.inputValue();
  expect(secret).toMatch(SECRET);
  expect(await shown.getByRole('textbox', { name: 'Endpoint URL' }).inputValue()).toBe(
    `${receiver.url}/crm`,
  );
  await expect.poll(() => secretBox.evaluate((el) => el === document.activeElement)).toBe(true);
  expect(await shown.textContent()).toContain('It will not be shown again.');
  expect(await t.axe(page)).toEqual([]);
  // Escape does not take the secret away before the person is done with it.
  await page.keyboard.press('Escape');
  expect(await secretBox.inputValue()).toBe(secret);
  await shown.getByRole('button', { name: 'Copy signing secret' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await shown.getByRole('button', { name: 'Done' }).click();
  await shown.waitFor({ state: 'hidden' });
  await page
    .getByRole('status')
    .getByText('“CRM sync” is added: mnemo sends it events from now on.')
    .waitFor();
  // Not shown again: not in the page, not in storage, not in the API's answers.
  expect(await pageHolds(page, secret)).toBe(false);
  const [webhook] = (await ok<{ webhooks: ListedWebhook[] }>(t.api(t.owner.id, 'GET', base())))
    .webhooks;
  expect(webhook).toMatchObject({
    url: `${receiver.url}/crm`,
    description: 'CRM sync',
    events: ['memory.created', 'memory.deleted'],
    project: null,
    enabled: true,
  });
  expect(JSON.stringify(webhook)).not.toContain(secret);
  const id = webhook?.id as string;

  const crm = card(page, 'CRM sync');
  expect(
    await crm.getByRole('list', { name: 'Event types' }).getByRole('listitem').allTextContents(),
  ).toEqual(['memory.created', 'memory.deleted']);
  expect(await crm.textContent()).toContain('Whole organization');
  expect(await crm.getByText('Enabled', { exact: true }).count()).toBe(1);

  // A memory added through the API reaches the receiver, signed with the secret shown.
  receiver.setSecret(secret, '/hooks/crm');
  await remember('Prefers window seats');
  const [arrived] = await receivedAt('/crm', 1);
  expect(arrived?.verified).toBe(true);
  expect(arrived?.event.type).toBe('memory.created');
  expect((arrived?.event.data.memory as { content: string }).content).toBe('Prefers window seats');

  await crm.getByRole('link', { name: 'CRM sync' }).click();
  await page.getByRole('heading', { level: 1, name: 'CRM sync' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/studio${PATH}/${id}`);
  // The log, read again on its own, shows the delivery as the endpoint answered it.
  await expect
    .poll(() => cellsOf(page, 'memory.created'))
    .toEqual(['memory.created', 'Delivered', '1', '202']);
  const row = logRow(page, 'memory.created');
  expect(await row.getByRole('cell').nth(4).textContent()).toMatch(/^\d+ ms$/);
  const details = row.getByRole('button', { name: 'Details' });
  expect(await details.getAttribute('aria-expanded')).toBe('false');
  await details.click();
  expect(await details.getAttribute('aria-expanded')).toBe('true');
  const opened = page.locator(`[id="${await details.getAttribute('aria-controls')}"]`);
  expect(await opened.locator('pre').textContent()).toBe('queued for the CRM');
  expect(await opened.textContent()).toContain(arrived?.id as string);
  // Delivered, its body is no longer kept: nothing to send again.
  expect(await row.getByRole('button', { name: 'Redeliver' }).count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);

  // Send test: the attempt's outcome, at once.
  await page.getByRole('button', { name: 'Send test' }).click();
  const outcome = page.getByRole('region', { name: 'Test delivery' });
  await outcome.getByRole('heading', { name: 'The test event was delivered' }).waitFor();
  const facts = await outcome.locator('dd').allTextContents();
  expect(facts.slice(0, 2)).toEqual(['Delivered', '202']);
  expect(facts[2]).toMatch(/^\d+ ms$/);
  const [, tested] = await receivedAt('/crm', 2);
  expect(tested?.event.type).toBe('webhook.test');
  expect(tested?.verified).toBe(true);
  await expect
    .poll(() => cellsOf(page, 'webhook.test'))
    .toEqual(['webhook.test', 'Delivered', '1', '202']);

  // Back to the list, and the webhook's page again by its address, reloaded.
  await page.goBack();
  await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/studio${PATH}`);
  await page.goForward();
  await page.getByRole('heading', { level: 1, name: 'CRM sync' }).waitFor();
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'CRM sync' }).waitFor();
  await logRow(page, 'webhook.test').waitFor();
});

test('a failing endpoint shows retrying with its error; Redeliver sends it again once it answers', async () => {
  answers.set('/hooks/failing', { status: 500, body: 'database is down' });
  const webhook = await made('/failing', { description: 'Search index' });
  await remember('Reads the replica until the backfill is verified');
  const [first] = await receivedAt('/failing', 1);
  await expect.poll(async () => (await deliveriesOf(webhook.id))[0]?.status).toBe('retrying');

  const page = await newPage();
  await t.signIn(page, `${PATH}/${webhook.id}`);
  await page.getByRole('heading', { level: 1, name: 'Search index' }).waitFor();
  await expect
    .poll(() => cellsOf(page, 'memory.created'))
    .toEqual(['memory.created', 'Retrying', '1', '500']);
  const row = logRow(page, 'memory.created');
  await row.getByRole('button', { name: 'Details' }).click();
  const details = page.locator('.webhooks-details');
  expect(await details.locator('dd').first().textContent()).toBe('HTTP 500');
  expect(await details.locator('pre').textContent()).toBe('database is down');
  expect(await details.textContent()).toContain('Next attempt');
  expect(await t.axe(page)).toEqual([]);

  // The endpoint is fixed; Redeliver sends the same event at once.
  answers.set('/hooks/failing', { status: 200, body: 'ok' });
  await row.getByRole('button', { name: 'Redeliver' }).click();
  await page
    .getByRole('status')
    .getByText('The memory.created event is being sent again, with a fresh 24 hours of retries.')
    .waitFor();
  const [, again] = await receivedAt('/failing', 2);
  expect(again?.id).toBe(first?.id);
  expect(again?.verified).toBe(true);
  await expect
    .poll(() => cellsOf(page, 'memory.created'))
    .toEqual(['memory.created', 'Delivered', '2', '200']);
  expect(await row.getByRole('button', { name: 'Redeliver' }).count()).toBe(0);
  expect(await deliveriesOf(webhook.id)).toEqual([
    expect.objectContaining({ status: 'delivered', attempts: 2, responseStatus: 200, error: null }),
  ]);
});

test('Disable and Enable, a new secret shown once, and Delete naming the URL', async () => {
  const webhook = await made('/toggle');
  const page = await newPage();
  await t.signIn(page, `${PATH}/${webhook.id}`);
  // No description: the webhook goes by its host.
  const host = new URL(receiver.url).host;
  await page.getByRole('heading', { level: 1, name: host }).waitFor();
  const about = page.getByRole('region', { name: 'Subscription' });
  expect(await about.textContent()).toContain('All events');

  await page.getByRole('button', { name: 'Disable' }).click();
  await page
    .getByRole('status')
    .getByText('Disabled: no events are recorded or sent until it is enabled again.')
    .waitFor();
  expect(await webhookOf(webhook.id)).toMatchObject({
    enabled: false,
    disabledReason: 'disabled by an owner or admin',
  });
  await about.getByText('Disabled', { exact: true }).waitFor();
  expect(await about.textContent()).toContain('Disabled by an owner or admin on');
  await page.getByRole('button', { name: 'Enable' }).click();
  await page
    .getByRole('status')
    .getByText('Enabled: events are recorded and sent again, starting with what waited.')
    .waitFor();
  expect(await webhookOf(webhook.id)).toMatchObject({
    enabled: true,
    disabledReason: null,
    disabledAt: null,
  });

  // A new secret, shown once; the next delivery is signed with it.
  await page.getByRole('button', { name: 'New secret' }).click();
  const ask = page.getByRole('dialog', { name: 'Replace the signing secret?' });
  await ask.getByRole('button', { name: 'Replace secret' }).click();
  const shown = page.getByRole('dialog', { name: 'Save the new signing secret' });
  const secret = await shown.getByRole('textbox', { name: 'Signing secret' }).inputValue();
  expect(secret).toMatch(SECRET);
  await shown.getByRole('button', { name: 'Done' }).click();
  await shown.waitFor({ state: 'hidden' });
  // Focus goes back to what opened the dialog.
  await expect
    .poll(() => page.evaluate(() => document.activeElement?.textContent))
    .toBe('New secret');
  expect(await pageHolds(page, secret)).toBe(false);
  receiver.setSecret(secret, '/hooks/toggle');
  await page.getByRole('button', { name: 'Send test' }).click();
  await page.getByRole('heading', { name: 'The test event was delivered' }).waitFor();
  const [tested] = await receivedAt('/toggle', 1);
  expect(tested?.verified).toBe(true);

  await page.getByRole('button', { name: 'Delete' }).click();
  const confirm = page.getByRole('dialog', { name: `Delete “${host}”?` });
  expect(await confirm.textContent()).toContain(`${receiver.url}/toggle`);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  expect((await t.api(t.owner.id, 'GET', `${base()}/${webhook.id}`)).status).toBe(200);
  await page.getByRole('button', { name: 'Delete' }).click();
  await confirm.getByRole('button', { name: 'Delete webhook' }).click();
  await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/studio${PATH}`);
  await page.getByText(`The webhook to ${receiver.url}/toggle is deleted.`).waitFor();
  expect((await t.api(t.owner.id, 'GET', `${base()}/${webhook.id}`)).status).toBe(404);
  expect(await page.getByRole('link', { name: host, exact: true }).count()).toBe(0);
  // Its page, asked for again, says it is gone.
  await page.goto(`${t.url}/studio${PATH}/${webhook.id}`);
  await page.getByRole('heading', { level: 1, name: 'Webhook not found' }).waitFor();
});

test('a webhook mnemo disabled after 24 hours of failures is shown at the top and on its card; Enable sends what waited', async () => {
  answers.set('/hooks/down', { status: 503, body: 'maintenance' });
  const webhook = await made('/down', { description: 'Data warehouse' });
  await remember('Moved to the Lisbon office');
  const [first] = await receivedAt('/down', 1);
  await expect.poll(async () => (await deliveriesOf(webhook.id))[0]?.status).toBe('retrying');
  // Its failures began 25 hours ago, and it is due now: the worker's next attempt gives it up.
  const { database } = t.server.t;
  await database.write((trx) =>
    trx
      .updateTable('webhook_deliveries')
      .set({ retry_since: Date.now() - 25 * HOUR, next_attempt_at: Date.now() })
      .where('webhook_id', '=', webhook.id)
      .execute(),
  );
  await expect
    .poll(async () => (await webhookOf(webhook.id)).enabled, { timeout: 15_000 })
    .toBe(false);
  const disabled = await webhookOf(webhook.id);
  expect(disabled.disabledReason).toBe('deliveries failed for 25 hours (last: HTTP 503)');

  const page = await newPage();
  const top = page.getByRole('region', { name: 'Disabled by mnemo' });
  const told =
    'mnemo disabled a webhook after its deliveries failed for 24 hours: Data warehouse. Its events wait until it is enabled again.';
  // Told on every page, not only in Settings: on Memories, the link leads to the webhook.
  await t.signIn(page, '/memories');
  await top.waitFor();
  expect(await top.textContent()).toBe(told);
  expect(await t.axe(page)).toEqual([]);
  await top.getByRole('link', { name: 'Data warehouse' }).click();
  await page.getByRole('heading', { name: 'Data warehouse', level: 1 }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/studio${PATH}/${webhook.id}`);
  // The webhook's own page says it in a notice of its own, not in this one.
  expect(await top.count()).toBe(0);
  await page.goto(`${t.url}/studio${PATH}`);
  await top.waitFor();
  expect(await top.textContent()).toBe(told);
  expect(await page.getByRole('region', { name: 'Disabled by mnemo' }).count()).toBe(1);
  // The notice comes first of all, before the list.
  const order = await page.evaluate(() => {
    const main = document.querySelector('#main') as HTMLElement;
    const notice = main.querySelector('[aria-label="Disabled by mnemo"]');
    const list = main.querySelector('#webhooks-list');
    return notice && list ? notice.compareDocumentPosition(list) : 0;
  });
  // Node.DOCUMENT_POSITION_FOLLOWING: the list comes after the notice.
  expect(order & 4).toBe(4);
  const warehouse = card(page, 'Data warehouse');
  expect(await warehouse.getByText('Disabled by mnemo', { exact: true }).count()).toBe(1);
  const said = await warehouse.getByRole('region').textContent();
  expect(said).toContain('Deliveries failed for 25 hours (last: HTTP 503).');
  expect(said).toContain('Disabled on');
  expect(await t.axe(page)).toEqual([]);

  // The endpoint is back; Enable resumes the delivery that failed.
  answers.set('/hooks/down', { status: 204 });
  await warehouse.getByRole('button', { name: 'Enable' }).click();
  await page
    .getByRole('status')
    .getByText(
      '“Data warehouse” is enabled again: what waited is being sent, the failed delivery first.',
    )
    .waitFor();
  const [, resumed] = await receivedAt('/down', 2);
  expect(resumed?.id).toBe(first?.id);
  expect(resumed?.verified).toBe(true);
  expect(await webhookOf(webhook.id)).toMatchObject({ enabled: true, disabledReason: null });
  await top.waitFor({ state: 'detached' });
  await expect.poll(async () => (await deliveriesOf(webhook.id))[0]?.status).toBe('delivered');
  // Enabled again, no page tells of it any more.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Memories' })
    .click();
  await page.getByRole('heading', { name: 'Memories', level: 1 }).waitFor();
  expect(await top.count()).toBe(0);
});

test('the log reads older deliveries a page at a time with Load more', async () => {
  const webhook = await made('/busy', { description: 'Busy endpoint' });
  // 55 test deliveries, as the worker leaves them: more than one page of 50.
  const at = Date.now() - HOUR;
  await t.server.t.database.write(async (trx) => {
    for (let n = 0; n < 55; n++) {
      const { seq } = await trx
        .insertInto('webhook_events')
        .values({
          id: crypto.randomUUID(),
          org_id: t.orgId,
          type: 'webhook.test',
          store_key: null,
          store: null,
          person_id: null,
          memory_id: null,
          payload: null,
          created_at: at + n * 1000,
        })
        .returning('seq')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('webhook_deliveries')
        .values({
          id: crypto.randomUUID(),
          webhook_id: webhook.id,
          event_seq: Number(seq),
          store_key: null,
          status: 'delivered',
          attempts: 1,
          next_attempt_at: null,
          response_status: 200 + (n % 5),
          latency_ms: n,
          created_at: at + n * 1000,
          last_attempt_at: at + n * 1000,
          delivered_at: at + n * 1000,
        })
        .execute();
    }
  });
  const page = await newPage();
  await t.signIn(page, `${PATH}/${webhook.id}`);
  const rows = page.getByRole('region', { name: 'Delivery log' }).getByRole('row');
  // A header row, then the newest 50.
  await expect.poll(() => rows.count()).toBe(51);
  expect(await cellsOf(page, 'webhook.test')).toEqual(['webhook.test', 'Delivered', '1', '204']);
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect.poll(() => rows.count()).toBe(56);
  // The oldest last; nothing more to load.
  expect(await rows.last().getByRole('cell').nth(4).textContent()).toBe('0 ms');
  expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
});

test('the API’s refusals are sentences in the dialog, and what was typed stays', async () => {
  const project = await t.server.t.fixtures.project(t.orgId);
  const page = await newPage();
  await t.signIn(page, PATH);
  await page.getByRole('button', { name: 'Add webhook' }).click();
  const form = page.getByRole('dialog', { name: 'Add webhook' });
  const url = form.getByRole('textbox', { name: 'Endpoint URL' });
  await url.fill('https://ops:hunter2@hooks.example.com/mnemo');
  await form.getByRole('button', { name: 'Add webhook' }).click();
  expect(await form.getByRole('alert').textContent()).toBe(
    'The URL must not contain a user name or password.',
  );
  expect(await url.getAttribute('aria-invalid')).toBe('true');
  expect(await url.inputValue()).toBe('https://ops:hunter2@hooks.example.com/mnemo');

  // A project's webhook cannot take end users' events: those are the organization's.
  await url.fill('https://hooks.example.com/mnemo');
  await form.getByRole('combobox', { name: 'Project' }).selectOption(project);
  await form.getByRole('checkbox', { name: 'end_user.registered' }).check();
  await form.getByRole('button', { name: 'Add webhook' }).click();
  await expect
    .poll(() => form.getByRole('alert').textContent())
    .toBe(
      "A project's webhook takes only memory and store events: end_user events are the organization's.",
    );
  expect(await url.getAttribute('aria-invalid')).toBeNull();
  await form.getByRole('button', { name: 'Cancel' }).click();
  const listed = (await ok<{ webhooks: ListedWebhook[] }>(t.api(t.owner.id, 'GET', base())))
    .webhooks;
  expect(listed.filter((w) => w.url.startsWith('https://hooks.example.com'))).toEqual([]);
});

test('a member is told webhooks are for owners and admins, and the API refuses them', async () => {
  const webhook = await made('/member-sees');
  const member = await t.person({ role: 'member', name: 'Katherine Johnson' });
  const page = await newPage();
  await t.signIn(page, PATH, member);
  await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
  const told = page.getByRole('region', { name: 'For owners and admins' });
  expect(await told.textContent()).toContain(
    'Only the owners and admins of Acme add and manage webhooks',
  );
  expect(await page.getByRole('button', { name: 'Add webhook' }).count()).toBe(0);
  // A deep link to a webhook tells the same, and shows nothing of it.
  await page.goto(`${t.url}/studio${PATH}/${webhook.id}`);
  await told.waitFor();
  expect(await page.getByText(receiver.url).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Send test' }).count()).toBe(0);
  expect((await t.api(member.id, 'GET', base())).status).toBe(403);
  expect(await t.axe(page)).toEqual([]);
});

test('axe at desktop light and phone dark; nothing scrolls sideways at 375 px', async () => {
  answers.set('/hooks/phone', { status: 500, body: 'x'.repeat(300) });
  const webhook = await made('/phone', {
    description: 'A webhook with a rather long description to see it wrap on a phone',
    events: ['memory.created', 'memory.updated', 'memory.deleted', 'store.erased'],
  });
  await remember('Keeps notes at https://notes.example.com/a/very/long/path/that/goes/on');
  await receivedAt('/phone', 1);

  const desktop = await newPage({ viewport: DESKTOP, colorScheme: 'light' });
  await t.signIn(desktop, PATH);
  await card(
    desktop,
    'A webhook with a rather long description to see it wrap on a phone',
  ).waitFor();
  expect(await t.axe(desktop)).toEqual([]);

  const phone = await newPage({ viewport: PHONE, colorScheme: 'dark' });
  await t.signIn(phone, PATH);
  await card(phone, 'A webhook with a rather long description to see it wrap on a phone').waitFor();
  expect(await noOverflow(phone)).toBe(true);
  expect(await t.axe(phone)).toEqual([]);

  await phone.getByRole('button', { name: 'Add webhook' }).click();
  await phone.getByRole('dialog', { name: 'Add webhook' }).waitFor();
  expect(await noOverflow(phone)).toBe(true);
  expect(await t.axe(phone)).toEqual([]);
  await phone.keyboard.press('Escape');

  await phone.goto(`${t.url}/studio${PATH}/${webhook.id}`);
  await expect
    .poll(() => cellsOf(phone, 'memory.created'))
    .toEqual(['memory.created', 'Retrying', '1', '500']);
  await logRow(phone, 'memory.created').getByRole('button', { name: 'Details' }).click();
  await phone.getByRole('button', { name: 'Send test' }).click();
  await phone.getByRole('heading', { name: 'The test event was not delivered' }).waitFor();
  expect(await noOverflow(phone)).toBe(true);
  expect(await t.axe(phone)).toEqual([]);
});
