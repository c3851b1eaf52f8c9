/**
 * `mnemo login`, `whoami` and `logout` as a person meets them: the real command in a child
 * process, the real app on a loopback port, and a browser (testing/browser.ts) in which the
 * person enters the code. The device flow polls every 5 s, so each login costs that: one login
 * serves several assertions.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cliCredentialsPath } from '../config.ts';
import { upsertMembership } from '../tenancy/orgs.repository.ts';
import { Browser, type Page } from '../testing/browser.ts';
import { type OAuthServer, startOAuthServer } from '../testing/oauth-server.ts';
import { freePort } from '../testing/server-process.ts';
import { createMnemo, type MnemoRun, onlyJson } from './mnemo-process.ts';

const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;
const PROMPT = /Open (\S+) and enter the code ([B-Z]{4}-[B-Z]{4}) \(or open (\S+)\)\. Waiting…\n/;

type Person = Awaited<ReturnType<OAuthServer['person']>>;
type Mnemo = ReturnType<typeof createMnemo>;

/** A directory for XDG_CONFIG_HOME, removed after the file's tests. */
const configHomes: string[] = [];
async function configHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'mnemo-login-'));
  configHomes.push(home);
  return home;
}
afterAll(() => Promise.all(configHomes.map((home) => rm(home, { recursive: true, force: true }))));

const credentialsIn = (home: string) => join(home, 'mnemo', 'credentials.json');

interface StoredCredential {
  clientId: string;
  accessToken: string;
  refreshToken: string;
  expiresAt: string;
  userId: string;
  email: string;
}

async function storedCredentials(home: string): Promise<Record<string, StoredCredential>> {
  const file = JSON.parse(await readFile(credentialsIn(home), 'utf8')) as {
    credentials: Record<string, StoredCredential>;
  };
  return file.credentials;
}

/** The server the file remembers as signed in to last. */
async function rememberedServer(home: string): Promise<string | undefined> {
  const file = JSON.parse(await readFile(credentialsIn(home), 'utf8')) as { server?: string };
  return file.server;
}

async function stored(home: string, issuer: string): Promise<StoredCredential> {
  const credential = (await storedCredentials(home))[issuer];
  if (!credential) throw new Error(`no credential for ${issuer}`);
  return credential;
}

/**
 * Runs `mnemo login …args` and, once it shows the code, does in a browser what the person
 * does: enters the code and signs in as `person`, or presses Cancel.
 */
async function login(
  server: OAuthServer,
  mnemo: Mnemo,
  args: string[],
  person: Person | 'cancel',
): Promise<MnemoRun> {
  const running = mnemo.start('login', ...args);
  const [, uri = '', code = '', complete = ''] = await running.stderrMatch(PROMPT);
  expect(uri).toBe(`${server.issuer}/device`);
  expect(complete).toBe(`${uri}?user_code=${code}`);
  const browser = new Browser();
  const entry = await browser.open(uri);
  const confirm = await browser.submit(entry, { user_code: code });
  expect(confirm.html).toContain(code);
  if (person === 'cancel') {
    const cancelled = await pressCancel(browser, confirm);
    expect(cancelled.status).toBe(200);
  } else {
    const signIn = await browser.submit(confirm, {}, { actionIncludes: '/device' });
    const done = await browser.submit(signIn, { email: person.email, password: person.password });
    expect(done.html).toContain('<h1>Device connected</h1>');
  }
  return running.done;
}

/** The confirm page's Cancel: its own form (the one without `confirm=yes`), that button pressed. */
function pressCancel(browser: Browser, page: Page): Promise<Page> {
  const forms = [...page.html.matchAll(/<form\b[\s\S]*?<\/form>/gi)].map((m) => m[0]);
  const cancel = forms.find((form) => form.includes('name="abort"'));
  if (!cancel) throw new Error(`no Cancel on ${page.url}`);
  return browser.submit({ ...page, html: cancel }, {}, { button: { name: 'abort', value: 'yes' } });
}

/** Whether the authorization server still takes `refreshToken` from the CLI's client. */
async function refreshError(server: OAuthServer, refreshToken: string): Promise<unknown> {
  const configuration = await server.discover('mnemo-cli');
  return client.refreshTokenGrant(configuration, refreshToken).then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** The pid of a process that has ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

const failure = (message: string, json = false) => ({
  code: 1,
  stdout: json ? `${JSON.stringify({ error: message })}\n` : '',
  stderr: `mnemo: ${message}\n`,
});

test('the credentials file is under XDG_CONFIG_HOME, else ~/.config', () => {
  expect(cliCredentialsPath({ XDG_CONFIG_HOME: '/cfg', HOME: '/home/ada' })).toBe(
    '/cfg/mnemo/credentials.json',
  );
  for (const XDG_CONFIG_HOME of [undefined, '', 'relative/cfg']) {
    expect(cliCredentialsPath({ XDG_CONFIG_HOME, HOME: '/home/ada' })).toBe(
      '/home/ada/.config/mnemo/credentials.json',
    );
  }
});

describe('with the default token lifetime', () => {
  let server: OAuthServer;
  let home: string;
  let mnemo: Mnemo;
  let ada: Person;
  let acme: string;
  let beta: string;

  beforeAll(async () => {
    server = await startOAuthServer();
    [acme, beta] = await Promise.all([
      server.t.fixtures.org({ name: 'Acme' }),
      server.t.fixtures.org({ name: 'Beta' }),
    ]);
    ada = await server.person({ orgId: acme, role: 'admin' });
    await upsertMembership(server.t.database.db, beta, ada.id, 'member');
    home = await configHome();
    // No --url: the server is MNEMO_PUBLIC_URL's.
    mnemo = createMnemo({ XDG_CONFIG_HOME: home, MNEMO_PUBLIC_URL: server.url });
  });
  afterAll(() => server?.close());

  test('signed out: whoami fails, logout has nothing to do, and no file is made', async () => {
    const message = `not signed in to ${server.issuer}: run mnemo login`;
    const [text, json, out, outJson] = await Promise.all([
      mnemo('whoami'),
      mnemo('whoami', '--json'),
      mnemo('logout'),
      mnemo('logout', '--json'),
    ]);
    expect(text).toEqual(failure(message));
    expect(json).toEqual(failure(message, true));
    expect(out).toEqual({
      code: 0,
      stdout: `Not signed in to ${server.url}: nothing to do.\n`,
      stderr: '',
    });
    expect(onlyJson(outJson)).toEqual({
      server: server.url,
      issuer: server.issuer,
      removed: false,
      revoked: false,
    });
    expect(await readdir(home)).toEqual([]);
  });

  test('login signs in through the browser and keeps the credential; whoami reads it', async () => {
    const run = await login(server, mnemo, ['--json'], ada);
    expect(run.code, run.stderr).toBe(0);
    const signedIn = {
      server: server.url,
      issuer: server.issuer,
      user: { id: ada.id, email: ada.email, name: 'Ada Lovelace' },
      organizations: [
        { id: acme, name: 'Acme', role: 'admin' },
        { id: beta, name: 'Beta', role: 'member' },
      ],
    };
    expect(onlyJson(run)).toEqual(signedIn);

    // Owner-only, and nothing beside the file: no lock or temporary file is left behind.
    expect((await stat(join(home, 'mnemo'))).mode & 0o777).toBe(0o700);
    expect((await stat(credentialsIn(home))).mode & 0o777).toBe(0o600);
    expect(await readdir(join(home, 'mnemo'))).toEqual(['credentials.json']);
    const credentials = await storedCredentials(home);
    expect(await rememberedServer(home)).toBe(server.url);
    expect(credentials).toEqual({
      [server.issuer]: {
        clientId: 'mnemo-cli',
        accessToken: expect.stringMatching(JWT),
        refreshToken: expect.any(String),
        expiresAt: expect.any(String),
        userId: ada.id,
        email: ada.email,
      },
    });
    const credential = credentials[server.issuer] as StoredCredential;
    const lifetime = Date.parse(credential.expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(800_000);
    expect(lifetime).toBeLessThanOrEqual(900_000);

    const [json, text] = await Promise.all([mnemo('whoami', '--json'), mnemo('whoami')]);
    expect(json.stderr).toBe('');
    expect(onlyJson(json)).toEqual(signedIn);
    expect(text).toEqual({
      code: 0,
      stdout: `Signed in to ${server.url} as Ada Lovelace <${ada.email}>, user ${ada.id}.\nOrganizations: Acme (admin), Beta (member).\n`,
      stderr: '',
    });
    // Fresh for another quarter of an hour: nothing was refreshed.
    expect(await storedCredentials(home)).toEqual(credentials);
  });

  test('Cancel in the browser fails the login; the credential before it stays', async () => {
    const before = await storedCredentials(home);
    const run = await login(server, mnemo, [], 'cancel');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/Waiting…\nmnemo: the sign-in was cancelled in the browser\n$/);
    expect(await storedCredentials(home)).toEqual(before);
  });

  test('Ctrl-C while waiting ends the login at once, as interrupted', async () => {
    const running = mnemo.start('login', '--json');
    await running.stderrMatch(PROMPT);
    const sent = Date.now();
    running.child.kill('SIGINT');
    const run = await running.done;
    expect(Date.now() - sent).toBeLessThan(2_000);
    expect(running.child.signalCode).toBe('SIGINT');
    expect(run.stdout).toBe(`${JSON.stringify({ error: 'interrupted' })}\n`);
    expect(run.stderr).toMatch(/Waiting…\nmnemo: interrupted\n$/);
  });

  test('logout revokes the refresh token and forgets the credential', async () => {
    const { refreshToken } = await stored(home, server.issuer);
    const out = await mnemo('logout');
    expect(out).toEqual({ code: 0, stdout: `Signed out of ${server.url}.\n`, stderr: '' });
    expect(await storedCredentials(home)).toEqual({});
    expect(await rememberedServer(home)).toBeUndefined();
    expect(await refreshError(server, refreshToken)).toMatchObject({ error: 'invalid_grant' });
    expect(await mnemo('whoami')).toEqual(
      failure(`not signed in to ${server.issuer}: run mnemo login`),
    );
  });

  test('logout forgets the credential of a server it cannot reach, with a warning', async () => {
    const gone = `http://127.0.0.1:${await freePort()}`;
    const issuer = `${gone}/oauth`;
    const credential: StoredCredential = {
      clientId: 'mnemo-cli',
      accessToken: 'a.b.c',
      refreshToken: 'r',
      expiresAt: new Date().toISOString(),
      userId: ada.id,
      email: ada.email,
    };
    await writeFile(
      credentialsIn(home),
      JSON.stringify({ credentials: { [issuer]: credential, [server.issuer]: credential } }),
    );
    const out = await mnemo('logout', '--url', `${gone}/`, '--json');
    expect(out.code).toBe(0);
    expect(onlyJson(out)).toEqual({ server: gone, issuer, removed: true, revoked: false });
    expect(out.stderr).toBe(
      `mnemo: warning: the server was not told (cannot reach ${issuer}: ECONNREFUSED); the credential is removed here all the same\n`,
    );
    expect(Object.keys(await storedCredentials(home))).toEqual([server.issuer]);
  });
});

describe('the server signed in to is remembered', () => {
  /** The server's URL when the environment names none: config.ts's default. */
  const DEFAULT = 'http://127.0.0.1:8080';
  let alpha: OAuthServer;
  let beta: OAuthServer;
  let home: string;
  /** `mnemo` with nothing in its environment that names a server. */
  let mnemo: Mnemo;
  let withEnv: (env: Record<string, string>) => Mnemo;
  let ada: Person;
  let grace: Person;
  let acme: string;

  const portOf = (server: OAuthServer) => new URL(server.url).port;
  const signedIn = (stdout: string) => ({ code: 0, stdout, stderr: '' });
  const adaAtAlpha = () =>
    signedIn(
      `Signed in to ${alpha.url} as Ada Lovelace <${ada.email}>, user ${ada.id}.\nOrganizations: Acme (owner).\n`,
    );
  const notSignedIn = (url: string) => failure(`not signed in to ${url}/oauth: run mnemo login`);

  beforeAll(async () => {
    [alpha, beta] = await Promise.all([startOAuthServer(), startOAuthServer()]);
    acme = await alpha.t.fixtures.org({ name: 'Acme' });
    ada = await alpha.person({ orgId: acme, role: 'owner' });
    grace = await beta.person({ name: 'Grace Hopper' });
    home = await configHome();
    mnemo = createMnemo({ XDG_CONFIG_HOME: home });
    withEnv = (env) => createMnemo({ XDG_CONFIG_HOME: home, ...env });
  });
  afterAll(() => Promise.all([alpha?.close(), beta?.close()]));

  test('login at PORT remembers the server: later commands without --url talk to it and name it; --url and the environment still choose', async () => {
    expect(await mnemo('whoami')).toEqual(notSignedIn(DEFAULT));

    const run = await login(alpha, withEnv({ PORT: portOf(alpha) }), [], ada);
    expect(run).toEqual({
      ...adaAtAlpha(),
      stderr: expect.stringMatching(new RegExp(`^${PROMPT.source}$`)),
    });
    expect((await stat(credentialsIn(home))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(credentialsIn(home), 'utf8'))).toEqual({
      server: alpha.url,
      credentials: {
        [alpha.issuer]: expect.objectContaining({ userId: ada.id, email: ada.email }),
      },
    });

    // Nothing in the environment: the server signed in to.
    expect(await mnemo('whoami')).toEqual(adaAtAlpha());
    expect(onlyJson(await mnemo('whoami', '--json'))).toEqual({
      server: alpha.url,
      issuer: alpha.issuer,
      user: { id: ada.id, email: ada.email, name: 'Ada Lovelace' },
      organizations: [{ id: acme, name: 'Acme', role: 'owner' }],
    });
    const token = await alpha.t.fixtures.token(ada.id);
    expect((await alpha.memory(token, acme, 'POST', { content: 'Prefers tea' })).status).toBe(201);
    const { memories, cursor } = (await (await alpha.memory(token, acme)).json()) as {
      memories: unknown[];
      cursor: string;
    };
    const exported = await mnemo('export');
    expect(exported).toEqual({
      code: 0,
      stdout: memories.map((memory) => `${JSON.stringify(memory)}\n`).join(''),
      stderr: `mnemo: exported 1 memory; continue with GET /api/v1/memory?since=${cursor}\n`,
    });

    // --url, then the environment, go before it: here they name servers not signed in to.
    expect(await mnemo('whoami', '--url', beta.url)).toEqual(notSignedIn(beta.url));
    expect(await withEnv({ MNEMO_PUBLIC_URL: beta.url })('whoami')).toEqual(notSignedIn(beta.url));
    expect(await withEnv({ PORT: portOf(beta) })('whoami')).toEqual(notSignedIn(beta.url));
    expect(await withEnv({ PORT: '8080' })('whoami')).toEqual(notSignedIn(DEFAULT));
    expect(await withEnv({ PORT: portOf(beta) })('whoami', '--url', alpha.url)).toEqual(
      adaAtAlpha(),
    );
  });

  test('a credentials file of the earlier version, which names no server, still signs commands in', async () => {
    const earlier = await configHome();
    await mkdir(join(earlier, 'mnemo'), { mode: 0o700 });
    const credential = await stored(home, alpha.issuer);
    // As the earlier version wrote it: the credentials alone.
    const file = `${JSON.stringify({ credentials: { [alpha.issuer]: credential } }, null, 2)}\n`;
    await writeFile(credentialsIn(earlier), file, { mode: 0o600 });
    const upgraded = (env: Record<string, string> = {}) =>
      createMnemo({ XDG_CONFIG_HOME: earlier, ...env });

    expect(await upgraded()('whoami', '--url', alpha.url)).toEqual(adaAtAlpha());
    expect(await upgraded({ PORT: portOf(alpha) })('whoami')).toEqual(adaAtAlpha());
    expect(await upgraded({ MNEMO_PUBLIC_URL: alpha.url })('whoami')).toEqual(adaAtAlpha());
    // No server remembered: the environment's default, as before.
    expect(await upgraded()('whoami')).toEqual(notSignedIn(DEFAULT));
    expect(await readFile(credentialsIn(earlier), 'utf8')).toBe(file);
  });

  test('a second server signed in to becomes the one remembered, each keeping its credential; logout forgets its server', async () => {
    const run = await login(beta, mnemo, ['--url', beta.url], grace);
    expect(run.code, run.stderr).toBe(0);
    const graceAtBeta = signedIn(
      `Signed in to ${beta.url} as Grace Hopper <${grace.email}>, user ${grace.id}.\nOrganizations: no organization.\n`,
    );
    expect(run.stdout).toBe(graceAtBeta.stdout);
    expect(await rememberedServer(home)).toBe(beta.url);
    expect(Object.keys(await storedCredentials(home)).sort()).toEqual(
      [alpha.issuer, beta.issuer].sort(),
    );
    expect(await mnemo('whoami')).toEqual(graceAtBeta);
    expect(await mnemo('whoami', '--url', alpha.url)).toEqual(adaAtAlpha());

    // Signing out of another server leaves the remembered one.
    expect(await mnemo('logout', '--url', alpha.url)).toEqual(
      signedIn(`Signed out of ${alpha.url}.\n`),
    );
    expect(await rememberedServer(home)).toBe(beta.url);
    expect(await mnemo('whoami')).toEqual(graceAtBeta);

    // Signing out of the remembered one forgets it: back to the environment's server.
    expect(onlyJson(await mnemo('logout', '--json'))).toEqual({
      server: beta.url,
      issuer: beta.issuer,
      removed: true,
      revoked: true,
    });
    expect(JSON.parse(await readFile(credentialsIn(home), 'utf8'))).toEqual({ credentials: {} });
    expect(await mnemo('whoami')).toEqual(notSignedIn(DEFAULT));
    expect(await mnemo('whoami', '--url', beta.url)).toEqual(notSignedIn(beta.url));
  });
});

describe('with one-second access tokens', () => {
  let server: OAuthServer;
  let home: string;
  let mnemo: Mnemo;
  let ada: Person;

  beforeAll(async () => {
    server = await startOAuthServer({ MNEMO_ACCESS_TOKEN_TTL_SECONDS: '1' });
    ada = await server.person({ name: 'Ada' });
    home = await configHome();
    // MNEMO_PUBLIC_URL names another server: --url wins.
    mnemo = createMnemo({ XDG_CONFIG_HOME: home, MNEMO_PUBLIC_URL: 'https://elsewhere.test' });
  });
  afterAll(() => server?.close());

  test('whoami refreshes an expired access token and keeps the rotated refresh token', async () => {
    const run = await login(server, mnemo, ['--url', server.url], ada);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      `Signed in to ${server.url} as Ada <${ada.email}>, user ${ada.id}.\nOrganizations: no organization.\n`,
    );
    const first = await stored(home, server.issuer);
    const untilExpired = Math.max(0, Date.parse(first.expiresAt) - Date.now());
    await new Promise((resolve) => setTimeout(resolve, untilExpired));

    const whoami = await mnemo('whoami', '--url', server.url, '--json');
    expect(whoami.stderr).toBe('');
    expect(onlyJson(whoami)).toEqual({
      server: server.url,
      issuer: server.issuer,
      user: { id: ada.id, email: ada.email, name: 'Ada' },
      organizations: [],
    });
    const second = await stored(home, server.issuer);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(Date.parse(second.expiresAt)).toBeGreaterThan(Date.parse(first.expiresAt));
    expect(await readdir(join(home, 'mnemo'))).toEqual(['credentials.json']);

    // A refresh waits for the lock beside the file (were two processes to present the same
    // refresh token, the server would take it for a stolen one and revoke the sign-in); a lock
    // whose holder is dead is broken. A one-second token always needs refreshing.
    const lock = `${credentialsIn(home)}.lock`;
    await writeFile(lock, String(process.pid));
    const waiting = mnemo.start('whoami', '--url', server.url);
    let finished = false;
    void waiting.done.then(() => {
      finished = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(finished).toBe(false);
    await rm(lock);
    expect((await waiting.done).code).toBe(0);
    await writeFile(lock, String(await deadPid()));
    expect((await mnemo('whoami', '--url', server.url)).code).toBe(0);
    const together = await Promise.all([1, 2, 3].map(() => mnemo('whoami', '--url', server.url)));
    for (const one of together) expect(one.code, one.stderr).toBe(0);
    expect((await stored(home, server.issuer)).refreshToken).not.toBe(second.refreshToken);
    expect(await readdir(join(home, 'mnemo'))).toEqual(['credentials.json']);

    // The old refresh token is spent, and presenting it again revokes the whole sign-in
    // (oidc-provider's reuse detection): the next refresh fails, and the CLI forgets it.
    expect(await refreshError(server, first.refreshToken)).toMatchObject({
      error: 'invalid_grant',
    });
    expect(await mnemo('whoami', '--url', server.url)).toEqual(
      failure(
        `not signed in to ${server.issuer} (the sign-in has expired or was revoked): run mnemo login`,
      ),
    );
    expect(await storedCredentials(home)).toEqual({});
  });
});
