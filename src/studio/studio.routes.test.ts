/**
 * How /studio is served: the bundle's files as built (precompressed, hashed files kept for
 * good), every other path under it as the app's page, the security headers on all of it, and
 * a page that says how to build it when there is no bundle. The app itself is tested in a
 * browser (studio/e2e/).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { STUDIO_CSP } from './studio.routes.ts';

const INDEX = '<!doctype html><html><body><div id="root"></div></body></html>';
const SCRIPT = 'console.log("studio");'.repeat(50);

let bundle: string;
let t: TestApp;
beforeAll(async () => {
  bundle = mkdtempSync(join(tmpdir(), 'mnemo-studio-routes-'));
  mkdirSync(join(bundle, 'assets'));
  writeFileSync(join(bundle, 'index.html'), INDEX);
  writeFileSync(join(bundle, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(bundle, 'assets', 'index-abc123.js'), SCRIPT);
  writeFileSync(join(bundle, 'assets', 'index-abc123.js.gz'), gzipSync(SCRIPT));
  t = await buildTestApp({}, { studioDirectory: bundle });
});
afterAll(async () => {
  await t?.close();
  rmSync(bundle, { recursive: true, force: true });
});

describe('with a bundle', () => {
  test('/studio redirects to /studio/, which is the app', async () => {
    const bare = await t.app.inject({ method: 'GET', url: '/studio' });
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/studio/');
    const root = await t.app.inject({ method: 'GET', url: '/studio/' });
    expect(root.statusCode).toBe(200);
    expect(root.body).toBe(INDEX);
  });

  test('any page of the app gets index.html, with the security headers and no-store', async () => {
    for (const url of [
      '/studio/memories',
      '/studio/settings/api-keys',
      '/studio/callback?code=x',
    ]) {
      const page = await t.app.inject({ method: 'GET', url });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toBe(INDEX);
      expect(page.headers['content-security-policy']).toBe(STUDIO_CSP);
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['cache-control']).toBe('no-store');
    }
  });

  test('bundled files are kept for good, and sent compressed to who asks', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/studio/assets/index-abc123.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.body).toBe(SCRIPT);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const gzip = await t.app.inject({
      method: 'GET',
      url: '/studio/assets/index-abc123.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.rawPayload.length).toBeLessThan(SCRIPT.length);
    expect(gzip.headers.vary).toContain('accept-encoding');
  });

  test('a missing bundled file is a 404, not the app; other methods are 405', async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/studio/assets/gone-123.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.body).not.toContain('<div id="root">');
    const post = await t.app.inject({ method: 'POST', url: '/studio/memories' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});

test('without a bundle, /studio/ says how to build it (503)', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'mnemo-studio-none-'));
  const bare = await buildTestApp({}, { studioDirectory: empty });
  try {
    for (const url of ['/studio/', '/studio/memories']) {
      const page = await bare.app.inject({ method: 'GET', url });
      expect(page.statusCode).toBe(503);
      expect(page.body).toContain('npm run studio:build');
      expect(page.headers['content-security-policy']).toBe(STUDIO_CSP);
    }
  } finally {
    await bare.close();
    rmSync(empty, { recursive: true, force: true });
  }
});
