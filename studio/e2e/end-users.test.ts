import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { DESKTOP, ok, PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

interface EndUser {
  id: string;
  externalId: string;
  name?: string;
  createdAt: string;
}

let t: StudioTest;
/** The end users every test starts from, by the app's id. */
const known = new Map<string, EndUser>();
/** Registered before the named ones, so that these fill the first page and more. */
const BULK = 55;
/** An id as an app may write it: a slash, a percent sign, a space and an accent. */
const ODD = 'team/42 %2F é';

const endUsersPath = () => `/api/v1/orgs/${t.orgId}/end-users`;
const endUserPath = (externalId: string) => `${endUsersPath()}/${encodeURIComponent(externalId)}`;

async function register(externalId: string, name?: string): Promise<EndUser> {
  const { endUser } = await ok<{ endUser: EndUser }>(
    t.api(t.owner.id, 'PUT', endUserPath(externalId), name === undefined ? {} : { name }),
  );
  known.set(externalId, endUser);
  return endUser;
}

async function remember(userId: string, content: string): Promise<void> {
  await ok(t.api(t.owner.id, 'POST', '/api/v1/memory', { content, user: userId }));
}

/** The external ids the API lists for `q`, every page, in its order (newest first). */
async function listed(q = ''): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({
      limit: '200',
      ...(q ? { q } : {}),
      ...(cursor ? { cursor } : {}),
    });
    const page = await ok<{ endUsers: EndUser[]; cursor?: string }>(
      t.api(t.owner.id, 'GET', `${endUsersPath()}?${query}`),
    );
    ids.push(...page.endUsers.map((e) => e.externalId));
    cursor = page.cursor;
  } while (cursor);
  return ids;
}

async function memoriesOf(userId: string): Promise<string[]> {
  const { memories } = await ok<{ memories: { content: string }[] }>(
    t.api(t.owner.id, 'GET', `/api/v1/memory?user=${userId}`),
  );
  return memories.map((m) => m.content).sort();
}

beforeAll(async () => {
  t = await startStudioTest();
  await Promise.all(
    Array.from({ length: BULK }, (_, n) => register(`bulk-${String(n).padStart(3, '0')}`)),
  );
  await register(ODD);
  await register('janet');
  await register('customer-7', 'Jan Novak');
  await register('customer-42', 'Jane Doe');
  await remember((known.get('customer-42') as EndUser).id, 'Prefers email over phone calls');
}, 180_000);
// Each test drives a real browser through several page loads and sign-ins.
vi.setConfig({ testTimeout: 120_000 });
afterAll(() => t?.close());

/** A fresh page whose waits fail within the test's time, saying what they waited for. */
async function newPage(options?: Parameters<StudioTest['newPage']>[0]): Promise<Page> {
  const page = await t.newPage(options);
  page.setDefaultTimeout(20_000);
  return page;
}

const table = (page: Page) => page.getByRole('table', { name: /^End users of Acme/ });
/** The table's rows as their external ids, in order. */
const externalIds = (page: Page) =>
  table(page)
    .locator('tbody tr td:first-child')
    .evaluateAll((cells) => cells.map((cell) => cell.textContent?.trim()));
const count = (page: Page) => page.locator('.end-users-count');
const search = (page: Page) =>
  page.getByRole('searchbox', { name: 'Search end users by id or name' });
const noOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

test('an owner lists end users newest first, a page at a time, and searches them by id or name', async () => {
  const total = known.size;
  const page = await newPage();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  await t.signIn(page, '/memories');
  const nav = page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'End users' });
  await nav.click();
  await page.getByRole('heading', { level: 1, name: 'End users' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/studio/end-users');
  expect(await nav.getAttribute('aria-current')).toBe('page');

  await expect.poll(() => count(page).textContent()).toBe(`${total} end users`);
  const all = await listed();
  expect(new Set(all)).toEqual(new Set(known.keys()));
  expect(all.slice(0, 2)).toEqual(['customer-42', 'customer-7']);
  expect(await externalIds(page)).toEqual(all.slice(0, 50));
  await page.getByText(`Showing the newest 50 of ${total}.`).waitFor();

  // A row: the app's id, the name, the mnemo id whole for screen readers, when registered.
  const jane = known.get('customer-42') as EndUser;
  const row = table(page).getByRole('row').filter({ hasText: 'customer-42' });
  const cells = await row.getByRole('cell').allTextContents();
  expect(cells[0]).toBe('customer-42');
  expect(cells[1]).toBe('Jane Doe');
  expect(cells[2]).toBe(`${jane.id.slice(0, 8)}…${jane.id}`);
  expect(await row.getByText(`${jane.id.slice(0, 8)}…`).isVisible()).toBe(true);
  expect(await row.locator('time').getAttribute('datetime')).toBe(jane.createdAt);
  expect(
    await table(page)
      .getByRole('row')
      .filter({ hasText: 'janet' })
      .getByRole('cell')
      .nth(1)
      .textContent(),
  ).toBe('—None');
  await row.getByRole('button', { name: 'Copy the mnemo id of customer-42' }).click();
  await page.getByRole('status').getByText('Copied the mnemo id of customer-42.').waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(jane.id);
  expect(await t.axe(page)).toEqual([]);

  await page.getByRole('button', { name: 'Load more' }).click();
  await expect.poll(async () => (await externalIds(page)).length).toBe(total);
  expect(await externalIds(page)).toEqual(all);
  await page.getByText(`Showing all ${total}.`).waitFor();
  expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);

  // The search keeps those whose id or name starts with it, letter case aside; it is in the URL.
  await search(page).fill('JAN');
  await expect.poll(() => count(page).textContent()).toBe('3 match “JAN”');
  expect(new Set(await externalIds(page))).toEqual(new Set(['customer-42', 'customer-7', 'janet']));
  expect(await externalIds(page)).toEqual(await listed('JAN'));
  expect(new URL(page.url()).searchParams.get('q')).toBe('JAN');
  await search(page).fill('jane');
  await expect.poll(() => count(page).textContent()).toBe('2 match “jane”');
  expect(new Set(await externalIds(page))).toEqual(new Set(['customer-42', 'janet']));
  await search(page).fill('customer-4');
  await expect.poll(() => count(page).textContent()).toBe('1 matches “customer-4”');
  expect(await externalIds(page)).toEqual(['customer-42']);
  await search(page).fill('team/');
  await expect.poll(() => externalIds(page)).toEqual([ODD]);
  await search(page).fill('nobody');
  await expect
    .poll(() => count(page).textContent())
    .toBe('No end user’s id or name starts with “nobody”');
  expect(await table(page).count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);

  // A link (or a reload) with ?q= opens the search as it was.
  await page.goto(`${t.url}/studio/end-users?q=jan`);
  await expect.poll(() => count(page).textContent()).toBe('3 match “jan”');
  expect(await search(page).inputValue()).toBe('jan');
  await search(page).fill('');
  await expect.poll(() => count(page).textContent()).toBe(`${total} end users`);
  expect(new URL(page.url()).search).toBe('');
});

test('an end user’s memories are one click away: read and added there, for them, as the API confirms', async () => {
  const jane = known.get('customer-42') as EndUser;
  const page = await newPage();
  await t.signIn(page, '/end-users?q=customer-42');
  await table(page)
    .getByRole('row')
    .filter({ hasText: 'customer-42' })
    .getByRole('link', { name: 'Memories of customer-42' })
    .click();
  await page.getByText('Prefers email over phone calls').waitFor();
  expect(new URL(page.url()).pathname).toBe('/studio/memories/end-users/customer-42');
  expect(await page.locator('.page-subtitle').textContent()).toBe(
    'Acting for the end user Jane Doe (customer-42): what you do here is recorded in the audit log.',
  );
  expect(
    await page.getByRole('combobox', { name: 'Store' }).locator('option:checked').textContent(),
  ).toBe('End user: Jane Doe (customer-42)');
  // Focus went to the new page's heading.
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Memories');

  await page.getByRole('textbox', { name: 'New memory' }).fill('Asked for a refund on 3 March');
  await page.getByRole('button', { name: 'Add' }).click();
  await page
    .getByRole('list', { name: 'Memories', exact: true })
    .getByText('Asked for a refund on 3 March')
    .waitFor();
  expect(await memoriesOf(jane.id)).toEqual([
    'Asked for a refund on 3 March',
    'Prefers email over phone calls',
  ]);
  expect(await memoriesOf(t.owner.id)).toEqual([]);
  expect(await t.axe(page)).toEqual([]);

  // Back to the list by the breadcrumb.
  await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link').click();
  await page.getByRole('heading', { level: 1, name: 'End users' }).waitFor();

  // Any id an app uses makes one path segment, and comes back whole.
  const odd = known.get(ODD) as EndUser;
  await search(page).fill('team');
  // Clicked once the search has redrawn the table: a row clicked while it is redrawn may have
  // moved from under the pointer, and another end user's link be followed.
  await expect.poll(() => externalIds(page)).toEqual([ODD]);
  await table(page)
    .getByRole('link', { name: `Memories of ${ODD}` })
    .click();
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(
    `/studio/memories/end-users/${encodeURIComponent(ODD)}`,
  );
  expect(await page.locator('.page-subtitle').textContent()).toContain(
    `Acting for the end user ${ODD}: what you do here`,
  );
  expect(
    await page.getByRole('combobox', { name: 'Store' }).locator('option:checked').textContent(),
  ).toBe(`End user: ${ODD}`);
  expect(await page.locator('pre').textContent()).toContain(`"user": "${odd.id}"`);

  // An id no app registered.
  await page.goto(`${t.url}/studio/memories/end-users/customer-999`);
  await page.getByRole('heading', { level: 1, name: 'End user not found' }).waitFor();
  await page.getByRole('heading', { name: 'No end user “customer-999” here' }).waitFor();
  expect(await page.getByRole('link', { name: 'See all end users' }).getAttribute('href')).toBe(
    '/studio/end-users',
  );
  expect(await t.axe(page)).toEqual([]);
});

test('erasing asks first, naming what goes; then the row and the memories are gone, as the API confirms', async () => {
  const erin = await register('erase-me', 'Erin Ease');
  await remember(erin.id, 'Lives in Lyon');
  await remember(erin.id, 'Has two cats');
  // What an app acting as Erin gave a project pool is erased with her.
  const pool = await t.server.t.fixtures.project(t.orgId, {
    [t.owner.id]: 'owner',
    [erin.id]: 'editor',
  });
  const token = await t.server.t.fixtures.token(erin.id);
  const contributed = await t.server.memory(token, t.orgId, 'POST', {
    content: 'The pool heard from Erin',
    project: pool,
  });
  expect(contributed.status).toBe(201);
  const total = known.size;

  const page = await newPage();
  await t.signIn(page, '/end-users');
  await expect.poll(() => count(page).textContent()).toBe(`${total} end users`);
  const row = table(page).getByRole('row').filter({ hasText: 'erase-me' });
  await row.getByRole('button', { name: 'Erase erase-me' }).click();
  const dialog = page.getByRole('dialog', { name: 'Erase erase-me?' });
  await dialog.getByText('their 2 memories,').waitFor();
  expect(await dialog.locator('p').first().textContent()).toBe(
    'Erasing Erin Ease (erase-me) deletes, at once and for good, everything Acme holds of them:',
  );
  expect(await dialog.getByRole('listitem').allTextContents()).toEqual([
    'their 2 memories,',
    '1 memory they contributed to project pools,',
    'memories proposed from their chats that wait for review,',
    'their access to projects and their API keys.',
  ]);
  expect(await dialog.textContent()).toContain(
    'The audit log keeps only that they were erased, by you, and how much went; never what.',
  );
  const confirm = dialog.getByRole('button', { name: 'Erase erase-me' });
  expect(await confirm.getAttribute('class')).toContain('danger');
  expect(await t.axe(page)).toEqual([]);

  // Cancel changes nothing.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  expect(await dialog.isVisible()).toBe(false);
  expect(await memoriesOf(erin.id)).toEqual(['Has two cats', 'Lives in Lyon']);

  await row.getByRole('button', { name: 'Erase erase-me' }).click();
  await confirm.click();
  await page
    .getByRole('status')
    .getByText('erase-me is erased, with everything mnemo held of them.')
    .waitFor();
  await row.waitFor({ state: 'detached' });
  await expect.poll(() => count(page).textContent()).toBe(`${total - 1} end users`);
  // The button that opened the dialog is gone: focus is on the page's heading.
  expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
  known.delete('erase-me');

  const gone = await t.api(t.owner.id, 'GET', endUserPath('erase-me'));
  expect(gone.status).toBe(404);
  expect(await gone.json()).toEqual({ error: 'end user not found' });
  const memories = await t.api(t.owner.id, 'GET', `/api/v1/memory?user=${erin.id}`);
  expect(memories.status).toBe(400);
  const poolList = await ok<{ memories: { content: string }[] }>(
    t.api(t.owner.id, 'GET', `/api/v1/memory?project=${pool}`),
  );
  expect(poolList.memories).toEqual([]);

  // The audit log keeps that it happened, by whom, and how much went: counts, never content.
  const { entries } = await ok<{
    entries: { actorId: string; targetId: string; action: string; details?: unknown }[];
  }>(t.api(t.owner.id, 'GET', '/api/v1/audit?limit=5'));
  expect(entries[0]).toMatchObject({
    actorId: t.owner.id,
    targetId: erin.id,
    action: 'end_user.erase',
    details: { memories: 2, poolMemories: 1, proposals: 0, projectGrants: 1, apiKeys: 0 },
  });
  await page.goto(`${t.url}/studio/audit`);
  const newest = page.getByRole('region', { name: 'Audit log, newest first' }).locator('tbody tr');
  await newest.first().waitFor();
  expect(
    (await newest.first().locator('td').allTextContents()).slice(1).map((cell) => cell.trim()),
  ).toEqual([
    'Ada Lovelace',
    'Erased an end user',
    `End user, erased ${erin.id}`,
    'Deleted 2 memories, 1 memory in project pools, 1 project access',
  ]);
  // Erased elsewhere while the list showed them: the dialog says so, and the row goes. (The page
  // is opened once the end user exists: a reload during the studio's sign-in would abort it.)
  await register('erased-elsewhere');
  await page.goto(`${t.url}/studio/end-users`);
  const stale = table(page).getByRole('row').filter({ hasText: 'erased-elsewhere' });
  await stale.waitFor();
  await ok(t.api(t.owner.id, 'DELETE', endUserPath('erased-elsewhere')));
  known.delete('erased-elsewhere');
  await stale.getByRole('button', { name: 'Erase erased-elsewhere' }).click();
  const again = page.getByRole('dialog', { name: 'Erase erased-elsewhere?' });
  await again.getByText('There is nothing left to erase').waitFor();
  await again.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('status').getByText('erased-elsewhere was erased already.').waitFor();
  await stale.waitFor({ state: 'detached' });
  await expect.poll(() => count(page).textContent()).toBe(`${known.size} end users`);
});

test('a member has no End users in the navigation, and is told why at its address', async () => {
  const mary = await t.person({ name: 'Mary Member' });
  const page = await newPage();
  await t.signIn(page, '/memories', mary);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Members' }).waitFor();
  expect(await nav.getByRole('link', { name: 'End users' }).count()).toBe(0);

  await page.goto(`${t.url}/studio/end-users`);
  await page.getByRole('heading', { level: 2, name: 'For owners and admins' }).waitFor();
  expect(
    await page.getByText('Only the owners and admins of Acme can see its end users').count(),
  ).toBe(1);
  expect(await page.getByRole('searchbox').count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);

  await page.goto(`${t.url}/studio/memories/end-users/customer-42`);
  await page.getByRole('heading', { level: 2, name: 'For owners and admins' }).waitFor();
  expect(await page.getByRole('textbox', { name: 'New memory' }).count()).toBe(0);
});

test('with no end users yet, the page says what they are and how an app registers one', async () => {
  const empty = await t.server.t.fixtures.org({ name: 'Globex' });
  const owner = await t.person({ orgId: empty, role: 'owner', name: 'Olive Owner' });
  const page = await newPage();
  await t.signIn(page, '/end-users', owner);
  await page.getByRole('heading', { level: 2, name: 'No end users yet' }).waitFor();
  const curl = await page.locator('pre').textContent();
  expect(curl).toContain(`curl -X PUT ${t.url}/api/v1/orgs/${empty}/end-users/customer-42`);
  expect(await page.getByText('Apps and the people they remember').count()).toBe(1);
  expect(await page.getByRole('searchbox').count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);
});

// Both widths and both schemes, each once: a scheme's colours are the same at any width, and
// axe costs seconds a page on a busy machine.
const LOOKS = [
  ['desktop', 'light', DESKTOP],
  ['375 px', 'dark', PHONE],
] as const;

const LOOKED_AT =
  'at %s in %s, axe finds nothing on the page, the erase dialog and an end user’s memories, and nothing scrolls sideways';

test.for(LOOKS)(LOOKED_AT, async ([, colorScheme, viewport]) => {
  const page = await newPage({ viewport, colorScheme });
  await t.signIn(page, '/end-users');
  await expect.poll(() => count(page).textContent()).toBe(`${known.size} end users`);
  expect(await t.axe(page)).toEqual([]);
  expect(await noOverflow(page)).toBe(true);

  await page.getByRole('button', { name: 'Erase customer-7' }).click();
  const dialog = page.getByRole('dialog', { name: 'Erase customer-7?' });
  await dialog.getByRole('listitem').first().waitFor();
  expect(await t.axe(page)).toEqual([]);
  expect(await noOverflow(page)).toBe(true);
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('link', { name: 'Memories of customer-42' }).click();
  await page.getByText('Prefers email over phone calls').waitFor();
  expect(await t.axe(page)).toEqual([]);
  expect(await noOverflow(page)).toBe(true);
});
