import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../../src/testing/simulators/openai-simulator.ts';
import { DESKTOP, type StudioTest, startStudioTest } from './studio-harness.ts';

/** A small phone's first screen: what is in it is seen without scrolling. */
const SMALL_PHONE = { width: 375, height: 667 } as const;

let t: StudioTest;
let sim: OpenAiSimulator;
beforeAll(async () => {
  sim = await startOpenAiSimulator({ apiKey: 'sk-sim' });
  const catalog = join(mkdtempSync(join(tmpdir(), 'mnemo-phone-')), 'mnemo.config.json');
  writeFileSync(
    catalog,
    JSON.stringify({
      providers: { sim: { kind: 'openai', baseUrl: sim.baseUrl, apiKeyEnv: 'SIM_KEY' } },
      models: [
        {
          id: 'sim/gpt-4.1',
          provider: 'sim',
          upstream: 'gpt-4.1',
          contextWindow: 128_000,
          price: { input: 2, output: 8 },
        },
      ],
    }),
  );
  t = await startStudioTest({ env: { MNEMO_CONFIG: catalog, SIM_KEY: 'sk-sim' } });
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

interface CodeLines {
  /** The block's text, line by line, as written. */
  lines: string[];
  /** For each line written, how many lines of the screen it takes. */
  shownOn: number[];
  whiteSpace: string;
  overflowX: string;
  /** Wider than its box: it scrolls sideways. */
  scrolls: boolean;
  /** Reachable by the Tab key. */
  focusable: boolean;
}

/**
 * Every code block of the page, measured: each character's box says on which screen line it
 * is, so a line written once but shown on two (broken mid-word, or at a space) is seen as such.
 */
const codeBlocks = (page: Page): Promise<CodeLines[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll('main pre')].map((pre) => {
      const tops: Set<number>[] = [new Set()];
      const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (let i = 0; i < text.length; i++) {
          if (text[i] === '\n') {
            tops.push(new Set());
            continue;
          }
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const box = range.getClientRects()[0];
          if (box && box.width > 0) tops.at(-1)?.add(Math.round(box.top));
        }
      }
      const style = getComputedStyle(pre);
      return {
        lines: (pre.textContent ?? '').split('\n'),
        shownOn: tops.map((line) => line.size),
        whiteSpace: style.whiteSpace,
        overflowX: style.overflowX,
        scrolls: pre.scrollWidth > pre.clientWidth,
        focusable: (pre as HTMLElement).tabIndex === 0,
      };
    }),
  );

const pageWidth = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test('at 375 px, commands keep their lines whole and scroll sideways inside their box', async () => {
  // An organization of their own, where nobody has called, remembered or registered anything.
  const orgId = await t.server.t.fixtures.org({ name: 'Phone Co' });
  const person = await t.person({ role: 'admin', name: 'Phone Person', orgId });
  const page = await t.newPage({ viewport: SMALL_PHONE });
  await t.signIn(page, '/settings/api-keys', person);
  // The pages that show how to call mnemo while there is nothing to show yet.
  const pages = [
    ['/settings/api-keys', 'No API keys yet'],
    ['/usage', 'No calls in these days'],
    ['/memories', 'No memories yet'],
    ['/end-users', 'No end users yet'],
  ] as const;
  const scrolling: string[] = [];
  for (const [path, title] of pages) {
    if (path !== '/settings/api-keys') await page.goto(`${t.url}/studio${path}`);
    await page.getByRole('heading', { name: title }).waitFor();
    const blocks = await codeBlocks(page);
    expect(blocks, path).toHaveLength(1);
    const [block] = blocks as [CodeLines];
    expect(block.lines[0], path).toMatch(/^curl /);
    // Each line written is one line on the screen: none is broken, whatever its length.
    expect(block.shownOn, path).toEqual(block.lines.map(() => 1));
    expect([block.whiteSpace, block.overflowX], path).toEqual(['pre', 'auto']);
    // A line longer than the phone is wide scrolls inside its box, which the keyboard can then
    // reach to scroll it; the page stays put, and axe finds nothing.
    if (block.scrolls) scrolling.push(path);
    expect(block.focusable, path).toBe(block.scrolls);
    expect(await pageWidth(page), path).toBe(0);
    expect(await t.axe(page), path).toEqual([]);
  }
  // The key's short command fits; the others, with their URLs and JSON, do not.
  expect(scrolling).toEqual(['/usage', '/memories', '/end-users']);

  // The Keys page's block takes focus only while it scrolls, so the keyboard scrolls it too.
  await page.goto(`${t.url}/studio/settings/api-keys`);
  await page.getByRole('heading', { name: 'No API keys yet' }).waitFor();
  const keysBlock = async () => (await codeBlocks(page))[0];
  expect(await keysBlock()).toMatchObject({ scrolls: false, focusable: false });
  await page.setViewportSize({ width: 320, height: 640 });
  await expect.poll(keysBlock).toMatchObject({ scrolls: true, focusable: true, shownOn: [1, 1] });
  expect(await pageWidth(page)).toBe(0);
  expect(await t.axe(page)).toEqual([]);
  await page.setViewportSize(DESKTOP);
  await expect.poll(keysBlock).toMatchObject({ scrolls: false, focusable: false, shownOn: [1, 1] });
});

test('at 375 × 667 the playground opens on the conversation; its settings come after it', async () => {
  const page = await t.newPage({ viewport: SMALL_PHONE });
  await t.signIn(page, '/playground');
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.waitFor();
  /** Where an element is on the first screen: its top and bottom, the page unscrolled. */
  const span = async (element: Locator) => {
    const box = await element.boundingBox();
    if (!box) throw new Error('not shown');
    return { top: Math.round(box.y), bottom: Math.round(box.y + box.height) };
  };
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  const conversation = await span(page.getByRole('region', { name: 'Messages' }));
  const box = await span(message);
  const send = await span(page.getByRole('button', { name: 'Send' }));
  for (const [what, place] of Object.entries({ conversation, box, send })) {
    expect(place.top, what).toBeGreaterThan(0);
    expect(place.bottom, what).toBeLessThanOrEqual(SMALL_PHONE.height);
  }
  expect(conversation.bottom).toBeLessThan(box.top);
  // The settings are under the conversation, out of the first screen.
  const model = page.getByRole('combobox', { name: 'Model' });
  expect((await span(model)).top).toBeGreaterThan(SMALL_PHONE.height);
  expect(await pageWidth(page)).toBe(0);
  expect(await t.axe(page)).toEqual([]);

  // A button beside Send leads to them: the model's choice gets focus, in sight.
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect.poll(() => model.evaluate((el) => el === document.activeElement)).toBe(true);
  const shown = await model.boundingBox();
  expect(shown && shown.y >= 0 && shown.y + shown.height <= SMALL_PHONE.height).toBe(true);

  // Once a message is sent, the conversation's card comes up whole, its message box in sight.
  await page.evaluate(() => window.scrollTo(0, 0));
  sim.script({ kind: 'text', text: 'Hello from the simulator, on a phone.' });
  await message.fill('Hello');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText(/\d+ prompt · \d+ completion · \d+ total/).waitFor();
  const input = await message.boundingBox();
  expect(input && input.y > 0 && input.y + input.height <= SMALL_PHONE.height).toBe(true);
  const answer = await page.locator('.answer').boundingBox();
  expect(answer && answer.y > 0 && answer.y + answer.height <= SMALL_PHONE.height).toBe(true);
  expect(await pageWidth(page)).toBe(0);
  expect(await t.axe(page)).toEqual([]);
});

test('on a desktop the settings sit beside the conversation, and need no button', async () => {
  const page = await t.newPage();
  await t.signIn(page, '/playground');
  const model = page.getByRole('combobox', { name: 'Model' });
  await model.waitFor();
  const conversation = await page.getByRole('region', { name: 'Messages' }).boundingBox();
  const settings = await model.boundingBox();
  expect(conversation && settings && settings.x > conversation.x + conversation.width).toBe(true);
  expect(await page.getByRole('button', { name: 'Settings' }).count()).toBe(0);
});
