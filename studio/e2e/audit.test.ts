import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { OPERATOR_ACTOR_ID, recordAudit } from '../../src/audit/index.ts';
import { createUncachedErasure } from '../../src/erasure/identity-erasure.ts';
import { createMembersService } from '../../src/tenancy/members.service.ts';
import { type Person, PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

let t: StudioTest;
let grace: Person;
let alan: Person;
let katherine: Person;
let memoryId: string;

async function ok(response: Promise<Response>): Promise<unknown> {
  const answer = await response;
  expect(answer.status, await answer.clone().text()).toBeLessThan(300);
  return answer.json().catch(() => undefined);
}

beforeAll(async () => {
  t = await startStudioTest();
  grace = await t.person({ role: 'member', name: 'Grace Hopper' });
  alan = await t.person({ role: 'admin', name: 'Alan Turing' });
  // Someone who can sign in but is in no organization yet.
  katherine = await t.server.person({ name: 'Katherine Johnson' });
  const members = `/api/v1/orgs/${t.orgId}/members`;

  // Acts the audit log records, oldest first.
  await ok(t.api(t.owner.id, 'POST', members, { email: katherine.email, role: 'member' }));
  await ok(t.api(t.owner.id, 'PATCH', `${members}/${grace.id}`, { role: 'admin' }));
  const added = (await ok(
    t.api(t.owner.id, 'POST', '/api/v1/memory', { content: 'Prefers tea', user: grace.id }),
  )) as { memory: { id: string } };
  memoryId = added.memory.id;
  await ok(t.api(alan.id, 'POST', `/api/v1/orgs/${t.orgId}/projects`, { name: 'Apollo' }));
  // Alan leaves: his own entry is then shown by his id.
  await ok(t.api(t.owner.id, 'DELETE', `${members}/${alan.id}`));
});
afterAll(() => t?.close());

/** The log's rows, cell by cell, without the time. */
const rows = (page: Page) =>
  page
    .getByRole('region', { name: 'Audit log, newest first' })
    .locator('tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) =>
        [...(tr as HTMLTableRowElement).cells].slice(1).map((c) => c.textContent?.trim()),
      ),
    );

test('the acts appear newest first: who, what in words, for whom, and what changed', async () => {
  // What the page shows is what the API recorded.
  const recorded = (await ok(t.api(t.owner.id, 'GET', '/api/v1/audit'))) as {
    entries: { action: string }[];
  };
  expect(recorded.entries.map((e) => e.action)).toEqual([
    'member.remove',
    'project.create',
    'add',
    'member.role',
    'member.add',
  ]);

  const page = await t.newPage();
  await t.signIn(page, '/audit');
  await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
  await expect.poll(() => rows(page)).toHaveLength(5);
  expect(await rows(page)).toEqual([
    [
      'Ada Lovelace',
      'Removed a member',
      `Former member ${alan.id}`,
      expect.stringMatching(/^Was admin(; \d+ app authorizations? revoked)?$/),
    ],
    [`Former member ${alan.id}`, 'Created a project', 'Project “Apollo”', '—None'],
    ['Ada Lovelace', 'Added a memory', 'Grace Hopper', `Memory ${memoryId}`],
    ['Ada Lovelace', 'Changed a member’s role', 'Grace Hopper', 'member → admin'],
    ['Ada Lovelace', 'Added a member', 'Katherine Johnson', 'As member'],
  ]);
  // Each time is a machine-readable instant.
  expect(await page.locator('tbody time').first().getAttribute('datetime')).toMatch(
    /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/,
  );
  await page.getByRole('status').filter({ hasText: 'Showing all 5 entries.' }).waitFor();
  expect(await page.getByRole('button', { name: 'Load older entries' }).count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);
});

test('a long log comes a page at a time with "Load older entries"', async () => {
  const orgId = await t.server.t.fixtures.org({ name: 'Globex' });
  const olga = await t.person({ orgId, role: 'owner', name: 'Olga Ladyzhenskaya' });
  for (let i = 0; i < 120; i++) {
    await recordAudit(t.server.t.database.db, {
      orgId,
      actorId: olga.id,
      targetId: olga.id,
      action: 'api_key.create',
      details: { keyId: olga.id, name: `Key ${i}` },
    });
  }
  const page = await t.newPage();
  await t.signIn(page, '/audit', olga);
  const more = page.getByRole('button', { name: 'Load older entries' });
  await more.waitFor();
  let shown = await rows(page);
  expect(shown).toHaveLength(50);
  expect(shown[0]).toEqual([
    'Olga Ladyzhenskaya',
    'Created an API key',
    'Olga Ladyzhenskaya',
    '“Key 119”',
  ]);
  await page.getByRole('status').filter({ hasText: 'Showing the newest 50 entries.' }).waitFor();

  await more.click();
  await expect.poll(async () => (await rows(page)).length).toBe(100);
  await more.click();
  await expect.poll(async () => (await rows(page)).length).toBe(120);
  shown = await rows(page);
  // Every entry once, newest first.
  expect(shown.map((row) => row[3])).toEqual(
    Array.from({ length: 120 }, (_, i) => `“Key ${119 - i}”`),
  );
  await page.getByRole('status').filter({ hasText: 'Showing all 120 entries.' }).waitFor();
  expect(await more.count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);
});

test('what an operator did with the command line is theirs, named on one line, never a former member', async () => {
  const orgId = await t.server.t.fixtures.org({ name: 'Initech' });
  const peter = await t.person({ orgId, role: 'owner', name: 'Peter Gibbons' });
  const milton = await t.server.person({ name: 'Milton Waddams' });
  // What `mnemo admin member add` and then `mnemo admin user erase` record.
  const database = t.server.t.database;
  await createMembersService(database).byOperator.setRole(orgId, milton.id, 'member');
  await createUncachedErasure(database).eraseAccount({
    userId: milton.id,
    actorId: OPERATOR_ACTOR_ID,
    action: 'user.erase',
  });
  const recorded = (await ok(t.api(peter.id, 'GET', '/api/v1/audit', undefined, orgId))) as {
    entries: { actorId: string; action: string }[];
  };
  expect(recorded.entries.map((e) => [e.actorId, e.action])).toEqual([
    [OPERATOR_ACTOR_ID, 'user.erase'],
    [OPERATOR_ACTOR_ID, 'member.add'],
  ]);

  for (const viewport of [undefined, PHONE]) {
    const page = await t.newPage(viewport ? { viewport } : {});
    await t.signIn(page, '/audit', peter);
    await expect.poll(() => rows(page)).toHaveLength(2);
    expect(await rows(page)).toEqual([
      [
        'Operator (command line)',
        'Erased a person everywhere',
        `Former member ${milton.id}`,
        'Nothing else was held',
      ],
      ['Operator (command line)', 'Added a member', `Former member ${milton.id}`, 'As member'],
    ]);
    // One line box each: the name is not broken over lines, at 1280 px and at 375 px.
    expect(
      await page
        .getByText('Operator (command line)', { exact: true })
        .evaluateAll((names) => names.map((name) => name.getClientRects().length)),
    ).toEqual([1, 1]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      viewport?.width ?? 1280,
    );
    expect(await t.axe(page)).toEqual([]);
  }
});

test('a plain member is told the log is for owners and admins, which the API confirms', async () => {
  const mary = await t.person({ role: 'member', name: 'Mary Somerville' });
  expect((await t.api(mary.id, 'GET', '/api/v1/audit')).status).toBe(403);
  const page = await t.newPage();
  await t.signIn(page, '/audit', mary);
  const notice = page.getByRole('region', { name: 'For owners and admins' });
  await notice.waitFor();
  expect(await notice.textContent()).toContain(
    'Only the owners and admins of Acme can read its audit log.',
  );
  expect(await page.getByRole('table').count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);
});

test('an organization with nothing recorded says what the log records', async () => {
  const orgId = await t.server.t.fixtures.org({ name: 'Quiet Co' });
  const quinn = await t.person({ orgId, role: 'owner', name: 'Quinn' });
  const page = await t.newPage();
  await t.signIn(page, '/audit', quinn);
  const empty = page.getByRole('region', { name: 'Nothing recorded yet' });
  await empty.waitFor();
  expect(await empty.textContent()).toContain('The audit log records who did what in Quiet Co');
  expect(await t.axe(page)).toEqual([]);
});

test('at 375 px the log fits the screen, in the dark scheme too', async () => {
  const page = await t.newPage({ viewport: PHONE, colorScheme: 'dark' });
  await t.signIn(page, '/audit');
  await expect.poll(() => rows(page)).toHaveLength(5);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await t.axe(page)).toEqual([]);
});
