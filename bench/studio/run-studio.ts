/**
 * The studio's part of `npm run bench` (`--only studio`): what a first visit downloads, and how
 * the Memories page holds up with 5,000 memories against 100 measured in the same run.
 *
 * - First load: a fresh browser opens /studio/memories; every script it fetches before it
 *   leaves for the sign-in page is counted, at its gzip size (the build's .gz files, which the
 *   server sends to a client that asks for gzip) and as sent here (brotli, Chromium's choice).
 * - The list: a signed-in page opens a store of N memories; timed from navigation to the
 *   count shown (sign-in through the session included), then, by the page's own clock, from
 *   the filter's input event to the frame that shows the filtered list. Each figure is the
 *   median of `RUNS` runs.
 */
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { type StudioTest, startStudioTest } from '../../studio/e2e/studio-harness.ts';
import { buildStudio } from '../../studio/scripts/build-studio.ts';

/** The budget the issue sets for the JavaScript of a first load, gzip. */
export const FIRST_LOAD_BUDGET_BYTES = 300 * 1024;
/** A filter must feel immediate: the list updates within this at 5,000 memories. */
export const FILTER_TARGET_MS = 100;

const RUNS = 5;
const SIZES = [100, 5000] as const;

export interface StudioOutcome {
  readonly broken: boolean;
  readonly missed: boolean;
  readonly json: unknown;
}

interface ListTiming {
  readonly memories: number;
  readonly openMs: number;
  readonly filterMs: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;

async function firstLoad(t: StudioTest, directory: string) {
  const page = await t.newPage();
  const scripts: { path: string; sent: number }[] = [];
  page.on('requestfinished', async (request) => {
    if (request.resourceType() !== 'script') return;
    const sizes = await request.sizes();
    scripts.push({ path: new URL(request.url()).pathname, sent: sizes.responseBodySize });
  });
  await page.goto(`${t.url}/studio/memories`);
  await page.waitForURL(/\/oauth\/interaction\//);
  await page.context().close();
  const gzip = scripts.reduce(
    (sum, s) => sum + statSync(join(directory, `${s.path.replace(/^\/studio\//, '')}.gz`)).size,
    0,
  );
  const sent = scripts.reduce((sum, s) => sum + s.sent, 0);
  return { files: scripts.map((s) => s.path), gzip, sent };
}

async function seed(t: StudioTest, userId: string, count: number) {
  const token = await t.server.t.fixtures.token(userId);
  for (let start = 0; start < count; start += 250) {
    await Promise.all(
      Array.from({ length: Math.min(250, count - start) }, (_, k) =>
        t.server.t.request(
          { token, orgId: t.orgId },
          {
            method: 'POST',
            url: '/api/v1/memory',
            payload: { content: `Memory number ${start + k} about the ledger`, category: 'goal' },
          },
        ),
      ),
    );
  }
}

async function timeList(t: StudioTest, page: Page, count: number): Promise<ListTiming> {
  const open: number[] = [];
  const filter: number[] = [];
  const label = `${count.toLocaleString('en-US')} memories`;
  // One navigation first, untimed: the first of a page pays for compiling the bundle.
  await page.goto(`${t.url}/studio/memories`);
  await page.getByText(label, { exact: true }).waitFor({ timeout: 60_000 });
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    await page.goto(`${t.url}/studio/memories`);
    await page.getByText(label, { exact: true }).waitFor({ timeout: 60_000 });
    open.push(performance.now() - started);
    filter.push(await timeFilter(page, `number ${count - 1} `, `1 of ${label}`));
  }
  return { memories: count, openMs: median(open), filterMs: median(filter) };
}

/**
 * Inside the page, from the input event to the frame after the list shows `expected`: the
 * browser's own clock, without the driver's round trips (which alone take about 100 ms).
 */
function timeFilter(page: Page, query: string, expected: string): Promise<number> {
  return page.evaluate(
    ({ query, expected }) =>
      new Promise<number>((resolve) => {
        // The bench is type-checked without the DOM's types: the few it uses, by shape.
        const w = globalThis as unknown as BrowserSide;
        const input = w.document.querySelector('input[type="search"]');
        const main = w.document.querySelector('main');
        if (!input || !main) throw new Error('no filter on the page');
        const started = w.performance.now();
        const observer = new w.MutationObserver(() => {
          if (main.textContent?.includes(expected) !== true) return;
          observer.disconnect();
          w.requestAnimationFrame(() => resolve(w.performance.now() - started));
        });
        observer.observe(main, { subtree: true, childList: true, characterData: true });
        // React listens for input events; the value is set as the browser would set it.
        Object.getOwnPropertyDescriptor(w.HTMLInputElement.prototype, 'value')?.set?.call(
          input,
          query,
        );
        input.dispatchEvent(new w.Event('input', { bubbles: true }));
      }),
    { query, expected },
  );
}

interface BrowserSide {
  document: {
    querySelector(selector: string): {
      textContent: string | null;
      dispatchEvent(event: unknown): void;
    } | null;
  };
  performance: { now(): number };
  requestAnimationFrame(callback: () => void): void;
  MutationObserver: new (
    callback: () => void,
  ) => { observe(target: unknown, options: object): void; disconnect(): void };
  HTMLInputElement: { prototype: object };
  Event: new (type: string, init: { bubbles: boolean }) => unknown;
}

/** Runs the studio's measures and prints their table on `out`. */
export async function benchStudio(
  options: { log: (line: string) => void },
  out: (text: string) => void,
): Promise<StudioOutcome> {
  const directory = await mkdtemp(join(tmpdir(), 'mnemo-bench-studio-'));
  let t: StudioTest | undefined;
  try {
    options.log('studio: building');
    await buildStudio(directory);
    t = await startStudioTest({ studioDirectory: directory });
    options.log('studio: first load');
    const load = await firstLoad(t, directory);
    const timings: ListTiming[] = [];
    for (const count of SIZES) {
      options.log(`studio: ${count} memories`);
      const person = await t.person({ name: `Bench ${count}` });
      await seed(t, person.id, count);
      const page = await t.newPage();
      await t.signIn(page, '/memories', person);
      timings.push(await timeList(t, page, count));
      await page.context().close();
    }
    const [small, large] = timings as [ListTiming, ListTiming];
    const loadMet = load.gzip <= FIRST_LOAD_BUDGET_BYTES;
    const filterMet = large.filterMs <= FILTER_TARGET_MS;

    out('## The studio');
    out('');
    out(`first load of /studio/memories: ${load.files.length} script(s): ${load.files.join(', ')}`);
    out('');
    out('| measure | figure | target | |');
    out('| --- | --- | --- | --- |');
    out(
      `| first-load JavaScript, gzip | ${kb(load.gzip)} | ≤ ${kb(FIRST_LOAD_BUDGET_BYTES)} | ${loadMet ? 'met' : 'MISSED'} |`,
    );
    out(`| the same as sent to Chromium (brotli) | ${kb(load.sent)} | | |`);
    out(
      `| filter 5,000 memories, keystroke to list | ${ms(large.filterMs)} | ≤ ${ms(FILTER_TARGET_MS)} | ${filterMet ? 'met' : 'MISSED'} |`,
    );
    out('');
    out(`| Memories page, median of ${RUNS} | 100 memories | 5,000 memories | ratio |`);
    out('| --- | --- | --- | --- |');
    out(
      `| navigation to the list counted | ${ms(small.openMs)} | ${ms(large.openMs)} | ${(large.openMs / small.openMs).toFixed(2)}× |`,
    );
    out(
      `| keystroke in the filter to the filtered list | ${ms(small.filterMs)} | ${ms(large.filterMs)} | ${(large.filterMs / small.filterMs).toFixed(2)}× |`,
    );
    return {
      broken: false,
      missed: !loadMet || !filterMet,
      json: { firstLoad: load, lists: timings },
    };
  } catch (error) {
    options.log(`studio: ${(error as Error).stack ?? String(error)}`);
    return { broken: true, missed: false, json: { error: String(error) } };
  } finally {
    await t?.close();
    await rm(directory, { recursive: true, force: true });
  }
}
