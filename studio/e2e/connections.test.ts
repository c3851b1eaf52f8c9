import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { upsertMembership } from '../../src/tenancy/orgs.repository.ts';
import {
  type HttpsDocumentServer,
  startHttpsDocumentServer,
} from '../../src/testing/https-document-server.ts';
import { CALLBACK } from '../../src/testing/mcp-oauth-client.ts';
import { callMcp, connectMcpClient } from './mcp-connection.ts';
import { type Person, PHONE, type StudioTest, startStudioTest } from './studio-harness.ts';

interface ListedConnection {
  id: string;
  clientId: string;
  clientName: string;
  organization: { id: string; name: string };
  createdAt: string;
}

let t: StudioTest;
/** Where client ID metadata documents are published: https on loopback. */
let documents: HttpsDocumentServer;
let globex: string;

beforeAll(async () => {
  documents = await startHttpsDocumentServer();
  // Metadata documents on loopback: only with the operator's switch.
  t = await startStudioTest({ env: { MNEMO_CLIENT_METADATA_PRIVATE_ADDRESSES: 'on' } });
  globex = await t.server.t.fixtures.org({ name: 'Globex' });
});
afterAll(async () => {
  await t?.close();
  await documents?.close();
});

const PATH = '/settings/connected-apps';

/** A person in Acme (member) and Globex (member): the consent page asks them to choose. */
async function twoOrgPerson(name: string): Promise<Person> {
  const person = await t.person({ name });
  await upsertMembership(t.server.t.database.db, globex, person.id, 'member');
  return person;
}

/** A client ID metadata document on the document server: its URL is the client's id. */
function publishClient(file: string, name: string): string {
  const url = `${documents.origin}/clients/${file}`;
  documents.serve(`/clients/${file}`, {
    client_id: url,
    client_name: name,
    redirect_uris: [CALLBACK],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  return url;
}

const connectionsOf = async (userId: string): Promise<ListedConnection[]> =>
  (await (await t.api(userId, 'GET', '/api/v1/me/connections')).json()).connections;

const noOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

test('with nothing connected, the page says what a connected app is and gives the address to copy', async () => {
  const grace = await t.person({ name: 'Grace Hopper' });
  const page = await t.newPage();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  await t.signIn(page, '/settings', grace);
  await page.getByRole('heading', { level: 1, name: 'API Keys' }).waitFor();

  // Beside API keys, in the settings' own navigation.
  const link = page
    .getByRole('navigation', { name: 'Settings' })
    .getByRole('link', { name: 'Connected apps' });
  expect(await link.getAttribute('href')).toBe(`/studio${PATH}`);
  await link.click();
  await page.getByRole('heading', { level: 1, name: 'Connected apps' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/studio${PATH}`);
  expect(await link.getAttribute('aria-current')).toBe('page');
  expect(await page.title()).toBe('Connected apps · mnemo studio');

  const empty = page.getByRole('region', { name: 'No connected apps' });
  await empty.waitFor();
  expect(await empty.textContent()).toContain('A connected app is an AI application');
  const address = empty.getByRole('textbox', { name: 'MCP server address' });
  expect(await address.inputValue()).toBe(`${t.url}/mcp`);
  expect(await address.getAttribute('readonly')).not.toBeNull();
  expect(
    await empty.getByRole('link', { name: 'How apps sign in to mnemo' }).getAttribute('href'),
  ).toBe(`${t.url}/oauth`);
  expect(await page.getByRole('table').count()).toBe(0);
  expect(await t.axe(page)).toEqual([]);

  await empty.getByRole('button', { name: 'Copy' }).click();
  await empty.getByRole('status').getByText('Copied').waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${t.url}/mcp`);
});

test('lists each app with where it comes from and where it acts, newest first; Disconnect asks, then /mcp refuses its token', async () => {
  const ada = await twoOrgPerson('Ada Byron');
  const notes = await connectMcpClient(t.url, ada, {
    name: 'Notes Desktop',
    organization: globex,
  });
  const claudeUrl = publishClient('claude.json', 'Claude (test)');
  const claude = await connectMcpClient(t.url, ada, {
    name: 'Claude (test)',
    clientMetadataUrl: claudeUrl,
    organization: t.orgId,
  });
  expect(claude.clientId).toBe(claudeUrl);
  expect((await callMcp(t.url, notes.accessToken)).status).toBe(200);
  const listed = await connectionsOf(ada.id);
  expect(listed.map((c) => c.clientName)).toEqual(['Claude (test)', 'Notes Desktop']);

  const page = await t.newPage();
  page.on('dialog', () => {
    throw new Error('the browser’s own confirm must not be used');
  });
  await t.signIn(page, PATH, ada);
  const table = page.getByRole('region', { name: 'Connected apps' });
  const rows = table.getByRole('row');
  await rows.filter({ hasText: 'Notes Desktop' }).waitFor();
  // A header row, then the apps, newest first.
  expect(await rows.count()).toBe(3);
  const claudeRow = rows.nth(1);
  const notesRow = rows.nth(2);
  expect(await claudeRow.getByRole('cell').first().textContent()).toBe(
    `CClaude (test)From ${new URL(claudeUrl).host}`,
  );
  expect(await claudeRow.getByRole('cell').nth(1).textContent()).toBe('Acme');
  expect(await notesRow.getByRole('cell').first().textContent()).toBe(
    'NNotes DesktopRegistered with mnemo',
  );
  expect(await notesRow.getByRole('cell').nth(1).textContent()).toBe('Globex');
  for (const [row, connection] of [
    [claudeRow, listed[0]],
    [notesRow, listed[1]],
  ] as const) {
    expect(await row.locator(`time[datetime="${connection?.createdAt}"]`).count()).toBe(1);
  }
  // Each Disconnect is told apart by the app it ends.
  const disconnectNotes = notesRow.getByRole('button', { name: 'Disconnect' });
  expect(await disconnectNotes.getAttribute('aria-describedby')).toBe(
    await notesRow.getByText('Notes Desktop', { exact: true }).getAttribute('id'),
  );
  expect(await t.axe(page)).toEqual([]);

  // Cancel leaves the app connected.
  await disconnectNotes.click();
  const confirm = page.getByRole('dialog', { name: 'Disconnect “Notes Desktop”?' });
  await confirm.waitFor();
  const said = await confirm.textContent();
  expect(said).toContain(
    'Notes Desktop loses access to your memories in Globex at once: mnemo refuses its next request',
  );
  expect(said).toContain('To use it again, connect it again from the app');
  expect(said).toContain('sign in to mnemo');
  expect(await t.axe(page)).toEqual([]);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'hidden' });
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Disconnect');
  expect((await callMcp(t.url, notes.accessToken)).status).toBe(200);

  await disconnectNotes.click();
  await confirm.getByRole('button', { name: 'Disconnect', exact: true }).click();
  await confirm.waitFor({ state: 'hidden' });
  await page
    .getByRole('status')
    .getByText('“Notes Desktop” is disconnected: it no longer has access to your memories.')
    .waitFor();
  await notesRow.filter({ hasText: 'Notes Desktop' }).waitFor({ state: 'detached' });
  expect(await rows.count()).toBe(2);
  // The button that opened the dialog went with its row: focus is on the page's heading.
  expect(await page.evaluate(() => document.activeElement?.outerHTML)).toBe(
    '<h1 tabindex="-1">Connected apps</h1>',
  );

  // The very next request of the app is refused; the other app keeps working.
  const refused = await callMcp(t.url, notes.accessToken);
  expect(refused.status).toBe(401);
  expect(await refused.json()).toEqual({
    error: 'invalid credential: the connection was revoked; authorize the client again',
  });
  expect((await callMcp(t.url, claude.accessToken)).status).toBe(200);
  expect((await connectionsOf(ada.id)).map((c) => c.id)).toEqual([claude.connectionId]);
  expect(await t.axe(page)).toEqual([]);

  await page.reload();
  await rows.filter({ hasText: 'Claude (test)' }).waitFor();
  expect(await page.getByText('Notes Desktop').count()).toBe(0);
});

test('an app disconnected elsewhere is said to be gone; a refusal is said in a sentence', async () => {
  const bob = await t.person({ name: 'Bob Kahn' });
  const cli = await connectMcpClient(t.url, bob, { name: 'Terminal agent' });
  const page = await t.newPage();
  await t.signIn(page, PATH, bob);
  const row = page.getByRole('row').filter({ hasText: 'Terminal agent' });
  await row.getByRole('button', { name: 'Disconnect' }).click();
  const confirm = page.getByRole('dialog', { name: 'Disconnect “Terminal agent”?' });

  // No answer: the dialog stays, with what happened and what to do.
  const revocation = `${t.url}/api/v1/me/connections/${cli.connectionId}`;
  await page.route(revocation, (route) => route.abort('internetdisconnected'));
  await confirm.getByRole('button', { name: 'Disconnect', exact: true }).click();
  await confirm.getByRole('alert').getByText('mnemo could not be reached').waitFor();
  expect((await callMcp(t.url, cli.accessToken)).status).toBe(200);
  await page.unroute(revocation);

  // Meanwhile it was disconnected elsewhere: what the person asked for is done.
  expect((await t.api(bob.id, 'DELETE', `/api/v1/me/connections/${cli.connectionId}`)).status).toBe(
    200,
  );
  await confirm.getByRole('button', { name: 'Disconnect', exact: true }).click();
  await confirm.waitFor({ state: 'hidden' });
  await page.getByRole('status').getByText('“Terminal agent” was already disconnected.').waitFor();
  await row.waitFor({ state: 'detached' });
  await page.getByRole('region', { name: 'No connected apps' }).waitFor();

  // The API's refusal of the list, as a sentence with a way to try again.
  await page.route(`${t.url}/api/v1/me/connections`, (route) =>
    route.fulfill({
      status: 403,
      contentType: 'application/json',
      body: JSON.stringify({ error: 'the credential lacks the keys scope' }),
    }),
  );
  await page.reload();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toBe(
    'You are not allowed to do this: The credential lacks the keys scope.Try again',
  );
  expect(await page.getByRole('region', { name: 'No connected apps' }).count()).toBe(0);
  await page.unroute(`${t.url}/api/v1/me/connections`);
  await alert.getByRole('button', { name: 'Try again' }).click();
  await page.getByRole('region', { name: 'No connected apps' }).waitFor();
  expect(await t.axe(page)).toEqual([]);
});

test('at 375 px the list and its dialog fit the screen', async () => {
  const katherine = await twoOrgPerson('Katherine Johnson');
  await connectMcpClient(t.url, katherine, {
    name: 'A desktop assistant with a rather long name',
    organization: globex,
  });
  const page = await t.newPage({ viewport: PHONE });
  await t.signIn(page, PATH, katherine);
  const row = page.getByRole('row').filter({ hasText: 'A desktop assistant' });
  await row.waitFor();
  expect(await noOverflow(page)).toBe(true);
  expect(await t.axe(page)).toEqual([]);
  await row.getByRole('button', { name: 'Disconnect' }).click();
  const confirm = page.getByRole('dialog', { name: /^Disconnect “A desktop assistant/ });
  await confirm.waitFor();
  expect(await noOverflow(page)).toBe(true);
  const box = await confirm.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
  expect(await t.axe(page)).toEqual([]);
});
