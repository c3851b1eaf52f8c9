/**
 * The quick start of the README: `npm start` on an empty store creates the demo organization and
 * user and prints a credential and a curl line that works as printed; a later start finds them
 * again. A bad configuration or an unknown schema stops the process with a message, exit code 2.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, test } from 'vitest';
import { createDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrator.ts';
import { Browser } from './testing/browser.ts';
import { storesOfThisFile } from './testing/file-stores.ts';
import { type ServerProcess, startServerProcess } from './testing/server-process.ts';

const run = promisify(execFile);
const newStore = storesOfThisFile();
const servers: ServerProcess[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});
/** An empty store of the suite's engine. */
async function emptyStore(): Promise<string> {
  return (await newStore()).url;
}

async function start(databaseUrl: string): Promise<ServerProcess> {
  const server = await startServerProcess({
    env: { MNEMO_DATABASE_URL: databaseUrl, MNEMO_LOG_LEVEL: 'warn' },
  });
  servers.push(server);
  return server;
}

async function announcement(server: ServerProcess) {
  const [, orgId, userId, signIn] = await server.waitForStderr(
    /demo organization: ([0-9a-f-]{36})\ndemo user: +([0-9a-f-]{36})\ndemo sign-in: +([^\n]+)\n/,
  );
  const [, token] = await server.waitForStderr(/platform credential \(24 h\):\n([\w.-]+)\n/);
  const [, curl] = await server.waitForStderr(/try it:\n(curl [^\n]+)\n/);
  return {
    orgId: orgId as string,
    userId: userId as string,
    signIn: signIn as string,
    token: token as string,
    curl: curl as string,
  };
}

test('npm start runs the process entry this test starts', () => {
  const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts;
  expect(scripts.start).toBe('node src/main.ts');
});

test('an empty store: the demo account, a credential and a curl line that works as printed', async () => {
  const databaseUrl = await emptyStore();
  const first = await start(databaseUrl);
  const demo = await announcement(first);
  expect(first.stderr()).toContain(`mnemo is serving on ${first.url}`);
  expect(first.stderr()).toContain(`studio:            ${first.url}/studio/`);
  expect(first.stderr()).toContain(`sign-in pages:     ${first.url}/oauth\n`);
  // The studio is built by npm install and served by this process.
  const studio = await fetch(`${first.url}/studio/`);
  expect(studio.status).toBe(200);
  expect(await studio.text()).toContain('<div id="root">');
  expect(demo.signIn).toMatch(/^demo@mnemo\.local \/ [\w-]{16} \(shown this once\)$/);
  // The printed password signs in on the sign-in pages (the README's "Sign in" section).
  const password = (demo.signIn.split(' / ')[1] as string).split(' ')[0] as string;
  const callback = `${first.url}/studio/callback`;
  const browser = new Browser();
  const signInPage = await browser.open(
    `${first.url}/oauth/auth?client_id=mnemo-studio&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(callback)}&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`,
  );
  const signedIn = await browser.submit(
    signInPage,
    { email: 'demo@mnemo.local', password },
    { stopAt: (url) => url.startsWith(callback) },
  );
  expect(new URL(signedIn.url).searchParams.get('code')).toEqual(expect.any(String));
  expect(demo.curl).toContain(`Authorization: Bearer ${demo.token}`);
  expect(demo.curl).toContain(`X-Organization-Id: ${demo.orgId}`);

  const printed = await run('bash', ['-c', `${demo.curl} -w '\\n%{http_code}'`]);
  const [body, code] = printed.stdout.trimEnd().split('\n');
  expect(code).toBe('200');
  expect(JSON.parse(body as string)).toEqual({ memories: [], cursor: expect.any(String) });

  const added = await fetch(`${first.url}/api/v1/memory`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${demo.token}`,
      'x-organization-id': demo.orgId,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ content: 'Prefers tea over coffee', category: 'preference' }),
  });
  expect(added.status).toBe(201);
  await first.stop();

  // A restart on the same store: the same account, a fresh credential, the memory still there.
  const second = await start(databaseUrl);
  const again = await announcement(second);
  expect({ orgId: again.orgId, userId: again.userId }).toEqual({
    orgId: demo.orgId,
    userId: demo.userId,
  });
  expect(again.signIn).toBe(
    'demo@mnemo.local (its password was printed when the store was created)',
  );
  const listed = await run('bash', ['-c', again.curl]);
  const { memories } = JSON.parse(listed.stdout) as { memories: Array<{ content: string }> };
  expect(memories.map((m) => m.content)).toEqual(['Prefers tea over coffee']);
});

test('stdout carries only the JSON log lines; the banner goes to stderr', async () => {
  const server = await startServerProcess({
    env: { MNEMO_DATABASE_URL: await emptyStore(), MNEMO_LOG_LEVEL: 'info' },
  });
  servers.push(server);
  const { token, orgId } = await announcement(server);
  const listed = await fetch(`${server.url}/api/v1/memory`, {
    headers: { authorization: `Bearer ${token}`, 'x-organization-id': orgId },
  });
  expect(listed.status).toBe(200);
  await server.waitForStdout(/"msg":"request completed"/);
  await server.stop();

  const lines = server.stdout().trimEnd().split('\n');
  expect(lines.length).toBeGreaterThan(2);
  for (const line of lines) {
    expect(JSON.parse(line)).toMatchObject({ level: expect.any(Number), msg: expect.any(String) });
  }
  expect(server.stdout()).not.toContain(token);
  expect(server.stderr()).toMatch(/^\nmnemo is serving on http:\/\/127\.0\.0\.1:\d+\n/);
  expect(server.stderr()).toContain(`\n${token}\n`);
  expect(
    server
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{')),
  ).toEqual([]);
});

describe('refusing to start', () => {
  async function failedStart(env: Record<string, string>) {
    const child = spawn(process.execPath, ['src/main.ts'], {
      env: { PATH: process.env.PATH ?? '', MNEMO_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    return { code, stdout, stderr };
  }

  test('a port in use: exit 1 and one line that says so and how to choose another', async () => {
    const first = await start(await emptyStore());
    const { code, stdout, stderr } = await failedStart({
      MNEMO_DATABASE_URL: await emptyStore(),
      PORT: String(first.port),
    });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `mnemo: port ${first.port} on 127.0.0.1 is already in use (is mnemo already running?); choose another with PORT, e.g. PORT=${first.port + 1} npm start\n`,
    );
    expect(stdout).toBe('');
    // The first one serves on.
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  });

  test('a bad configuration: exit 2 and one line naming the variable', async () => {
    const { code, stderr } = await failedStart({ MNEMO_ENV: 'prod', PORT: '0' });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^mnemo: invalid configuration: MNEMO_ENV/);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  test('a bad gateway catalog: exit 2 with every problem, before the store is opened', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mnemo-catalog-'));
    const file = join(dir, 'mnemo.config.json');
    writeFileSync(
      file,
      JSON.stringify({
        providers: { local: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1' } },
        models: [{ id: 'local/llama3.1', provider: 'ollama', upstream: 'llama3.1:8b' }],
      }),
    );
    const store = await newStore();
    const { code, stderr } = await failedStart({
      MNEMO_DATABASE_URL: store.url,
      MNEMO_CONFIG: file,
      PORT: '0',
    });
    expect(code).toBe(2);
    expect(stderr).toBe(
      `mnemo: invalid gateway configuration in ${file}: $.providers.local.apiKeyEnv: is required; $.models[0].provider: unknown provider "ollama" (configured: local); $.models[0].contextWindow: is required; $.models[0].id: "local/llama3.1" must start with its provider: ollama/\n`,
    );
    expect(await store.untouched()).toBe(true);
    const missing = await failedStart({ MNEMO_CONFIG: join(dir, 'nope.json'), PORT: '0' });
    expect(missing).toMatchObject({
      code: 2,
      stderr: `mnemo: MNEMO_CONFIG names ${join(dir, 'nope.json')}, which does not exist\n`,
    });
  });

  test('a schema written by a newer mnemo: exit 2, and the store is left as it was', async () => {
    const url = await emptyStore();
    const database = createDatabase(url);
    const known = await migrateToLatest(database.db);
    await database.db
      .insertInto('kysely_migration' as never)
      .values({ name: '2099-01-01T00_future', timestamp: new Date().toISOString() } as never)
      .execute();
    await database.close();
    const { code, stderr } = await failedStart({ MNEMO_DATABASE_URL: url, PORT: '0' });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^mnemo: the database schema is newer than this mnemo/);
    expect(stderr).toContain('2099-01-01T00_future');
    const after = createDatabase(url);
    try {
      const migrations = await after.db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .execute();
      // This mnemo's migrations and the newer one: nothing applied, nothing undone.
      expect(migrations).toHaveLength(known.length + 1);
      expect(await after.db.selectFrom('organizations').select('id').execute()).toEqual([]);
      expect(await after.db.selectFrom('signing_keys').select('kid').execute()).toEqual([]);
    } finally {
      await after.close();
    }
  });
});

describe('the start banner says what the gateway can route to', () => {
  test('nothing configured: says so and where to read how', async () => {
    const server = await startServerProcess({
      env: {
        MNEMO_DATABASE_URL: await emptyStore(),
        MNEMO_LOG_LEVEL: 'warn',
        MNEMO_SEED_DEMO: 'off',
      },
    });
    servers.push(server);
    await server.waitForStderr(/studio: +\S+\n/);
    expect(server.stderr()).toContain(
      `studio:            ${server.url}/studio/\ngateway:           no provider configured — see docs/gateway.md\n`,
    );
  });

  test('providers switched on by their keys: how many models from how many providers', async () => {
    const server = await startServerProcess({
      env: {
        MNEMO_DATABASE_URL: await emptyStore(),
        MNEMO_LOG_LEVEL: 'warn',
        OPENAI_API_KEY: 'sk-test',
        ANTHROPIC_API_KEY: 'sk-ant-test',
      },
    });
    servers.push(server);
    await announcement(server);
    // The built-in catalog: five OpenAI models and three of Anthropic's.
    expect(server.stderr()).toContain('\ngateway:           8 models from 2 providers\n');
  });
});
