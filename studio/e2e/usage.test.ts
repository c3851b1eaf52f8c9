import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newRowId } from '../../src/db/row-id.ts';
import { createUsageRepository } from '../../src/usage/usage.repository.ts';
import { ok, type Person, PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

let t: StudioTest;
let member: Person;
let laptop: string;
/** Today and the days before it, as UTC days. */
let day: (daysAgo: number) => string;
const DAY_MS = 86_400_000;

/** An API key made through the API as `userId`; its id. */
async function createKey(userId: string, name: string): Promise<string> {
  const response = await t.api(userId, 'POST', '/api/v1/api-keys', { name });
  expect(response.status).toBe(201);
  return ((await response.json()) as { key: { id: string } }).key.id;
}

beforeAll(async () => {
  t = await startStudioTest();
  member = await t.person({ role: 'member', name: 'Grace Hopper' });
  const today = Date.now() - (Date.now() % DAY_MS);
  day = (daysAgo) => new Date(today - daysAgo * DAY_MS).toISOString().slice(0, 10);
  const production = await createKey(t.owner.id, 'Production app');
  laptop = await createKey(member.id, 'Laptop');
  const call = (
    daysAgo: number,
    userId: string,
    keyId: string,
    model: string,
    prompt: number,
    completion: number,
    costMicroUsd: number,
  ) => ({
    id: newRowId(),
    // Noon UTC: inside the day whatever the time of the run.
    at: today - daysAgo * DAY_MS + 12 * 3_600_000,
    org_id: t.orgId,
    user_id: userId,
    key_id: keyId,
    model,
    provider: model.split('/')[0] as string,
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cost_micro_usd: costMicroUsd,
    latency_ms: 850,
    status: 200,
  });
  // Calls as the gateway records them: today, 3, 10 and 40 days ago; one by a key since deleted.
  await createUsageRepository(t.server.t.database.db).insertMany([
    call(0, t.owner.id, production, 'openai/gpt-4.1', 1200, 300, 4800),
    call(0, t.owner.id, production, 'anthropic/claude-sonnet-4-5', 1000, 500, 10_500),
    call(3, member.id, laptop, 'openai/gpt-4.1', 800, 200, 3200),
    call(10, t.owner.id, DELETED_KEY, 'openai/gpt-4.1', 2000, 1000, 12_000),
    call(40, t.owner.id, production, 'openai/gpt-4.1', 5000, 5000, 50_000),
  ]);
});
afterAll(() => t?.close());

const DELETED_KEY = randomUUID();

/** The totals' tiles as [label, value] pairs. */
const totals = (page: Page) =>
  page
    .locator('.usage-totals .stat')
    .evaluateAll((tiles) =>
      tiles.map((tile) => [
        tile.querySelector('dt')?.textContent ?? '',
        tile.querySelector('dd')?.textContent ?? '',
      ]),
    );

/** The body rows of the table in the region named `name`, cell by cell. */
const rows = (page: Page, name: string) =>
  page
    .getByRole('region', { name })
    .locator('tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => [...(tr as HTMLTableRowElement).cells].map((c) => c.textContent?.trim())),
    );

test('totals, the chart by day and the tables by model and by key show the exact figures', async () => {
  const page = await t.newPage();
  await t.signIn(page, '/usage');
  await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
  expect(new URL(page.url()).search).toBe('');
  await expect
    .poll(() => totals(page))
    .toEqual([
      ['Requests', '4'],
      ['Prompt tokens', '5,000'],
      ['Completion tokens', '2,000'],
      ['Total tokens', '7,000'],
      ['Cost', '$0.0305'],
    ]);

  // The chart: a canvas of real size inside an image named for what it shows.
  const chart = page.getByRole('img', { name: /^Bar chart of requests by day/ });
  expect(await chart.getAttribute('aria-label')).toBe(
    `Bar chart of requests by day, ${long(day(29))} to ${long(day(0))}: 4 requests in total, the most on ${long(day(0))} (2 requests).`,
  );
  const box = await chart.locator('canvas').boundingBox();
  expect(box?.width).toBeGreaterThan(300);
  expect(box?.height).toBeGreaterThan(150);
  // Its text alternative: the days with calls.
  expect(
    await page
      .locator('.usage-chart table tbody tr')
      .evaluateAll((trs) => trs.map((tr) => tr.textContent)),
  ).toEqual([
    `${long(day(10))}13,000$0.012`,
    `${long(day(3))}11,000$0.0032`,
    `${long(day(0))}23,000$0.0153`,
  ]);
  await page.getByRole('radio', { name: 'Tokens' }).check();
  await page.getByRole('heading', { level: 2, name: 'Tokens by day' }).waitFor();
  expect(
    await page.getByRole('img', { name: /^Bar chart of tokens by day/ }).getAttribute('aria-label'),
  ).toContain('7,000 tokens in total');
  await page.getByRole('radio', { name: 'Cost' }).check();
  expect(
    await page.getByRole('img', { name: /^Bar chart of cost by day/ }).getAttribute('aria-label'),
  ).toContain('$0.0305 in total');

  expect(await rows(page, 'By model')).toEqual([
    ['openai/gpt-4.1', '3', '4,000', '1,500', '5,500', '$0.02'],
    ['anthropic/claude-sonnet-4-5', '1', '1,000', '500', '1,500', '$0.0105'],
  ]);
  const keys = await rows(page, 'By API key');
  expect(keys).toEqual([
    [
      expect.stringMatching(/^Production app mnemo_sk_[\w-]+…$/),
      'Ada Lovelace',
      '2',
      '2,200',
      '800',
      '3,000',
      '$0.0153',
    ],
    [`Deleted key ${DELETED_KEY}`, 'Unknown', '1', '2,000', '1,000', '3,000', '$0.012'],
    [
      expect.stringMatching(/^Laptop mnemo_sk_[\w-]+…$/),
      'Grace Hopper',
      '1',
      '800',
      '200',
      '1,000',
      '$0.0032',
    ],
  ]);
  expect(await t.axe(page)).toEqual([]);
});

test('the range picker changes the URL and the figures; custom days; the back button returns', async () => {
  const page = await t.newPage();
  await t.signIn(page, '/usage?range=7');
  await expect.poll(() => totals(page)).toContainEqual(['Requests', '3']);
  expect(await page.getByRole('radio', { name: '7 days' }).isChecked()).toBe(true);

  await page.getByRole('radio', { name: '90 days' }).check();
  await page.waitForURL(/\?range=90$/);
  await expect
    .poll(() => totals(page))
    .toEqual([
      ['Requests', '5'],
      ['Prompt tokens', '10,000'],
      ['Completion tokens', '7,000'],
      ['Total tokens', '17,000'],
      ['Cost', '$0.0805'],
    ]);

  // Custom keeps the days shown, then applies two days of one's own.
  await page.getByRole('radio', { name: 'Custom' }).check();
  await page.waitForURL(new RegExp(`\\?from=${day(89)}&to=${day(0)}$`));
  await page.getByLabel('From', { exact: true }).fill(day(45));
  await page.getByLabel('To', { exact: true }).fill(day(35));
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL(new RegExp(`\\?from=${day(45)}&to=${day(35)}$`));
  await expect
    .poll(() => totals(page))
    .toEqual([
      ['Requests', '1'],
      ['Prompt tokens', '5,000'],
      ['Completion tokens', '5,000'],
      ['Total tokens', '10,000'],
      ['Cost', '$0.05'],
    ]);
  expect(await page.getByRole('radio', { name: 'Custom' }).isChecked()).toBe(true);

  // A range backwards is refused in words, on the field, and the URL stays.
  await page.getByLabel('From', { exact: true }).fill(day(2));
  await page.getByLabel('To', { exact: true }).fill(day(5));
  await page.getByRole('button', { name: 'Apply' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: 'The last day cannot be before the first day.' })
    .waitFor();
  expect(await page.getByLabel('To', { exact: true }).getAttribute('aria-invalid')).toBe('true');
  expect(new URL(page.url()).searchParams.get('from')).toBe(day(45));
  expect(await t.axe(page)).toEqual([]);

  await page.goBack();
  await page.waitForURL(new RegExp(`\\?from=${day(89)}&to=${day(0)}$`));
  await expect.poll(() => totals(page)).toContainEqual(['Requests', '5']);
  await page.goBack();
  await page.waitForURL(/\?range=90$/);
  expect(await page.getByRole('radio', { name: '90 days' }).isChecked()).toBe(true);
  await page.goBack();
  await page.waitForURL(/\?range=7$/);
  await expect.poll(() => totals(page)).toContainEqual(['Requests', '3']);
});

test('Export CSV downloads the calls of the range with the access token', async () => {
  const page = await t.newPage();
  await t.signIn(page, '/usage?range=30');
  await expect.poll(() => totals(page)).toContainEqual(['Requests', '4']);
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`mnemo-usage-${day(29)}-${day(-1)}.csv`);
  const path = await download.path();
  const { readFile } = await import('node:fs/promises');
  const lines = (await readFile(path, 'utf8')).split('\r\n');
  expect(lines[0]).toBe(
    'time,user_id,key_id,model,provider,prompt_tokens,completion_tokens,total_tokens,cost_usd,latency_ms,status,reasoning_tokens,kind',
  );
  // Every call here was a chat call (none learned memories).
  expect(lines.slice(1, -1).map((line) => line.split(',').at(-1))).toEqual([
    'chat',
    'chat',
    'chat',
    'chat',
  ]);
  // Oldest first; the two calls of today share their time, in the order they were recorded.
  expect(lines.slice(1).map((line) => line.split(',').slice(1, 9).join(','))).toEqual([
    `${t.owner.id},${DELETED_KEY},openai/gpt-4.1,openai,2000,1000,3000,0.012000`,
    `${member.id},${laptop},openai/gpt-4.1,openai,800,200,1000,0.003200`,
    expect.stringMatching(/,openai\/gpt-4\.1,openai,1200,300,1500,0\.004800$/),
    expect.stringMatching(/,anthropic\/claude-sonnet-4-5,anthropic,1000,500,1500,0\.010500$/),
    '',
  ]);
  await page
    .getByRole('status')
    .filter({ hasText: `Downloaded mnemo-usage-${day(29)}` })
    .waitFor({
      state: 'attached',
    });
});

test('a member sees only their own calls, without whose keys they are', async () => {
  const page = await t.newPage();
  await t.signIn(page, '/usage?range=7', member);
  await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
  await page.getByText('Your calls of the chat interface (/v1).').waitFor();
  await expect
    .poll(() => totals(page))
    .toEqual([
      ['Requests', '1'],
      ['Prompt tokens', '800'],
      ['Completion tokens', '200'],
      ['Total tokens', '1,000'],
      ['Cost', '$0.0032'],
    ]);
  expect(await rows(page, 'By API key')).toEqual([
    [expect.stringMatching(/^Laptop mnemo_sk_[\w-]+…$/), '1', '800', '200', '1,000', '$0.0032'],
  ]);
});

test('a model without a price: its cost is unknown, and a total of known costs says it leaves calls out', async () => {
  const orgId = await t.server.t.fixtures.org({ name: 'Self-hosted Co' });
  const owner = await t.person({ orgId, role: 'owner', name: 'Sam' });
  const today = Date.now() - (Date.now() % DAY_MS);
  const call = (daysAgo: number, model: string, costMicroUsd: number | null) => ({
    id: newRowId(),
    at: today - daysAgo * DAY_MS + 12 * 3_600_000,
    org_id: orgId,
    user_id: owner.id,
    key_id: DELETED_KEY,
    model,
    provider: model.split('/')[0] as string,
    prompt_tokens: 100,
    completion_tokens: 20,
    total_tokens: 120,
    cost_micro_usd: costMicroUsd,
    latency_ms: 300,
    status: 200,
  });
  await createUsageRepository(t.server.t.database.db).insertMany([
    call(0, 'openai/gpt-4.1', 4800),
    call(0, 'local/llama3.1', null),
    call(2, 'local/llama3.1', null),
  ]);
  const page = await t.newPage();
  await t.signIn(page, '/usage', owner);
  await expect
    .poll(() => totals(page))
    .toEqual([
      ['Requests', '3'],
      ['Prompt tokens', '300'],
      ['Completion tokens', '60'],
      ['Total tokens', '360'],
      // Shown "≥ $0.0048"; the rest is for screen readers.
      ['Cost', '≥ at least $0.0048 (2 calls without a price are not counted)'],
    ]);
  expect(await rows(page, 'By model')).toEqual([
    ['local/llama3.1', '2', '200', '40', '240', '—unknown'],
    ['openai/gpt-4.1', '1', '100', '20', '120', '$0.0048'],
  ]);
  expect(await page.locator('.usage-totals [title]').getAttribute('title')).toBe(
    'At least: 2 calls without a price are not counted',
  );
  expect(await t.axe(page)).toEqual([]);
});

test('calls that learned memories are told apart from chat calls, by kind', async () => {
  // Acme's calls are all chat calls: no table by kind, which would only repeat the totals.
  const acme = await t.newPage();
  await t.signIn(acme, '/usage');
  await expect.poll(() => rows(acme, 'By model')).toHaveLength(2);
  expect(await acme.getByRole('region', { name: 'By kind' }).count()).toBe(0);

  const other = await t.server.t.fixtures.org({ name: 'Recall Co' });
  const owner = await t.person({ orgId: other, role: 'owner', name: 'Rosalind' });
  const keyId = (
    await ok<{ key: { id: string } }>(
      t.api(owner.id, 'POST', '/api/v1/api-keys', { name: 'Assistant' }, other),
    )
  ).key.id;
  const today = Date.now() - (Date.now() % DAY_MS);
  const call = (kind: 'chat' | 'extraction', prompt: number, costMicroUsd: number) => ({
    id: newRowId(),
    at: today + 12 * 3_600_000,
    org_id: other,
    user_id: owner.id,
    key_id: keyId,
    model: 'openai/gpt-4.1',
    provider: 'openai',
    prompt_tokens: prompt,
    completion_tokens: 100,
    total_tokens: prompt + 100,
    cost_micro_usd: costMicroUsd,
    latency_ms: 700,
    status: 200,
    kind,
  });
  await createUsageRepository(t.server.t.database.db).insertMany([
    call('chat', 1000, 2800),
    call('chat', 500, 1800),
    call('extraction', 300, 1400),
  ]);
  const page = await t.newPage();
  await t.signIn(page, '/usage', owner);
  await expect.poll(() => totals(page)).toContainEqual(['Requests', '3']);
  await expect
    .poll(() => rows(page, 'By kind'))
    .toEqual([
      ['Chat', '2', '1,500', '200', '1,700', '$0.0046'],
      ['Extraction (learning memories)', '1', '300', '100', '400', '$0.0014'],
    ]);
  expect(await t.axe(page)).toEqual([]);
});

test('an organization without calls says how calls get recorded', async () => {
  const other = await t.server.t.fixtures.org({ name: 'Quiet Co' });
  const owner = await t.person({ orgId: other, role: 'owner', name: 'Quinn' });
  const page = await t.newPage();
  await t.signIn(page, '/usage', owner);
  const empty = page.getByRole('region', { name: 'No calls in these days' });
  await empty.waitFor();
  expect(await empty.locator('pre').textContent()).toBe(
    [
      `curl ${t.url}/v1/chat/completions \\`,
      '  -H "Authorization: Bearer $MNEMO_API_KEY" \\',
      '  -H "Content-Type: application/json" \\',
      `  -d '{"model": "auto", "messages": [{"role": "user", "content": "Hello"}]}'`,
    ].join('\n'),
  );
  await empty.getByRole('link', { name: 'Settings › API Keys' }).waitFor();
  expect(await page.locator('.usage-totals').count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);
});

test('at 375 px the page fits the screen, in the dark scheme too', async () => {
  const page = await t.newPage({ viewport: PHONE, colorScheme: 'dark' });
  await t.signIn(page, '/usage?range=90');
  await expect.poll(() => totals(page)).toContainEqual(['Requests', '5']);
  const box = await page
    .getByRole('img', { name: /^Bar chart/ })
    .locator('canvas')
    .boundingBox();
  expect(box?.width).toBeGreaterThan(200);
  expect(box?.width).toBeLessThanOrEqual(375);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await t.axe(page)).toEqual([]);
});

/** A UTC day as the page writes it. */
function long(dayText: string): string {
  return new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(
    new Date(`${dayText}T00:00:00Z`),
  );
}
