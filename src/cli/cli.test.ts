/**
 * The `mnemo` command line as an operator meets it: help, usage errors (exit 2, before the store
 * is touched), configuration errors, `migrate` and `token`. Every case runs the real command.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodeJwt, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDatabase } from '../db/database.ts';
import { createTestStore, type TestStore } from '../testing/test-store.ts';
import { createMnemo, type MnemoRun, onlyJson } from './mnemo-process.ts';

const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;
const run = promisify(execFile);
const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The provisioning lines of docs/design.md §4 and the commands this build adds. */
const USAGE_LINES = [
  'mnemo serve',
  'mnemo migrate',
  'mnemo admin org create --name NAME [--id UUID] [--memory on|off] [--user-override members|admins]',
  'mnemo admin org set --org ID [--memory on|off] [--user-override members|admins]',
  'mnemo admin user create --email EMAIL [--id UUID] [--name NAME] [--password PW]',
  'mnemo admin user set --user ID [--status active|suspended|banned] [--password-stdin]',
  'mnemo admin user erase --user ID',
  'mnemo admin member add --org ID --user ID [--role owner|admin|member]',
  'mnemo admin member remove --org ID --user ID',
  'mnemo admin project create --org ID --name NAME [--id UUID]',
  'mnemo admin project grant --project ID --user ID --access viewer|editor|owner',
  'mnemo admin project revoke --project ID --user ID',
  'mnemo admin client create --name NAME --type public|confidential [--redirect-uri URI]... [--grant authorization_code|refresh_token|client_credentials|device_code]... [--user ID]',
  'mnemo admin keys rotate',
  'mnemo admin audit list --org ID [--limit N]',
  'mnemo token --user ID [--ttl SECONDS]',
  'mnemo login [--url URL]',
  'mnemo whoami [--url URL]',
  'mnemo logout [--url URL]',
  'mnemo export [--user ID | --project ID | --org ID] [--url URL] > FILE.jsonl',
  'mnemo import FILE [--user ID | --end-user EXTERNAL_ID | --project ID] [--format jsonl|mem0] [--org ID] [--url URL]',
  'mnemo mcp [--org ID] [--url URL]',
];
const usageOf = (start: string) => USAGE_LINES.filter((line) => line.startsWith(start));

let store: TestStore;
let mnemo: ReturnType<typeof createMnemo>;

beforeAll(async () => {
  store = await createTestStore();
  mnemo = createMnemo({ MNEMO_DATABASE_URL: store.url });
});
afterAll(() => store.dispose());

/**
 * A usage error: exit 2, the message and then the usage lines on stderr; on stdout nothing, or
 * with `--json` among the words, the message as one `{"error"}` object.
 */
function expectUsageError(run: MnemoRun, message: string, usage: readonly string[], json = false) {
  const lines = usage.map((line, i) => `${i === 0 ? 'usage: ' : '       '}${line}`);
  expect(run).toEqual({
    code: 2,
    stdout: json ? `${JSON.stringify({ error: message })}\n` : '',
    stderr: `mnemo: ${message}\n${lines.join('\n')}\n`,
  });
}

describe('help', () => {
  test('--help, -h and help list every command on stdout and exit 0', async () => {
    const [long, short, word, group, one, optionHelp] = await Promise.all([
      mnemo('--help'),
      mnemo('-h'),
      mnemo('help'),
      mnemo('help', 'admin', 'project'),
      mnemo('admin', 'org', 'create', '--help'),
      mnemo('admin', 'member', '-h'),
    ]);
    expect(long.code).toBe(0);
    expect(long.stderr).toBe('');
    expect(long.stdout).toMatch(/^usage: mnemo <command> \[options\]\n/);
    for (const line of USAGE_LINES) expect(long.stdout).toContain(`\n  ${line}\n`);
    expect(long.stdout).toContain('--json');
    expect(short).toEqual(long);
    expect(word).toEqual(long);

    expect(group.code).toBe(0);
    expect(group.stdout.split('\n').filter((l) => l.startsWith('  mnemo'))).toEqual(
      usageOf('mnemo admin project').map((l) => `  ${l}`),
    );
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(
      /^ {2}mnemo admin org create --name NAME \[--id UUID\] .*\n {6}create an organization\n$/,
    );
    expect(optionHelp.code).toBe(0);
    expect(optionHelp.stdout).toContain('mnemo admin member add');
    expect(optionHelp.stdout).toContain('mnemo admin member remove');
    expect(await store.untouched()).toBe(true);
  });
});

describe('npx mnemo', () => {
  test("the first npx mnemo on the machine's own Node prints no engine warning, and runs", async () => {
    // A shell outside the project: npm and node are the system's (Node 20 on our machines), not
    // the node_modules/.bin this test runs under. An empty npm cache makes it the first call,
    // which installs the project into npx's cache: npm checks `engines` then.
    const PATH = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => !dir.endsWith(join('node_modules', '.bin')))
      .join(delimiter);
    const cache = mkdtempSync(join(tmpdir(), 'mnemo-npm-cache-'));
    try {
      const env = { PATH, HOME: process.env.HOME ?? '', npm_config_cache: cache };
      const { stdout, stderr } = await run('npx', ['--offline', 'mnemo', '--help'], {
        cwd: REPOSITORY_ROOT,
        env,
      });
      expect(stdout).toMatch(/^usage: mnemo <command> \[options\]\n/);
      expect(stderr).not.toMatch(/EBADENGINE|Unsupported engine/);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

describe('usage errors', () => {
  const uuid = randomUUID();
  const cases: Array<[args: string[], message: string, usage: string[]]> = [
    [[], 'no command given', USAGE_LINES],
    [['frobnicate'], 'unknown command "frobnicate"', USAGE_LINES],
    [['--json'], 'unknown option --json', USAGE_LINES],
    [['frobnicate', '--json'], 'unknown command "frobnicate"', USAGE_LINES],
    [
      ['admin', 'org', 'create', '--json', '--colour', 'red'],
      'unknown option --colour',
      usageOf('mnemo admin org create'),
    ],
    [['admin', 'org', 'create', '--json'], '--name is required', usageOf('mnemo admin org create')],
    [
      ['admin', 'user', 'create', '--json', '--email'],
      '--email needs a value',
      usageOf('mnemo admin user create'),
    ],
    [
      ['admin', 'member', 'add', '--org', uuid, '--user', 'me', '--json'],
      '--user must be a UUID, not "me"',
      usageOf('mnemo admin member add'),
    ],
    [
      ['admin', 'org', 'create', '--name', 'A', '--', '--json'],
      'unexpected argument "--json"',
      usageOf('mnemo admin org create'),
    ],
    [['admin'], 'incomplete command "admin"', usageOf('mnemo admin')],
    [['admin', 'org'], 'incomplete command "admin org"', usageOf('mnemo admin org')],
    [['admin', 'org', 'delete'], 'unknown command "admin org delete"', usageOf('mnemo admin org')],
    [['help', 'admin', 'nope'], 'unknown command "admin nope"', usageOf('mnemo admin')],
    [['admin', 'org', 'create'], '--name is required', usageOf('mnemo admin org create')],
    [
      ['admin', 'org', 'create', '--name'],
      '--name needs a value',
      usageOf('mnemo admin org create'),
    ],
    [
      ['admin', 'org', 'create', '--name', ' '],
      '--name must not be empty',
      usageOf('mnemo admin org create'),
    ],
    [
      ['admin', 'org', 'create', '--name', 'A', '--colour', 'red'],
      'unknown option --colour',
      usageOf('mnemo admin org create'),
    ],
    [
      ['admin', 'org', 'create', '--name', 'A', 'extra'],
      'unexpected argument "extra"',
      usageOf('mnemo admin org create'),
    ],
    [
      ['admin', 'org', 'create', '--name', 'A', '--id', 'abc'],
      '--id must be a UUID, not "abc"',
      usageOf('mnemo admin org create'),
    ],
    [
      ['admin', 'org', 'create', '--name', 'A', '--memory', 'yes'],
      '--memory must be one of on, off, not "yes"',
      usageOf('mnemo admin org create'),
    ],
    [
      ['admin', 'org', 'create', '--name', 'A', '--user-override', 'all'],
      '--user-override must be one of members, admins, not "all"',
      usageOf('mnemo admin org create'),
    ],
    [
      ['admin', 'org', 'create', '--name', 'A', '--json=yes'],
      '--json does not take a value',
      usageOf('mnemo admin org create'),
    ],
    [
      ['admin', 'org', 'set', '--org', uuid],
      'nothing to change: give --memory, --user-override or both',
      usageOf('mnemo admin org set'),
    ],
    [
      ['admin', 'org', 'set', '--org', '12', '--memory', 'on'],
      '--org must be a UUID, not "12"',
      usageOf('mnemo admin org set'),
    ],
    [
      ['admin', 'user', 'create', '--email', 'ada'],
      '--email must be an email address, not "ada"',
      usageOf('mnemo admin user create'),
    ],
    [
      ['admin', 'user', 'create', '--email', 'a b@c.d'],
      '--email must be an email address, not "a b@c.d"',
      usageOf('mnemo admin user create'),
    ],
    [
      ['admin', 'user', 'create', '--name', 'Ada'],
      '--email is required',
      usageOf('mnemo admin user create'),
    ],
    [
      ['admin', 'user', 'set', '--user', uuid],
      'nothing to change: give --status, --password-stdin or both',
      usageOf('mnemo admin user set'),
    ],
    [
      ['admin', 'user', 'set', '--user', uuid, '--password-stdin=secret'],
      '--password-stdin does not take a value',
      usageOf('mnemo admin user set'),
    ],
    [
      ['admin', 'user', 'set', '--user', uuid, '--password-stdin'],
      '--password-stdin: standard input holds no password',
      usageOf('mnemo admin user set'),
    ],
    [
      ['admin', 'user', 'set', '--user', uuid, '--status', 'gone'],
      '--status must be one of active, suspended, banned, not "gone"',
      usageOf('mnemo admin user set'),
    ],
    [
      ['admin', 'member', 'add', '--org', uuid],
      '--user is required',
      usageOf('mnemo admin member add'),
    ],
    [
      ['admin', 'member', 'add', '--org', uuid, '--user', uuid, '--role', 'boss'],
      '--role must be one of owner, admin, member, not "boss"',
      usageOf('mnemo admin member add'),
    ],
    [
      ['admin', 'member', 'remove', '--org', uuid, '--user', 'me'],
      '--user must be a UUID, not "me"',
      usageOf('mnemo admin member remove'),
    ],
    [
      ['admin', 'project', 'create', '--org', uuid],
      '--name is required',
      usageOf('mnemo admin project create'),
    ],
    [
      ['admin', 'project', 'grant', '--project', uuid, '--user', uuid, '--access', 'admin'],
      '--access must be one of viewer, editor, owner, not "admin"',
      usageOf('mnemo admin project grant'),
    ],
    [
      ['admin', 'project', 'revoke', '--project', 'p1', '--user', uuid],
      '--project must be a UUID, not "p1"',
      usageOf('mnemo admin project revoke'),
    ],
    [
      ['admin', 'keys', 'rotate', '--force'],
      'unknown option --force',
      usageOf('mnemo admin keys rotate'),
    ],
    [
      ['admin', 'audit', 'list', '--org', uuid, '--limit', '0'],
      '--limit must be a positive integer, not "0"',
      usageOf('mnemo admin audit list'),
    ],
    [['token'], '--user is required', usageOf('mnemo token')],
    [
      ['token', '--user', uuid, '--ttl', '1.5'],
      '--ttl must be a positive integer, not "1.5"',
      usageOf('mnemo token'),
    ],
    [
      ['token', '--user', uuid, '--ttl', '-5'],
      '--ttl needs a value (write --ttl=-… for one that starts with a dash)',
      usageOf('mnemo token'),
    ],
    [
      ['token', '--user', uuid, '--ttl', '31536001'],
      '--ttl must be at most 31536000 (a year)',
      usageOf('mnemo token'),
    ],
    [['serve', '--json'], 'serve does not take --json', usageOf('mnemo serve')],
    [
      ['login', '--url', 'ftp://mnemo.example.test'],
      '--url must be an http or https URL, not "ftp://mnemo.example.test"',
      usageOf('mnemo login'),
    ],
    [
      ['whoami', '--url', 'https://mnemo.example.test/?x=1'],
      "--url must be the server's public URL, without query, fragment or user",
      usageOf('mnemo whoami'),
    ],
    [
      ['logout', '--url', 'http://mnemo.example.test'],
      'refusing plain http to mnemo.example.test: credentials would cross the network unencrypted; use https (plain http is allowed only for localhost and 127.0.0.1)',
      usageOf('mnemo logout'),
    ],
    [['migrate', '--dry-run'], 'unknown option --dry-run', usageOf('mnemo migrate')],
  ];

  test('each prints its message and usage on stderr (with --json also {"error"} on stdout), exits 2, and leaves the store alone', async () => {
    const runs = await Promise.all(cases.map(([args]) => mnemo(...args)));
    for (const [index, [args, message, usage]] of cases.entries()) {
      const run = runs[index];
      if (!run) throw new Error('missing run');
      expect(run.code, args.join(' ')).toBe(2);
      // Words after `--` are not options: `--json` there asks for nothing.
      const options = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
      expectUsageError(run, message, usage, options.includes('--json'));
    }
    expect(await store.untouched()).toBe(true);
  });
});

describe('configuration', () => {
  test('an invalid environment exits 2 with the message, as the server would', async () => {
    const bad = createMnemo({ MNEMO_DATABASE_URL: 'mysql://db/mnemo' });
    const [json, text] = await Promise.all([
      bad('migrate', '--json'),
      bad('admin', 'org', 'create', '--name', 'A'),
    ]);
    const message =
      'invalid configuration: MNEMO_DATABASE_URL: must match pattern "^(sqlite:.+|postgres(ql)?://.+)$"';
    expect(json).toEqual({
      code: 2,
      stdout: `${JSON.stringify({ error: message })}\n`,
      stderr: `mnemo: ${message}\n`,
    });
    expect(text).toEqual({ code: 2, stdout: '', stderr: `mnemo: ${message}\n` });
  });
});

describe('migrate', () => {
  test('brings an empty store up to date, then has nothing to do', async () => {
    const first = await mnemo('migrate', '--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(onlyJson(first)).toEqual({
      applied: [
        '2026-11-22T00_initial',
        '2026-11-23T00_oauth',
        '2026-11-24T00_platform',
        '2026-11-24T01_unpriced_usage',
        '2026-11-24T02_reasoning_tokens',
        '2026-11-24T03_memory_search',
        '2026-11-24T04_memory_embeddings',
        '2026-11-24T05_oauth_connections',
        '2026-11-25T00_memory_chat',
        '2026-11-25T01_search_by_store',
        '2026-11-25T02_memory_writes',
        '2026-11-25T03_memory_update_batches',
        '2026-11-28T00_people',
        '2026-11-28T01_search_analysis',
        '2026-11-28T02_search_words',
        '2026-12-01T00_webhooks',
      ],
    });
    const [again, text] = await Promise.all([mnemo('migrate', '--json'), mnemo('migrate')]);
    expect(onlyJson(again)).toEqual({ applied: [] });
    expect(text).toEqual({ code: 0, stdout: 'the schema is up to date\n', stderr: '' });

    // A migrated store signs credentials at once.
    const database = createDatabase(store.url);
    try {
      const keys = await database.db.selectFrom('signing_keys').select('kid').execute();
      expect(keys).toHaveLength(1);
    } finally {
      await database.close();
    }
  });

  test('every command brings an empty store up to date first', async () => {
    const empty = await createTestStore();
    try {
      const created = await createMnemo({ MNEMO_DATABASE_URL: empty.url })(
        ...['admin', 'org', 'create', '--name', 'First', '--json'],
      );
      expect(created.code).toBe(0);
      expect(onlyJson(created)).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    } finally {
      await empty.dispose();
    }
  });

  test('refuses a store written by a newer mnemo: exit 1, no stack trace', async () => {
    const newerStore = await createTestStore();
    try {
      const url = newerStore.url;
      const newer = createMnemo({ MNEMO_DATABASE_URL: url });
      expect((await newer('migrate')).code).toBe(0);
      const database = createDatabase(url);
      await database.db
        .insertInto('kysely_migration' as never)
        .values({ name: '2999-01-01T00_future', timestamp: new Date().toISOString() } as never)
        .execute();
      await database.close();
      const message =
        'the database schema is newer than this mnemo (unknown migrations: 2999-01-01T00_future); upgrade mnemo';
      const [json, text] = await Promise.all([
        newer('admin', 'org', 'create', '--name', 'A', '--json'),
        newer('migrate'),
      ]);
      expect(json).toEqual({
        code: 1,
        stdout: `${JSON.stringify({ error: message })}\n`,
        stderr: `mnemo: ${message}\n`,
      });
      expect(text).toEqual({ code: 1, stdout: '', stderr: `mnemo: ${message}\n` });
    } finally {
      await newerStore.dispose();
    }
  });
});

describe('token', () => {
  const publicUrl = 'https://mnemo.example.test';

  test('a platform credential for an active user, for the configured issuer', async () => {
    const custom = createMnemo({
      MNEMO_DATABASE_URL: store.url,
      MNEMO_PUBLIC_URL: publicUrl,
    });
    const user = onlyJson(
      await mnemo('admin', 'user', 'create', '--email', 'tok@example.test', '--json'),
    ) as { id: string };
    const [json, bare, short, otherIssuer] = await Promise.all([
      mnemo('token', '--user', user.id, '--json'),
      mnemo('token', '--user', user.id.toUpperCase()),
      mnemo('token', '--user', user.id, '--ttl', '60', '--json'),
      custom('token', '--user', user.id),
    ]);

    expect(json.code).toBe(0);
    expect(json.stderr).toBe('');
    const answer = onlyJson(json) as { token: string; expiresAt: string };
    expect(Object.keys(answer)).toEqual(['token', 'expiresAt']);
    expect(answer.token).toMatch(JWT);
    const claims = decodeJwt(answer.token);
    expect(claims).toMatchObject({
      iss: 'http://127.0.0.1:8080/oauth',
      aud: 'http://127.0.0.1:8080/api',
      sub: user.id,
    });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(3600);
    expect(answer.expiresAt).toBe(new Date((claims.exp ?? 0) * 1000).toISOString());

    // Bare: the token and a newline only, so TOKEN=$(npx mnemo token …) works.
    expect(bare.code).toBe(0);
    expect(bare.stderr).toBe('');
    expect(bare.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(decodeJwt(bare.stdout.trim()).sub).toBe(user.id);

    const shortClaims = decodeJwt((onlyJson(short) as { token: string }).token);
    expect((shortClaims.exp ?? 0) - (shortClaims.iat ?? 0)).toBe(60);

    // Signed by the store's newest key, for the issuer of MNEMO_PUBLIC_URL.
    const database = createDatabase(store.url);
    const [key] = await database.db
      .selectFrom('signing_keys')
      .select(['kid', 'public_jwk'])
      .orderBy('created_at', 'desc')
      .execute();
    await database.close();
    if (!key) throw new Error('no signing key');
    const other = otherIssuer.stdout.trim();
    expect(decodeProtectedHeader(other)).toMatchObject({ alg: 'RS256', kid: key.kid });
    const publicKey = await importJWK(JSON.parse(key.public_jwk) as JWK, 'RS256');
    const verified = await jwtVerify(other, publicKey, {
      issuer: `${publicUrl}/oauth`,
      audience: `${publicUrl}/api`,
    });
    expect(verified.payload.sub).toBe(user.id);
  });

  test('no credential for an unknown or inactive user', async () => {
    const unknown = randomUUID();
    const created = await Promise.all(
      ['sus@example.test', 'ban@example.test'].map(
        async (email) =>
          (
            onlyJson(await mnemo('admin', 'user', 'create', '--email', email, '--json')) as {
              id: string;
            }
          ).id,
      ),
    );
    const [suspended, banned] = created as [string, string];
    await Promise.all([
      mnemo('admin', 'user', 'set', '--user', suspended, '--status', 'suspended'),
      mnemo('admin', 'user', 'set', '--user', banned, '--status', 'banned'),
    ]);
    const [a, b, c, d] = await Promise.all([
      mnemo('token', '--user', unknown, '--json'),
      mnemo('token', '--user', unknown),
      mnemo('token', '--user', suspended, '--json'),
      mnemo('token', '--user', banned),
    ]);
    const fail = (message: string, json: boolean) => ({
      code: 1,
      stdout: json ? `${JSON.stringify({ error: message })}\n` : '',
      stderr: `mnemo: ${message}\n`,
    });
    expect(a).toEqual(fail(`unknown user ${unknown}`, true));
    expect(b).toEqual(fail(`unknown user ${unknown}`, false));
    expect(c).toEqual(
      fail(`user ${suspended} is suspended: only active users get a credential`, true),
    );
    expect(d).toEqual(fail(`user ${banned} is banned: only active users get a credential`, false));
  });
});
