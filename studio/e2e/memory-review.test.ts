import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newRowId } from '../../src/db/row-id.ts';
import { ok, type Person, PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

let t: StudioTest;
beforeAll(async () => {
  t = await startStudioTest();
});
afterAll(() => t?.close());

type Item = { id: string; content: string; category?: string };

const HEADING = /^Learned from chats — waiting for review/;

const memoriesOf = async (userId: string, query = ''): Promise<Item[]> =>
  (await ok<{ memories: Item[] }>(t.api(userId, 'GET', `/api/v1/memory${query}`))).memories;

const proposalsOf = async (userId: string): Promise<{ id: string; content: string }[]> =>
  (
    await ok<{ proposals: { id: string; content: string }[] }>(
      t.api(userId, 'GET', '/api/v1/memory-proposals'),
    )
  ).proposals;

/** A member with an API key, whose chat calls the proposals are said to come from. */
async function memberWithKey(): Promise<{ person: Person; keyId: string }> {
  const person = await t.person({ role: 'member', name: 'Grace Hopper' });
  const made = await ok<{ key: { id: string } }>(
    t.api(person.id, 'POST', '/api/v1/api-keys', { name: 'Chat app', memory: 'read-write' }),
  );
  return { person, keyId: made.key.id };
}

let clock = Date.now() - 3_600_000;

/**
 * What an extraction in review mode leaves (proposals.service.ts), written to the store as it
 * would: the queue is only ever filled by chat calls, which a page test has no need to make.
 */
async function propose(
  person: Person,
  keyId: string,
  fields: {
    content: string;
    category?: string;
    action?: 'add' | 'update';
    memoryId?: string;
    projectId?: string;
  },
): Promise<string> {
  const id = newRowId();
  clock += 60_000;
  const row = {
    id,
    org_id: t.orgId,
    user_id: person.id,
    key_id: keyId,
    project_id: fields.projectId ?? null,
    action: fields.action ?? 'add',
    memory_id: fields.memoryId ?? null,
    content: fields.content,
    category: fields.category ?? null,
    created_at: clock,
  };
  await t.server.t.database.write((trx) =>
    trx.insertInto('memory_proposals').values(row).execute(),
  );
  return id;
}

const review = (page: Page) => page.getByRole('region', { name: HEADING });
const proposal = (page: Page, text: string) =>
  review(page).getByRole('listitem').filter({ hasText: text });
const memoryItem = (page: Page, text: string) =>
  page
    .getByRole('list', { name: 'Memories', exact: true })
    .getByRole('listitem')
    .filter({ hasText: text });

test('with nothing to review, the page shows no review section', async () => {
  const { person } = await memberWithKey();
  await ok(t.api(person.id, 'POST', '/api/v1/memory', { content: 'Works at Acme' }));
  const page = await t.newPage();
  const asked = page.waitForResponse(
    (r) => r.url() === `${t.url}/api/v1/memory-proposals` && r.status() === 200,
  );
  await t.signIn(page, '/memories', person);
  await memoryItem(page, 'Works at Acme').waitFor();
  expect(await (await asked).json()).toEqual({ proposals: [] });
  expect(await page.getByRole('heading', { name: HEADING }).count()).toBe(0);
});

test('proposals show what they would change and where; accepted ones join the list, dropped ones go', async () => {
  const { person, keyId } = await memberWithKey();
  const works = await ok<{ memory: Item }>(
    t.api(person.id, 'POST', '/api/v1/memory', { content: 'Works at Acme', category: 'identity' }),
  );
  const ledger = (
    await ok<{ project: { id: string } }>(
      t.api(t.owner.id, 'POST', `/api/v1/orgs/${t.orgId}/projects`, { name: 'Ledger migration' }),
    )
  ).project.id;
  await ok(
    t.api(t.owner.id, 'PUT', `/api/v1/projects/${ledger}/collaborators/${person.id}`, {
      access: 'editor',
    }),
  );
  await propose(person, keyId, { content: 'Prefers tea over coffee', category: 'preference' });
  await propose(person, keyId, { content: 'Likes jazz while coding' });
  await propose(person, keyId, {
    action: 'update',
    memoryId: works.memory.id,
    content: 'Works at Acme as a staff engineer',
    category: 'identity',
  });
  await propose(person, keyId, {
    content: 'Cut-over is planned for 14 March',
    category: 'project',
    projectId: ledger,
  });

  const page = await t.newPage();
  await t.signIn(page, '/memories', person);
  const heading = page.getByRole('heading', { name: HEADING });
  await expect.poll(() => heading.textContent()).toBe('Learned from chats — waiting for review 4');
  // Oldest first, each with its category, what it changes, where it goes and whence it came.
  const items = review(page).getByRole('listitem');
  await expect.poll(() => items.count()).toBe(4);
  const tea = proposal(page, 'Prefers tea over coffee');
  await expect.poll(() => tea.textContent()).toContain('Preference');
  expect(await tea.textContent()).toContain('To your memories');
  expect(await tea.textContent()).toContain('with “Chat app”');
  expect(await proposal(page, 'Likes jazz').textContent()).toContain('No category');
  const update = proposal(page, 'as a staff engineer');
  expect(await update.locator('.proposal-was').textContent()).toBe('NowWorks at Acme');
  expect(await update.locator('.proposal-becomes').textContent()).toBe(
    '→ ProposedWorks at Acme as a staff engineer',
  );
  await expect
    .poll(() => proposal(page, 'Cut-over').textContent())
    .toContain('To the shared pool of Ledger migration');
  expect((await items.allTextContents()).map((text) => text.slice(0, 20))).toEqual([
    'Prefers tea over cof',
    'Likes jazz while cod',
    'NowWorks at Acme→ Pr',
    'Cut-over is planned ',
  ]);
  // The buttons say which proposal they decide.
  expect(
    await tea
      .getByRole('button', { name: 'Accept' })
      .evaluate(
        (b) => document.getElementById(b.getAttribute('aria-describedby') ?? '')?.textContent,
      ),
  ).toBe('Prefers tea over coffee');
  expect(await t.axe(page)).toEqual([]);

  // Accepted: a memory now, in the list below, at the server; gone from the queue.
  await tea.getByRole('button', { name: 'Accept' }).click();
  await memoryItem(page, 'Prefers tea over coffee').getByText('Preference').waitFor();
  await tea.waitFor({ state: 'detached' });
  await page
    .getByRole('status')
    .getByText('Accepted: “Prefers tea over coffee” is saved.')
    .waitFor();
  expect(await heading.evaluate((h) => h === document.activeElement)).toBe(true);
  expect(await heading.textContent()).toBe('Learned from chats — waiting for review 3');
  expect(await memoriesOf(person.id)).toContainEqual(
    expect.objectContaining({ content: 'Prefers tea over coffee', category: 'preference' }),
  );

  // Dropped: nothing saved.
  await proposal(page, 'Likes jazz').getByRole('button', { name: 'Drop' }).click();
  await proposal(page, 'Likes jazz').waitFor({ state: 'detached' });
  await page.getByRole('status').getByText('Dropped: “Likes jazz while coding”.').waitFor();
  expect((await memoriesOf(person.id)).map((m) => m.content).sort()).toEqual([
    'Prefers tea over coffee',
    'Works at Acme',
  ]);

  // An accepted update changes the memory in place.
  await update.getByRole('button', { name: 'Accept' }).click();
  await memoryItem(page, 'Works at Acme as a staff engineer').waitFor();
  await update.waitFor({ state: 'detached' });
  expect(await memoriesOf(person.id)).toContainEqual({
    ...works.memory,
    content: 'Works at Acme as a staff engineer',
    updatedAt: expect.any(String),
  });
  expect(await memoryItem(page, 'Works at Acme').count()).toBe(1);

  // A pool's page shows the proposals for that pool; accepted there, the pool has it.
  await page.goto(`${t.url}/studio/memories/projects/${ledger}`);
  const cutOver = proposal(page, 'Cut-over');
  await cutOver.waitFor();
  await expect.poll(() => review(page).getByRole('listitem').count()).toBe(1);
  await cutOver.getByRole('button', { name: 'Accept' }).click();
  await memoryItem(page, 'Cut-over is planned for 14 March').waitFor();
  // The last one decided, the section goes, and focus with it to the page's heading.
  await heading.waitFor({ state: 'detached' });
  expect(await page.evaluate(() => document.activeElement?.matches('#main h1') ?? false)).toBe(
    true,
  );
  expect((await memoriesOf(person.id, `?project=${ledger}`)).map((m) => m.content)).toEqual([
    'Cut-over is planned for 14 March',
  ]);
  expect(await proposalsOf(person.id)).toEqual([]);
  expect(await t.axe(page)).toEqual([]);
});

test('an update whose memory was deleted cannot be accepted, only dropped', async () => {
  const { person, keyId } = await memberWithKey();
  const gone = await ok<{ memory: Item }>(
    t.api(person.id, 'POST', '/api/v1/memory', { content: 'Lives in Leeds' }),
  );
  await propose(person, keyId, {
    action: 'update',
    memoryId: gone.memory.id,
    content: 'Lives in York',
  });
  await ok(t.api(person.id, 'DELETE', `/api/v1/memory/${gone.memory.id}`));
  const page = await t.newPage();
  await t.signIn(page, '/memories', person);
  const item = proposal(page, 'Lives in York');
  await expect
    .poll(() => item.locator('.proposal-was').textContent())
    .toBe('NowDeleted since this was proposed');
  expect(await item.getByRole('button', { name: 'Accept' }).isDisabled()).toBe(true);
  await item.getByRole('button', { name: 'Drop' }).click();
  await item.waitFor({ state: 'detached' });
  expect(await proposalsOf(person.id)).toEqual([]);
  expect(await memoriesOf(person.id)).toEqual([]);
});

test('a refused accept says why, and the proposal stays', async () => {
  const { person, keyId } = await memberWithKey();
  await propose(person, keyId, { content: 'Prefers window seats', category: 'preference' });
  const page = await t.newPage();
  await t.signIn(page, '/memories', person);
  const item = proposal(page, 'Prefers window seats');
  await item.waitFor();
  await page.route(`${t.url}/api/v1/memory-proposals/*/accept`, (route) =>
    route.abort('internetdisconnected'),
  );
  await item.getByRole('button', { name: 'Accept' }).click();
  await item.getByRole('alert').getByText('mnemo could not be reached').waitFor();
  expect(await proposalsOf(person.id)).toHaveLength(1);
});

test('at 375 px the review section fits the screen', async () => {
  const { person, keyId } = await memberWithKey();
  await propose(person, keyId, {
    content: `A long proposal: ${'word '.repeat(60)}`,
    category: 'goal',
  });
  const page = await t.newPage({ viewport: PHONE });
  await t.signIn(page, '/memories', person);
  await proposal(page, 'A long proposal').waitFor();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    PHONE.width,
  );
  expect(await t.axe(page)).toEqual([]);
});
