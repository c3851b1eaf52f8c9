import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Person, PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

let t: StudioTest;
beforeAll(async () => {
  t = await startStudioTest();
});
afterAll(() => t?.close());

type Item = { id: string; content: string; category?: string };

async function listOf(userId: string, query = '', orgId?: string): Promise<Item[]> {
  const response = await t.api(userId, 'GET', `/api/v1/memory${query}`, undefined, orgId);
  expect(response.status).toBe(200);
  return ((await response.json()) as { memories: Item[] }).memories;
}

async function add(userId: string, body: object): Promise<Item> {
  const response = await t.api(userId, 'POST', '/api/v1/memory', body);
  expect(response.status).toBe(201);
  return ((await response.json()) as { memory: Item }).memory;
}

const memoryItem = (page: Page, text: string) =>
  page
    .getByRole('list', { name: 'Memories', exact: true })
    .getByRole('listitem')
    .filter({ hasText: text });

/** The words of the line that says whether the list is live. */
const syncStatus = (page: Page) => page.locator('.sync-status').textContent();

/** A person of their own store, signed in on a fresh page. */
async function signedIn(path = '/memories', options: { role?: 'owner' | 'member' } = {}) {
  const person = await t.person({ role: options.role ?? 'member', name: 'Grace Hopper' });
  const page = await t.newPage();
  await t.signIn(page, path, person);
  return { person, page };
}

test('an empty store says how to add a first memory, with the curl line', async () => {
  const { page } = await signedIn();
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor();
  const curl = await page.locator('pre').textContent();
  expect(curl).toContain(`curl -X POST ${t.url}/api/v1/memory`);
  expect(curl).toContain(`X-Organization-Id: ${t.orgId}`);
  expect(await t.axe(page)).toEqual([]);
});

test('add, fold, edit in place, delete with undo — each checked through the API', async () => {
  const { person, page } = await signedIn();
  await page.getByRole('textbox', { name: 'New memory' }).fill('Prefers tea over coffee');
  await page.getByLabel('Category').selectOption('preference');
  await page.getByRole('button', { name: 'Add' }).click();
  await memoryItem(page, 'Prefers tea over coffee').waitFor();
  expect(await page.getByRole('textbox', { name: 'New memory' }).inputValue()).toBe('');
  const [tea] = await listOf(person.id);
  expect(tea).toMatchObject({ content: 'Prefers tea over coffee', category: 'preference' });

  // The same words again fold into it: nothing new is stored, and the page says where it is.
  await page.getByRole('textbox', { name: 'New memory' }).fill('prefers tea over coffee!');
  await page.getByRole('button', { name: 'Add' }).click();
  await page.getByText('Already saved').waitFor();
  await page.getByRole('button', { name: 'Show it' }).click();
  await expect
    .poll(() => memoryItem(page, 'Prefers tea').getAttribute('class'))
    .toContain('highlighted');
  expect(await listOf(person.id)).toHaveLength(1);

  // Edit in place: content and category.
  await memoryItem(page, 'Prefers tea').getByRole('button', { name: 'Edit' }).click();
  await page.getByRole('textbox', { name: 'Memory text' }).fill('Prefers green tea, no sugar');
  await memoryItem(page, 'green tea').getByLabel('Category').selectOption('constraint');
  await page.getByRole('button', { name: 'Save' }).click();
  await memoryItem(page, 'Prefers green tea, no sugar').getByText('Constraint').waitFor();
  expect(await listOf(person.id)).toEqual([
    expect.objectContaining({
      id: tea?.id,
      content: 'Prefers green tea, no sugar',
      category: 'constraint',
    }),
  ]);

  // Delete, then Undo: the memory stays, on the page and at the server.
  await memoryItem(page, 'green tea').getByRole('button', { name: 'Delete' }).click();
  await expect.poll(() => memoryItem(page, 'green tea').count()).toBe(0);
  await page.getByRole('button', { name: 'Undo' }).click();
  await memoryItem(page, 'green tea').waitFor();
  await page.waitForTimeout(7000);
  expect(await listOf(person.id)).toHaveLength(1);

  // Delete for good: the DELETE goes once the undo has passed.
  await memoryItem(page, 'green tea').getByRole('button', { name: 'Delete' }).click();
  await expect.poll(() => listOf(person.id), { timeout: 10_000 }).toEqual([]);
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor();
}, 60_000);

test('live: a memory added, changed or deleted through the API shows up within 1 s, without a reload', async () => {
  const { person, page } = await signedIn();
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor();
  const item = await add(person.id, { content: 'Works from Lisbon', category: 'identity' });
  await memoryItem(page, 'Works from Lisbon').waitFor({ timeout: 1000 });
  expect(await syncStatus(page)).toBe('Live');
  await t.api(person.id, 'PATCH', `/api/v1/memory/${item.id}`, { content: 'Works from Porto' });
  await memoryItem(page, 'Works from Porto').waitFor({ timeout: 1000 });
  await t.api(person.id, 'DELETE', `/api/v1/memory/${item.id}`);
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor({ timeout: 1000 });
});

test('when the account already holds all its open streams, the page pulls every few seconds, and takes a stream again once one is free', async () => {
  const person = await t.person({ name: 'Many Tabs' });
  const token = await t.server.t.fixtures.token(person.id);
  // Twenty streams, as twenty other tabs or scripts of this account hold them.
  const others = new AbortController();
  try {
    const streams = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${t.url}/api/v1/memory/events`, {
          headers: {
            authorization: `Bearer ${token}`,
            'x-organization-id': t.orgId,
            accept: 'text/event-stream',
          },
          signal: others.signal,
        }),
      ),
    );
    expect(streams.map((s) => s.status)).toEqual(Array(20).fill(200));
    await add(person.id, { content: 'Was here before' });
    const page = await t.newPage();
    await t.signIn(page, '/memories', person);
    await memoryItem(page, 'Was here before').waitFor();
    expect(await syncStatus(page)).toBe('Checking for changes every few seconds');

    // Pulled every 3 to 4 s: a change shows within 5.
    const item = await add(person.id, { content: 'Added while the streams are taken' });
    await memoryItem(page, 'Added while the streams are taken').waitFor({ timeout: 5000 });
    await t.api(person.id, 'PATCH', `/api/v1/memory/${item.id}`, { content: 'Changed by a pull' });
    await memoryItem(page, 'Changed by a pull').waitFor({ timeout: 5000 });

    // The other streams close: within half a minute the page holds one of its own again.
    others.abort();
    await expect.poll(() => syncStatus(page), { timeout: 40_000 }).toBe('Live');
    await t.api(person.id, 'DELETE', `/api/v1/memory/${item.id}`);
    await expect
      .poll(() => memoryItem(page, 'Changed by a pull').count(), { timeout: 1000, interval: 50 })
      .toBe(0);
    expect(await syncStatus(page)).toBe('Live');
  } finally {
    others.abort();
  }
}, 90_000);

test('category chips count and filter; the text filter; both kept in the URL', async () => {
  const { person, page } = await signedIn();
  await add(person.id, { content: 'Is a staff engineer', category: 'identity' });
  await add(person.id, { content: 'Wants to ship the sync engine', category: 'goal' });
  await add(person.id, { content: 'Wants to learn Rust', category: 'goal' });
  await add(person.id, { content: 'Likes short answers' });
  await page.reload();
  await memoryItem(page, 'Likes short answers').waitFor();
  expect(await page.getByRole('button', { name: /^Goal/ }).textContent()).toBe('Goal 2');
  expect(await page.getByRole('button', { name: /^All/ }).textContent()).toBe('All 4');
  await page.getByRole('button', { name: /^Goal/ }).click();
  await expect
    .poll(() =>
      page.getByRole('list', { name: 'Memories', exact: true }).getByRole('listitem').count(),
    )
    .toBe(2);
  expect(new URL(page.url()).searchParams.get('category')).toBe('goal');
  await page.getByRole('searchbox', { name: 'Filter memories' }).fill('rust');
  await expect
    .poll(() =>
      page
        .getByRole('list', { name: 'Memories', exact: true })
        .getByRole('listitem')
        .allTextContents(),
    )
    .toEqual([expect.stringContaining('Wants to learn Rust')]);
  await page.goBack();
  await expect.poll(() => new URL(page.url()).searchParams.get('category')).toBe(null);
  expect(await t.axe(page)).toEqual([]);
});

test('long unbroken content wraps, and content is text, never markup', async () => {
  const { person, page } = await signedIn();
  const url = `https://example.com/${'a'.repeat(400)}`;
  await add(person.id, { content: url });
  await add(person.id, { content: '<img src=x onerror="window.__pwned=1"> <b>bold</b>' });
  await page.reload();
  const row = memoryItem(page, 'example.com');
  await row.waitFor();
  const box = await row.evaluate((li) => ({ scroll: li.scrollWidth, client: li.clientWidth }));
  expect(box.scroll).toBeLessThanOrEqual(box.client);
  await memoryItem(page, '<b>bold</b>').waitFor();
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
});

test('a project pool and another member’s store, with the API’s refusals as sentences', async () => {
  const owner = t.owner;
  const member = await t.person({ name: 'Katherine Johnson' });
  const projectId = await t.server.t.fixtures.project(t.orgId, { [owner.id]: 'owner' });
  await add(owner.id, { content: 'The pool remembers the launch date', project: projectId });
  await add(member.id, { content: 'Katherine prefers morning meetings' });

  const page = await t.newPage();
  await t.signIn(page, `/memories/projects/${projectId}`, owner);
  await memoryItem(page, 'launch date').waitFor();
  await page.getByRole('textbox', { name: 'New memory' }).fill('Launch moved to March');
  await page.getByRole('button', { name: 'Add' }).click();
  await memoryItem(page, 'Launch moved to March').waitFor();
  expect((await listOf(owner.id, `?project=${projectId}`)).map((m) => m.content).sort()).toEqual([
    'Launch moved to March',
    'The pool remembers the launch date',
  ]);

  // The owner picks the member's store from the picker and acts for them.
  await page.getByLabel('Store').selectOption({ label: 'Katherine Johnson' });
  await memoryItem(page, 'morning meetings').waitFor();
  expect(new URL(page.url()).pathname).toBe(`/studio/memories/members/${member.id}`);
  await page.getByText('Acting for').waitFor();
  await page.getByRole('textbox', { name: 'New memory' }).fill('Katherine leads the review');
  await page.getByRole('button', { name: 'Add' }).click();
  await memoryItem(page, 'leads the review').waitFor();
  expect((await listOf(member.id)).map((m) => m.content).sort()).toEqual([
    'Katherine leads the review',
    'Katherine prefers morning meetings',
  ]);
  expect(await t.axe(page)).toEqual([]);

  // Someone who is not a member of the organization: the API's 400, as a sentence.
  const outsider = await t.server.person();
  await page.goto(`${t.url}/studio/memories/members/${outsider.id}`);
  await page.getByRole('alert').waitFor();
  expect(await page.getByRole('alert').textContent()).toMatch(/^[A-Z][^{}]*\.$/);

  // An organization where only owners and admins act for others: a member is told so.
  const strict = await t.server.t.fixtures.org({ name: 'Strict', userOverride: 'admins' });
  const plain = await t.person({ orgId: strict, name: 'Plain Member' });
  const other = await t.person({ orgId: strict, name: 'Other Member' });
  const memberPage = await t.newPage();
  await t.signIn(memberPage, `/memories/members/${other.id}`, plain as Person);
  const alert = memberPage.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/^You are not allowed to do this: .+\.$/);
}, 60_000);

test('5,000 memories: counted in full, rendered a page at a time, filtered at once', async () => {
  const person = await t.person({ name: 'Many Memories' });
  const token = await t.server.t.fixtures.token(person.id);
  const categories = ['identity', 'preference', 'goal', 'project', 'relationship'];
  for (let start = 0; start < 5000; start += 250) {
    await Promise.all(
      Array.from({ length: 250 }, (_, k) =>
        t.server.t.request(
          { token, orgId: t.orgId },
          {
            method: 'POST',
            url: '/api/v1/memory',
            payload: {
              content: `Memory number ${start + k}`,
              category: categories[(start + k) % 5],
            },
          },
        ),
      ),
    );
  }
  const page = await t.newPage();
  await t.signIn(page, '/memories', person);
  await page.getByText('5,000 memories').waitFor({ timeout: 20_000 });
  expect(await page.getByRole('button', { name: /^Goal/ }).textContent()).toBe('Goal 1,000');
  expect(
    await page.getByRole('list', { name: 'Memories', exact: true }).getByRole('listitem').count(),
  ).toBe(100);
  await page.getByRole('button', { name: 'Show 100 more of 4,900' }).click();
  await expect
    .poll(() =>
      page.getByRole('list', { name: 'Memories', exact: true }).getByRole('listitem').count(),
    )
    .toBe(200);
  await page.getByRole('searchbox', { name: 'Filter memories' }).fill('number 4321');
  await expect
    .poll(() =>
      page
        .getByRole('list', { name: 'Memories', exact: true })
        .getByRole('listitem')
        .allTextContents(),
    )
    .toEqual([expect.stringContaining('Memory number 4321')]);
}, 90_000);

test('at 375 px the page fits the screen', async () => {
  const person = await t.person({ name: 'Phone User' });
  await add(person.id, { content: `A long one: ${'word '.repeat(80)}`, category: 'goal' });
  const page = await t.newPage({ viewport: PHONE });
  await t.signIn(page, '/memories', person);
  await memoryItem(page, 'A long one').waitFor();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  expect(await t.axe(page)).toEqual([]);
});

test('a viewer of a pool reads it and is told who adds to it, without an add form', async () => {
  const viewer = await t.person({ name: 'Pool Viewer' });
  const projectId = await t.server.t.fixtures.project(t.orgId, {
    [t.owner.id]: 'owner',
    [viewer.id]: 'viewer',
  });
  await add(t.owner.id, { content: 'Viewers can read this', project: projectId });
  const page = await t.newPage();
  await t.signIn(page, `/memories/projects/${projectId}`, viewer);
  await memoryItem(page, 'Viewers can read this').waitFor();
  await page.getByText('You can read this pool.').waitFor();
  expect(await page.getByRole('textbox', { name: 'New memory' }).count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);
});
