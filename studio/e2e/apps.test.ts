import { decodeJwt } from 'jose';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { DESKTOP, ok, PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

interface ListedApp {
  id: string;
  name: string;
  userId: string;
  role: 'admin' | 'member';
  rateLimitPerMinute: number | null;
  createdAt: string;
}

let t: StudioTest;
beforeAll(async () => {
  // Rate limits on, high enough for the studio's own requests, with an operator's ceiling.
  t = await startStudioTest({
    env: { MNEMO_RATE_LIMIT_PER_MINUTE: '600', MNEMO_APP_RATE_LIMIT_MAX: '1000' },
  });
});
// Each test drives a real browser through several page loads and sign-ins.
vi.setConfig({ testTimeout: 90_000 });
afterAll(() => t?.close());

const PATH = '/settings/apps';

async function newPage(options?: Parameters<StudioTest['newPage']>[0]): Promise<Page> {
  const page = await t.newPage(options);
  page.setDefaultTimeout(20_000);
  return page;
}

const appsOf = async (): Promise<ListedApp[]> =>
  (await ok<{ apps: ListedApp[] }>(t.api(t.owner.id, 'GET', `/api/v1/orgs/${t.orgId}/apps`))).apps;

/** An app registered through the API, as a script of the owner's would. */
const registered = (body: { name: string; role?: string }) =>
  ok<{ app: ListedApp; secret: string }>(
    t.api(t.owner.id, 'POST', `/api/v1/orgs/${t.orgId}/apps`, body),
  );

/** The token endpoint, as a backend calls it: client_credentials, its id and secret in Basic. */
async function tokenOf(clientId: string, secret: string) {
  const res = await fetch(`${t.server.url}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: 'memory:read memory:write admin',
    }),
  });
  return {
    status: res.status,
    body: (await res.json()) as { access_token?: string; expires_in?: number; error?: string },
  };
}

async function appToken(clientId: string, secret: string): Promise<string> {
  const issued = await tokenOf(clientId, secret);
  expect(issued.status).toBe(200);
  return issued.body.access_token as string;
}

/** The platform API with an app's token, in Acme. */
const asApp = (token: string, method: string, path: string, body?: unknown) =>
  fetch(`${t.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'x-organization-id': t.orgId,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const registerEndUser = (token: string, externalId: string) =>
  asApp(token, 'PUT', `/api/v1/orgs/${t.orgId}/end-users/${externalId}`);

/** Everything the page could still hold: its markup and both storages. */
const pageHolds = async (page: Page, text: string) =>
  (await page.content()).includes(text) ||
  (await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))).includes(
    text,
  );

const noOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** The command the page gives to get a token: the credentials' values are set before it. */
const tokenCommand = () =>
  [
    `curl -s ${t.url}/oauth/token \\`,
    '  -u "$CLIENT_ID:$CLIENT_SECRET" \\',
    '  -d grant_type=client_credentials \\',
    "  -d 'scope=memory:read memory:write admin'",
  ].join('\n');

const card = (page: Page, name: string) => page.getByRole('article', { name, exact: true });

const fitsWidth = async (locator: Locator, width: number) => {
  const box = await locator.boundingBox();
  return box !== null && box.x >= 0 && box.x + box.width <= width;
};

test('an admin app is registered in the page; its secret, shown once, gets a token that registers end users', async () => {
  const page = await newPage();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  await t.signIn(page, '/settings');
  await page.getByRole('heading', { level: 1, name: 'API Keys' }).waitFor();

  // A third place in the settings' own navigation, before Webhooks.
  const nav = page.getByRole('navigation', { name: 'Settings' });
  expect(await nav.getByRole('link').allTextContents()).toEqual([
    'API Keys',
    'Connected apps',
    'Apps',
    'Webhooks',
  ]);
  const link = nav.getByRole('link', { name: 'Apps', exact: true });
  expect(await link.getAttribute('href')).toBe(`/studio${PATH}`);
  await link.click();
  await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/studio${PATH}`);
  expect(await link.getAttribute('aria-current')).toBe('page');

  // Nothing yet: the page says what an app is for, and where to read more.
  const empty = page.getByRole('region', { name: 'No apps yet' });
  await empty.waitFor();
  const said = await empty.textContent();
  expect(said).toContain('registers the people it serves as end users and remembers for each');
  expect(said).toContain('“Apps and the people they remember”');
  // How a backend uses its credentials, with this server's address and organization.
  const using = page.getByRole('region', { name: 'Using an app’s credentials' });
  expect(await using.locator('pre').first().textContent()).toBe(tokenCommand());
  expect(await using.locator('pre').nth(1).textContent()).toContain(
    `X-Organization-Id: ${t.orgId}`,
  );
  expect(await t.axe(page)).toEqual([]);

  await page.getByRole('button', { name: 'Register app' }).click();
  const form = page.getByRole('dialog', { name: 'Register app' });
  const name = form.getByRole('textbox', { name: 'Name' });
  await expect.poll(() => name.evaluate((el) => el === document.activeElement)).toBe(true);
  // A name is needed; a member is what an app is unless chosen otherwise.
  await form.getByRole('button', { name: 'Register', exact: true }).click();
  await form.getByText('Give the app a name, such as the service that will use it.').waitFor();
  expect(await name.getAttribute('aria-invalid')).toBe('true');
  expect(await form.getByRole('radio', { name: 'Member', exact: true }).isChecked()).toBe(true);
  // Each role says what it allows.
  const admin = form.getByRole('radio', { name: 'Admin', exact: true });
  expect(
    await admin.evaluate((el) =>
      document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent?.trim(),
    ),
  ).toMatch(/^Registers the people it serves as end users/);
  const limit = form.getByRole('spinbutton', { name: 'Rate limit (optional)' });
  expect(await limit.getAttribute('min')).toBe('1');
  expect(await limit.getAttribute('max')).toBe('1000');
  await name.fill('Support bot');
  await admin.check();
  expect(await t.axe(page)).toEqual([]);
  await form.getByRole('button', { name: 'Register', exact: true }).click();

  const shown = page.getByRole('dialog', { name: 'Save the credentials of “Support bot”' });
  const secretBox = shown.getByRole('textbox', { name: 'Client secret' });
  await secretBox.waitFor();
  const secret = await secretBox.inputValue();
  const clientId = await shown.getByRole('textbox', { name: 'Client ID' }).inputValue();
  expect(secret).toMatch(/^mnemo_cs_[A-Za-z0-9_-]{43}$/);
  expect(clientId).toMatch(/^mnemo_client_[A-Za-z0-9_-]{22}$/);
  expect(await secretBox.getAttribute('readonly')).not.toBeNull();
  await expect.poll(() => secretBox.evaluate((el) => el === document.activeElement)).toBe(true);
  expect(await shown.textContent()).toContain('It will not be shown again');
  // The command to get a token, with the real values in it.
  const command = `CLIENT_ID=${clientId}\nCLIENT_SECRET=${secret}\n${tokenCommand()}`;
  expect(await shown.locator('pre').textContent()).toBe(command);
  expect(await shown.textContent()).toContain(`X-Organization-Id: ${t.orgId}`);
  expect(await t.axe(page)).toEqual([]);

  // Escape does not take the secret away before the person is done with it.
  await page.keyboard.press('Escape');
  expect(await secretBox.inputValue()).toBe(secret);

  await shown.getByRole('button', { name: 'Copy client secret' }).click();
  await shown.getByRole('status').getByText('Copied').first().waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await shown.getByRole('button', { name: 'Copy command' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(command);

  // The secret read from the page gets a token, which acts as an admin: it registers end users.
  const issued = await tokenOf(clientId, secret);
  expect(issued.status).toBe(200);
  expect(issued.body.expires_in).toBe(900);
  const token = issued.body.access_token as string;
  expect(decodeJwt(token).client_id).toBe(clientId);
  expect((await registerEndUser(token, 'x')).status).toBe(201);

  // The list behind the dialog has the app, without its secret.
  const listed = await appsOf();
  expect(listed).toEqual([
    {
      id: clientId,
      name: 'Support bot',
      userId: expect.any(String),
      role: 'admin',
      rateLimitPerMinute: null,
      createdAt: expect.any(String),
    },
  ]);

  await shown.getByRole('button', { name: 'Done' }).click();
  await shown.waitFor({ state: 'detached' });
  await page.getByRole('status').getByText('“Support bot” is registered, as an admin.').waitFor();
  const bot = card(page, 'Support bot');
  await bot.waitFor();
  expect(await bot.locator('.apps-client-id').textContent()).toBe(clientId);
  expect(await bot.getByRole('combobox', { name: 'Role of Support bot' }).inputValue()).toBe(
    'admin',
  );
  expect(await bot.textContent()).toContain('600 a minute (default)');
  expect(await bot.locator(`time[datetime="${listed[0]?.createdAt}"]`).count()).toBe(1);
  // Focus is back on what opened the dialog, and the secret is nowhere in the page.
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Register app');
  expect(await pageHolds(page, secret)).toBe(false);
  expect(await t.axe(page)).toEqual([]);

  // The client ID is copied from the list too.
  await bot.getByRole('button', { name: 'Copy client ID' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(clientId);
});

test('the role changes in the page: from then on, the app’s tokens may no longer register end users', async () => {
  const made = await registered({ name: 'Ops sync', role: 'admin' });
  const before = await appToken(made.app.id, made.secret);
  expect((await registerEndUser(before, 'customer-ops')).status).toBe(201);

  const page = await newPage();
  await t.signIn(page, PATH);
  const role = card(page, 'Ops sync').getByRole('combobox', { name: 'Role of Ops sync' });
  expect(await role.inputValue()).toBe('admin');
  await role.selectOption('member');
  await page
    .getByRole('status')
    .getByText('“Ops sync” is now a member, from its next request.')
    .waitFor();
  expect((await appsOf()).find((a) => a.id === made.app.id)?.role).toBe('member');

  const after = await appToken(made.app.id, made.secret);
  const refused = await registerEndUser(after, 'customer-ops');
  expect(refused.status).toBe(403);
  // And back: the page's select and the API agree.
  await role.selectOption('admin');
  await page.getByRole('status').getByText('“Ops sync” is now an admin').waitFor();
  expect((await appsOf()).find((a) => a.id === made.app.id)?.role).toBe('admin');
  expect(
    (await registerEndUser(await appToken(made.app.id, made.secret), 'customer-ops')).status,
  ).toBe(200);
});

test('New secret asks first, then shows the new secret once; the old one is refused at once', async () => {
  const made = await registered({ name: 'Rotator' });
  const page = await newPage();
  await t.signIn(page, PATH);
  const rotator = card(page, 'Rotator');

  // Cancel leaves the secret as it was.
  await rotator.getByRole('button', { name: 'New secret' }).click();
  const confirm = page.getByRole('dialog', { name: 'Replace the secret of “Rotator”?' });
  await confirm.waitFor();
  expect(await confirm.textContent()).toContain('The current secret stops working at once');
  expect(await t.axe(page)).toEqual([]);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'hidden' });
  expect((await tokenOf(made.app.id, made.secret)).status).toBe(200);

  await rotator.getByRole('button', { name: 'New secret' }).click();
  await confirm.getByRole('button', { name: 'Replace secret' }).click();
  const shown = page.getByRole('dialog', { name: 'Save the new secret of “Rotator”' });
  const secretBox = shown.getByRole('textbox', { name: 'Client secret' });
  await secretBox.waitFor();
  const secret = await secretBox.inputValue();
  expect(secret).toMatch(/^mnemo_cs_/);
  expect(secret).not.toBe(made.secret);
  expect(await shown.getByRole('textbox', { name: 'Client ID' }).inputValue()).toBe(made.app.id);
  expect(await shown.textContent()).toContain('The old secret of “Rotator” no longer works');
  expect(await shown.textContent()).toContain('It will not be shown again');
  expect(await t.axe(page)).toEqual([]);

  expect(await tokenOf(made.app.id, made.secret)).toMatchObject({
    status: 401,
    body: { error: 'invalid_client' },
  });
  expect((await tokenOf(made.app.id, secret)).status).toBe(200);

  await shown.getByRole('button', { name: 'Done' }).click();
  await shown.waitFor({ state: 'detached' });
  await page
    .getByRole('status')
    .getByText('“Rotator” has a new secret; the old one no longer works.')
    .waitFor();
  expect(await pageHolds(page, secret)).toBe(false);
  // Focus is back on the button that opened the dialog.
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('New secret');
});

test('the rate limit changes in a small dialog; above the ceiling, the reason is said and what was typed stays', async () => {
  const made = await registered({ name: 'Limiter' });
  const page = await newPage();
  await t.signIn(page, PATH);
  const limiter = card(page, 'Limiter');
  await limiter.getByText('600 a minute (default)').waitFor();

  await limiter.getByRole('button', { name: 'Change rate limit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rate limit of “Limiter”' });
  const field = dialog.getByRole('spinbutton', { name: 'Requests a minute' });
  await field.waitFor();
  expect(await dialog.textContent()).toContain('A new limit applies to the tokens the app gets');
  expect(await t.axe(page)).toEqual([]);

  await field.fill('0');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog
    .getByText('Give a whole number of requests, 1 or more, or leave it empty for the default.')
    .waitFor();

  await field.fill('1001');
  await dialog.getByRole('button', { name: 'Save' }).click();
  const alert = dialog.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toBe(
    'The rate limit must be at most 1,000, the most this server gives an app.',
  );
  expect(await field.inputValue()).toBe('1001');
  expect(await field.getAttribute('aria-invalid')).toBe('true');
  expect(await t.axe(page)).toEqual([]);
  expect((await appsOf()).find((a) => a.id === made.app.id)?.rateLimitPerMinute).toBeNull();

  await field.fill('900');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page
    .getByRole('status')
    .getByText('“Limiter” may make 900 requests a minute, with the tokens it gets from now on.')
    .waitFor();
  await limiter.getByText('900 a minute', { exact: true }).waitFor();
  expect((await appsOf()).find((a) => a.id === made.app.id)?.rateLimitPerMinute).toBe(900);
  // The tokens issued from now on carry it.
  expect(decodeJwt(await appToken(made.app.id, made.secret)).mnemo_rate_limit).toBe(900);

  // Emptied, the app is back to the default.
  await limiter.getByRole('button', { name: 'Change rate limit' }).click();
  expect(await field.inputValue()).toBe('900');
  await field.fill('');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await limiter.getByText('600 a minute (default)').waitFor();
  expect((await appsOf()).find((a) => a.id === made.app.id)?.rateLimitPerMinute).toBeNull();
  expect(decodeJwt(await appToken(made.app.id, made.secret)).mnemo_rate_limit).toBeUndefined();
});

test('Revoke names what goes and asks first; the app’s token is then refused, and what it wrote for others stays', async () => {
  const made = await registered({ name: 'Old sync', role: 'admin' });
  const token = await appToken(made.app.id, made.secret);
  const endUser = await ok<{ endUser: { id: string } }>(registerEndUser(token, 'customer-9'));
  const forThem = await asApp(token, 'POST', '/api/v1/memory', {
    content: 'Prefers email to phone calls',
    user: endUser.endUser.id,
  });
  expect(forThem.status).toBe(201);
  expect((await asApp(token, 'GET', '/api/v1/memory')).status).toBe(200);

  const page = await newPage();
  page.on('dialog', () => {
    throw new Error('the browser’s own confirm must not be used');
  });
  await t.signIn(page, PATH);
  const old = card(page, 'Old sync');
  await old.getByRole('button', { name: 'Revoke' }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke “Old sync”?' });
  await confirm.waitFor();
  const said = await confirm.textContent();
  expect(said).toContain('mnemo refuses its tokens from their next request');
  expect(said).toContain('the memories it keeps as itself');
  expect(said).toContain('the memories it added to project pools');
  expect(said).toContain(
    'The end users it registered stay, and so do the memories it wrote for them or for members',
  );
  expect(said).toContain(made.app.id);
  expect(await t.axe(page)).toEqual([]);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'hidden' });
  expect((await asApp(token, 'GET', '/api/v1/memory')).status).toBe(200);

  await old.getByRole('button', { name: 'Revoke' }).click();
  await confirm.getByRole('button', { name: 'Revoke', exact: true }).click();
  await confirm.waitFor({ state: 'hidden' });
  await page
    .getByRole('status')
    .getByText('“Old sync” is revoked: its tokens no longer work.')
    .waitFor();
  await old.waitFor({ state: 'detached' });
  // The card that held the button is gone: focus is on the page's heading.
  expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');

  expect((await asApp(token, 'GET', '/api/v1/memory')).status).toBe(401);
  expect((await tokenOf(made.app.id, made.secret)).status).toBe(401);
  expect((await appsOf()).map((a) => a.id)).not.toContain(made.app.id);
  expect(
    (await t.api(t.owner.id, 'DELETE', `/api/v1/orgs/${t.orgId}/apps/${made.app.id}`)).status,
  ).toBe(404);
  const kept = await ok<{ memories: { content: string }[] }>(
    t.api(t.owner.id, 'GET', `/api/v1/memory?user=${endUser.endUser.id}`),
  );
  expect(kept.memories.map((m) => m.content)).toEqual(['Prefers email to phone calls']);
});

test('a member is told who registers apps, instead of the page', async () => {
  const grace = await t.person({ role: 'member', name: 'Grace Hopper' });
  expect((await t.api(grace.id, 'GET', `/api/v1/orgs/${t.orgId}/apps`)).status).toBe(403);
  const page = await newPage();
  await t.signIn(page, PATH, grace);
  const told = page.getByRole('region', { name: 'For owners and admins' });
  await told.waitFor();
  expect(await told.textContent()).toContain(
    'Only the owners and admins of Acme register apps and manage their credentials',
  );
  expect(await page.getByRole('button', { name: 'Register app' }).count()).toBe(0);
  expect(await page.getByText('Support bot').count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);
});

// Both widths and both schemes, each once: a scheme's colours are the same at any width, and
// axe costs seconds a page on a busy machine.
for (const [width, viewport, scheme] of [
  ['desktop', DESKTOP, 'light'],
  ['375 px', PHONE, 'dark'],
] as const) {
  test(`at ${width} in ${scheme}, the page, each dialog and the shown-once panel pass axe and fit`, async () => {
    const page = await newPage({ viewport, colorScheme: scheme });
    await t.signIn(page, PATH);
    const bot = card(page, 'Support bot');
    await bot.waitFor();
    expect(await t.axe(page)).toEqual([]);
    expect(await noOverflow(page)).toBe(true);
    expect(await fitsWidth(bot, viewport.width)).toBe(true);

    const check = async (dialog: Locator) => {
      await dialog.waitFor();
      expect(await t.axe(page)).toEqual([]);
      expect(await noOverflow(page)).toBe(true);
      expect(await fitsWidth(dialog, viewport.width)).toBe(true);
    };

    await page.getByRole('button', { name: 'Register app' }).click();
    const form = page.getByRole('dialog', { name: 'Register app' });
    await check(form);
    const appName = `Worker ${width} ${scheme}`;
    await form.getByRole('textbox', { name: 'Name' }).fill(appName);
    await form.getByRole('button', { name: 'Register', exact: true }).click();
    const shown = page.getByRole('dialog', { name: `Save the credentials of “${appName}”` });
    await check(shown);
    for (const box of ['Client ID', 'Client secret']) {
      expect(await fitsWidth(shown.getByRole('textbox', { name: box }), viewport.width)).toBe(true);
    }
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });

    await bot.getByRole('button', { name: 'Change rate limit' }).click();
    const limit = page.getByRole('dialog', { name: 'Rate limit of “Support bot”' });
    await check(limit);
    await limit.getByRole('button', { name: 'Cancel' }).click();
    await limit.waitFor({ state: 'hidden' });

    await bot.getByRole('button', { name: 'New secret' }).click();
    const replace = page.getByRole('dialog', { name: 'Replace the secret of “Support bot”?' });
    await check(replace);
    await replace.getByRole('button', { name: 'Cancel' }).click();
    await replace.waitFor({ state: 'hidden' });

    await bot.getByRole('button', { name: 'Revoke' }).click();
    const revoke = page.getByRole('dialog', { name: 'Revoke “Support bot”?' });
    await check(revoke);
    await revoke.getByRole('button', { name: 'Cancel' }).click();
    await revoke.waitFor({ state: 'hidden' });
  });
}
