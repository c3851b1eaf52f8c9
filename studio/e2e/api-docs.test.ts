/**
 * The service's front door and its reference: `/` leads to the studio, and `/docs` renders
 * /openapi.json in Chromium from this origin's files alone, under its own content policy.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type StudioTest, startStudioTest } from './studio-harness.ts';

let t: StudioTest;
beforeAll(async () => {
  t = await startStudioTest();
});
afterAll(() => t?.close());

test('/ redirects to the studio', async () => {
  const root = await fetch(`${t.url}/`, { redirect: 'manual' });
  expect(root.status).toBe(302);
  expect(root.headers.get('location')).toBe('/studio/');
  expect(root.headers.get('cache-control')).toBe('no-store');
  const page = await t.newPage();
  await page.goto(`${t.url}/`);
  await page.getByLabel('Email').waitFor();
  expect(new URL(page.url()).pathname).toMatch(/^\/(studio|oauth)\//);
});

test('/docs renders every operation of /openapi.json, nothing fetched from another origin, no policy broken', async () => {
  const document = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
  );
  expect(operations.length).toBeGreaterThan(40);

  const page = await t.newPage();
  const elsewhere: string[] = [];
  const broken: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== t.url && url.protocol !== 'data:') elsewhere.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') broken.push(message.text());
  });
  const answer = await page.goto(`${t.url}/docs`);
  expect(answer?.status()).toBe(200);
  expect(answer?.headers()['content-security-policy']).toContain("default-src 'self'");
  await expect.poll(() => page.locator('.opblock').count()).toBe(operations.length);
  expect(await page.title()).toBe('mnemo API reference');
  await page.getByText('/api/v1/memory/import', { exact: true }).first().waitFor();
  expect(elsewhere).toEqual([]);
  expect(broken).toEqual([]);
});
