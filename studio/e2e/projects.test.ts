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

async function projectNames(userId: string, orgId = t.orgId): Promise<string[]> {
  const { projects } = await ok<{ projects: { name: string }[] }>(
    t.api(userId, 'GET', `/api/v1/orgs/${orgId}/projects`, undefined, orgId),
  );
  return projects.map((p) => p.name);
}

async function createProject(name: string): Promise<string> {
  const { project } = await ok<{ project: { id: string } }>(
    t.api(t.owner.id, 'POST', `/api/v1/orgs/${t.orgId}/projects`, { name }),
  );
  return project.id;
}

async function access(projectId: string): Promise<Record<string, string>> {
  const { collaborators } = await ok<{ collaborators: { userId: string; access: string }[] }>(
    t.api(t.owner.id, 'GET', `/api/v1/projects/${projectId}/collaborators`),
  );
  return Object.fromEntries(collaborators.map((c) => [c.userId, c.access]));
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

const noHorizontalOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

test('with no projects the page says what one is; an owner creates, renames and deletes a project, and a pool with a memory is kept (409)', async () => {
  const orgId = await t.server.t.fixtures.org({ name: 'Globex' });
  const grace = await t.person({ orgId, role: 'owner', name: 'Grace Hopper' });
  const page = await newPage();
  await t.signIn(page, '/projects', grace);

  const empty = page.getByRole('region', { name: 'No projects yet' });
  await empty.waitFor();
  expect(await empty.textContent()).toContain('A project is a shared memory pool');
  expect(await t.axe(page)).toEqual([]);

  // Create: a name is required; the new project is listed and its creator owns it.
  await empty.getByRole('button', { name: 'New project' }).click();
  const create = page.getByRole('dialog', { name: 'New project' });
  await create.getByRole('button', { name: 'Create project' }).click();
  await create.getByText('Give the project a name.').waitFor();
  expect(await t.axe(page)).toEqual([]);
  await create.getByLabel('Name').fill('  Research  ');
  await create.getByRole('button', { name: 'Create project' }).click();
  await page
    .getByRole('status')
    .getByText('“Research” is created, with you as its owner.')
    .waitFor();
  expect(await create.isVisible()).toBe(false);
  await page.getByRole('link', { name: 'Research', exact: true }).waitFor();
  expect(await projectNames(grace.id, orgId)).toEqual(['Research']);
  const { projects } = await ok<{ projects: { id: string }[] }>(
    t.api(grace.id, 'GET', `/api/v1/orgs/${orgId}/projects`, undefined, orgId),
  );
  const projectId = projects[0]?.id as string;
  const owners = await ok<{ collaborators: { userId: string; access: string }[] }>(
    t.api(grace.id, 'GET', `/api/v1/projects/${projectId}/collaborators`, undefined, orgId),
  );
  expect(owners.collaborators.map((c) => [c.userId, c.access])).toEqual([[grace.id, 'owner']]);
  expect(
    await page.getByRole('link', { name: 'Memory pool of Research' }).getAttribute('href'),
  ).toBe(`/studio/memories/projects/${projectId}`);
  expect(await t.axe(page)).toEqual([]);

  // Rename in place: Escape leaves the name as it was, Enter saves, focus comes back.
  await page.getByRole('button', { name: 'Rename Research' }).click();
  await page.getByRole('textbox', { name: 'Name' }).fill('Not this');
  await page.getByRole('textbox', { name: 'Name' }).press('Escape');
  await page.getByRole('link', { name: 'Research', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Rename Research' }).click();
  expect(await page.getByRole('textbox', { name: 'Name' }).inputValue()).toBe('Research');
  expect(await t.axe(page)).toEqual([]);
  await page.getByRole('textbox', { name: 'Name' }).fill('Research Lab');
  await page.getByRole('textbox', { name: 'Name' }).press('Enter');
  await page.getByRole('link', { name: 'Research Lab', exact: true }).waitFor();
  await expect
    .poll(() => page.evaluate(() => document.activeElement?.textContent))
    .toBe('Rename Research Lab');
  expect(await projectNames(grace.id, orgId)).toEqual(['Research Lab']);

  // Delete: refused while the pool holds a memory, with the API's reason as a sentence.
  const { memory } = await ok<{ memory: { id: string } }>(
    t.api(
      grace.id,
      'POST',
      '/api/v1/memory',
      { content: 'The lab meets on Tuesdays', project: projectId },
      orgId,
    ),
  );
  await page.getByRole('button', { name: 'Delete Research Lab' }).click();
  const remove = page.getByRole('dialog', { name: 'Delete “Research Lab”?' });
  await remove.getByRole('button', { name: 'Delete project' }).click();
  await remove
    .getByRole('alert')
    .getByText(
      "That could not be done: The project's pool still has memories: delete them first.",
      { exact: true },
    )
    .waitFor(); // the alert may still hold the previous answer
  expect(await remove.getByRole('link', { name: 'its memory pool' }).getAttribute('href')).toBe(
    `/studio/memories/projects/${projectId}`,
  );
  expect(await t.axe(page)).toEqual([]);
  expect(await projectNames(grace.id, orgId)).toEqual(['Research Lab']);

  // Emptied, it goes.
  await ok(t.api(grace.id, 'DELETE', `/api/v1/memory/${memory.id}`, undefined, orgId));
  await remove.getByRole('button', { name: 'Delete project' }).click();
  await page.getByRole('status').getByText('“Research Lab” is deleted.').waitFor();
  await page.getByRole('region', { name: 'No projects yet' }).waitFor();
  expect(await projectNames(grace.id, orgId)).toEqual([]);
});

test('a project page: add a collaborator, change the access, remove them; the last owner stays (409); deep links and Back work', async () => {
  const projectId = await createProject('Apollo');
  const grace = await t.person({ name: 'Grace Hopper' });
  const page = await newPage();
  await t.signIn(page, '/projects');

  await page.getByRole('link', { name: 'Apollo', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Apollo' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/studio/projects/${projectId}`);
  await page.goBack();
  await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
  await page.goForward();
  await page.getByRole('heading', { level: 1, name: 'Apollo' }).waitFor();

  const ada = page.getByRole('combobox', { name: 'Access of Ada Lovelace' });
  expect(await ada.inputValue()).toBe('owner');
  expect(await page.getByRole('definition').allTextContents()).toHaveLength(3);
  expect(await t.axe(page)).toEqual([]);

  // Add, from the organization's members who have no access yet.
  const member = page.getByRole('combobox', { name: 'Member' });
  expect(await member.locator('option').allTextContents()).toContain(
    `Grace Hopper (${grace.email})`,
  );
  expect(await member.locator('option').allTextContents()).not.toContain(
    `Ada Lovelace (${t.owner.email})`,
  );
  await page.getByRole('button', { name: 'Add collaborator' }).click();
  await page.getByText('Choose the member to add.').waitFor();
  await member.selectOption({ label: `Grace Hopper (${grace.email})` });
  await page.getByRole('combobox', { name: 'Access', exact: true }).selectOption('editor');
  await page.getByRole('button', { name: 'Add collaborator' }).click();
  await page.getByRole('status').getByText('Grace Hopper is now editor.').waitFor();
  expect(await access(projectId)).toEqual({ [t.owner.id]: 'owner', [grace.id]: 'editor' });

  // Change.
  const graceAccess = page.getByRole('combobox', { name: 'Access of Grace Hopper' });
  await graceAccess.selectOption('owner');
  await page.getByRole('status').getByText('Grace Hopper is now owner.').waitFor();
  expect(await access(projectId)).toEqual({ [t.owner.id]: 'owner', [grace.id]: 'owner' });
  await graceAccess.selectOption('viewer');
  await page.getByRole('status').getByText('Grace Hopper is now viewer.').waitFor();

  // The last owner can be neither demoted nor removed: the API's 409, as a sentence.
  await ada.selectOption('editor');
  await page
    .getByRole('alert')
    .getByText('That could not be done: The last owner of the project cannot be demoted.')
    .waitFor();
  await expect.poll(() => ada.inputValue()).toBe('owner');
  await page.getByRole('button', { name: 'Remove Ada Lovelace' }).click();
  const removeAda = page.getByRole('dialog', { name: 'Remove Ada Lovelace?' });
  await removeAda.getByRole('button', { name: 'Remove' }).click();
  await removeAda
    .getByRole('alert')
    .getByText('That could not be done: The last owner of the project cannot be removed.', {
      exact: true,
    })
    .waitFor(); // the alert may still hold the previous answer
  await removeAda.getByRole('button', { name: 'Cancel' }).click();
  expect(await access(projectId)).toEqual({ [t.owner.id]: 'owner', [grace.id]: 'viewer' });

  // Remove, after a question.
  await page.getByRole('button', { name: 'Remove Grace Hopper' }).click();
  const removeGrace = page.getByRole('dialog', { name: 'Remove Grace Hopper?' });
  expect(await removeGrace.textContent()).toContain('Grace Hopper loses access to “Apollo”');
  expect(await t.axe(page)).toEqual([]);
  await removeGrace.getByRole('button', { name: 'Remove' }).click();
  await page.getByRole('status').getByText('Grace Hopper no longer has access.').waitFor();
  expect(await access(projectId)).toEqual({ [t.owner.id]: 'owner' });
  await page.getByRole('option', { name: `Grace Hopper (${grace.email})` }).waitFor({
    state: 'attached',
  });
});

test('a member sees only the projects shared with them, read-only; a project owner among members manages that project', async () => {
  const shared = await createProject('Borealis');
  await createProject('Hidden Ledger');
  const linus = await t.person({ name: 'Linus Torvalds' });
  await ok(
    t.api(t.owner.id, 'PUT', `/api/v1/projects/${shared}/collaborators/${linus.id}`, {
      access: 'viewer',
    }),
  );
  const page = await newPage();

  // A deep link, straight to the project.
  await t.signIn(page, `/projects/${shared}`, linus);
  await page.getByRole('heading', { level: 1, name: 'Borealis' }).waitFor();
  await page.getByRole('cell', { name: 'Linus Torvalds You' }).waitFor();
  expect(await page.getByRole('link', { name: 'Memory pool' }).getAttribute('href')).toBe(
    `/studio/memories/projects/${shared}`,
  );
  expect(await page.getByRole('combobox').count()).toBe(1); // the organization switcher
  for (const name of ['Rename', 'Delete', 'Add collaborator', 'Remove Ada Lovelace']) {
    expect(await page.getByRole('button', { name }).count()).toBe(0);
  }
  expect(await page.getByRole('row').allTextContents()).toEqual([
    'NameEmailAccess',
    `Ada Lovelace${t.owner.email}Owner`,
    `Linus TorvaldsYou${linus.email}Viewer`,
  ]);
  expect(await t.axe(page)).toEqual([]);

  await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link').click();
  await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
  await page.getByRole('link', { name: 'Borealis', exact: true }).waitFor();
  expect(await page.getByRole('link', { name: 'Hidden Ledger' }).count()).toBe(0);
  expect(await page.getByRole('button', { name: /New project|Rename|Delete/ }).count()).toBe(0);
  expect(await page.getByRole('cell', { name: 'Viewer', exact: true }).count()).toBe(1);
  expect(await t.axe(page)).toEqual([]);

  // Made an owner of the project, the member manages it on its page.
  await ok(
    t.api(t.owner.id, 'PUT', `/api/v1/projects/${shared}/collaborators/${linus.id}`, {
      access: 'owner',
    }),
  );
  await page.goto(`${t.url}/studio/projects/${shared}`);
  await page.getByRole('button', { name: 'Rename' }).click();
  const rename = page.getByRole('dialog', { name: 'Rename project' });
  await rename.getByLabel('Name').fill('Borealis Two');
  await rename.getByRole('button', { name: 'Save name' }).click();
  await page.getByRole('heading', { level: 1, name: 'Borealis Two' }).waitFor();
  expect(await projectNames(linus.id)).toEqual(['Borealis Two']);
  // On the list too: the row of the project they own has its actions, and says their access.
  await page.goto(`${t.url}/studio/projects`);
  await page.getByRole('button', { name: 'Rename Borealis Two' }).waitFor();
  expect(await page.getByRole('button', { name: 'Delete Borealis Two' }).count()).toBe(1);
  expect(await page.getByRole('cell', { name: 'Owner', exact: true }).count()).toBe(1);
  expect(await page.getByRole('button', { name: 'New project' }).count()).toBe(0);

  // An unknown project is said to be so.
  await page.goto(`${t.url}/studio/projects/4b1f9f8e-2d0c-4c55-9a53-0d5b9c0e8f11`);
  await page.getByRole('heading', { level: 1, name: 'Project not found' }).waitFor();
});

test('at 375 px wide, neither the list nor a project page scrolls sideways', async () => {
  const projectId = await createProject('A project with a rather long name for a phone screen');
  const page = await newPage({ viewport: PHONE });
  await t.signIn(page, '/projects');
  await page
    .getByRole('link', {
      name: 'A project with a rather long name for a phone screen',
      exact: true,
    })
    .waitFor();
  expect(await noHorizontalOverflow(page)).toBe(true);
  await page.getByRole('button', { name: 'Rename A project with a rather long name' }).click();
  expect(await noHorizontalOverflow(page)).toBe(true);
  await page.goto(`${t.url}/studio/projects/${projectId}`);
  await page.getByRole('button', { name: 'Add collaborator' }).waitFor();
  expect(await noHorizontalOverflow(page)).toBe(true);
  expect(await t.axe(page)).toEqual([]);
});
