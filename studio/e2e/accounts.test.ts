import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { type ReceivedMail, type SmtpSink, startSmtpSink } from '../../src/testing/smtp-sink.ts';
import { ok, type Person, PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

/*
 * The pages people meet outside a sign-in, through a real browser and the real server: joining
 * by invitation, signing up, resetting a password. Each flow ends where the person lands (the
 * studio, signed in, in the right organization), checked against the API and the store.
 */

/** Email, open sign-up: the server most flows need. */
let t: StudioTest;
let smtp: SmtpSink;
/** No email, the default sign-up (`invite`): the pages that say what to ask for instead. */
let plain: StudioTest;

beforeAll(async () => {
  smtp = await startSmtpSink();
  [t, plain] = await Promise.all([
    startStudioTest({ env: { MNEMO_SMTP_URL: smtp.url, MNEMO_SIGNUP: 'open' } }),
    startStudioTest(),
  ]);
});
afterAll(async () => {
  await t?.close();
  await plain?.close();
  await smtp?.close();
});
// Each test drives real browsers through several page loads, emails and sign-ins.
vi.setConfig({ testTimeout: 120_000 });

const NEW_PASSWORD = 'ledger backfill runs nightly';

interface Created {
  invitation: { id: string; email: string; role: string };
  url: string;
  emailed: boolean;
}

interface Member {
  userId: string;
  email: string;
  name?: string;
  role: string;
}

/** A page whose waits fail within the test's time, saying what they waited for. */
async function newPage(
  test: StudioTest = t,
  options?: Parameters<StudioTest['newPage']>[0],
): Promise<Page> {
  const page = await test.newPage(options);
  page.setDefaultTimeout(20_000);
  return page;
}

/** Invites `email` to Acme as its owner does, through the API. */
function invite(email: string, role: 'admin' | 'member' = 'member', test: StudioTest = t) {
  return ok<Created>(
    test.api(test.owner.id, 'POST', `/api/v1/orgs/${test.orgId}/invitations`, { email, role }),
  );
}

/** The one link of an email that leads to `/oauth/{kind}/…`. */
function linkIn(mail: ReceivedMail, kind: 'invitations' | 'sign-up' | 'password-reset'): string {
  const links = mail.text.match(new RegExp(`https?://\\S+/oauth/${kind}/[A-Za-z0-9_-]+`, 'g'));
  expect(links?.length).toBeGreaterThan(0);
  expect(new Set(links).size).toBe(1);
  return (links as string[])[0] as string;
}

/** What the page's card says, as a person reads it. */
const says = (page: Page) => page.locator('main').innerText();

/** The studio, signed in: its navigation, on the Memories page, in the organization `orgId`. */
async function landedInStudio(page: Page, orgId: string) {
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await page.getByRole('heading', { level: 1, name: 'Memories' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/studio/memories');
  const switcher = page.getByRole('combobox', { name: 'Organization' });
  await expect.poll(() => switcher.inputValue()).toBe(orgId);
  return switcher;
}

async function members(test: StudioTest, orgId: string = test.orgId): Promise<Member[]> {
  return (
    await ok<{ members: Member[] }>(
      test.api(test.owner.id, 'GET', `/api/v1/orgs/${orgId}/members`, undefined, orgId),
    )
  ).members;
}

/** The account with `email` in the store, if there is one. */
function account(test: StudioTest, email: string) {
  return test.server.t.database.db
    .selectFrom('users')
    .select(['id', 'name', 'email', 'status'])
    .where('email', '=', email)
    .executeTakeFirst();
}

/** The organizations of `userId`, as the API tells them. */
async function organizationsOf(test: StudioTest, userId: string) {
  return (
    await ok<{ organizations: { id: string; name: string; role: string }[] }>(
      test.api(userId, 'GET', '/api/v1/me'),
    )
  ).organizations;
}

/** The studio's sign-in page, in a fresh browser. */
async function signInPage(test: StudioTest = t, options?: Parameters<StudioTest['newPage']>[0]) {
  const page = await newPage(test, options);
  await page.goto(`${test.url}/studio/memories`);
  await page.waitForURL(/\/oauth\/interaction\//);
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  return page;
}

// Invitations

test('an emailed invitation to a new person: the email, the page, the rule for passwords, then the studio in Acme as admin; the link works once', async () => {
  const email = 'katherine.johnson@example.test';
  const created = await invite(email, 'admin');
  expect(created.emailed).toBe(true);
  const mail = await smtp.next(email);
  expect(mail.subject).toBe('Ada Lovelace invited you to Acme on mnemo');
  expect(mail.text).toContain('Ada Lovelace invited you to join Acme on mnemo');
  const link = linkIn(mail, 'invitations');
  expect(link).toBe(created.url);
  expect(link.startsWith(`${t.url}/oauth/invitations/inv_`)).toBe(true);

  const page = await newPage();
  const opened = await page.goto(link);
  expect(opened?.status()).toBe(200);
  expect(await page.title()).toBe('Join Acme · mnemo');
  await page.getByRole('heading', { level: 1, name: 'Join Acme' }).waitFor();
  expect(await says(page)).toContain(
    'Ada Lovelace invited you to join Acme on mnemo. Make your account to accept.',
  );
  const emailField = page.getByLabel('Email');
  expect(await emailField.inputValue()).toBe(email);
  expect(await emailField.getAttribute('readonly')).not.toBeNull();
  const name = page.getByLabel('Name', { exact: true });
  const password = page.getByLabel('Password', { exact: true });
  const confirmation = page.getByLabel('Confirm password');
  const join = page.getByRole('button', { name: 'Join Acme' });
  expect(await page.getByRole('alert').count()).toBe(0);

  // Too short: the browser holds the form back and says so itself (minlength)…
  await name.fill('Katherine Johnson');
  await password.fill('too short');
  await confirmation.fill('too short');
  await join.click();
  expect(await password.evaluate((el: HTMLInputElement) => el.validity.tooShort)).toBe(true);
  expect(page.url()).toBe(link);
  // …and the server says it in a sentence where the browser does not check (here: told not to).
  await page.locator('form').evaluate((form: HTMLFormElement) => {
    form.noValidate = true;
  });
  const refused = page.waitForResponse((r) => r.url() === link && r.request().method() === 'POST');
  await join.click();
  expect((await refused).status()).toBe(400);
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toBe(
    'Use at least 12 characters: a few words make a good password.',
  );
  expect(await name.inputValue()).toBe('Katherine Johnson');
  expect(await password.inputValue()).toBe('');
  expect(await password.getAttribute('aria-invalid')).toBe('true');
  // The error is tied to the fields, the rule kept beside the password.
  expect(await password.getAttribute('aria-describedby')).toBe('error password-hint');
  expect(await confirmation.getAttribute('aria-describedby')).toBe('error');

  // Two different passwords.
  await password.fill(NEW_PASSWORD);
  await confirmation.fill(`${NEW_PASSWORD}!`);
  await join.click();
  await expect
    .poll(() => page.getByRole('alert').textContent())
    .toBe('The two passwords differ: type the same one twice.');
  expect(await name.inputValue()).toBe('Katherine Johnson');
  expect(await account(t, email)).toBeUndefined();

  // Right: the account, the membership, and the studio, signed in, in Acme.
  await password.fill(NEW_PASSWORD);
  await confirmation.fill(NEW_PASSWORD);
  await join.click();
  const switcher = await landedInStudio(page, t.orgId);
  expect(await switcher.locator('option').allTextContents()).toEqual(['Acme']);
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor();
  await page.getByRole('banner').getByText('Katherine Johnson', { exact: true }).waitFor();

  const made = await account(t, email);
  expect(made).toMatchObject({ name: 'Katherine Johnson', status: 'active' });
  const katherine = (await members(t)).find((m) => m.email === email);
  expect(katherine).toMatchObject({ userId: made?.id, name: 'Katherine Johnson', role: 'admin' });
  expect(
    await t.server.t.database.db
      .selectFrom('invitations')
      .select(['accepted_by'])
      .where('id', '=', created.invitation.id)
      .executeTakeFirstOrThrow(),
  ).toEqual({ accepted_by: made?.id });
  const pending = await ok<{ invitations: { id: string }[] }>(
    t.api(t.owner.id, 'GET', `/api/v1/orgs/${t.orgId}/invitations`),
  );
  expect(pending.invitations.map((i) => i.id)).not.toContain(created.invitation.id);

  // The link, again: used, and it says so, with nothing to fill in.
  const again = await page.goto(link);
  expect(again?.status()).toBe(410);
  await page
    .getByRole('heading', { level: 1, name: 'This invitation has already been used' })
    .waitFor();
  expect(await says(page)).toContain(
    'An invitation works once. If it was you who used it, you are a member of Acme: sign in to the studio.',
  );
  expect(await page.locator('form, input').count()).toBe(0);
  expect(await page.getByRole('link', { name: 'Open the studio' }).getAttribute('href')).toBe(
    `${t.url}/studio/`,
  );
});

test('an invitation to someone with an account asks only for the password; a wrong one is refused; the right one joins, in the studio in Acme', async () => {
  const globex = await t.server.t.fixtures.org({ name: 'Globex' });
  const grace = await t.person({ orgId: globex, name: 'Grace Hopper' });
  const created = await invite(grace.email);
  await smtp.next(grace.email);

  const page = await newPage();
  expect((await page.goto(created.url))?.status()).toBe(200);
  await page.getByRole('heading', { level: 1, name: 'Join Acme' }).waitFor();
  expect(await says(page)).toContain(
    'Ada Lovelace invited you to join Acme on mnemo. Sign in to accept.',
  );
  expect(await page.getByLabel('Email').inputValue()).toBe(grace.email);
  expect(await page.getByLabel('Email').getAttribute('readonly')).not.toBeNull();
  expect(await page.getByLabel('Name', { exact: true }).count()).toBe(0);
  expect(await page.getByLabel('Confirm password').count()).toBe(0);
  expect(await page.getByRole('link', { name: 'Forgot password?' }).getAttribute('href')).toBe(
    `${t.url}/oauth/password-reset`,
  );

  const password = page.getByLabel('Password', { exact: true });
  await password.fill('not the password at all');
  const refused = page.waitForResponse(
    (r) => r.url() === created.url && r.request().method() === 'POST',
  );
  await page.getByRole('button', { name: 'Join Acme' }).click();
  expect((await refused).status()).toBe(401);
  await page.getByRole('alert').getByText('Wrong password.', { exact: true }).waitFor();
  expect(await password.getAttribute('aria-invalid')).toBe('true');
  expect((await members(t)).some((m) => m.userId === grace.id)).toBe(false);

  await password.fill(grace.password);
  await page.getByRole('button', { name: 'Join Acme' }).click();
  const switcher = await landedInStudio(page, t.orgId);
  expect(await switcher.locator('option').allTextContents()).toEqual(['Acme', 'Globex']);
  expect((await members(t)).find((m) => m.userId === grace.id)?.role).toBe('member');
  expect((await organizationsOf(t, grace.id)).map((o) => [o.name, o.role])).toEqual([
    ['Acme', 'member'],
    ['Globex', 'member'],
  ]);
});

test('revoked, expired and unknown invitation links each say what they are, with no form; forms from another site are refused', async () => {
  const revoked = await invite('revoked@example.test');
  const expired = await invite('expired@example.test');
  expect(
    await ok(
      t.api(t.owner.id, 'DELETE', `/api/v1/orgs/${t.orgId}/invitations/${revoked.invitation.id}`),
    ),
  ).toEqual({ ok: true });
  await t.server.t.database.db
    .updateTable('invitations')
    .set({ expires_at: Date.now() - 1000 })
    .where('id', '=', expired.invitation.id)
    .execute();

  const page = await newPage();
  for (const [url, status, title, lead] of [
    [
      revoked.url,
      410,
      'This invitation was withdrawn',
      'Someone at Acme withdrew it, or invited you again with a newer link. Ask them for a new invitation if you still need one.',
    ],
    [
      expired.url,
      410,
      'This invitation has expired',
      'Invitations work for a limited time. Ask someone at Acme to invite you again.',
    ],
    [
      `${t.url}/oauth/invitations/inv_${'x'.repeat(43)}`,
      404,
      'This invitation link is not valid',
      'Check that the whole link was copied. Invitation links work once and are not kept anywhere else.',
    ],
  ] as const) {
    expect((await page.goto(url))?.status()).toBe(status);
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    expect(await says(page)).toBe(`mnemo\n${title}\n\n${lead}`);
    expect(await page.locator('form, input, button').count()).toBe(0);
  }

  // A form posted from elsewhere is refused before anything is looked at: another origin, the
  // browser saying so, or a null origin the browser does not place.
  for (const headers of [
    { origin: 'https://elsewhere.example' },
    { origin: 'null', 'sec-fetch-site': 'cross-site' },
    { origin: 'null' },
  ]) {
    const forged = await fetch(expired.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: 'Mallory', password: NEW_PASSWORD }),
    });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('This form can only be sent from its own page.');
  }
});

// Sign-up

test('open sign-up without email: from the sign-in page, an account owning its new organization, signed in; the name by default is the person’s', async () => {
  const open = await startStudioTest({ env: { MNEMO_SIGNUP: 'open' } });
  try {
    for (const [who, email, organization, expected] of [
      ['Grace Hopper', 'grace.hopper@example.test', 'Hopper Labs', 'Hopper Labs'],
      ['Alan Turing', 'alan.turing@example.test', '', 'Alan Turing’s organization'],
    ] as const) {
      const page = await signInPage(open);
      const create = page.getByRole('link', { name: 'Create an account' });
      expect(await create.getAttribute('href')).toMatch(
        new RegExp(`^${open.url}/oauth/sign-up\\?interaction=[A-Za-z0-9_-]+$`),
      );
      await create.click();
      await page.getByRole('heading', { level: 1, name: 'Create an account' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill(who);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByLabel('Confirm password').fill(NEW_PASSWORD);
      await page.getByLabel('Organization name (optional)').fill(organization);
      await page.getByRole('button', { name: 'Create account' }).click();

      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      const made = await account(open, email);
      expect(made).toMatchObject({ name: who, status: 'active' });
      const orgs = await organizationsOf(open, made?.id as string);
      expect(orgs).toEqual([{ id: expect.any(String), name: expected, role: 'owner' }]);
      const switcher = await landedInStudio(page, orgs[0]?.id as string);
      expect(await switcher.locator('option').allTextContents()).toEqual([expected]);
      await page.getByRole('heading', { name: 'No memories yet' }).waitFor();
      await page.context().close();
    }
  } finally {
    await open.close();
  }
});

test('open sign-up with email: “Check your email”, no account until the emailed link is confirmed with a click, then signed in; the link works once', async () => {
  const email = 'dorothy.vaughan@example.test';
  const page = await signInPage();
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Dorothy Vaughan');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
  await page.getByLabel('Confirm password').fill(NEW_PASSWORD);
  await page.getByLabel('Organization name (optional)').fill('Vaughan & Co');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { level: 1, name: 'Check your email' }).waitFor();
  expect(await says(page)).toContain(
    `We sent a link to ${email}. Open it within 24 hours to confirm your address and create your account.`,
  );
  expect(await account(t, email)).toBeUndefined();

  const mail = await smtp.next(email);
  expect(mail.subject).toBe('Confirm your email to create your mnemo account');
  const link = linkIn(mail, 'sign-up');
  expect(link.startsWith(`${t.url}/oauth/sign-up/sup_`)).toBe(true);

  // Opening the link (as a link scanner would) makes nothing: the button does.
  expect((await page.goto(link))?.status()).toBe(200);
  await page.getByRole('heading', { level: 1, name: 'Confirm your email' }).waitFor();
  expect(await says(page)).toContain(`Create the mnemo account for ${email}.`);
  expect(await account(t, email)).toBeUndefined();
  await page.getByRole('button', { name: 'Create my account' }).click();

  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  const made = await account(t, email);
  expect(made).toMatchObject({ name: 'Dorothy Vaughan', status: 'active' });
  const orgs = await organizationsOf(t, made?.id as string);
  expect(orgs).toEqual([{ id: expect.any(String), name: 'Vaughan & Co', role: 'owner' }]);
  await landedInStudio(page, orgs[0]?.id as string);
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor();

  expect((await page.goto(link))?.status()).toBe(410);
  await page
    .getByRole('heading', { level: 1, name: 'This confirmation link has already been used' })
    .waitFor();
  expect(await page.locator('form, input').count()).toBe(0);
});

test('where sign-up is not open, the sign-in page offers no account, /oauth/sign-up says it is closed, and without email a forgotten password is for an operator', async () => {
  const page = await signInPage(plain);
  expect(await page.getByRole('link', { name: 'Create an account' }).count()).toBe(0);
  const forgot = page.getByRole('link', { name: 'Forgot password?' });
  expect(await forgot.getAttribute('href')).toBe(`${plain.url}/oauth/password-reset`);

  expect((await page.goto(`${plain.url}/oauth/sign-up`))?.status()).toBe(403);
  await page.getByRole('heading', { level: 1, name: 'Sign-up is closed' }).waitFor();
  expect(await says(page)).toContain(
    'Accounts on this server are made by invitation: ask an owner or admin of your organization to invite you, then open the link they send.',
  );
  expect(await page.locator('form, input').count()).toBe(0);

  await page.goBack();
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await page.getByRole('heading', { level: 1, name: 'Reset your password' }).waitFor();
  expect(await says(page)).toContain(
    'This server sends no email, so a forgotten password is reset by its operators: ask one of them.',
  );
  expect(await page.locator('form, input').count()).toBe(0);
  await page.getByRole('link', { name: 'Back to sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
});

test('with sign-up closed, an invitation to an address without an account says to ask an operator, with no form', async () => {
  const closed = await startStudioTest({ env: { MNEMO_SIGNUP: 'closed' } });
  try {
    const created = await invite('linus@example.test', 'member', closed);
    const page = await newPage(closed);
    expect((await page.goto(created.url))?.status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Join Acme' }).waitFor();
    expect(await says(page)).toContain(
      'linus@example.test has no mnemo account yet, and accounts on this server are made by its operators. Ask them to make one for linus@example.test, then open this link again.',
    );
    expect(await page.locator('form, input').count()).toBe(0);
  } finally {
    await closed.close();
  }
});

// Password reset

test('a forgotten password: link by email, a new password, signed in; sessions from before end, the old password fails, the link works once', async () => {
  const grace = await t.person({ name: 'Grace Hopper' });

  // A browser signed in before the reset, and the refresh token it holds.
  const before = await newPage();
  let refreshToken: string | undefined;
  before.on('response', async (response) => {
    if (response.url() === `${t.url}/oauth/token` && response.status() === 200) {
      refreshToken = (await response.json()).refresh_token;
    }
  });
  await t.signIn(before, '/memories', grace);
  expect(refreshToken).toEqual(expect.any(String));

  const page = await signInPage();
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await page.getByRole('heading', { level: 1, name: 'Reset your password' }).waitFor();
  await page.getByLabel('Email').fill(grace.email.toUpperCase());
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await page.getByRole('heading', { level: 1, name: 'Check your email' }).waitFor();
  const sent = await says(page);
  expect(sent).toContain(
    `If an account uses ${grace.email.toUpperCase()}, we sent it a link to choose a new password. It works once, for one hour.`,
  );

  const mail = await smtp.next(grace.email);
  expect(mail.subject).toBe('Choose a new password for mnemo');
  const link = linkIn(mail, 'password-reset');
  expect(link.startsWith(`${t.url}/oauth/password-reset/pwr_`)).toBe(true);

  expect((await page.goto(link))?.status()).toBe(200);
  await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
  expect(await says(page)).toContain(
    `For ${grace.email}. Once it is set, every browser and app signed in to the account is signed out.`,
  );
  // The rule holds here too: the email as password is refused in a sentence.
  await page.getByLabel('New password').fill(grace.email);
  await page.getByLabel('Confirm password').fill(grace.email);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page
    .getByRole('alert')
    .getByText('Your password must not be your email address.', { exact: true })
    .waitFor();
  await page.getByLabel('New password').fill(NEW_PASSWORD);
  await page.getByLabel('Confirm password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  await landedInStudio(page, t.orgId);
  await page.getByRole('heading', { name: 'No memories yet' }).waitFor();

  // The link is spent.
  expect((await page.goto(link))?.status()).toBe(410);
  await page
    .getByRole('heading', { level: 1, name: 'This password reset link has already been used' })
    .waitFor();
  expect(await page.locator('form, input').count()).toBe(0);

  // The browser from before: its refresh token is refused, and a reload asks for a password.
  const reuse = await fetch(`${t.url}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: 'mnemo-studio',
      refresh_token: refreshToken as string,
    }),
  });
  expect(reuse.status).toBe(400);
  expect(((await reuse.json()) as { error: string }).error).toBe('invalid_grant');
  await before.reload();
  await before.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  expect(new URL(before.url()).pathname).toMatch(/^\/oauth\/interaction\//);
  await before.getByLabel('Email').fill(grace.email);
  await before.getByLabel('Password').fill(grace.password);
  await before.getByRole('button', { name: 'Sign in' }).click();
  await before.getByRole('alert').getByText('Wrong email or password.', { exact: true }).waitFor();
  await before.getByLabel('Password').fill(NEW_PASSWORD);
  await before.getByRole('button', { name: 'Sign in' }).click();
  await landedInStudio(before, t.orgId);
});

test('asking for a reset of an address without an account answers exactly as for one with, and sends nothing', async () => {
  const grace = await t.person({ name: 'Grace Hopper' });
  const unknown = 'nobody.here@example.test';
  const asked: { status: number; text: string }[] = [];
  for (const email of [unknown, grace.email]) {
    const page = await newPage();
    await page.goto(`${t.url}/oauth/password-reset`);
    await page.getByLabel('Email').fill(email);
    const answer = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    const status = (await answer).status();
    await page.getByRole('heading', { level: 1, name: 'Check your email' }).waitFor();
    asked.push({ status, text: (await page.content()).replaceAll(email, '<email>') });
  }
  expect(asked[0]).toEqual(asked[1]);
  expect(asked[0]?.status).toBe(200);
  // The known address's email came; the unknown one's work, begun before it, sent nothing.
  await smtp.next(grace.email);
  expect(smtp.received.filter((mail) => mail.to.includes(unknown))).toEqual([]);
});

// Accessibility, and what fits a phone

/** Links and accounts the accessibility pass opens, made once. */
let shared: Promise<{ newcomer: string; member: string; used: string; existing: Person }>;

function sharedLinks() {
  shared ??= (async () => {
    const existing = await t.person({ name: 'Mary Jackson' });
    const globex = await t.server.t.fixtures.org({ name: 'Initech' });
    const member = await t.person({ orgId: globex, name: 'Annie Easley' });
    const newcomer = await invite('newcomer@example.test');
    const toMember = await invite(member.email);
    const used = await invite('used.link@example.test');
    for (const made of [newcomer, toMember, used]) await smtp.next(made.invitation.email);
    // Used, through its page.
    const page = await newPage();
    await page.goto(used.url);
    await page.getByLabel('Name', { exact: true }).fill('Used Link');
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Join Acme' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.context().close();
    return { newcomer: newcomer.url, member: toMember.url, used: used.url, existing };
  })();
  return shared;
}

/**
 * A fresh page in `colorScheme` at `viewport`, and `check(what)`: axe finds nothing serious on
 * the page as it is, and nothing is wider than the window.
 */
async function checker(colorScheme: 'light' | 'dark', viewport: typeof PHONE | undefined) {
  const page = await newPage(t, { colorScheme, ...(viewport ? { viewport } : {}) });
  const checked: string[] = [];
  const check = async (what: string) => {
    expect(await t.axe(page), what).toEqual([]);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `${what} is wider than the window`).toBe(0);
    checked.push(what);
  };
  return { page, check, checked };
}

// Both widths and both schemes, each once: a scheme's colours are the same at any width, and
// axe costs seconds a page on a busy machine.
for (const [colorScheme, width, viewport] of [
  ['light', 'desktop', undefined],
  ['dark', 'phone', PHONE],
] as const) {
  const tag = `${colorScheme}-${width}`;

  // axe takes seconds a page on a busy machine: a few pages a test.
  test(`the sign-in page and the invitation pages pass axe and fit the width (${colorScheme}, ${width})`, async () => {
    const links = await sharedLinks();
    const { page, check, checked } = await checker(colorScheme, viewport);
    await page.goto(`${t.url}/studio/memories`);
    await page.getByRole('link', { name: 'Create an account' }).waitFor();
    await check('sign-in');

    await page.goto(links.newcomer);
    await page.getByLabel('Name', { exact: true }).waitFor();
    await check('invitation, new account');
    await page.getByLabel('Name', { exact: true }).fill('Newcomer');
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm password').fill('something else entirely');
    await page.getByRole('button', { name: 'Join Acme' }).click();
    await page.getByRole('alert').waitFor();
    await check('invitation, new account, refused');

    await page.goto(links.member);
    await page.getByRole('button', { name: 'Join Acme' }).waitFor();
    await check('invitation, existing account');

    await page.goto(links.used);
    await page.getByRole('heading', { name: 'This invitation has already been used' }).waitFor();
    await check('invitation, used');
    expect(checked).toHaveLength(5);
  }, 300_000);

  test(`the sign-up pages pass axe and fit the width (${colorScheme}, ${width})`, async () => {
    const { page, check, checked } = await checker(colorScheme, viewport);
    await page.goto(`${t.url}/oauth/sign-up`);
    await page.getByRole('button', { name: 'Create account' }).waitFor();
    await check('sign-up');
    const email = `sign-up-${tag}@example.test`;
    await page.getByLabel('Name', { exact: true }).fill('Mary Winston');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await check('sign-up, check email');
    await page.goto(linkIn(await smtp.next(email), 'sign-up'));
    await page.getByRole('button', { name: 'Create my account' }).waitFor();
    await check('sign-up, confirm');
    await page.goto(`${t.url}/oauth/sign-up/sup_${'x'.repeat(43)}`);
    await page.getByRole('heading', { name: 'This confirmation link is not valid' }).waitFor();
    await check('sign-up, link not valid');
    await page.goto(`${plain.url}/oauth/sign-up`);
    await page.getByRole('heading', { name: 'Sign-up is closed' }).waitFor();
    await check('sign-up closed');
    expect(checked).toHaveLength(5);
  }, 300_000);

  test(`the password reset pages pass axe and fit the width (${colorScheme}, ${width})`, async () => {
    const { existing } = await sharedLinks();
    const { page, check, checked } = await checker(colorScheme, viewport);
    await page.goto(`${t.url}/oauth/password-reset`);
    await page.getByRole('button', { name: 'Send reset link' }).waitFor();
    await check('forgot password');
    await page.getByLabel('Email').fill(existing.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await check('forgot password, sent');
    await page.goto(linkIn(await smtp.next(existing.email), 'password-reset'));
    await page.getByRole('button', { name: 'Set password' }).waitFor();
    await check('new password');
    await page.getByLabel('New password').fill('password1234');
    await page.getByLabel('Confirm password').fill('password1234');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page
      .getByRole('alert')
      .getByText('That password is one of the most common: choose another.')
      .waitFor();
    await check('new password, refused');
    await page.goto(`${t.url}/oauth/password-reset/pwr_${'x'.repeat(43)}`);
    await page.getByRole('heading', { name: 'This password reset link is not valid' }).waitFor();
    await check('password reset, link not valid');
    await page.goto(`${plain.url}/oauth/password-reset`);
    await page.getByText('ask one of them').waitFor();
    await check('forgot password, no email');
    expect(checked).toHaveLength(6);
  }, 300_000);
}
