import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startSmtpSink } from '../../src/testing/smtp-sink.ts';
import { ok, PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

let t: StudioTest;
beforeAll(async () => {
  t = await startStudioTest();
});
// Each test drives a real browser through several page loads and sign-ins.
vi.setConfig({ testTimeout: 120_000 });
afterAll(() => t?.close());

interface Invitation {
  id: string;
  email: string;
  role: string;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

/** The pending invitations of Acme, as the API has them. */
async function pending(test: StudioTest = t): Promise<Invitation[]> {
  return (
    await ok<{ invitations: Invitation[] }>(
      test.api(test.owner.id, 'GET', `/api/v1/orgs/${test.orgId}/invitations`),
    )
  ).invitations;
}

/** A page whose waits fail within the test's time, saying what they waited for. */
async function newPage(
  test: StudioTest,
  options?: Parameters<StudioTest['newPage']>[0],
): Promise<Page> {
  const page = await test.newPage(options);
  page.setDefaultTimeout(20_000);
  return page;
}

/** Opens the Invite dialog and asks for an invitation of `email` as `role`. */
async function invite(page: Page, email: string, role: 'Owner' | 'Admin' | 'Member') {
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Invite to Acme' });
  await dialog.getByLabel('Email').fill(email);
  await dialog.getByLabel('Role').selectOption({ label: role });
  await dialog.getByRole('button', { name: 'Invite', exact: true }).click();
}

const LINK = /\/oauth\/invitations\/inv_[A-Za-z0-9_-]{43}$/;

test('without email, an owner invites and gets the link once, copies it, sees it pending with Copy link until leaving the page, and revokes it (the API agrees)', async () => {
  const page = await newPage(t);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  await t.signIn(page, '/members');
  await page.getByRole('cell', { name: 'Ada Lovelace You' }).waitFor();
  // Nothing pending: no section for it.
  expect(await page.getByRole('region', { name: /Pending invitations/ }).count()).toBe(0);

  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  const form = page.getByRole('dialog', { name: 'Invite to Acme' });
  await expect
    .poll(() => form.getByLabel('Email').evaluate((el) => el === document.activeElement))
    .toBe(true);
  expect(await form.getByLabel('Role').locator('option').allTextContents()).toEqual([
    'Owner',
    'Admin',
    'Member',
  ]);
  await form.getByRole('button', { name: 'Invite', exact: true }).click();
  await form.getByText('Enter the email of the person to invite.').waitFor();
  await form.getByLabel('Email').fill('grace at example');
  await form.getByRole('button', { name: 'Invite', exact: true }).click();
  await form.getByText('Enter an email address, such as grace@example.com.').waitFor();
  expect(await form.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
  expect(await pending()).toEqual([]);

  await form.getByLabel('Email').fill('Grace@Example.test');
  await form.getByLabel('Role').selectOption({ label: 'Admin' });
  expect(await form.textContent()).toContain('Manages members, projects and settings');
  expect(await t.axe(page)).toEqual([]);
  await form.getByRole('button', { name: 'Invite', exact: true }).click();

  // No SMTP: the link is the only way, and the dialog says so.
  const created = page.getByRole('dialog', { name: 'Invitation created' });
  const linkBox = created.getByRole('textbox', { name: 'Invitation link' });
  await linkBox.waitFor();
  expect(await created.textContent()).toContain(
    'Copy this link and send it to grace@example.test — it is shown only now.',
  );
  expect(await created.textContent()).not.toContain('We emailed');
  const url = await linkBox.inputValue();
  expect(url.startsWith(`${t.url}/oauth/invitations/`)).toBe(true);
  expect(url).toMatch(LINK);
  expect(await linkBox.getAttribute('readonly')).not.toBeNull();
  await expect.poll(() => linkBox.evaluate((el) => el === document.activeElement)).toBe(true);
  expect(await t.axe(page)).toEqual([]);

  await created.getByRole('button', { name: 'Copy' }).click();
  await created.getByRole('status').getByText('Copied').waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);

  // The API has it, as admin, without its link.
  const listed = await pending();
  expect(listed).toHaveLength(1);
  const [grace] = listed as [Invitation];
  expect(grace).toMatchObject({
    email: 'grace@example.test',
    role: 'admin',
    invitedBy: t.owner.id,
  });
  expect(JSON.stringify(listed)).not.toContain(url.split('/').at(-1));

  await created.getByRole('button', { name: 'Done' }).click();
  expect(await created.isVisible()).toBe(false);
  const section = page.getByRole('region', { name: /Pending invitations/ });
  const row = section.getByRole('row').filter({ hasText: 'grace@example.test' });
  await row.waitFor();
  expect(await section.getByRole('heading').textContent()).toBe('Pending invitations 1');
  const cells = await row.getByRole('cell').allTextContents();
  expect(cells[1]).toBe('Admin');
  expect(cells[2]).toMatch(/by you$/);
  expect(cells[3]).toMatch(/^in 7 days/);
  expect(await t.axe(page)).toEqual([]);

  // Made on this page, its link can be copied again from its row.
  await page.evaluate(() => navigator.clipboard.writeText(''));
  await row.getByRole('button', { name: 'Copy link for grace@example.test' }).click();
  await page.getByRole('status').getByText('The link for grace@example.test is copied.').waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);

  // The link is nowhere to be read again: after a reload, the row has no Copy link.
  await page.reload();
  await row.waitFor();
  expect(await row.getByRole('button', { name: /Copy link/ }).count()).toBe(0);

  await row.getByRole('button', { name: 'Revoke the invitation for grace@example.test' }).click();
  const revoke = page.getByRole('dialog', {
    name: 'Revoke the invitation for grace@example.test?',
  });
  expect(await revoke.textContent()).toContain('Its link stops working at once');
  expect(await t.axe(page)).toEqual([]);
  await revoke.getByRole('button', { name: 'Revoke invitation' }).click();
  await page
    .getByRole('status')
    .getByText('The invitation for grace@example.test is revoked: its link no longer works.')
    .waitFor();
  await section.waitFor({ state: 'detached' });
  expect(await pending()).toEqual([]);
  // The row's button went with it: focus is on the page's heading, not lost.
  await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Members');
});

test('with email, the invitation is emailed: the dialog says so and still offers the link, which the email carries', async () => {
  const smtp = await startSmtpSink();
  const mailing = await startStudioTest({ env: { MNEMO_SMTP_URL: smtp.url } });
  try {
    const page = await newPage(mailing);
    await mailing.signIn(page, '/members');
    await page.getByRole('cell', { name: 'Ada Lovelace You' }).waitFor();
    await invite(page, 'katherine@example.test', 'Member');

    const sent = page.getByRole('dialog', { name: 'Invitation sent' });
    const linkBox = sent.getByRole('textbox', { name: 'Invitation link' });
    await linkBox.waitFor();
    expect(await sent.textContent()).toContain(
      'We emailed an invitation to katherine@example.test to join Acme as member.',
    );
    expect(await sent.textContent()).toContain('You can also send the link yourself');
    const url = await linkBox.inputValue();
    expect(url).toMatch(LINK);
    expect(await mailing.axe(page)).toEqual([]);

    const mail = await smtp.next('katherine@example.test');
    expect(mail.subject).toBe('Ada Lovelace invited you to Acme on mnemo');
    expect(mail.text).toContain(url);

    await sent.getByRole('button', { name: 'Done' }).click();
    await page
      .getByRole('region', { name: /Pending invitations/ })
      .getByRole('button', { name: 'Copy link for katherine@example.test' })
      .waitFor();
    expect((await pending(mailing)).map((i) => i.email)).toEqual(['katherine@example.test']);
  } finally {
    await mailing.close();
    await smtp.close();
  }
});

test("a member's email is refused in the dialog (409); inviting a pending address again replaces its invitation", async () => {
  const page = await newPage(t);
  await t.signIn(page, '/members');
  await page.getByRole('cell', { name: 'Ada Lovelace You' }).waitFor();

  await invite(page, t.owner.email.toUpperCase(), 'Member');
  const form = page.getByRole('dialog', { name: 'Invite to Acme' });
  await form
    .getByRole('alert')
    .getByText(
      `${t.owner.email.toUpperCase()} is already a member of Acme. To change what they may do, change their role in the list.`,
      { exact: true },
    )
    .waitFor();
  // What was typed stays, to be corrected.
  expect(await form.getByLabel('Email').inputValue()).toBe(t.owner.email.toUpperCase());
  expect(await t.axe(page)).toEqual([]);
  await form.getByRole('button', { name: 'Cancel' }).click();
  expect((await pending()).some((i) => i.email === t.owner.email)).toBe(false);

  await invite(page, 'alan@example.test', 'Member');
  const first = page.getByRole('dialog', { name: 'Invitation created' });
  const firstUrl = await first.getByRole('textbox', { name: 'Invitation link' }).inputValue();
  await first.getByRole('button', { name: 'Invite someone else' }).click();
  const again = page.getByRole('dialog', { name: 'Invite to Acme' });
  await again.getByLabel('Email').fill('ALAN@example.test');
  await again.getByText('alan@example.test has a pending invitation').waitFor();
  expect(await again.textContent()).toContain(
    'inviting again replaces it, and its earlier link stops working.',
  );
  await again.getByLabel('Role').selectOption({ label: 'Admin' });
  await again.getByRole('button', { name: 'Invite', exact: true }).click();
  const second = page.getByRole('dialog', { name: 'Invitation created' });
  const secondUrl = await second.getByRole('textbox', { name: 'Invitation link' }).inputValue();
  expect(secondUrl).not.toBe(firstUrl);
  await second.getByRole('button', { name: 'Done' }).click();

  const alan = (await pending()).filter((i) => i.email === 'alan@example.test');
  expect(alan).toHaveLength(1);
  expect(alan[0]?.role).toBe('admin');
  const rows = page
    .getByRole('region', { name: /Pending invitations/ })
    .getByRole('row')
    .filter({ hasText: 'alan@example.test' });
  await expect.poll(() => rows.getByRole('cell').nth(1).textContent()).toBe('Admin');
  expect(await rows.count()).toBe(1);
  await t.api(t.owner.id, 'DELETE', `/api/v1/orgs/${t.orgId}/invitations/${alan[0]?.id}`);
});

test('an admin is not offered Owner and cannot revoke an invitation to be an owner; a member sees no Invite and no invitations', async () => {
  const boss = await ok<{ invitation: Invitation }>(
    t.api(t.owner.id, 'POST', `/api/v1/orgs/${t.orgId}/invitations`, {
      email: 'boss@example.test',
      role: 'owner',
    }),
  );
  const helper = await ok<{ invitation: Invitation }>(
    t.api(t.owner.id, 'POST', `/api/v1/orgs/${t.orgId}/invitations`, {
      email: 'helper@example.test',
    }),
  );
  try {
    const grace = await t.person({ name: 'Grace Admin', role: 'admin' });
    const admin = await newPage(t);
    await t.signIn(admin, '/members', grace);
    const section = admin.getByRole('region', { name: /Pending invitations/ });
    const bossRow = section.getByRole('row').filter({ hasText: 'boss@example.test' });
    await bossRow.waitFor();
    await expect
      .poll(async () => (await bossRow.getByRole('cell').allTextContents())[2])
      .toMatch(/by Ada Lovelace$/);
    expect(await bossRow.getByRole('button').count()).toBe(0);
    expect(
      await section
        .getByRole('row')
        .filter({ hasText: 'helper@example.test' })
        .getByRole('button', { name: 'Revoke the invitation for helper@example.test' })
        .count(),
    ).toBe(1);
    await admin.getByRole('button', { name: 'Invite', exact: true }).click();
    expect(
      await admin
        .getByRole('dialog', { name: 'Invite to Acme' })
        .getByLabel('Role')
        .locator('option')
        .allTextContents(),
    ).toEqual(['Admin', 'Member']);

    const mary = await t.person({ name: 'Mary Member' });
    const member = await newPage(t);
    await t.signIn(member, '/members', mary);
    await member.getByRole('cell', { name: 'Mary Member You' }).waitFor();
    expect(await member.getByRole('button', { name: /Invite/ }).count()).toBe(0);
    expect(await member.getByText(/Pending invitations|boss@example\.test/).count()).toBe(0);
    expect(await member.getByRole('alert').count()).toBe(0);
  } finally {
    for (const made of [boss, helper]) {
      await t.api(
        t.owner.id,
        'DELETE',
        `/api/v1/orgs/${t.orgId}/invitations/${made.invitation.id}`,
      );
    }
  }
});

// Both widths and both schemes, each once: a scheme's colours are the same at any width, and
// axe costs seconds a page on a busy machine.
for (const [colorScheme, width, viewport] of [
  ['light', 'desktop', undefined],
  ['dark', 'phone', PHONE],
] as const) {
  test(`the page with pending invitations and the Invite dialog, before and after creation, pass axe (${colorScheme}, ${width})`, async () => {
    await ok(
      t.api(t.owner.id, 'POST', `/api/v1/orgs/${t.orgId}/invitations`, {
        email: 'linus@example.test',
        role: 'admin',
      }),
    );
    const narrow = async () => {
      if (!viewport) return;
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        PHONE.width,
      );
    };
    const page = await newPage(t, { colorScheme, ...(viewport ? { viewport } : {}) });
    try {
      await t.signIn(page, '/members');
      const section = page.getByRole('region', { name: /Pending invitations/ });
      await section.getByRole('row').filter({ hasText: 'linus@example.test' }).waitFor();
      expect(await t.axe(page)).toEqual([]);
      await narrow();

      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      const form = page.getByRole('dialog', { name: 'Invite to Acme' });
      await form.getByLabel('Email').fill('linus@example.test');
      await form.getByText('linus@example.test has a pending invitation').waitFor();
      expect(await t.axe(page)).toEqual([]);
      await form.getByRole('button', { name: 'Invite', exact: true }).click();
      const created = page.getByRole('dialog', { name: 'Invitation created' });
      await created.getByRole('textbox', { name: 'Invitation link' }).waitFor();
      expect(await t.axe(page)).toEqual([]);
      await created.getByRole('button', { name: 'Done' }).click();
      // The new invitation replaced the one before it: one row, now with its link.
      await section.getByRole('button', { name: 'Copy link for linus@example.test' }).waitFor();
      expect(await section.getByRole('row').filter({ hasText: 'linus@example.test' }).count()).toBe(
        1,
      );
      expect(await t.axe(page)).toEqual([]);
      await narrow();
    } finally {
      await page.context().close();
      for (const i of await pending()) {
        await t.api(t.owner.id, 'DELETE', `/api/v1/orgs/${t.orgId}/invitations/${i.id}`);
      }
    }
  });
}
