/**
 * `mnemo export` and `mnemo import` end to end: the real command in a child process, signed in
 * with a credentials file as `mnemo login` leaves one, against the real app on a loopback port.
 * What they print (exactly), what the store holds afterwards, a second run that resumes without
 * doubling anything, an organization's export moved into another organization, and their
 * refusals.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { MemoryItem } from '../memory/memory.schemas.ts';
import { type OAuthServer, startOAuthServer } from '../testing/oauth-server.ts';
import { createMnemo, type MnemoRun } from './mnemo-process.ts';

let server: OAuthServer;
let dir: string;
beforeAll(async () => {
  server = await startOAuthServer();
  dir = await mkdtemp(join(tmpdir(), 'mnemo-transfer-'));
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

type Who = { orgId: string; token: string; userId: string };
const member = (orgId?: string, role?: 'owner' | 'admin' | 'member') =>
  server.t.fixtures.caller(orgId, role);

let homes = 0;
/** `mnemo`, signed in as `who` at the server (an XDG_CONFIG_HOME of its own). */
async function mnemoAs(who: Who) {
  homes += 1;
  const home = join(dir, `home-${homes}`);
  await mkdir(join(home, 'mnemo'), { recursive: true, mode: 0o700 });
  const credential = {
    clientId: 'mnemo-cli',
    accessToken: who.token,
    refreshToken: 'not used: the access token is fresh for an hour',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    userId: who.userId,
    email: `${who.userId}@example.test`,
  };
  await writeFile(
    join(home, 'mnemo', 'credentials.json'),
    JSON.stringify({ credentials: { [`${server.url}/oauth`]: credential } }),
    { mode: 0o600 },
  );
  const mnemo = createMnemo({ XDG_CONFIG_HOME: home });
  return (...args: string[]) => mnemo(...args, '--url', server.url);
}

async function list(who: Who, query = '') {
  const res = await server.t.request(who, { method: 'GET', url: `/api/v1/memory${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { memories: MemoryItem[]; cursor: string };
}

async function add(who: Who, content: string, extra: Record<string, unknown> = {}) {
  const res = await server.t.request(who, {
    method: 'POST',
    url: '/api/v1/memory',
    payload: { content, ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
}

async function file(name: string, lines: readonly unknown[]) {
  const path = join(dir, name);
  await writeFile(
    path,
    lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n'),
  );
  return path;
}

const linesOf = (stdout: string) =>
  stdout === ''
    ? []
    : stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));

const ok = (run: MnemoRun) => {
  expect(run.stderr.includes('Error') ? run.stderr : '', run.stderr).toBe('');
  expect(run.code, run.stderr).toBe(0);
  return run;
};

describe('mnemo export', () => {
  test('your store as JSON lines on stdout, as the list holds it; the count and the cursor on stderr', async () => {
    const who = await member();
    await add(who, 'Likes tea', { category: 'preference' });
    await add(who, 'Runs on Sundays');
    const mnemo = await mnemoAs(who);
    const run = ok(await mnemo('export'));
    const { memories, cursor } = await list(who);
    expect(linesOf(run.stdout)).toEqual(memories);
    expect(run.stderr).toBe(
      `mnemo: exported 2 memories; continue with GET /api/v1/memory?since=${cursor}\n`,
    );
  });

  test('a pool, and every store of an organization for its owner', async () => {
    const owner = await member(undefined, 'owner');
    const project = await server.t.fixtures.project(owner.orgId, { [owner.userId]: 'owner' });
    await add(owner, 'Deploys on Fridays', { project });
    await add(owner, 'Likes tea');
    const mnemo = await mnemoAs(owner);
    const pool = ok(await mnemo('export', '--project', project));
    expect(linesOf(pool.stdout).map((m) => m.content)).toEqual(['Deploys on Fridays']);
    const all = ok(await mnemo('export', '--org', owner.orgId));
    expect(
      linesOf(all.stdout)
        .map((l) => `${JSON.stringify(l.store)} ${l.memory.content}`)
        .sort(),
    ).toEqual(
      [
        `{"project":"${project}"} Deploys on Fridays`,
        `{"user":"${owner.userId}"} Likes tea`,
      ].sort(),
    );
    expect(all.stderr).toBe('mnemo: exported 2 memories\n');
  });

  test('refusals: the API’s sentence, exit 1; a wrong command line, exit 2', async () => {
    const who = await member();
    const mnemo = await mnemoAs(who);
    const refused = await mnemo('export', '--org', who.orgId);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: 'mnemo: only owners can export the organization\n',
    });
    const json = await mnemo('export', '--json');
    expect(json.code).toBe(2);
    expect(json.stderr).toContain(
      'export does not take --json: its standard output is the memories',
    );
    const both = await mnemo('export', '--user', who.userId, '--project', who.userId);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give --user or --project, not both');
  });
});

describe('mnemo import', () => {
  test('each line an add: created, folded, invalid with its line; a second run folds it all', async () => {
    const who = await member();
    await add(who, 'Already remembered');
    const path = await file('mixed.jsonl', [
      { content: 'Flies to Lisbon in May', category: 'goal', createdAt: '2024-07-20T10:00:00Z' },
      { content: 'already remembered' },
      '',
      'not json at all',
      { content: '   ' },
      {
        id: '0b5bdfd4-4a5b-4f57-9a39-5d4e4a1c3f10',
        content: 'Lives in Porto',
        createdAt: '2023-01-02T03:04:05.678Z',
        updatedAt: '2023-05-06T07:08:09.000Z',
      },
      [1, 2],
      { content: 'Prefers tea', mood: 'calm' },
      { content: 'flies to lisbon in may' },
    ]);
    const mnemo = await mnemoAs(who);
    const run = ok(await mnemo('import', path, '--json'));
    expect(JSON.parse(run.stdout)).toEqual({
      created: 2,
      folded: 2,
      invalid: 4,
      errors: [
        { line: 4, error: 'not JSON' },
        { line: 5, error: 'content is required' },
        { line: 7, error: 'not a JSON object' },
        { line: 8, error: 'unknown field: mood' },
      ],
    });
    const stored = (await list(who)).memories;
    expect(stored.map((m) => [m.content, m.category, m.createdAt])).toEqual([
      ['Lives in Porto', undefined, '2023-01-02T03:04:05.678Z'],
      ['Flies to Lisbon in May', 'goal', '2024-07-20T10:00:00.000Z'],
      ['Already remembered', undefined, expect.any(String)],
    ]);
    expect(stored.find((m) => m.content === 'Lives in Porto')?.id).not.toBe(
      '0b5bdfd4-4a5b-4f57-9a39-5d4e4a1c3f10',
    );

    // Run again, as after a stop: nothing doubles.
    const again = ok(await mnemo('import', path));
    expect(again.stdout).toBe(
      [
        `imported ${path}: 0 created, 4 folded into memories already there, 4 not imported (of 8)`,
        '  line 4: not JSON',
        '  line 5: content is required',
        '  line 7: not a JSON object',
        '  line 8: unknown field: mood',
        '',
      ].join('\n'),
    );
    expect((await list(who)).memories).toEqual(stored);
  });

  test('more than one request of memories, in order, into an end user found by the app’s id', async () => {
    const owner = await member(undefined, 'owner');
    const contents = Array.from({ length: 2300 }, (_, i) => `Customer fact ${i}`);
    const path = await file(
      'many.jsonl',
      contents.map((content) => ({ content })),
    );
    const mnemo = await mnemoAs(owner);
    const run = ok(await mnemo('import', path, '--end-user', 'customer-7', '--json'));
    expect(JSON.parse(run.stdout)).toEqual({ created: 2300, folded: 0, invalid: 0, errors: [] });
    const found = await server.t.request(owner, {
      method: 'GET',
      url: `/api/v1/orgs/${owner.orgId}/end-users/customer-7`,
    });
    expect(found.statusCode).toBe(200);
    const endUser = found.json().endUser;
    expect(endUser.memories.own).toBe(2300);
    const stored = (await list(owner, `?user=${endUser.id}`)).memories.map((m) => m.content);
    expect(stored.sort()).toEqual([...contents].sort());
  });

  test('an organization’s export into another organization: each line to its store, end users by the app’s id, a store it cannot have refused alone', async () => {
    const owner = await member(undefined, 'owner');
    const project = await server.t.fixtures.project(owner.orgId, { [owner.userId]: 'owner' });
    await add(owner, 'Likes tea');
    await add(owner, 'Deploys on Fridays', { project });
    const registered = await server.t.request(owner, {
      method: 'PUT',
      url: `/api/v1/orgs/${owner.orgId}/end-users/customer-42`,
      payload: {},
    });
    await add(owner, 'Customer prefers email', { user: registered.json().endUser.id });
    const mnemo = await mnemoAs(owner);
    const exported = ok(await mnemo('export', '--org', owner.orgId));
    const path = join(dir, 'org.jsonl');
    await writeFile(path, exported.stdout);

    // The same owner, in a new organization where the project does not exist.
    const otherOrg = await server.t.fixtures.org();
    await server.t.fixtures.member(otherOrg, owner.userId, 'owner');
    const moved = await mnemo('import', path, '--org', otherOrg, '--json');
    expect(moved.code, moved.stderr).toBe(0);
    const written = (await readFile(path, 'utf8')).trimEnd().split('\n');
    const lineOf = (content: string) => written.findIndex((line) => line.includes(content)) + 1;
    expect(JSON.parse(moved.stdout)).toEqual({
      created: 2,
      folded: 0,
      invalid: 1,
      errors: [
        {
          line: lineOf('Deploys on Fridays'),
          error: 'its store was refused: project not found',
        },
      ],
    });
    const inOther = { ...owner, orgId: otherOrg };
    expect((await list(inOther)).memories.map((m) => m.content)).toEqual(['Likes tea']);
    const customer = await server.t.request(inOther, {
      method: 'GET',
      url: `/api/v1/orgs/${otherOrg}/end-users/customer-42`,
    });
    expect(customer.statusCode).toBe(200);
    expect(customer.json().endUser.id).not.toBe(registered.json().endUser.id);
    expect(
      (await list(inOther, `?user=${customer.json().endUser.id}`)).memories.map((m) => m.content),
    ).toEqual(['Customer prefers email']);

    // An organization's export names each store: a store on the command line is refused.
    const named = await mnemo('import', path, '--user', owner.userId);
    expect(named.code).toBe(1);
    expect(named.stderr).toBe(
      "mnemo: line 1 names its store (the file is an organization's export): import it without --user, --end-user or --project\n",
    );
  });

  test('--format mem0: get_all results and exports, categories mapped, createdAt kept; several mem0 users warned of', async () => {
    const who = await member();
    const mnemo = await mnemoAs(who);
    const fixture = (name: string) =>
      fileURLToPath(new URL(`./fixtures/mem0/${name}`, import.meta.url));
    const run = ok(await mnemo('import', fixture('platform-v2-list.json'), '--format', 'mem0'));
    expect(run.stdout).toBe(
      `imported ${fixture('platform-v2-list.json')}: 6 created, 0 folded into memories already there, 0 not imported (of 6)\n`,
    );
    expect(
      (await list(who)).memories.map((m) => [m.content, m.category ?? null, m.createdAt]),
    ).toEqual([
      ['Does not like spicy food', 'preference', '2024-07-26T06:57:00.108Z'],
      ['Works as a software engineer at a fintech startup', 'identity', '2024-07-26T10:30:12.100Z'],
      ['Planning a trip to Japan next spring', null, '2024-07-27T08:00:00.000Z'],
      ['Sister Maya lives in Lisbon', 'relationship', '2024-07-28T12:00:00.000Z'],
      ['Wants to run a marathon before turning forty', 'goal', '2024-07-29T02:15:00.500Z'],
      ['Just added, not categorised yet', null, '2024-07-30T16:00:00.000Z'],
    ]);

    // get_memory_export's answer, {"data": {"memories": [...]}}: a record without text by its place.
    const exported = await mnemo(
      'import',
      fixture('platform-export-data.json'),
      '--format',
      'mem0',
      '--json',
    );
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toEqual({
      created: 2,
      folded: 0,
      invalid: 1,
      errors: [{ line: 3, error: 'no memory text (memory, text or content)' }],
    });
    const lines = await mnemo('import', fixture('get-all-lines.jsonl'), '--format', 'mem0');
    expect(lines.code).toBe(0);
    expect(lines.stderr).toBe(
      "mnemo: warning: the file holds the memories of 2 mem0 users (lee, priya); they all go to one store: import each user's file on its own to keep them apart\n",
    );
    expect(lines.stdout).toBe(
      [
        `imported ${fixture('get-all-lines.jsonl')}: 3 created, 0 folded into memories already there, 4 not imported (of 7)`,
        '  line 4: its created_at is not a date-time: "yesterday"',
        '  line 5: no memory text (memory, text or content)',
        '  line 6: its memory is empty',
        '  line 7: not JSON',
        '',
      ].join('\n'),
    );
    const notMem0 = await mnemo('import', fixture('../../mem0-import.ts'), '--format', 'mem0');
    expect(notMem0.code).toBe(1);
    expect(notMem0.stderr).toMatch(/^mnemo: not a mem0 file: /);
  });

  test('refusals: a missing file, a store it may not write, a wrong command line', async () => {
    const who = await member();
    const mnemo = await mnemoAs(who);
    expect(await mnemo('import', join(dir, 'nothing-here.jsonl'))).toEqual({
      code: 1,
      stdout: '',
      stderr: `mnemo: cannot read ${join(dir, 'nothing-here.jsonl')}: no such file\n`,
    });
    const path = await file('one.jsonl', [{ content: 'Likes tea' }]);
    const project = await server.t.fixtures.project(who.orgId);
    expect(await mnemo('import', path, '--project', project)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'mnemo: editor access to this project is required\n',
    });
    const none = await mnemo('import');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('FILE is required');
    const two = await mnemo('import', path, path);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain(`unexpected argument "${path}"`);
    const format = await mnemo('import', path, '--format', 'csv');
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('--format must be one of jsonl, mem0, not "csv"');
  });
});
