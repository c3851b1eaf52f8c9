import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

let t: StudioTest;
beforeAll(async () => {
  // Rate limits on (the harness turns them off), with the least budget of imported memories a
  // minute the server takes: a second batch has to wait.
  t = await startStudioTest({
    env: { MNEMO_RATE_LIMIT_PER_MINUTE: '600', MNEMO_IMPORT_ITEMS_PER_MINUTE: '1000' },
  });
});
afterAll(() => t?.close());

type Item = { id: string; content: string; category?: string; createdAt: string };

async function listOf(userId: string, query = ''): Promise<Item[]> {
  const response = await t.api(userId, 'GET', `/api/v1/memory${query}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { memories: Item[] }).memories;
}

/** The date as the browser's calendar has it, as export file names carry it. */
const today = (page: Page) =>
  page.evaluate(() => {
    const at = new Date();
    const two = (n: number) => String(n).padStart(2, '0');
    return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`;
  });

/** A file to import: one memory a line, each its own. */
const linesOf = (count: number, from = 1) =>
  Array.from({ length: count }, (_, i) =>
    JSON.stringify({ content: `Fact number ${from + i}` }),
  ).join('\n');

async function choose(page: Page, text: string, name = 'memories.jsonl') {
  await page
    .getByRole('dialog')
    .getByLabel('File')
    .setInputFiles({ name, mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
}

async function signedIn(path = '/memories') {
  const person = await t.person({ role: 'member', name: 'Grace Hopper' });
  const page = await t.newPage();
  await t.signIn(page, path, person);
  return { person, page };
}

const FILE = [
  '{"content":"Prefers window seats","category":"preference","createdAt":"2024-07-20T08:34:56.789Z"}',
  '{"content":"Flies to Lisbon in May"}',
  'this line is not JSON',
  '{"content":"prefers window seats"}',
  '{"content":"Moved to Porto","createdAt":"2999-01-01T00:00:00Z"}',
  '{"content":"Likes tea","mood":"calm"}',
  '{"content":"Runs on Sundays"}',
  '{"content":"Reads before sleep"}',
].join('\n');

test('import: a file, a preview of its first memories, then each memory’s outcome; the list shows what came in', async () => {
  const { person, page } = await signedIn();
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor();
  await page.getByRole('button', { name: 'Import' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import memories into your store' });
  await choose(page, FILE);
  await dialog.getByText('7 memories to import; the first 5:').waitFor();
  expect(
    await dialog
      .getByRole('list', { name: 'Lines that cannot be read' })
      .getByRole('listitem')
      .allTextContents(),
  ).toEqual(['Line 3 not JSON']);
  const rows = dialog.getByRole('table').getByRole('row');
  // The header and the first five memories.
  expect(await rows.count()).toBe(6);
  // The date as the studio writes dates (the browser's locale).
  expect(await rows.nth(1).textContent()).toMatch(
    /^1Prefers window seatspreference\w{3} 20, 2024, \d{1,2}:34/,
  );
  expect(await rows.nth(2).textContent()).toBe('2Flies to Lisbon in May—now');
  expect(await rows.nth(5).textContent()).toBe('6Likes tea—now');
  expect(await dialog.textContent()).toContain('… and 2 more.');
  expect(await t.axe(page)).toEqual([]);

  await dialog.getByRole('button', { name: 'Import 7 memories' }).click();
  const totals = dialog.getByRole('list', { name: 'Import results' });
  await totals.waitFor();
  expect(await totals.getByRole('listitem').allTextContents()).toEqual([
    '4 created',
    '1 already here, folded',
    '3 not imported',
  ]);
  expect(
    await dialog
      .getByRole('list', { name: 'Not imported' })
      .getByRole('listitem')
      .allTextContents(),
  ).toEqual([
    'Line 3 not JSON',
    'Line 5 createdAt must not be in the future',
    'Line 6 unknown field: mood',
  ]);
  // The button that started the import is gone: focus is on the one that closes.
  expect(
    await dialog
      .getByRole('button', { name: 'Done' })
      .evaluate((b) => b === document.activeElement),
  ).toBe(true);
  expect(await t.axe(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await page
    .getByText(
      'Imported memories.jsonl into your store: 4 created, 1 folded into memories already here, 3 not imported.',
    )
    .waitFor();

  const stored = await listOf(person.id);
  expect(stored.map((m) => m.content).sort()).toEqual(
    [
      'Flies to Lisbon in May',
      'Prefers window seats',
      'Reads before sleep',
      'Runs on Sundays',
    ].sort(),
  );
  expect(stored.find((m) => m.content === 'Prefers window seats')?.createdAt).toBe(
    '2024-07-20T08:34:56.789Z',
  );
  const list = page.getByRole('list', { name: 'Memories', exact: true });
  await expect.poll(() => list.getByRole('listitem').allTextContents()).toHaveLength(4);
  expect((await list.getByRole('listitem').allTextContents()).join('\n')).toContain(
    'Flies to Lisbon in May',
  );

  // The same file again: everything there folds, nothing doubles.
  await page.getByRole('button', { name: 'Import' }).click();
  await choose(page, FILE);
  await dialog.getByRole('button', { name: 'Import 7 memories' }).click();
  await totals.waitFor();
  expect(await totals.getByRole('listitem').allTextContents()).toEqual([
    '0 created',
    '5 already here, folded',
    '3 not imported',
  ]);
  await dialog.getByRole('button', { name: 'Done' }).click();
  expect(await listOf(person.id)).toHaveLength(4);
});

test('import: a file that is a JSON array; one that holds nothing to import cannot be sent', async () => {
  const { person, page } = await signedIn();
  await page.getByRole('button', { name: 'Import' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import memories into your store' });
  await choose(page, '{"text": "no content"}\n\n', 'empty.jsonl');
  await dialog.getByText('This file holds no memory to import.').waitFor();
  expect(await dialog.getByRole('button', { name: 'Import 0 memories' }).isDisabled()).toBe(true);

  await choose(
    page,
    JSON.stringify([{ content: 'Speaks Portuguese', category: 'identity' }, { content: 'Cycles' }]),
    'memories.json',
  );
  await dialog.getByText('2 memories to import:').waitFor();
  await dialog.getByRole('button', { name: 'Import 2 memories' }).click();
  await dialog.getByRole('list', { name: 'Import results' }).waitFor();
  expect((await listOf(person.id)).map((m) => [m.content, m.category]).sort()).toEqual([
    ['Cycles', undefined],
    ['Speaks Portuguese', 'identity'],
  ]);
});

test('import: a batch the server refuses for now (429) is sent again after its Retry-After, the wait shown', async () => {
  const { person, page } = await signedIn();
  // The server's own pause is a minute (its budget's window): here the first answer is a 429 as
  // the server words it, with a pause of two seconds; the batch then goes to the server.
  let refused = 0;
  await page.route('**/api/v1/memory/import', async (route) => {
    if (refused++ > 0) return route.continue();
    await route.fulfill({
      status: 429,
      headers: { 'retry-after': '2', 'content-type': 'application/json' },
      body: JSON.stringify({ error: 'too many memories imported; try again in 2 seconds' }),
    });
  });
  await page.getByRole('button', { name: 'Import' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import memories into your store' });
  await choose(page, linesOf(3));
  await dialog.getByRole('button', { name: 'Import 3 memories' }).click();
  await dialog.getByText(/^Sending the next 3 again in [12] s\.$/).waitFor();
  expect(await dialog.getByRole('status').textContent()).toBe(
    '0 of 3 memories sent. The server takes only so many imported memories a minute: the import waits, then goes on by itself.',
  );
  // The dialog stays while the import runs.
  await page.keyboard.press('Escape');
  expect(await dialog.isVisible()).toBe(true);
  expect(await t.axe(page)).toEqual([]);
  const totals = dialog.getByRole('list', { name: 'Import results' });
  await totals.waitFor();
  expect(await totals.getByRole('listitem').allTextContents()).toEqual([
    '3 created',
    '0 already here, folded',
    '0 not imported',
  ]);
  expect(refused).toBe(2);
  expect(await listOf(person.id)).toHaveLength(3);
});

test('import: batches of 1,000 in order; past the server’s budget the import waits, and Stop ends it with what was not sent', async () => {
  const { person, page } = await signedIn();
  await page.getByRole('button', { name: 'Import' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import memories into your store' });
  await choose(page, linesOf(1200));
  await dialog.getByText('1,200 memories to import; the first 5:').waitFor();
  expect(await dialog.textContent()).toContain(
    '… and 1,195 more, sent 1,000 at a time (2 requests).',
  );
  await dialog.getByRole('button', { name: 'Import 1,200 memories' }).click();
  // The budget is 1,000 a minute: the second batch is refused for about a minute.
  await dialog.getByText(/^Sending the next 200 again in \d+ s\.$/).waitFor();
  expect(await dialog.getByRole('status').textContent()).toMatch(/^1,000 of 1,200 memories sent\./);
  expect(
    await dialog.getByRole('progressbar', { name: 'Import progress' }).getAttribute('value'),
  ).toBe('1000');
  await dialog.getByRole('button', { name: 'Stop' }).click();
  const totals = dialog.getByRole('list', { name: 'Import results' });
  await totals.waitFor();
  expect(await dialog.textContent()).toContain(
    'Stopped: 200 memories, from line 1,001, were not sent. Import the same file again to send them: what was sent already folds, and nothing is doubled.',
  );
  expect(await totals.getByRole('listitem').allTextContents()).toEqual([
    '1,000 created',
    '0 already here, folded',
    '0 not imported',
  ]);
  expect(await listOf(person.id)).toHaveLength(1000);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await page
    .getByText('Imported memories.jsonl into your store: 1,000 created, 200 not sent.')
    .waitFor();
  await page.getByText('1,000 memories', { exact: true }).waitFor();
});

test('export: the store’s memories downloaded as JSON lines, the same as the list; another member’s store too', async () => {
  const { person, page } = await signedIn();
  for (const content of ['Likes tea', 'Runs on Sundays', 'Lives in Porto']) {
    expect((await t.api(person.id, 'POST', '/api/v1/memory', { content })).status).toBe(201);
  }
  await page.reload();
  const list = page.getByRole('list', { name: 'Memories', exact: true });
  await expect.poll(() => list.getByRole('listitem').count()).toBe(3);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export' }).click(),
  ]);
  const name = `mnemo-memories-grace-hopper-${await today(page)}.jsonl`;
  expect(download.suggestedFilename()).toBe(name);
  const byId = (items: Item[]) => [...items].sort((a, b) => a.id.localeCompare(b.id));
  const linesIn = async (path: string) =>
    (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Item);
  expect(byId(await linesIn(await download.path()))).toEqual(byId(await listOf(person.id)));
  await page.getByText(`Downloaded ${name}: 3 memories.`).waitFor();

  // The owner, acting for this member: the file is named after them, and holds their store.
  const ownerPage = await t.newPage();
  await t.signIn(ownerPage, `/memories/members/${person.id}`, t.owner);
  await ownerPage
    .getByRole('list', { name: 'Memories', exact: true })
    .getByText('Likes tea')
    .waitFor();
  const [theirs] = await Promise.all([
    ownerPage.waitForEvent('download'),
    ownerPage.getByRole('button', { name: 'Export' }).click(),
  ]);
  expect(theirs.suggestedFilename()).toBe(name);
  expect(byId(await linesIn(await theirs.path()))).toEqual(byId(await listOf(person.id)));
});

test('delete all: a confirmation that names the store and its count; Cancel keeps everything, Delete empties it', async () => {
  const { person, page } = await signedIn();
  for (const content of ['Likes tea', 'Runs on Sundays']) {
    expect((await t.api(person.id, 'POST', '/api/v1/memory', { content })).status).toBe(201);
  }
  await page.reload();
  const list = page.getByRole('list', { name: 'Memories', exact: true });
  await expect.poll(() => list.getByRole('listitem').count()).toBe(2);

  await page.getByRole('button', { name: 'Delete all' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete all 2 memories of your store?' });
  await dialog.waitFor();
  expect(await t.axe(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  expect(await listOf(person.id)).toHaveLength(2);

  await page.getByRole('button', { name: 'Delete all' }).click();
  await dialog.getByRole('button', { name: 'Delete 2 memories' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByText('Deleted 2 memories of your store.').waitFor();
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor();
  expect(await listOf(person.id)).toEqual([]);
  // The button that opened the dialog is gone: focus is on the page's heading.
  expect(
    await page
      .getByRole('heading', { name: 'Memories', level: 1 })
      .evaluate((h) => h === document.activeElement),
  ).toBe(true);
  expect(await page.getByRole('button', { name: 'Delete all' }).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Export' }).isDisabled()).toBe(true);
  expect(await t.axe(page)).toEqual([]);
});

test('delete all of another member’s store, acting for them: named in the dialog and in what the page says after', async () => {
  const member = await t.person({ role: 'member', name: 'Alan Turing' });
  for (const content of ['Likes chess', 'Runs marathons', 'Breaks codes']) {
    expect((await t.api(member.id, 'POST', '/api/v1/memory', { content })).status).toBe(201);
  }
  const page = await t.newPage();
  await t.signIn(page, `/memories/members/${member.id}`, t.owner);
  await page
    .getByRole('list', { name: 'Memories', exact: true })
    .getByText('Likes chess')
    .waitFor();
  await page.getByRole('button', { name: 'Delete all' }).click();
  const dialog = page.getByRole('dialog', {
    name: 'Delete all 3 memories of Alan Turing’s store?',
  });
  await dialog.getByRole('button', { name: 'Delete 3 memories' }).click();
  await page.getByText('Deleted 3 memories of Alan Turing’s store.').waitFor();
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor();
  expect(await listOf(member.id)).toEqual([]);
});

test('a pool: its viewers may export but not import or delete all; its owner may', async () => {
  const viewer = await t.person({ role: 'member' });
  const project = await t.server.t.fixtures.project(t.orgId, {
    [t.owner.id]: 'owner',
    [viewer.id]: 'viewer',
  });
  expect(
    (await t.api(t.owner.id, 'POST', '/api/v1/memory', { content: 'Deploys on Fridays', project }))
      .status,
  ).toBe(201);
  const page = await t.newPage();
  await t.signIn(page, `/memories/projects/${project}`, viewer);
  await page.getByRole('button', { name: 'Export' }).waitFor();
  expect(await page.getByRole('button', { name: 'Import' }).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Delete all' }).count()).toBe(0);

  const ownerPage = await t.newPage();
  await t.signIn(ownerPage, `/memories/projects/${project}`, t.owner);
  await ownerPage.getByRole('button', { name: 'Delete all' }).click();
  await ownerPage
    .getByRole('dialog', { name: /^Delete all 1 memory of the pool of “.+”\?$/ })
    .waitFor();
});

test('at 375 px in dark: the import preview, its results and the delete-all dialog fit the screen, and axe finds nothing', async () => {
  const person = await t.person({ role: 'member', name: 'Katherine Johnson' });
  const page = await t.newPage({ viewport: PHONE, colorScheme: 'dark' });
  await t.signIn(page, '/memories', person);
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor();
  /** The open dialog and everything in it are within the screen's width. */
  const fits = () =>
    page.evaluate(() => {
      const dialog = document.querySelector('dialog[open]');
      if (!dialog) return false;
      const inside = [dialog, ...dialog.querySelectorAll('input, button, p, ul')];
      return (
        document.documentElement.scrollWidth <= window.innerWidth &&
        inside.every((element) => element.getBoundingClientRect().right <= window.innerWidth)
      );
    });

  await page.getByRole('button', { name: 'Import' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import memories into your store' });
  // More lines that cannot be read than their list shows at once: it scrolls.
  await choose(page, `${FILE}\n${'a note pasted as it was\n'.repeat(20)}`);
  await dialog.getByText('7 memories to import; the first 5:').waitFor();
  await dialog.getByText('21 lines cannot be read and are left out:').waitFor();
  expect(await fits()).toBe(true);
  expect(await t.axe(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Import 7 memories' }).click();
  await dialog.getByRole('list', { name: 'Import results' }).waitFor();
  expect(await fits()).toBe(true);
  expect(await t.axe(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Done' }).click();

  await page.getByRole('button', { name: 'Delete all' }).click();
  await page.getByRole('dialog', { name: 'Delete all 4 memories of your store?' }).waitFor();
  expect(await fits()).toBe(true);
  expect(await t.axe(page)).toEqual([]);
});
