import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../../src/testing/simulators/openai-simulator.ts';
import { PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

const TEMPORARY = 'Studio playground (temporary)';

interface ListedKey {
  id: string;
  name: string;
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

let t: StudioTest;
let sim: OpenAiSimulator;
beforeAll(async () => {
  // Chunks far enough apart for the page to show each before the next.
  sim = await startOpenAiSimulator({ apiKey: 'sk-sim', chunkDelayMs: 80 });
  const model = (id: string) => ({
    id: `sim/${id}`,
    provider: 'sim',
    upstream: id,
    contextWindow: 128_000,
    price: { input: 2, output: 8 },
  });
  const catalog = join(mkdtempSync(join(tmpdir(), 'mnemo-playground-')), 'mnemo.config.json');
  writeFileSync(
    catalog,
    JSON.stringify({
      providers: { sim: { kind: 'openai', baseUrl: sim.baseUrl, apiKeyEnv: 'SIM_KEY' } },
      models: [model('gpt-4.1'), model('gpt-4.1-mini')],
      router: { id: 'auto', order: ['sim/gpt-4.1-mini', 'sim/gpt-4.1'] },
    }),
  );
  t = await startStudioTest({ env: { MNEMO_CONFIG: catalog, SIM_KEY: 'sk-sim' } });
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const temporaryKeys = async (userId = t.owner.id): Promise<ListedKey[]> =>
  ((await (await t.api(userId, 'GET', '/api/v1/api-keys')).json()).keys as ListedKey[]).filter(
    (k) => k.name === TEMPORARY,
  );

/** Signs in on the playground and waits for its models; answers the temporary key's secret. */
async function openPlayground(
  page: Page,
  who = t.owner,
): Promise<() => { id: string; secret: string } | undefined> {
  let made: { id: string; secret: string } | undefined;
  page.on('response', async (response) => {
    if (response.url() === `${t.url}/api/v1/api-keys` && response.status() === 201) {
      const { key, secret } = await response.json();
      made = { id: key.id, secret };
    }
  });
  await t.signIn(page, '/playground', who);
  await page.getByRole('combobox', { name: 'Model' }).waitFor();
  return () => made;
}

test('an answer streams in, with the model that answered, why, and its tokens; the chat goes on', async () => {
  const page = await t.newPage();
  await openPlayground(page);
  const model = page.getByRole('combobox', { name: 'Model' });
  // The router first, said to be one, then the catalog's models.
  expect(await model.locator('option').allTextContents()).toEqual([
    'auto — router',
    'sim/gpt-4.1',
    'sim/gpt-4.1-mini',
  ]);
  expect(await model.inputValue()).toBe('auto');
  expect(await t.axe(page)).toEqual([]);

  await model.selectOption('sim/gpt-4.1');
  sim.script({
    kind: 'text',
    text: 'Memories are short facts about a user, kept between conversations.',
    usage: { prompt_tokens: 11, completion_tokens: 9 },
  });
  // Every text the answer shows on its way, as the page shows it.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { seen: string[] }).seen = seen;
    new MutationObserver(() => {
      const answer = document.querySelector('.answer')?.textContent;
      if (answer && seen.at(-1) !== answer) seen.push(answer);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('What is a memory?');
  await page.getByRole('button', { name: 'Send' }).click();

  const turn = page.getByRole('listitem').filter({ hasText: 'What is a memory?' });
  await turn.getByText('11 prompt · 9 completion · 20 total').waitFor();
  const final = 'Memories are short facts about a user, kept between conversations.';
  expect(await turn.locator('.answer').textContent()).toBe(final);
  const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
  expect(seen.length).toBeGreaterThan(3);
  for (const partial of seen) expect(final.startsWith(partial)).toBe(true);
  expect(await turn.getByRole('definition').allTextContents()).toEqual([
    'sim/gpt-4.1 via sim',
    'requested by name',
    '11 prompt · 9 completion · 20 total',
  ]);
  expect(await message.inputValue()).toBe('');
  const first = sim.requests.at(-1)?.body;
  expect(first).toMatchObject({
    model: 'gpt-4.1',
    stream: true,
    messages: [{ role: 'user', content: 'What is a memory?' }],
  });

  // The router, with a system prompt: the whole conversation is sent again.
  await model.selectOption('auto');
  await page
    .getByRole('textbox', { name: 'System prompt (optional)' })
    .fill('Answer in one sentence.');
  sim.script({ kind: 'text', text: 'Yes, across sessions.' });
  await message.fill('Do they last?');
  await message.press('Enter');
  const second = page.getByRole('listitem').filter({ hasText: 'Do they last?' });
  await second.getByText(/\d+ prompt · \d+ completion · \d+ total/).waitFor();
  const facts = await second.getByRole('definition').allTextContents();
  expect(facts[0]).toBe('sim/gpt-4.1-mini via sim');
  expect(facts[1]).toMatch(/^sim\/gpt-4\.1-mini: first in the router's order/);
  expect(sim.requests.at(-1)?.body).toMatchObject({
    model: 'gpt-4.1-mini',
    messages: [
      { role: 'system', content: 'Answer in one sentence.' },
      { role: 'user', content: 'What is a memory?' },
      { role: 'assistant', content: final },
      { role: 'user', content: 'Do they last?' },
    ],
  });
  // Text, never markup.
  sim.script({ kind: 'text', text: '<img src=x onerror="window.hacked=1"> <b>bold</b>' });
  await message.fill('Show HTML');
  await message.press('Enter');
  const third = page.getByRole('listitem').filter({ hasText: 'Show HTML' });
  await third.getByText(/total$/).waitFor();
  expect(await third.locator('.answer').textContent()).toBe(
    '<img src=x onerror="window.hacked=1"> <b>bold</b>',
  );
  expect(await third.locator('.answer img, .answer b').count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);

  // The key it used: the playground's own, expiring within the hour.
  const [key, ...others] = await temporaryKeys();
  expect(others).toEqual([]);
  expect(key?.revokedAt).toBeNull();
  const lifetime = Date.parse(key?.expiresAt ?? '') - Date.parse(key?.createdAt ?? '');
  expect(lifetime).toBeGreaterThan(50 * 60_000);
  expect(lifetime).toBeLessThanOrEqual(60 * 60_000);

  await page.getByRole('button', { name: 'New chat' }).click();
  expect(await page.getByRole('listitem').filter({ hasText: 'What is a memory?' }).count()).toBe(0);
  await page.getByText('Send a message to start.').waitFor();
});

test('Stop ends the answer where it is', async () => {
  const page = await t.newPage();
  await openPlayground(page);
  await page.getByRole('combobox', { name: 'Model' }).selectOption('sim/gpt-4.1');
  sim.script({ kind: 'text', text: 'one two three four five six seven eight nine ten '.repeat(4) });
  await page.getByRole('textbox', { name: 'Message' }).fill('Count');
  await page.getByRole('button', { name: 'Send' }).click();
  const turn = page.getByRole('listitem').filter({ hasText: 'Count' });
  await turn.locator('.answer').getByText('two').waitFor();
  await page.getByRole('button', { name: 'Stop' }).click();
  await turn.getByText('Stopped').waitFor();
  const partial = (await turn.locator('.answer').textContent()) ?? '';
  expect(partial.startsWith('one two')).toBe(true);
  expect(partial).not.toContain('ten one');
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
});

test('a refused request is a sentence and the message stays; an answer that breaks off says so', async () => {
  const page = await t.newPage();
  await openPlayground(page);
  await page.getByRole('combobox', { name: 'Model' }).selectOption('sim/gpt-4.1');
  sim.script({
    kind: 'error',
    status: 400,
    body: {
      error: {
        message: 'this model cannot discuss bananas',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    },
  });
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('Tell me about bananas');
  await page.getByRole('button', { name: 'Send' }).click();
  const alert = page.getByRole('alert');
  await alert.getByText('This model cannot discuss bananas.').waitFor();
  expect(await message.inputValue()).toBe('Tell me about bananas');
  expect(await page.getByRole('region', { name: 'Messages' }).getByRole('listitem').count()).toBe(
    0,
  );
  expect(await t.axe(page)).toEqual([]);

  sim.script({ kind: 'error-mid-stream', text: 'Bananas are' });
  await page.getByRole('button', { name: 'Send' }).click();
  const turn = page.getByRole('listitem').filter({ hasText: 'Tell me about bananas' });
  await turn
    .getByRole('alert')
    .getByText(/^The answer broke off\. /)
    .waitFor();
  expect(await turn.locator('.answer').textContent()).toBe('Bananas are');
});

test('the tab keeps one key: visits and reloads use it, a revoked one is replaced once, sign-out revokes it wherever it happens', async () => {
  const person = await t.person({ name: 'Grace Hopper' });
  const page = await t.newPage();
  const made: string[] = [];
  page.on('response', (response) => {
    if (response.url() === `${t.url}/api/v1/api-keys` && response.status() === 201) {
      made.push(response.request().method());
    }
  });
  /** Sends `text` and waits for its answer, which only a working key gets. */
  const exchange = async (text: string) => {
    sim.script({ kind: 'text', text: `Answer to ${text}` });
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .getByRole('listitem')
      .filter({ hasText: text })
      .getByText(/\d+ prompt · \d+ completion · \d+ total/)
      .waitFor();
  };
  const states = async () =>
    (await temporaryKeys(person.id)).map((k) => (k.revokedAt === null ? 'active' : 'revoked'));

  await t.signIn(page, '/playground', person);
  await exchange('First visit');
  expect(await states()).toEqual(['active']);

  // Another page and back, then a reload: the same key each time.
  await page.getByRole('link', { name: 'Usage' }).click();
  await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
  await page.getByRole('link', { name: 'Playground' }).click();
  await exchange('Second visit');
  await page.reload();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await exchange('After a reload');
  expect(await states()).toEqual(['active']);
  expect(made).toEqual(['POST']);

  // Revoked on the Keys page: the next visit makes one new key, and only one.
  await page.getByRole('link', { name: 'Settings' }).click();
  await page
    .getByRole('region', { name: 'Active keys' })
    .getByRole('row')
    .filter({ hasText: TEMPORARY })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await page
    .getByRole('dialog', { name: `Revoke “${TEMPORARY}”?` })
    .getByRole('button', { name: 'Revoke', exact: true })
    .click();
  await page.getByRole('status').getByText(`Key “${TEMPORARY}” revoked.`).waitFor();
  await page.getByRole('link', { name: 'Playground' }).click();
  await exchange('After revoking');
  await page.reload();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await exchange('Reloaded again');
  expect(await states()).toEqual(['active', 'revoked']);
  expect(made).toEqual(['POST', 'POST']);

  // Signing out revokes it, from another page after a reload too, and the tab keeps nothing of it.
  await page.getByRole('link', { name: 'Usage' }).click();
  await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
  await page.reload();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
  expect(await states()).toEqual(['revoked', 'revoked']);
  expect(await page.evaluate(() => sessionStorage.getItem('mnemo.studio.playground-key'))).toBe(
    null,
  );
});

test('each tab has a key of its own, kept while the tab lives', async () => {
  const person = await t.person({ name: 'Mary Jackson' });
  const first = await t.newPage();
  const firstKey = await openPlayground(first, person);
  const second = await t.newPage();
  const secondKey = await openPlayground(second, person);
  await expect.poll(() => firstKey()?.secret).toMatch(/^mnemo_sk_/);
  await expect.poll(() => secondKey()?.secret).toMatch(/^mnemo_sk_/);
  expect(secondKey()?.id).not.toBe(firstKey()?.id);
  // Kept in the tab's own storage, which no other tab reads.
  expect(
    JSON.parse(
      (await first.evaluate(() => sessionStorage.getItem('mnemo.studio.playground-key'))) ?? '{}',
    ),
  ).toMatchObject({ id: firstKey()?.id, secret: firstKey()?.secret });
  expect(await temporaryKeys(person.id)).toHaveLength(2);
});

test('with Recall, the call asks for memory and the answer lists the memories it recalled', async () => {
  const person = await t.person({ name: 'Katherine Johnson' });
  for (const [content, category] of [
    ['Prefers answers in French', 'preference'],
    ['Works on the orbital mechanics team', 'identity'],
  ]) {
    const added = await t.api(person.id, 'POST', '/api/v1/memory', { content, category });
    expect(added.status).toBe(201);
  }
  const page = await t.newPage();
  const asked: (string | undefined)[] = [];
  page.on('request', (request) => {
    if (request.url() === `${t.url}/v1/chat/completions`) {
      asked.push(request.headers()['x-mnemo-memory']);
    }
  });
  await t.signIn(page, '/playground', person);
  const memory = page.getByRole('combobox', { name: 'Memory' });
  await memory.waitFor();
  expect(await memory.locator('option').allTextContents()).toEqual([
    'Off',
    'Recall',
    'Recall and learn',
  ]);
  expect(await memory.locator('option:checked').textContent()).toBe('Off');
  await page.getByRole('combobox', { name: 'Model' }).selectOption('sim/gpt-4.1');
  const message = page.getByRole('textbox', { name: 'Message' });

  // Off: the call says so, goes out as it came, and the answer lists nothing.
  sim.script({ kind: 'text', text: 'Hello.' });
  await message.fill('Say hello');
  await page.getByRole('button', { name: 'Send' }).click();
  const first = page.getByRole('region', { name: 'Messages' }).locator('.turn').filter({
    hasText: 'Say hello',
  });
  await first.getByText(/\d+ prompt/).waitFor();
  expect(await first.getByText('Remembered:').count()).toBe(0);
  expect(JSON.stringify(sim.requests.at(-1)?.body)).not.toContain('French');

  // Recall: the memories go into the prompt, and under the answer by their text.
  await memory.selectOption({ label: 'Recall' });
  expect(await t.axe(page)).toEqual([]);
  sim.script({ kind: 'text', text: 'Bonjour.' });
  await message.fill('Greet me as I like');
  await page.getByRole('button', { name: 'Send' }).click();
  const second = page.getByRole('region', { name: 'Messages' }).locator('.turn').filter({
    hasText: 'Greet me as I like',
  });
  const remembered = second.locator('.remembered');
  await remembered.getByRole('listitem').nth(1).waitFor();
  expect(await remembered.locator('.remembered-label').textContent()).toBe('Remembered:');
  expect((await remembered.getByRole('listitem').allTextContents()).sort()).toEqual([
    'Prefers answers in French',
    'Works on the orbital mechanics team',
  ]);
  expect(JSON.stringify(sim.requests.at(-1)?.body)).toContain('Prefers answers in French');
  expect(asked).toEqual(['off', 'read']);
  expect(await t.axe(page)).toEqual([]);
});

test('at 375 px, in the dark, the playground fits and reads well', async () => {
  const page = await t.newPage({ viewport: PHONE, colorScheme: 'dark' });
  await openPlayground(page);
  sim.script({ kind: 'text', text: 'A fairly long answer that has to wrap on a narrow screen.' });
  await page.getByRole('textbox', { name: 'Message' }).fill('Hello from a phone');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText(/\d+ prompt · \d+ completion · \d+ total/).waitFor();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await t.axe(page)).toEqual([]);
});
