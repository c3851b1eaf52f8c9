import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { MemberRole } from '../../src/db/tables.ts';
import { type OAuthServer, startOAuthServer } from '../../src/testing/oauth-server.ts';
import type { DeliveryOptions } from '../../src/webhooks/webhook-delivery.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The studio, built from the sources as they are now, for this run only (global-setup.ts). */
    studioDirectory: string;
  }
}

/** Debian's Chromium (`apt-get install chromium`); Playwright's own download is not used. */
const CHROMIUM = process.env.MNEMO_TEST_CHROMIUM ?? '/usr/bin/chromium';

export const DESKTOP = { width: 1280, height: 860 } as const;
export const PHONE = { width: 375, height: 740 } as const;

/** The answer's JSON, once it is known to be a success (the status and body said otherwise). */
export async function ok<T>(response: Promise<Response>): Promise<T> {
  const answer = await response;
  if (!answer.ok) throw new Error(`expected a success: ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as T;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export interface Person {
  readonly id: string;
  readonly email: string;
  readonly password: string;
}

export interface StudioTest {
  readonly server: OAuthServer;
  /** The server's public URL; the studio is at `${url}/studio/`. */
  readonly url: string;
  /** An organization named "Acme" whose owner is `owner`. */
  readonly orgId: string;
  readonly owner: Person;
  readonly browser: Browser;
  /** Another person who can sign in, a member of Acme with `role`. */
  person(options?: { role?: MemberRole; name?: string; orgId?: string }): Promise<Person>;
  /** A fresh browser profile (no cookies) with one page. */
  newPage(options?: {
    viewport?: { width: number; height: number };
    colorScheme?: 'light' | 'dark';
  }): Promise<Page>;
  /** Opens `path` of the studio and signs in through the real /oauth pages as `who`. */
  signIn(page: Page, path?: string, who?: Person): Promise<void>;
  /** The platform API as `userId` (a credential from the built-in issuer), in Acme by default. */
  api(
    userId: string,
    method: string,
    path: string,
    body?: unknown,
    orgId?: string,
  ): Promise<Response>;
  /** Serious and critical accessibility violations axe-core finds on the page as it is. */
  axe(page: Page): Promise<{ id: string; impact: string; targets: string[] }[]>;
  close(): Promise<void>;
}

/**
 * A real mnemo on a loopback port serving the studio built for this run (global-setup.ts), an
 * organization with its owner, and Debian's Chromium driven by playwright-core.
 */
export async function startStudioTest(
  options: {
    env?: Record<string, string>;
    /** By default the bundle the test run built (global-setup.ts). */
    studioDirectory?: string;
    /** The webhook delivery worker's schedule and polling, over the server's (webhook tests). */
    webhookDelivery?: Partial<DeliveryOptions>;
  } = {},
): Promise<StudioTest> {
  const studioDirectory =
    options.studioDirectory ?? (await import('vitest')).inject('studioDirectory');
  const server = await startOAuthServer(options.env ?? {}, {
    studioDirectory,
    ...(options.webhookDelivery ? { webhookDelivery: options.webhookDelivery } : {}),
  });
  const orgId = await server.t.fixtures.org({ name: 'Acme' });
  const owner = await server.person({ orgId, role: 'owner', name: 'Ada Lovelace' });
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];

  const test: StudioTest = {
    server,
    url: server.url,
    orgId,
    owner,
    browser,
    person: (o = {}) =>
      server.person({
        orgId: o.orgId ?? orgId,
        role: o.role ?? 'member',
        ...(o.name === undefined ? {} : { name: o.name }),
      }),
    async newPage(o = {}) {
      const context = await browser.newContext({
        viewport: o.viewport ?? DESKTOP,
        colorScheme: o.colorScheme ?? 'light',
      });
      contexts.push(context);
      return context.newPage();
    },
    async signIn(page, path = '/memories', who = owner) {
      await page.goto(`${server.url}/studio${path}`);
      await page.getByLabel('Email').fill(who.email);
      await page.getByLabel('Password').fill(who.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
    },
    async api(userId, method, path, body, inOrg = orgId) {
      const token = await server.t.fixtures.token(userId);
      return fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'x-organization-id': inOrg,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    },
    async axe(page) {
      const results = await new AxeBuilder({ page }).analyze();
      return results.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({
          id: v.id,
          impact: v.impact ?? '',
          targets: v.nodes.map((n) => n.target.join(' ')),
        }));
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await server.close();
    },
  };
  return test;
}
