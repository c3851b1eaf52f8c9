/**
 * The Python client (clients/python) against the real server, on the suite's engine: this file
 * starts the servers and makes what the Python tests need (an organization, members with
 * credentials, apps, a cursor too old to serve), hands it to pytest as JSON in
 * MNEMO_PYTHON_TEST_SERVERS, and passes when pytest does. It also holds the package to
 * mypy --strict. Both need Debian's Python packages (.ci/run installs them): without them the
 * tests fail and say so, they are never skipped.
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { purgeTombstones } from '../../src/memory/tombstone-retention.ts';
import { type OAuthServer, startOAuthServer } from '../../src/testing/oauth-server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Debian's Python, which has the packages; the `python3` on PATH may be another. */
const PYTHON = '/usr/bin/python3';
const MODULES = 'httpx, pytest, hypothesis, pytest_asyncio, mypy';
const PACKAGES =
  'python3-httpx python3-pytest python3-pytest-asyncio python3-hypothesis python3-mypy';

/** Client-credentials tokens live this long on the `tokens` server: replaced after half (3 s). */
const TOKEN_TTL_SECONDS = 6;
/** Requests a minute on the `limited` server. */
const RATE_LIMIT = 20;
/** Members handed out to the Python tests, one per store a test needs fresh. */
const POOL_SIZE = 56;

const servers: OAuthServer[] = [];
let config: unknown;

interface Run {
  readonly code: number | null;
  readonly output: string;
}

/** Runs a command without blocking the event loop: the servers answer from this process. */
function run(command: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      // No __pycache__ in the work tree.
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Fails, saying what to install, when Debian's Python or its packages are missing. */
async function requirePython(): Promise<void> {
  const found = await run(PYTHON, ['-c', `import ${MODULES}`]).catch((error: unknown) => ({
    code: -1,
    output: String(error),
  }));
  if (found.code !== 0) {
    throw new Error(
      `the Python client's tests need ${PYTHON} with ${MODULES}: ` +
        `apt-get install -y ${PACKAGES} (as .ci/run does)\n${found.output}`,
    );
  }
}

async function post(server: OAuthServer, token: string, path: string, body: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return response.json();
}

/** An app of the organization, registered by its owner through the API (its secret shown once). */
async function app(server: OAuthServer, orgId: string, ownerToken: string, role: string) {
  const created = (await post(server, ownerToken, `/api/v1/orgs/${orgId}/apps`, {
    name: `Python ${role} app`,
    role,
  })) as { app: { id: string; userId: string }; secret: string };
  return { id: created.app.id, userId: created.app.userId, secret: created.secret };
}

/**
 * A member whose `cursor` the server can no longer serve (410): a deletion after it, then every
 * tombstone purged as a retention window would, a month from now.
 */
async function staleCursor(server: OAuthServer, orgId: string) {
  const who = await server.t.fixtures.user(orgId);
  const memory = (body: unknown, method = 'POST') => server.memory(who.token, orgId, method, body);
  const kept = (
    (await (await memory({ content: 'Kept through the purge' })).json()) as {
      memory: { id: string };
    }
  ).memory;
  const gone = (
    (await (await memory({ content: 'Gone before the purge' })).json()) as {
      memory: { id: string };
    }
  ).memory;
  const { cursor } = (await (await memory(undefined, 'GET')).json()) as { cursor: string };
  const deleted = await fetch(`${server.url}/api/v1/memory/${gone.id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${who.token}`, 'x-organization-id': orgId },
  });
  expect(deleted.status).toBe(200);
  expect(await purgeTombstones(server.t.database, 30, Date.now() + 31 * 86_400_000)).toBe(1);
  return { ...who, cursor, keptId: kept.id };
}

beforeAll(async () => {
  const [main, tokens, limited] = await Promise.all([
    startOAuthServer({ MNEMO_OPTIMISTIC_CONCURRENCY: 'on' }),
    startOAuthServer({ MNEMO_ACCESS_TOKEN_TTL_SECONDS: String(TOKEN_TTL_SECONDS) }),
    startOAuthServer({ MNEMO_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) }),
  ]);
  servers.push(main, tokens, limited);

  const orgId = await main.t.fixtures.org();
  const owner = await main.t.fixtures.user(orgId, 'owner');
  const members = [];
  for (let i = 0; i < POOL_SIZE; i++) members.push(await main.t.fixtures.user(orgId));
  const projects = [];
  for (let i = 0; i < 4; i++) {
    const editor = await main.t.fixtures.user(orgId);
    projects.push({ id: await main.t.fixtures.project(orgId, { [editor.id]: 'editor' }), editor });
  }
  const outsider = await main.t.fixtures.user(await main.t.fixtures.org());

  const tokensOrg = await tokens.t.fixtures.org();
  const tokensOwner = await tokens.t.fixtures.user(tokensOrg, 'owner');
  const limitedOrg = await limited.t.fixtures.org();

  config = {
    main: {
      url: main.url,
      orgId,
      owner,
      members,
      projects,
      outsider,
      adminApp: await app(main, orgId, owner.token, 'admin'),
      stale: await staleCursor(main, orgId),
    },
    tokens: {
      url: tokens.url,
      orgId: tokensOrg,
      owner: tokensOwner,
      app: await app(tokens, tokensOrg, tokensOwner.token, 'member'),
      ttlSeconds: TOKEN_TTL_SECONDS,
    },
    limited: {
      url: limited.url,
      orgId: limitedOrg,
      limit: RATE_LIMIT,
      members: [
        await limited.t.fixtures.user(limitedOrg),
        await limited.t.fixtures.user(limitedOrg),
      ],
    },
  };
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

// Concurrent: mypy's CPU overlaps pytest's waits for the rate limit's minute.
test.concurrent('pytest passes against the real server', async () => {
  await requirePython();
  const pytest = await run(
    PYTHON,
    ['-m', 'pytest', 'clients/python/tests', '-q', '-p', 'no:cacheprovider'],
    { MNEMO_PYTHON_TEST_SERVERS: JSON.stringify(config) },
  );
  // Printed when it fails, so that the failing assertion is read here.
  expect(pytest.code, pytest.output).toBe(0);
  const summary = pytest.output.trim().split('\n').at(-1);
  process.stdout.write(`clients/python: ${summary}\n`);
}, 240_000);

/**
 * The types do not depend on the store: checked once a suite run, in the SQLite project (which
 * always runs). The cache outlives the run, so that typeshed and httpx are read once a machine.
 */
if (process.env.MNEMO_TEST_ENGINE !== 'postgres') {
  test.concurrent('the package is clean under mypy --strict', async () => {
    await requirePython();
    const mypy = await run(PYTHON, [
      '-m',
      'mypy',
      '--strict',
      '--config-file',
      'clients/python/pyproject.toml',
      '--cache-dir',
      join(tmpdir(), 'mnemo-python-client-mypy'),
      'clients/python/src/mnemo',
      'clients/python/tests',
    ]);
    expect(mypy.code, mypy.output).toBe(0);
  }, 120_000);
}
