import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { ok, PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

let t: StudioTest;
beforeAll(async () => {
  t = await startStudioTest();
});
// Each test drives a real browser through several page loads and sign-ins.
vi.setConfig({ testTimeout: 60_000 });
afterAll(() => t?.close());

/** Each member's role, as the API has it. */
async function roles(): Promise<Record<string, string>> {
  const { members } = await ok<{ members: { userId: string; role: string }[] }>(
    t.api(t.owner.id, 'GET', `/api/v1/orgs/${t.orgId}/members`),
  );
  return Object.fromEntries(members.map((m) => [m.userId, m.role]));
}

async function organization(): Promise<{ name: string; userOverride: string }> {
  return (
    await ok<{ organization: { name: string; userOverride: string } }>(
      t.api(t.owner.id, 'GET', `/api/v1/orgs/${t.orgId}`),
    )
  ).organization;
}

/**
 * A fresh browser page whose waits fail within the test's time, saying what they waited for.
 * A page load signs in again through /oauth: on a busy machine that takes seconds.
 */
async function newPage(options?: Parameters<StudioTest['newPage']>[0]): Promise<Page> {
  const page = await t.newPage(options);
  page.setDefaultTimeout(20_000);
  return page;
}

test("an owner changes a member's role and removes them; the last owner stays (409)", async () => {
  // People join by invitation (invitations.test.ts); here one is already in.
  const katherine = await t.person({ name: 'Katherine Johnson', role: 'admin' });
  const page = await newPage();
  await t.signIn(page, '/members');
  await page.getByRole('cell', { name: 'Ada Lovelace You' }).waitFor();
  await page.getByRole('cell', { name: katherine.email }).waitFor();
  expect(await t.axe(page)).toEqual([]);
  expect((await roles())[katherine.id]).toBe('admin');

  const role = page.getByRole('combobox', { name: 'Role of Katherine Johnson' });
  await role.selectOption('member');
  await page.getByRole('status').getByText('Katherine Johnson is now member.').waitFor();
  expect((await roles())[katherine.id]).toBe('member');

  await page.getByRole('button', { name: 'Remove Katherine Johnson' }).click();
  const remove = page.getByRole('dialog', { name: 'Remove Katherine Johnson?' });
  expect(await remove.textContent()).toContain('leaves Acme and loses access to every project');
  expect(await t.axe(page)).toEqual([]);
  await remove.getByRole('button', { name: 'Remove member' }).click();
  await page.getByRole('status').getByText('Katherine Johnson is no longer a member.').waitFor();
  // The list is read again after the removal: the row goes once the new list has come.
  await page.getByRole('cell', { name: katherine.email }).waitFor({ state: 'detached' });
  expect(katherine.id in (await roles())).toBe(false);

  // The only owner can be neither demoted nor removed.
  const own = page.getByRole('combobox', { name: 'Role of Ada Lovelace' });
  await own.selectOption('admin');
  await page
    .getByRole('alert')
    .getByText('That could not be done: The last owner of the organization cannot be demoted.')
    .waitFor();
  await expect.poll(() => own.inputValue()).toBe('owner');
  await page.getByRole('button', { name: 'Remove Ada Lovelace' }).click();
  const leave = page.getByRole('dialog', { name: 'Remove Ada Lovelace?' });
  await leave.getByRole('button', { name: 'Leave Acme' }).click();
  await leave
    .getByRole('alert')
    .getByText('That could not be done: The last owner of the organization cannot be removed.', {
      exact: true,
    })
    .waitFor(); // the alert may still hold the previous answer
  await leave.getByRole('button', { name: 'Cancel' }).click();
  expect((await roles())[t.owner.id]).toBe('owner');
});

test('suspended and banned members are marked; a member sees everything read-only; an admin cannot touch owners', async () => {
  const sam = await t.person({ name: 'Sam Suspended' });
  const bo = await t.person({ name: 'Bo Banned' });
  await t.server.t.fixtures.status(sam.id, 'suspended');
  await t.server.t.fixtures.status(bo.id, 'banned');
  const mary = await t.person({ name: 'Mary Member' });

  const page = await newPage();
  await t.signIn(page, '/members', mary);
  const rows = page.getByRole('row');
  await rows.filter({ hasText: 'Sam Suspended' }).getByText('Suspended', { exact: true }).waitFor();
  expect(
    await rows.filter({ hasText: 'Bo Banned' }).getByText('Banned', { exact: true }).count(),
  ).toBe(1);
  expect(
    await rows.filter({ hasText: 'Mary Member' }).getByText('Active', { exact: true }).count(),
  ).toBe(1);
  expect(await page.getByRole('combobox').count()).toBe(1); // the organization switcher
  expect(
    await page.getByRole('button', { name: /Invite|Remove|Revoke|Save settings/ }).count(),
  ).toBe(0);
  expect(await page.getByRole('textbox').count()).toBe(0);
  const settings = page.getByRole('region', { name: 'Organization settings' });
  expect(await settings.getByRole('definition').first().textContent()).toBe('Acme');
  expect(await settings.textContent()).toContain('MemoryOn');
  expect(await t.axe(page)).toEqual([]);

  const grace = await t.person({ name: 'Grace Admin', role: 'admin' });
  const admin = await newPage();
  await t.signIn(admin, '/members', grace);
  const maryRole = admin.getByRole('combobox', { name: 'Role of Mary Member' });
  await maryRole.waitFor(); // signIn waits for the navigation, not for the members list
  expect(await maryRole.locator('option').allTextContents()).toEqual(['Admin', 'Member']);
  expect(await admin.getByRole('combobox', { name: 'Role of Ada Lovelace' }).count()).toBe(0);
  expect(await admin.getByRole('button', { name: 'Remove Ada Lovelace' }).count()).toBe(0);
  await admin.getByRole('button', { name: 'Invite', exact: true }).click();
  expect(
    await admin
      .getByRole('dialog', { name: 'Invite to Acme' })
      .getByLabel('Role')
      .locator('option')
      .allTextContents(),
  ).toEqual(['Admin', 'Member']);
});

test('owners and admins rename the organization and choose who may act for other members; memory is shown as the operators set it', async () => {
  const page = await newPage();
  await t.signIn(page, '/members');
  const settings = page.getByRole('region', { name: 'Organization settings' });
  await settings.getByRole('radio', { name: /Any member/ }).waitFor();
  expect(await settings.getByRole('radio', { name: /Any member/ }).isChecked()).toBe(true);
  expect(await settings.textContent()).toContain('mnemo admin org set --memory on|off');
  expect(await settings.getByText('On', { exact: true }).count()).toBe(1);
  const save = settings.getByRole('button', { name: 'Save settings' });
  expect(await save.isDisabled()).toBe(true);

  await settings.getByRole('radio', { name: /Owners and admins only/ }).check();
  await save.click();
  await settings.getByRole('status').getByText('Settings saved.').waitFor();
  expect(await organization()).toMatchObject({ name: 'Acme', userOverride: 'admins' });

  await settings.getByLabel('Name').fill('');
  await save.click();
  await settings.getByText('Give the organization a name.').waitFor();
  await settings.getByLabel('Name').fill('Acme Corporation');
  await save.click();
  await settings.getByRole('status').getByText('Settings saved.').waitFor();
  expect(await organization()).toMatchObject({
    name: 'Acme Corporation',
    userOverride: 'admins',
  });
  await page.getByText('The people in Acme Corporation').waitFor();
  // The organization switcher says the new name too, without signing in again.
  expect(
    await page
      .getByRole('combobox', { name: 'Organization' })
      .locator('option:checked')
      .textContent(),
  ).toBe('Acme Corporation');
  expect(await t.axe(page)).toEqual([]);

  // Memory switched off by an operator shows as off.
  await t.server.t.database.db
    .updateTable('organizations')
    .set({ memory_enabled: 0 })
    .where('id', '=', t.orgId)
    .execute();
  await page.reload();
  await page
    .getByRole('region', { name: 'Organization settings' })
    .getByText('Off', { exact: true })
    .waitFor();
  await t.server.t.database.db
    .updateTable('organizations')
    .set({ memory_enabled: null, name: 'Acme', user_override: 'members' })
    .where('id', '=', t.orgId)
    .execute();
});

test('at 375 px wide the members page does not scroll sideways', async () => {
  const page = await newPage({ viewport: PHONE });
  await t.signIn(page, '/members');
  await page.getByRole('cell', { name: 'Ada Lovelace You' }).waitFor();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await t.axe(page)).toEqual([]);
});
