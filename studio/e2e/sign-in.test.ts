import { afterAll, beforeAll, expect, test } from 'vitest';
import { type StudioTest, startStudioTest } from './studio-harness.ts';

let t: StudioTest;
beforeAll(async () => {
  // Access tokens of 66 s: the studio refreshes 60 s before the end, so within the test.
  t = await startStudioTest({ env: { MNEMO_ACCESS_TOKEN_TTL_SECONDS: '66' } });
});
afterAll(() => t?.close());

test('/studio is served with a strict CSP; a deep link signs in through /oauth and lands on its page', async () => {
  const entry = await fetch(`${t.url}/studio/usage`);
  expect(entry.status).toBe(200);
  expect(entry.headers.get('content-type')).toBe('text/html; charset=utf-8');
  const csp = entry.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe');
  expect((await fetch(`${t.url}/studio`, { redirect: 'manual' })).headers.get('location')).toBe(
    '/studio/',
  );

  const page = await t.newPage();
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(`${t.url}/studio/usage?range=7`);
  await page.waitForURL(/\/oauth\/interaction\//);
  await page.getByLabel('Email').fill(t.owner.email);
  await page.getByLabel('Password').fill(t.owner.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
  expect(page.url()).toBe(`${t.url}/studio/usage?range=7`);
  // Everything the page loaded came from this origin.
  expect(requests.filter((url) => !url.startsWith(t.url))).toEqual([]);
  // The tokens live in memory only.
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
  expect(stored).not.toMatch(/eyJ/);
  expect(stored).not.toMatch(/refresh/i);
});

test('the organization switcher lists the person’s organizations and is remembered in this browser', async () => {
  const other = await t.server.t.fixtures.org({ name: 'Zenith Labs' });
  await t.server.t.fixtures.member(other, t.owner.id, 'member');
  const page = await t.newPage();
  await t.signIn(page, '/memories');
  const switcher = page.getByRole('combobox', { name: 'Organization' });
  await expect
    .poll(() => switcher.locator('option').allTextContents())
    .toEqual(['Acme', 'Zenith Labs']);
  await switcher.selectOption({ label: 'Zenith Labs' });
  // A second tab of the same browser: signed in through the session, no password asked, and
  // in the organization chosen last.
  const second = await page.context().newPage();
  await second.goto(`${t.url}/studio/memories`);
  await second.getByRole('navigation', { name: 'Main' }).waitFor();
  expect(await second.getByRole('combobox', { name: 'Organization' }).inputValue()).toBe(other);
});

test('the access token is refreshed before it expires, with the refresh token rotated', async () => {
  const page = await t.newPage();
  const grants: string[] = [];
  page.on('request', (request) => {
    if (request.url() === `${t.url}/oauth/token`) {
      grants.push(new URLSearchParams(request.postData() ?? '').get('grant_type') ?? '');
    }
  });
  const refreshed = page.waitForResponse(
    (response) =>
      response.url() === `${t.url}/oauth/token` &&
      response.request().postData()?.includes('grant_type=refresh_token') === true,
    { timeout: 25_000 },
  );
  await t.signIn(page, '/memories');
  const answer = await (await refreshed).json();
  expect(answer.refresh_token).toEqual(expect.any(String));
  expect(grants).toEqual(['authorization_code', 'refresh_token']);
  // The page goes on working with the new token.
  await page.getByRole('link', { name: 'Members' }).click();
  await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
});

test('Sign out is one click: the refresh token is revoked, the /oauth session ends, the next visit asks for the password', async () => {
  const page = await t.newPage();
  let refreshToken: string | undefined;
  page.on('response', async (response) => {
    if (response.url() === `${t.url}/oauth/token` && response.status() === 200) {
      refreshToken = (await response.json()).refresh_token;
    }
  });
  await t.signIn(page, '/memories');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
  expect(refreshToken).toEqual(expect.any(String));

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

  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Password').waitFor();
  expect(new URL(page.url()).pathname).toMatch(/^\/oauth\/interaction\//);
});

test('signing out in one tab signs out the others', async () => {
  const page = await t.newPage();
  await t.signIn(page, '/memories');
  const second = await page.context().newPage();
  await second.goto(`${t.url}/studio/projects`);
  await second.getByRole('navigation', { name: 'Main' }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await second.getByRole('heading', { name: 'You are signed out' }).waitFor();
});

test('a session revoked at the server leads back to sign-in, then to the same page', async () => {
  const page = await t.newPage();
  await t.signIn(page, '/members');
  // The account is suspended and reinstated: its tokens and grant no longer work.
  await t.server.t.fixtures.status(t.owner.id, 'suspended');
  await t.server.t.database.db.deleteFrom('oauth_records').execute();
  await t.server.t.fixtures.status(t.owner.id, 'active');
  await page.getByRole('link', { name: 'Audit' }).click();
  await page.getByLabel('Password').waitFor({ timeout: 20_000 });
  await page.getByLabel('Email').fill(t.owner.email);
  await page.getByLabel('Password').fill(t.owner.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/studio/audit');
});

test('a sign-in cancelled at /oauth, or a callback nobody started, says so and offers to try again', async () => {
  const page = await t.newPage();
  await page.goto(`${t.url}/studio/projects`);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('heading', { name: 'Sign-in did not complete' }).waitFor();
  expect(await page.locator('.splash-card p').textContent()).toBe('The sign-in was cancelled.');
  await page.getByRole('button', { name: 'Try again' }).click();
  await page.getByLabel('Password').waitFor();

  await page.goto(`${t.url}/studio/callback?code=forged&state=forged`);
  await page.getByRole('heading', { name: 'Sign-in did not complete' }).waitFor();
  expect(await page.locator('.splash-card p').textContent()).toBe(
    'This sign-in was not started here, or was already used.',
  );
  expect(await t.axe(page)).toEqual([]);
});
