import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ok, PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

interface ListedKey {
  id: string;
  name: string;
  memory: string;
  memoryAccess: string;
}

let t: StudioTest;
beforeAll(async () => {
  t = await startStudioTest();
});
afterAll(() => t?.close());

const keyNamed = async (userId: string, name: string): Promise<ListedKey | undefined> =>
  (await ok<{ keys: ListedKey[] }>(t.api(userId, 'GET', '/api/v1/api-keys'))).keys.find(
    (key) => key.name === name,
  );

/** The Memory cell of the active key named `name`, as its text reads. */
const memoryCell = (page: Page, name: string) =>
  page
    .getByRole('region', { name: 'Active keys' })
    .getByRole('row')
    .filter({ hasText: name })
    .locator('td[data-label="Memory"]');

test('a key is made with its memory settings, which the list shows', async () => {
  const page = await t.newPage();
  await t.signIn(page, '/settings/api-keys');
  await page.getByRole('button', { name: 'Create key' }).click();
  const form = page.getByRole('dialog', { name: 'Create key' });
  const memory = form.getByRole('combobox', { name: 'Memory in chat calls' });
  const rights = form.getByRole('combobox', { name: 'Memory rights' });
  // The API's defaults, in words, each with its line of help.
  expect(await memory.locator('option:checked').textContent()).toBe('Off');
  expect(await rights.locator('option:checked').textContent()).toBe('Read and write');
  expect(await memory.locator('option').allTextContents()).toEqual([
    'Off',
    'Recall',
    'Recall and learn',
  ]);
  expect(await rights.locator('option').allTextContents()).toEqual([
    'None',
    'Read only',
    'Read and write',
  ]);
  expect(await form.getByText('when the call itself does not say').count()).toBe(1);
  expect(await form.getByText('whatever the call asks for').count()).toBe(1);

  await form.getByRole('textbox', { name: 'Name' }).fill('Support bot');
  await memory.selectOption({ label: 'Recall' });
  await rights.selectOption({ label: 'Read only' });
  expect(await t.axe(page)).toEqual([]);
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  const shown = page.getByRole('dialog', { name: 'Save your secret key' });
  await shown.getByRole('button', { name: 'Done' }).click();

  await expect
    .poll(() => memoryCell(page, 'Support bot').textContent())
    .toBe('RecallRights: Read only');
  expect(await keyNamed(t.owner.id, 'Support bot')).toMatchObject({
    memory: 'read',
    memoryAccess: 'read',
  });
  // A key made without saying keeps the defaults, and says so too.
  await ok(t.api(t.owner.id, 'POST', '/api/v1/api-keys', { name: 'Plain key' }));
  await page.reload();
  await expect
    .poll(() => memoryCell(page, 'Plain key').textContent())
    .toBe('OffRights: Read and write');
  expect(await t.axe(page)).toEqual([]);
});

test('memory above the rights is refused with the API’s reason, at creation and on edit', async () => {
  const page = await t.newPage();
  await t.signIn(page, '/settings/api-keys');
  await page.getByRole('button', { name: 'Create key' }).click();
  const form = page.getByRole('dialog', { name: 'Create key' });
  await form.getByRole('textbox', { name: 'Name' }).fill('Overreaching');
  await form.getByRole('combobox', { name: 'Memory in chat calls' }).selectOption('read-write');
  await form.getByRole('combobox', { name: 'Memory rights' }).selectOption('read');
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  expect(await form.getByRole('alert').textContent()).toBe(
    'Memory cannot exceed memoryAccess (off < read < read-write).',
  );
  expect(await keyNamed(t.owner.id, 'Overreaching')).toBeUndefined();
  await form.getByRole('button', { name: 'Cancel' }).click();

  // The edit dialog keeps the choice and the reason until it is put right.
  const row = page.getByRole('region', { name: 'Active keys' }).getByRole('row').filter({
    hasText: 'Support bot',
  });
  await row.getByRole('button', { name: 'Edit memory' }).click();
  const edit = page.getByRole('dialog', { name: 'Memory of “Support bot”' });
  const memory = edit.getByRole('combobox', { name: 'Memory in chat calls' });
  const rights = edit.getByRole('combobox', { name: 'Memory rights' });
  expect(await memory.inputValue()).toBe('read');
  expect(await rights.inputValue()).toBe('read');
  await memory.selectOption('read-write');
  await edit.getByRole('button', { name: 'Save' }).click();
  expect(await edit.getByRole('alert').textContent()).toBe(
    'Memory cannot exceed memoryAccess (off < read < read-write).',
  );
  expect(await memory.inputValue()).toBe('read-write');
  expect(await keyNamed(t.owner.id, 'Support bot')).toMatchObject({ memory: 'read' });
  expect(await t.axe(page)).toEqual([]);

  await rights.selectOption('read-write');
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.waitFor({ state: 'hidden' });
  await page.getByRole('status').getByText('Memory settings of “Support bot” saved.').waitFor();
  await expect
    .poll(() => memoryCell(page, 'Support bot').textContent())
    .toBe('Recall and learnRights: Read and write');
  expect(await keyNamed(t.owner.id, 'Support bot')).toMatchObject({
    memory: 'read-write',
    memoryAccess: 'read-write',
  });
  // Focus is back on what opened the dialog, which is still there.
  expect(
    await row
      .getByRole('button', { name: 'Edit memory' })
      .evaluate((b) => b === document.activeElement),
  ).toBe(true);
});

test('taking the rights away: None with memory off; revoked keys have nothing to edit', async () => {
  const page = await t.newPage();
  await t.signIn(page, '/settings/api-keys');
  const row = page.getByRole('region', { name: 'Active keys' }).getByRole('row').filter({
    hasText: 'Plain key',
  });
  await row.getByRole('button', { name: 'Edit memory' }).click();
  const edit = page.getByRole('dialog', { name: 'Memory of “Plain key”' });
  await edit.getByRole('combobox', { name: 'Memory rights' }).selectOption({ label: 'None' });
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.waitFor({ state: 'hidden' });
  await expect.poll(() => memoryCell(page, 'Plain key').textContent()).toBe('OffRights: None');
  expect(await keyNamed(t.owner.id, 'Plain key')).toMatchObject({
    memory: 'off',
    memoryAccess: 'off',
  });

  // Cancel changes nothing.
  await row.getByRole('button', { name: 'Edit memory' }).click();
  await edit.getByRole('combobox', { name: 'Memory rights' }).selectOption('read');
  await edit.getByRole('button', { name: 'Cancel' }).click();
  await edit.waitFor({ state: 'hidden' });
  expect(await keyNamed(t.owner.id, 'Plain key')).toMatchObject({ memoryAccess: 'off' });

  const plain = await keyNamed(t.owner.id, 'Plain key');
  await t.api(t.owner.id, 'DELETE', `/api/v1/api-keys/${plain?.id}`);
  await page.reload();
  await page.getByText('Revoked and expired').click();
  const ended = page.getByRole('region', { name: 'Revoked and expired keys' });
  const endedRow = ended.getByRole('row').filter({ hasText: 'Plain key' });
  expect(await endedRow.locator('td[data-label="Memory"]').textContent()).toBe('OffRights: None');
  expect(await endedRow.getByRole('button').count()).toBe(0);
});

test('an owner edits a member’s key; the member sees the change', async () => {
  const grace = await t.person({ role: 'member', name: 'Grace Hopper' });
  await ok(t.api(grace.id, 'POST', '/api/v1/api-keys', { name: 'Grace’s notebook' }));
  const owner = await t.newPage();
  await t.signIn(owner, '/settings/api-keys');
  await owner
    .getByRole('row')
    .filter({ hasText: 'Grace’s notebook' })
    .getByRole('button', { name: 'Edit memory' })
    .click();
  const edit = owner.getByRole('dialog', { name: 'Memory of “Grace’s notebook”' });
  await expect.poll(() => edit.textContent()).toContain('which belongs to Grace Hopper');
  await edit.getByRole('combobox', { name: 'Memory in chat calls' }).selectOption('read');
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.waitFor({ state: 'hidden' });

  const member = await t.newPage();
  await t.signIn(member, '/settings/api-keys', grace);
  await expect
    .poll(() => memoryCell(member, 'Grace’s notebook').textContent())
    .toBe('RecallRights: Read and write');
  expect(await t.axe(member)).toEqual([]);
});

test('at 375 px the edit dialog fits the screen', async () => {
  const page = await t.newPage({ viewport: PHONE });
  await t.signIn(page, '/settings/api-keys');
  await page
    .getByRole('row')
    .filter({ hasText: 'Support bot' })
    .getByRole('button', { name: 'Edit memory' })
    .click();
  const edit = page.getByRole('dialog', { name: 'Memory of “Support bot”' });
  await edit.getByRole('combobox', { name: 'Memory rights' }).waitFor();
  const box = await edit.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    PHONE.width,
  );
  expect(await t.axe(page)).toEqual([]);
});
