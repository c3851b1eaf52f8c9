import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type StudioTest, startStudioTest } from './studio-harness.ts';

let t: StudioTest;
beforeAll(async () => {
  t = await startStudioTest();
});
afterAll(() => t?.close());

type Item = { id: string; content: string; category?: string; createdAt: string };

async function listOf(userId: string, query = ''): Promise<Item[]> {
  const response = await t.api(userId, 'GET', `/api/v1/memory${query}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { memories: Item[] }).memories;
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
  await dialog.getByLabel('File').setInputFiles({
    name: 'memories.jsonl',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from(FILE),
  });
  await dialog.getByText('7 memories to import').waitFor();
  expect(await dialog.textContent()).toContain('1 line cannot be read (line 3: not JSON)');
  const rows = dialog.getByRole('table').getByRole('row');
  // The header and the first five memories.
  expect(await rows.count()).toBe(6);
  // The date as the studio writes dates (the browser's locale).
  expect(await rows.nth(1).textContent()).toMatch(
    /^1Prefers window seatspreference\w{3} 20, 2024, \d{1,2}:34/,
  );
  expect(await rows.nth(2).textContent()).toBe('2Flies to Lisbon in May—now');
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
  expect(await t.axe(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Done' }).click();

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
  await expect.poll(() => list.getByRole('listitem').count()).toBe(4);
});

test('export: the store’s memories downloaded as JSON lines, the same as the list', async () => {
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
  expect(download.suggestedFilename()).toMatch(/^mnemo-your-store-\d{4}-\d{2}-\d{2}\.jsonl$/);
  const text = await readFile(await download.path(), 'utf8');
  const lines = text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Item);
  const byId = (items: Item[]) => [...items].sort((a, b) => a.id.localeCompare(b.id));
  expect(byId(lines)).toEqual(byId(await listOf(person.id)));
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
  await dialog.getByText('Deleted 2 memories.').waitFor();
  expect(await listOf(person.id)).toEqual([]);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor();
  // Nothing left to delete: the action is gone.
  expect(await page.getByRole('button', { name: 'Delete all' }).count()).toBe(0);
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
