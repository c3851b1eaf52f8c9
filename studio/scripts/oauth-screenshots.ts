/**
 * `npm run oauth:screenshots`: pictures of the pages people meet under /oauth outside the
 * studio (sign-in, joining by invitation, signing up, resetting a password) for docs/oauth/, in
 * light and dark, at desktop (1280 px) and phone (375 px) width. A real mnemo serves them, with
 * open sign-up and email to an SMTP server on loopback whose messages give the emailed links;
 * a second one, without email and with sign-up by invitation, shows what is said instead. Each
 * picture is the whole page. Names given on the command line take only the pictures whose name
 * starts with one of them: `npm run oauth:screenshots -- join`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { type ReceivedMail, type SmtpSink, startSmtpSink } from '../../src/testing/smtp-sink.ts';
import { DESKTOP, PHONE, type StudioTest, startStudioTest } from '../e2e/studio-harness.ts';
import { buildStudio } from './build-studio.ts';

const OUT = fileURLToPath(new URL('../../docs/oauth/', import.meta.url));
const PASSWORD = 'ledger backfill runs nightly';
const MARY = 'mary.jackson@example.com';

interface Shot {
  readonly name: string;
  /** Goes to the page and brings it to the state pictured; `variant` keeps addresses apart. */
  readonly open: (page: Page, variant: string) => Promise<unknown>;
}

/** The one link of an email that leads to `/oauth/{kind}/…`. */
function linkIn(mail: ReceivedMail, kind: string): string {
  const link = mail.text.match(new RegExp(`https?://\\S+/oauth/${kind}/[A-Za-z0-9_-]+`))?.[0];
  if (!link) throw new Error(`no ${kind} link in “${mail.subject}”`);
  return link;
}

async function invite(t: StudioTest, email: string): Promise<string> {
  const path = `/api/v1/orgs/${t.orgId}/invitations`;
  const response = await t.api(t.owner.id, 'POST', path, { email, role: 'member' });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { url: string }).url;
}

/**
 * Acme's invitations, as Ada sends them: to someone new, to someone with an account elsewhere,
 * and one already used.
 */
async function seed(t: StudioTest, smtp: SmtpSink) {
  const initech = await t.server.t.fixtures.org({ name: 'Initech' });
  const grace = await t.server.person({ orgId: initech, name: 'Grace Hopper' });
  await t.server.t.database.db
    .updateTable('users')
    .set({ email: 'grace.hopper@example.com' })
    .where('id', '=', grace.id)
    .execute();
  const katherine = await invite(t, 'katherine.johnson@example.com');
  const existing = await invite(t, 'grace.hopper@example.com');
  const used = await invite(t, 'dorothy.vaughan@example.com');
  for (const email of [
    'katherine.johnson@example.com',
    'grace.hopper@example.com',
    'dorothy.vaughan@example.com',
  ]) {
    await smtp.next(email);
  }
  const page = await t.newPage();
  await page.goto(used);
  await page.getByLabel('Name', { exact: true }).fill('Dorothy Vaughan');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Join Acme' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await page.context().close();
  return { katherine, existing, used, grace: { ...grace, email: 'grace.hopper@example.com' } };
}

async function fillNewPassword(page: Page, password: string, confirmation = password) {
  await page.getByLabel(/^(New password|Password)$/).fill(password);
  await page.getByLabel('Confirm password').fill(confirmation);
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'mnemo-oauth-screenshots-'));
  const smtp = await startSmtpSink();
  await buildStudio(join(work, 'studio'));
  const studioDirectory = join(work, 'studio');
  const t = await startStudioTest({
    studioDirectory,
    env: { MNEMO_SMTP_URL: smtp.url, MNEMO_SIGNUP: 'open' },
  });
  const plain = await startStudioTest({ studioDirectory });
  try {
    const links = await seed(t, smtp);
    // Each width and scheme signs up and asks for a reset once, and pictures every step of it:
    // the forms that send email are limited per address (five in 15 minutes).
    const signUps = new Map<string, Promise<string>>();
    const resets = new Map<string, Promise<string>>();
    /** Signs Mary up through the page; the link emailed to confirm. */
    const signUp = async (page: Page, variant: string) => {
      await page.goto(`${t.url}/oauth/sign-up`);
      await page.getByLabel('Name', { exact: true }).fill('Mary Jackson');
      await page.getByLabel('Email').fill(MARY);
      await fillNewPassword(page, PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Check your email' }).waitFor();
      const link = smtp.next(MARY).then((mail) => linkIn(mail, 'sign-up'));
      signUps.set(variant, link);
      return link;
    };
    /** Asks for a reset of Grace's password through the page; the link emailed. */
    const askReset = async (page: Page, variant: string) => {
      await page.goto(`${t.url}/oauth/password-reset`);
      await page.getByLabel('Email').fill(links.grace.email);
      await page.getByRole('button', { name: 'Send reset link' }).click();
      await page.getByRole('heading', { name: 'Check your email' }).waitFor();
      const link = smtp.next(links.grace.email).then((mail) => linkIn(mail, 'password-reset'));
      resets.set(variant, link);
      return link;
    };
    const resetLink = (page: Page, variant: string) =>
      resets.get(variant) ?? askReset(page, variant);
    const shots: Shot[] = [
      {
        name: 'sign-in',
        open: async (p) => {
          await p.goto(`${t.url}/studio/memories`);
          await p.getByRole('link', { name: 'Create an account' }).waitFor();
        },
      },
      {
        name: 'join',
        open: async (p) => {
          await p.goto(links.katherine);
          await p.getByLabel('Name', { exact: true }).fill('Katherine Johnson');
        },
      },
      {
        name: 'join-refused',
        open: async (p) => {
          await p.goto(links.katherine);
          await p.getByLabel('Name', { exact: true }).fill('Katherine Johnson');
          await fillNewPassword(p, PASSWORD, 'ledger backfill runs daily');
          await p.getByRole('button', { name: 'Join Acme' }).click();
          await p.getByRole('alert').waitFor();
        },
      },
      {
        name: 'join-existing-account',
        open: async (p) => {
          await p.goto(links.existing);
          await p.getByRole('button', { name: 'Join Acme' }).waitFor();
        },
      },
      {
        name: 'invitation-used',
        open: async (p) => {
          await p.goto(links.used);
          await p.getByRole('heading', { name: 'This invitation has already been used' }).waitFor();
        },
      },
      {
        name: 'sign-up',
        open: async (p) => {
          await p.goto(`${t.url}/studio/memories`);
          await p.getByRole('link', { name: 'Create an account' }).click();
          await p.getByRole('button', { name: 'Create account' }).waitFor();
        },
      },
      {
        name: 'sign-up-check-email',
        open: (p, variant) => signUp(p, variant),
      },
      {
        name: 'sign-up-confirm',
        open: async (p, variant) => {
          await p.goto(await (signUps.get(variant) ?? signUp(p, variant)));
          await p.getByRole('button', { name: 'Create my account' }).waitFor();
        },
      },
      {
        name: 'sign-up-closed',
        open: async (p) => {
          await p.goto(`${plain.url}/oauth/sign-up`);
          await p.getByRole('heading', { name: 'Sign-up is closed' }).waitFor();
        },
      },
      {
        name: 'forgot-password',
        open: async (p) => {
          await p.goto(`${t.url}/studio/memories`);
          await p.getByRole('link', { name: 'Forgot password?' }).click();
          await p.getByLabel('Email').fill(links.grace.email);
        },
      },
      {
        name: 'forgot-password-sent',
        open: (p, variant) => askReset(p, variant),
      },
      {
        name: 'new-password',
        open: async (p, variant) => {
          await p.goto(await resetLink(p, variant));
          await p.getByRole('button', { name: 'Set password' }).waitFor();
        },
      },
      {
        name: 'new-password-refused',
        open: async (p, variant) => {
          await p.goto(await resetLink(p, variant));
          await fillNewPassword(p, 'password1234');
          await p.getByRole('button', { name: 'Set password' }).click();
          await p.getByRole('alert').waitFor();
        },
      },
      {
        // Uses the link: the last of the pictures that open it.
        name: 'reset-link-used',
        open: async (p, variant) => {
          const link = await resetLink(p, variant);
          await p.goto(link);
          await fillNewPassword(p, PASSWORD);
          await p.getByRole('button', { name: 'Set password' }).click();
          await p.getByRole('navigation', { name: 'Main' }).waitFor();
          await p.goto(link);
          await p
            .getByRole('heading', { name: 'This password reset link has already been used' })
            .waitFor();
        },
      },
      {
        name: 'forgot-password-no-email',
        open: async (p) => {
          await p.goto(`${plain.url}/oauth/password-reset`);
          await p.getByRole('heading', { name: 'Reset your password' }).waitFor();
        },
      },
    ];
    const wanted = process.argv.slice(2);
    const taken = shots.filter(
      (shot) => wanted.length === 0 || wanted.some((name) => shot.name.startsWith(name)),
    );
    mkdirSync(OUT, { recursive: true });
    for (const scheme of ['light', 'dark'] as const) {
      for (const [width, viewport] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        for (const shot of taken) {
          // A fresh browser each: no session, no sign-in ticket left from the picture before.
          const page = await t.newPage({ viewport, colorScheme: scheme });
          page.setDefaultTimeout(30_000);
          await shot.open(page, `${scheme}-${width}`);
          // The page as it is read, without the focus ring of the field typed in last.
          const focused = page.locator(':focus');
          if ((await focused.count()) > 0) await focused.blur();
          const file = join(OUT, `${shot.name}-${scheme}-${width}.png`);
          await page.screenshot({ path: file, fullPage: true });
          process.stdout.write(`${file}\n`);
          await page.context().close();
        }
      }
    }
  } finally {
    await t.close();
    await plain.close();
    await smtp.close();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
