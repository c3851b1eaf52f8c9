import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

interface ListedKey {
  id: string;
  name: string;
  prefix: string;
  userId: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

let t: StudioTest;
beforeAll(async () => {
  // No provider configured: the gateway lists only its router (the playground's empty state).
  t = await startStudioTest();
});
afterAll(() => t?.close());

const keysOf = async (userId: string): Promise<ListedKey[]> =>
  (await (await t.api(userId, 'GET', '/api/v1/api-keys')).json()).keys;

const models = (secret: string) =>
  fetch(`${t.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });

/** Everything the page could still hold: its markup and both storages. */
const pageHolds = async (page: Page, text: string) =>
  (await page.content()).includes(text) ||
  (await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))).includes(
    text,
  );

const noOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

test('a key is made with its secret shown once; the secret opens /v1 and leaves no trace after Done', async () => {
  const page = await t.newPage();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  await t.signIn(page, '/settings');
  await page.getByRole('heading', { level: 1, name: 'API Keys' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/studio/settings/api-keys');
  const settingsLink = page
    .getByRole('navigation', { name: 'Settings' })
    .getByRole('link', { name: 'API Keys', exact: true });
  expect(await settingsLink.getAttribute('href')).toBe('/studio/settings/api-keys');
  expect(await settingsLink.getAttribute('aria-current')).toBe('page');

  // Nothing yet: the page says what keys are for and how one is used.
  const empty = page.getByRole('region', { name: 'No API keys yet' });
  await empty.waitFor();
  expect(await empty.textContent()).toContain(`${t.url}/v1`);
  expect(await empty.locator('pre').textContent()).toContain(`curl ${t.url}/v1/models`);
  expect(await t.axe(page)).toEqual([]);

  await page.getByRole('button', { name: 'Create key' }).click();
  const form = page.getByRole('dialog', { name: 'Create key' });
  // Focus starts in the name, and a name is needed.
  await expect
    .poll(() =>
      form.getByRole('textbox', { name: 'Name' }).evaluate((el) => el === document.activeElement),
    )
    .toBe(true);
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  await form.getByText('Give the key a name').waitFor();
  expect(await form.getByRole('textbox', { name: 'Name' }).getAttribute('aria-invalid')).toBe(
    'true',
  );
  await form.getByRole('textbox', { name: 'Name' }).fill('Billing service');
  await form.getByRole('combobox', { name: 'Expires' }).selectOption('30');
  expect(await t.axe(page)).toEqual([]);
  await form.getByRole('button', { name: 'Create', exact: true }).click();

  const shown = page.getByRole('dialog', { name: 'Save your secret key' });
  const secretBox = shown.getByRole('textbox', { name: 'Secret key' });
  await secretBox.waitFor();
  const secret = await secretBox.inputValue();
  expect(secret).toMatch(/^mnemo_sk_[A-Za-z0-9]{20,}$/);
  expect(await secretBox.getAttribute('readonly')).not.toBeNull();
  expect(await shown.textContent()).toContain('will not be shown again');
  expect(await t.axe(page)).toEqual([]);

  // Escape does not take the secret away before the person is done with it.
  await page.keyboard.press('Escape');
  expect(await secretBox.inputValue()).toBe(secret);

  await shown.getByRole('button', { name: 'Copy' }).click();
  await shown.getByRole('status').getByText('Copied').waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

  // The secret is a working key of the chat interface.
  expect((await models(secret)).status).toBe(200);

  // The list behind the dialog already has the key, without its secret.
  const listed = await keysOf(t.owner.id);
  expect(listed).toHaveLength(1);
  expect(JSON.stringify(listed)).not.toContain(secret);
  const [key] = listed as [ListedKey];
  expect(secret.startsWith(key.prefix)).toBe(true);
  const expiresIn = Date.parse(key.expiresAt ?? '') - Date.now();
  expect(Math.abs(expiresIn - 30 * 86_400_000)).toBeLessThan(120_000);

  await shown.getByRole('button', { name: 'Done' }).click();
  await shown.waitFor({ state: 'detached' });
  const row = page.getByRole('row').filter({ hasText: 'Billing service' });
  await row.waitFor();
  expect(await row.getByRole('cell').nth(1).textContent()).toBe(`${key.prefix}…`);
  expect(await row.locator(`time[datetime="${key.expiresAt}"]`).count()).toBe(1);
  await page.getByRole('status').getByText('Key “Billing service” created.').waitFor();
  // Focus is back on what opened the dialog.
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Create key');
  expect(await pageHolds(page, secret)).toBe(false);
  expect(await t.axe(page)).toEqual([]);

  await page.reload();
  await row.waitFor();
  expect(await pageHolds(page, secret)).toBe(false);
});

test('Revoke asks first, in the page; the key then stops working on /v1', async () => {
  const created = await (
    await t.api(t.owner.id, 'POST', '/api/v1/api-keys', { name: 'Old laptop' })
  ).json();
  const secret: string = created.secret;
  expect((await models(secret)).status).toBe(200);
  const page = await t.newPage();
  page.on('dialog', () => {
    throw new Error('the browser’s own confirm must not be used');
  });
  await t.signIn(page, '/settings/api-keys');
  const row = page
    .getByRole('region', { name: 'Active keys' })
    .getByRole('row')
    .filter({ hasText: 'Old laptop' });

  // Cancel leaves the key as it was.
  await row.getByRole('button', { name: 'Revoke' }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke “Old laptop”?' });
  await confirm.waitFor();
  expect(await confirm.textContent()).toContain('stop working at once');
  expect(await t.axe(page)).toEqual([]);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'hidden' });
  expect((await models(secret)).status).toBe(200);

  await row.getByRole('button', { name: 'Revoke' }).click();
  await confirm.getByRole('button', { name: 'Revoke', exact: true }).click();
  await confirm.waitFor({ state: 'hidden' });
  await page.getByRole('status').getByText('Key “Old laptop” revoked.').waitFor();
  await row.waitFor({ state: 'detached' });

  const refused = await models(secret);
  expect(refused.status).toBe(401);
  expect((await refused.json()).error.code).toBe('invalid_api_key');
  const revoked = (await keysOf(t.owner.id)).find((k) => k.id === created.key.id);
  expect(revoked?.revokedAt).toEqual(expect.any(String));

  // Revoked keys are kept apart, said to be revoked, with nothing left to revoke.
  await page.getByText('Revoked and expired').click();
  const ended = page.getByRole('region', { name: 'Revoked and expired keys' });
  const endedRow = ended.getByRole('row').filter({ hasText: 'Old laptop' });
  expect(await endedRow.textContent()).toContain('Revoked');
  expect(await endedRow.getByRole('button').count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);
});

test('owners see every key and whose it is; a member sees and revokes only their own', async () => {
  const grace = await t.person({ role: 'member', name: 'Grace Hopper' });
  await t.api(grace.id, 'POST', '/api/v1/api-keys', { name: 'Grace’s notebook' });

  const owner = await t.newPage();
  await t.signIn(owner, '/settings/api-keys');
  const graceRow = owner.getByRole('row').filter({ hasText: 'Grace’s notebook' });
  await graceRow.waitFor();
  expect(await owner.getByRole('columnheader', { name: 'Owner' }).count()).toBeGreaterThan(0);
  await expect.poll(() => graceRow.textContent()).toContain('Grace Hopper');
  expect(
    await owner.getByRole('row').filter({ hasText: 'Billing service' }).textContent(),
  ).toContain('You');

  const member = await t.newPage();
  await t.signIn(member, '/settings/api-keys', grace);
  await member.getByRole('row').filter({ hasText: 'Grace’s notebook' }).waitFor();
  expect(await member.getByText('Billing service').count()).toBe(0);
  expect(await member.getByText('Old laptop').count()).toBe(0);
  expect(await member.getByRole('columnheader', { name: 'Owner' }).count()).toBe(0);
  expect((await keysOf(grace.id)).map((k) => k.name)).toEqual(['Grace’s notebook']);
  expect(await t.axe(member)).toEqual([]);
});

test('a failed request keeps what was typed and says why in a sentence', async () => {
  const page = await t.newPage();
  await t.signIn(page, '/settings/api-keys');
  await page.getByRole('button', { name: 'Create key' }).click();
  const form = page.getByRole('dialog', { name: 'Create key' });
  await form.getByRole('textbox', { name: 'Name' }).fill('Nightly export');
  await page.route(`${t.url}/api/v1/api-keys`, (route) =>
    route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.fallback(),
  );
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  await form.getByRole('alert').getByText('mnemo could not be reached').waitFor();
  expect(await form.getByRole('textbox', { name: 'Name' }).inputValue()).toBe('Nightly export');

  // An expiry date is needed when the person chose to give one.
  await page.unroute(`${t.url}/api/v1/api-keys`);
  await form.getByRole('combobox', { name: 'Expires' }).selectOption('date');
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  await form.getByText('Pick the last day.').waitFor();
  const tomorrow = new Date(Date.now() + 86_400_000);
  const day = (n: number) => String(n).padStart(2, '0');
  await form
    .getByLabel('Last day')
    .fill(`${tomorrow.getFullYear()}-${day(tomorrow.getMonth() + 1)}-${day(tomorrow.getDate())}`);
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  const shown = page.getByRole('dialog', { name: 'Save your secret key' });
  const secret = await shown.getByRole('textbox', { name: 'Secret key' }).inputValue();
  // A browser may close a modal dialog on Escape pressed again and again, whatever the page
  // asks: then the secret goes with it, as after Done.
  for (let i = 0; i < 3; i++) await page.keyboard.press('Escape');
  await expect
    .poll(async () => (await shown.isVisible()) || !(await pageHolds(page, secret)))
    .toBe(true);
  if (await shown.isVisible()) await shown.getByRole('button', { name: 'Done' }).click();
  await shown.waitFor({ state: 'detached' });
  expect(await pageHolds(page, secret)).toBe(false);
  const made = (await keysOf(t.owner.id)).find((k) => k.name === 'Nightly export');
  // Through the whole chosen day, in the browser's time zone (the test's own).
  const end = new Date(tomorrow.getFullYear(), tomorrow.getMonth(), tomorrow.getDate() + 1);
  expect(made?.expiresAt).toBe(end.toISOString());
});

test('at 375 px the page and its dialogs fit the screen', async () => {
  const page = await t.newPage({ viewport: PHONE });
  await t.signIn(page, '/settings/api-keys');
  await page.getByRole('row').filter({ hasText: 'Billing service' }).waitFor();
  expect(await noOverflow(page)).toBe(true);
  await page.getByRole('button', { name: 'Create key' }).click();
  const form = page.getByRole('dialog', { name: 'Create key' });
  await form.getByRole('textbox', { name: 'Name' }).fill('Phone');
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  const shown = page.getByRole('dialog', { name: 'Save your secret key' });
  await shown.getByRole('textbox', { name: 'Secret key' }).waitFor();
  expect(await noOverflow(page)).toBe(true);
  const box = await shown.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
  await shown.getByRole('button', { name: 'Done' }).click();
  expect(await t.axe(page)).toEqual([]);
});

test('with no provider configured, the playground says how to configure one; its key is kept for the next visit', async () => {
  const person = await t.person({ name: 'Annie Easley' });
  const page = await t.newPage();
  await t.signIn(page, '/playground', person);
  const empty = page.getByRole('region', { name: 'No models are configured yet' });
  await empty.waitFor();
  const text = await empty.textContent();
  for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'mnemo.config.json'])
    expect(text).toContain(name);
  expect(await empty.locator('pre').textContent()).toBe('OPENAI_API_KEY=sk-… npm start');
  expect(await t.axe(page)).toEqual([]);
  // It made a key to ask the gateway; another visit and a reload ask with the same one.
  await page.getByRole('link', { name: 'Usage' }).click();
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.reload();
  await empty.waitFor();
  const temporary = (await keysOf(person.id)).filter(
    (k) => k.name === 'Studio playground (temporary)',
  );
  expect(temporary.map((k) => k.revokedAt)).toEqual([null]);
});

test('the playground’s revoked and expired keys are left out unless asked for', async () => {
  const person = await t.person({ name: 'Dorothy Vaughan' });
  const make = async (name: string, expiresInMs?: number) =>
    (
      await (
        await t.api(person.id, 'POST', '/api/v1/api-keys', {
          name,
          ...(expiresInMs ? { expiresAt: new Date(Date.now() + expiresInMs).toISOString() } : {}),
        })
      ).json()
    ).key as ListedKey;
  const revoke = (key: ListedKey) => t.api(person.id, 'DELETE', `/api/v1/api-keys/${key.id}`);
  const TEMPORARY = 'Studio playground (temporary)';
  // Two of the playground's, revoked; one expired; one still working; and one of the person's own.
  for (const key of [await make(TEMPORARY, 3_600_000), await make(TEMPORARY, 3_600_000)]) {
    await revoke(key);
  }
  await make(TEMPORARY, 1_500);
  await make(TEMPORARY, 3_600_000);
  await revoke(await make('Old phone'));
  await new Promise((resolve) => setTimeout(resolve, 1_600));

  const page = await t.newPage();
  await t.signIn(page, '/settings/api-keys', person);
  const active = page.getByRole('region', { name: 'Active keys' });
  await active.getByRole('row').nth(1).waitFor();
  const names = (region: typeof active) => region.locator('tbody tr td.key-name').allTextContents();
  // The one still working is a key like any other: listed, and revocable.
  expect(await names(active)).toEqual([TEMPORARY]);

  await page.getByText('Revoked and expired').click();
  const ended = page.getByRole('region', { name: 'Revoked and expired keys' });
  expect(await names(ended)).toEqual(['Old phone']);
  expect(await page.locator('.keys-ended summary').textContent()).toBe('Revoked and expired 1');
  const show = page.getByRole('checkbox', { name: 'Show the playground’s temporary keys (3)' });
  expect(await show.isChecked()).toBe(false);
  expect(await t.axe(page)).toEqual([]);

  await show.check();
  expect(await names(ended)).toEqual(['Old phone', TEMPORARY, TEMPORARY, TEMPORARY]);
  expect(
    (await ended.getByRole('cell', { name: /^(Revoked|Expired) / }).allTextContents()).map(
      (s) => s.split(' ')[0],
    ),
  ).toEqual(['Revoked', 'Expired', 'Revoked', 'Revoked']);
  expect(await page.locator('.keys-ended summary').textContent()).toBe('Revoked and expired 4');
  expect(await t.axe(page)).toEqual([]);

  await show.uncheck();
  expect(await names(ended)).toEqual(['Old phone']);

  // With only the playground's keys ended, the page says they are hidden.
  const other = await t.person({ name: 'Christine Darden' });
  const hers = (
    await (
      await t.api(other.id, 'POST', '/api/v1/api-keys', {
        name: TEMPORARY,
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      })
    ).json()
  ).key as ListedKey;
  await t.api(other.id, 'DELETE', `/api/v1/api-keys/${hers.id}`);
  const second = await t.newPage();
  await t.signIn(second, '/settings/api-keys', other);
  await second.getByText('Revoked and expired').click();
  await second
    .getByText('Only the playground’s temporary keys have ended, and they are hidden.')
    .waitFor();
  expect(await second.locator('.keys-ended summary').textContent()).toBe('Revoked and expired');
  await second.getByRole('checkbox', { name: 'Show the playground’s temporary keys (1)' }).check();
  expect(
    await second
      .getByRole('region', { name: 'Revoked and expired keys' })
      .locator('tbody tr td.key-name')
      .allTextContents(),
  ).toEqual([TEMPORARY]);
});
