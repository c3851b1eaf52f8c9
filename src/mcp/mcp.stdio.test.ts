/**
 * `mnemo mcp` as an MCP client runs it: the real command in a child process, spoken to over
 * stdio by the official client in both protocol eras, signed in with a credentials file as
 * `mnemo login` leaves one, talking to a real app on a loopback port. The tools answer as
 * `/mcp` does (testing/mcp-world.ts); then what is the command's own: the organization it
 * acts in, a missing sign-in, an unreachable server, its command line.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, test } from 'vitest';
import { createMnemo } from '../cli/mnemo-process.ts';
import {
  type Connect,
  callTool,
  describeMemoryTools,
  ERAS,
  type McpWorld,
  type Person,
  refusal,
  withMcpWorld,
} from '../testing/mcp-world.ts';
import { scopedToken } from '../testing/scoped-token.ts';
import { freePort } from '../testing/server-process.ts';

const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const world = withMcpWorld();

const homes: string[] = [];
afterAll(() => Promise.all(homes.map((home) => rm(home, { recursive: true, force: true }))));

/** An XDG_CONFIG_HOME whose credentials file holds `token` for `who` at `url`'s server. */
async function signedIn(
  w: McpWorld,
  who: Person | undefined,
  token = who?.token,
  url = w.url,
): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'mnemo-mcp-'));
  homes.push(home);
  if (!who || token === undefined) return home;
  await mkdir(join(home, 'mnemo'), { mode: 0o700 });
  const credential = {
    clientId: 'mnemo-cli',
    accessToken: token,
    refreshToken: 'not used: the access token is fresh for an hour',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    userId: who.id,
    email: who.email,
  };
  await writeFile(
    join(home, 'mnemo', 'credentials.json'),
    JSON.stringify({ credentials: { [`${url}/oauth`]: credential } }),
    { mode: 0o600 },
  );
  return home;
}

interface Session {
  readonly client: Client;
  /** What the command wrote on stderr so far. */
  stderr(): string;
}

/** Starts `mnemo mcp …args` as a client configured with a command does, and connects to it. */
async function session(home: string, args: string[], era: 'legacy' | 'modern' = 'legacy') {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/mnemo.js', 'mcp', ...args],
    cwd: REPOSITORY_ROOT,
    env: { XDG_CONFIG_HOME: home, MNEMO_LOG_LEVEL: 'silent' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const mode = ERAS.find((e) => e.era === era)?.mode ?? 'legacy';
  const client = new Client(
    { name: 'mnemo-test', version: '1.0.0' },
    { versionNegotiation: { mode } },
  );
  await client.connect(transport);
  return { client, stderr: () => stderr } satisfies Session;
}

const connect: Connect = async (who, orgId, era) => {
  const w = world();
  const home = await signedIn(w, who);
  return (await session(home, ['--url', w.url, '--org', orgId], era)).client;
};

describeMemoryTools('mnemo mcp', world, connect);

describe('mnemo mcp, the command', () => {
  const open: Client[] = [];
  afterAll(() => Promise.all(open.map((client) => client.close())));
  async function start(home: string, args: string[]) {
    const started = await session(home, args);
    open.push(started.client);
    return started;
  }

  test("without --org it acts in the user's only organization, and writes nothing on stderr", async () => {
    const w = world();
    const ada = await w.person();
    const { client, stderr } = await start(await signedIn(w, ada), ['--url', w.url]);
    expect((await callTool(client, 'whoami')).structuredContent).toEqual({
      user: { id: ada.id, email: ada.email },
      organization: { id: w.orgId, name: 'Acme' },
      role: 'member',
    });
    expect((await callTool(client, 'add_memory', { content: 'Uses vim' })).isError).toBeUndefined();
    expect(stderr()).toBe('');
  });

  test('a member of several organizations is asked for --org, by every tool', async () => {
    const w = world();
    const ada = await w.person({ alsoIn: w.offOrgId });
    const { client } = await start(await signedIn(w, ada), ['--url', w.url]);
    const ask = refusal(
      `${ada.email} belongs to several organizations: Acme (${w.orgId}), Dormant (${w.offOrgId}); run mnemo mcp with --org ID to choose one`,
    );
    expect(await callTool(client, 'whoami')).toEqual(ask);
    expect(await callTool(client, 'list_memories')).toEqual(ask);
    expect(await callTool(client, 'list_projects')).toEqual(ask);
  });

  test('--org of an organization the user is not in: the API’s 403, as a tool error', async () => {
    const w = world();
    const ada = await w.person();
    const { client } = await start(await signedIn(w, ada), ['--url', w.url, '--org', w.offOrgId]);
    const outsider = refusal('not a member of this organization');
    expect(await callTool(client, 'whoami')).toEqual(outsider);
    expect(await callTool(client, 'search_memories', { query: 'x' })).toEqual(outsider);
  });

  test('not signed in: every tool says to run mnemo login', async () => {
    const w = world();
    const { client } = await start(await signedIn(w, undefined), ['--url', w.url]);
    const notSignedIn = refusal(`not signed in to ${w.url}/oauth: run mnemo login`);
    expect(await callTool(client, 'whoami')).toEqual(notSignedIn);
    expect(await callTool(client, 'add_memory', { content: 'x' })).toEqual(notSignedIn);
  });

  test('a credential that may only read: writes are refused with the scope it lacks', async () => {
    const w = world();
    const ada = await w.person();
    const token = await scopedToken(w.t, ada.id, 'memory:read');
    const { client } = await start(await signedIn(w, ada, token), [
      '--url',
      w.url,
      '--org',
      w.orgId,
    ]);
    expect((await callTool(client, 'list_memories')).structuredContent).toEqual({
      memories: [],
      cursor: expect.any(String),
    });
    expect(await callTool(client, 'add_memory', { content: 'x' })).toEqual(
      refusal('the credential lacks the memory:write scope'),
    );
  });

  test('a server that cannot be reached: the tools say so', async () => {
    const w = world();
    const ada = await w.person();
    const gone = `http://127.0.0.1:${await freePort()}`;
    const { client } = await start(await signedIn(w, ada, ada.token, gone), [
      '--url',
      gone,
      '--org',
      w.orgId,
    ]);
    expect(await callTool(client, 'whoami')).toEqual(refusal(`cannot reach ${gone}: ECONNREFUSED`));
    // Signed in at the world's server, not at this one.
    const other = await start(await signedIn(w, ada), ['--url', gone]);
    expect(await callTool(other.client, 'whoami')).toEqual(
      refusal(`not signed in to ${gone}/oauth: run mnemo login`),
    );
  });
});

describe('mnemo mcp, its command line', () => {
  const mnemo = createMnemo({});

  test('it ends, having printed nothing, when its client closes standard input', async () => {
    const w = world();
    const run = await mnemo('mcp', '--url', w.url);
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  test('usage errors: exit 2 before anything is served', async () => {
    const usage = 'usage: mnemo mcp [--org ID] [--url URL]\n';
    expect(await mnemo('mcp', '--org', 'acme')).toEqual({
      code: 2,
      stdout: '',
      stderr: `mnemo: --org must be a UUID, not "acme"\n${usage}`,
    });
    expect(await mnemo('mcp', '--url', 'ftp://x')).toEqual({
      code: 2,
      stdout: '',
      stderr: `mnemo: --url must be an http or https URL, not "ftp://x"\n${usage}`,
    });
    expect(await mnemo('mcp', '--url', 'http://mnemo.example.com')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^mnemo: refusing plain http to mnemo\.example\.com/),
    });
    const json = await mnemo('mcp', '--json');
    expect(json.code).toBe(2);
    expect(json.stdout).toBe(
      `${JSON.stringify({ error: 'mcp does not take --json: its standard output is the MCP protocol' })}\n`,
    );
  });
});
