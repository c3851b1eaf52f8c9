/**
 * `mnemo admin …` against a real store: what each command prints (exactly, with --json),
 * what it leaves in the store, and how it refuses (exit 1, the reason on stderr and as
 * `{"error"}` on stdout).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { OPERATOR_ACTOR_ID } from '../audit/index.ts';
import { ensureSigningKey } from '../credentials/signing-keys.ts';
import { createDatabase, type Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrator.ts';
import { ERASED_CONTRIBUTOR } from '../memory/memory-erasure.ts';
import { verifyPassword } from '../tenancy/passwords.ts';
import { Browser } from '../testing/browser.ts';
import {
  buildTestApp,
  createFixtures,
  type Fixtures,
  testConfig,
} from '../testing/build-test-app.ts';
import { freePort } from '../testing/server-process.ts';
import { createTestStore, type TestStore } from '../testing/test-store.ts';
import { createMnemo, type MnemoRun, onlyJson } from './mnemo-process.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OK = { code: 0, stdout: '{"ok":true}\n', stderr: '' };

let store: TestStore;
let mnemo: ReturnType<typeof createMnemo>;
/** The same store, opened by the test to check what the commands left in it. */
let database: Database;
/** Accounts a test needs but does not test, written straight to the store: far quicker. */
let given: Fixtures;

beforeAll(async () => {
  store = await createTestStore();
  const { url } = store;
  mnemo = createMnemo({ MNEMO_DATABASE_URL: url });
  database = createDatabase(url);
  await migrateToLatest(database.db);
  await ensureSigningKey(database.db);
  given = createFixtures(database, testConfig({ MNEMO_DATABASE_URL: url }));
});
afterAll(async () => {
  await database.close();
  await store.dispose();
});

/** A refusal: exit 1, the message on stderr and, with --json, as `{"error"}` on stdout. */
const refused = (message: string, json = true): MnemoRun => ({
  code: 1,
  stdout: json ? `${JSON.stringify({ error: message })}\n` : '',
  stderr: `mnemo: ${message}\n`,
});

async function createdId(run: Promise<MnemoRun>): Promise<string> {
  const done = await run;
  expect(done.stderr).toBe('');
  expect(done.code).toBe(0);
  const body = onlyJson(done) as { id: string };
  expect(Object.keys(body)).toEqual(['id']);
  expect(body.id).toMatch(UUID);
  return body.id;
}

const org = (name = 'Org', ...more: string[]) =>
  createdId(mnemo('admin', 'org', 'create', '--name', name, ...more, '--json'));
const user = (email = `${randomUUID()}@example.test`, ...more: string[]) =>
  createdId(mnemo('admin', 'user', 'create', '--email', email, ...more, '--json'));
const project = (orgId: string, ...more: string[]) =>
  createdId(
    mnemo('admin', 'project', 'create', '--org', orgId, '--name', 'Atlas', ...more, '--json'),
  );

const orgRow = (id: string) =>
  database.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
const userRow = (id: string) =>
  database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
const roleOf = async (orgId: string, userId: string) =>
  (
    await database.db
      .selectFrom('memberships')
      .select('role')
      .where('org_id', '=', orgId)
      .where('user_id', '=', userId)
      .executeTakeFirst()
  )?.role;
/** The organization's audit rows, oldest first, their details parsed. */
const auditOf = async (orgId: string) =>
  (
    await database.db
      .selectFrom('audit_log')
      .select(['actor_id', 'target_id', 'action', 'details'])
      .where('org_id', '=', orgId)
      .orderBy('id')
      .execute()
  ).map((row) => ({ ...row, details: JSON.parse(row.details ?? 'null') }));

/** An audit row of the operator of the command line. */
const operator = (target_id: string, action: string, details: unknown) => ({
  actor_id: OPERATOR_ACTOR_ID,
  target_id,
  action,
  details,
});

const grantsOf = async (userId: string) =>
  Object.fromEntries(
    (
      await database.db
        .selectFrom('project_access')
        .select(['project_id', 'access'])
        .where('user_id', '=', userId)
        .execute()
    ).map((r) => [r.project_id, r.access]),
  );

describe('admin org', () => {
  test('create, with defaults or with every option; an id is taken once', async () => {
    const plain = await org('Acme');
    expect(await orgRow(plain)).toMatchObject({
      name: 'Acme',
      memory_enabled: null,
      user_override: 'members',
    });

    const chosen = randomUUID();
    const given = await org(
      'Globex',
      '--id',
      chosen.toUpperCase(),
      '--memory',
      'off',
      '--user-override',
      'admins',
    );
    expect(given).toBe(chosen);
    expect(await orgRow(chosen)).toMatchObject({
      name: 'Globex',
      memory_enabled: 0,
      user_override: 'admins',
    });

    const [again, text] = await Promise.all([
      mnemo('admin', 'org', 'create', '--name', 'Other', '--id', chosen, '--json'),
      mnemo('admin', 'org', 'create', '--name', '  Initech  '),
    ]);
    expect(again).toEqual(refused(`an organization with id ${chosen} already exists`));
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('');
    const textId = /^created organization "Initech": ([0-9a-f-]{36})\n$/.exec(text.stdout)?.[1];
    expect(textId).toMatch(UUID);
    expect((await orgRow(textId ?? ''))?.name).toBe('Initech');
    // Through the organizations service, as the operator: audited in the new organization.
    expect(await auditOf(chosen)).toEqual([
      operator(chosen, 'org.create', {
        name: 'Globex',
        memoryEnabled: false,
        userOverride: 'admins',
      }),
    ]);
    expect(await auditOf(textId ?? '')).toEqual([
      operator(textId ?? '', 'org.create', { name: 'Initech' }),
    ]);
  });

  test('set changes the memory switch and the override policy; an unknown org is refused', async () => {
    const id = await given.org();
    const unknown = randomUUID();
    expect(await mnemo('admin', 'org', 'set', '--org', id, '--memory', 'off', '--json')).toEqual(
      OK,
    );
    expect(await orgRow(id)).toMatchObject({ memory_enabled: 0, user_override: 'members' });

    const text = await mnemo(
      'admin',
      'org',
      'set',
      '--org',
      id.toUpperCase(),
      '--memory',
      'on',
      '--user-override',
      'admins',
    );
    expect(text).toEqual({
      code: 0,
      stdout: `organization ${id}: memory on, user override admins\n`,
      stderr: '',
    });
    expect(await orgRow(id)).toMatchObject({ memory_enabled: 1, user_override: 'admins' });

    const [json, plain] = await Promise.all([
      mnemo('admin', 'org', 'set', '--org', unknown, '--memory', 'on', '--json'),
      mnemo('admin', 'org', 'set', '--org', unknown, '--user-override', 'members'),
    ]);
    expect(json).toEqual(refused(`unknown organization ${unknown}`));
    expect(plain).toEqual(refused(`unknown organization ${unknown}`, false));
    // Each change audited with what it changed, as the operator.
    expect(await auditOf(id)).toEqual([
      operator(id, 'org.update', { memoryEnabled: { from: null, to: false } }),
      operator(id, 'org.update', {
        memoryEnabled: { from: false, to: true },
        userOverride: { from: 'members', to: 'admins' },
      }),
    ]);
  });
});

describe('admin user', () => {
  test('create stores the email in lower case and only a hash of the password', async () => {
    const id = await user(
      'Ada.Lovelace@Example.TEST',
      '--name',
      'Ada',
      '--password',
      'a s3cret phrase',
    );
    const row = await userRow(id);
    expect(row).toMatchObject({
      email: 'ada.lovelace@example.test',
      name: 'Ada',
      status: 'active',
    });
    expect(row?.password_hash).toMatch(/^scrypt\$/);
    expect(row?.password_hash).not.toContain('s3cret');
    expect(await verifyPassword('a s3cret phrase', row?.password_hash ?? '')).toBe(true);
    expect(await verifyPassword('a s3cret', row?.password_hash ?? '')).toBe(false);

    const chosen = randomUUID();
    const [given, sameEmail, sameId, text] = await Promise.all([
      user('grace@example.test', '--id', chosen.toUpperCase()),
      mnemo('admin', 'user', 'create', '--email', 'ADA.lovelace@example.test', '--json'),
      mnemo('admin', 'user', 'create', '--email', 'other@example.test', '--id', id, '--json'),
      mnemo('admin', 'user', 'create', '--email', 'linus@example.test'),
    ]);
    expect(given).toBe(chosen);
    expect(await userRow(chosen)).toMatchObject({ name: null, password_hash: null });
    expect(sameEmail).toEqual(refused('the email ada.lovelace@example.test is already taken'));
    expect(sameId).toEqual(refused(`a user with id ${id} already exists`));
    expect(text.stdout).toMatch(/^created user linus@example.test: [0-9a-f-]{36}\n$/);
  });

  test('a password is held to the rule: refused with why, nothing stored', async () => {
    const email = `${randomUUID()}@example.test`;
    const [short, itsEmail, common] = await Promise.all([
      mnemo('admin', 'user', 'create', '--email', email, '--password', 'short', '--json'),
      mnemo(
        'admin',
        'user',
        'create',
        '--email',
        email,
        '--password',
        email.toUpperCase(),
        '--json',
      ),
      mnemo('admin', 'user', 'create', '--email', email, '--password', 'password1234', '--json'),
    ]);
    for (const [answer, why] of [
      [short, 'Use at least 12 characters: a few words make a good password.'],
      [itsEmail, 'Your password must not be your email address.'],
      [common, 'That password is one of the most common: choose another.'],
    ] as const) {
      expect(answer.code).toBe(2);
      expect(JSON.parse(answer.stdout)).toEqual({ error: `--password: ${why}` });
    }
    expect(
      await database.db.selectFrom('users').select('id').where('email', '=', email).execute(),
    ).toEqual([]);
  });

  test('set changes the account status; an unknown user is refused', async () => {
    const { id } = await given.user();
    const unknown = randomUUID();
    expect(
      await mnemo('admin', 'user', 'set', '--user', id, '--status', 'suspended', '--json'),
    ).toEqual(OK);
    expect((await userRow(id))?.status).toBe('suspended');
    const [banned, json, plain] = await Promise.all([
      mnemo('admin', 'user', 'set', '--user', id, '--status', 'banned'),
      mnemo('admin', 'user', 'set', '--user', unknown, '--status', 'active', '--json'),
      mnemo('admin', 'user', 'set', '--user', unknown, '--status', 'active'),
    ]);
    expect(banned).toEqual({ code: 0, stdout: `user ${id} is now banned\n`, stderr: '' });
    expect((await userRow(id))?.status).toBe('banned');
    expect(json).toEqual(refused(`unknown user ${unknown}`));
    expect(plain).toEqual(refused(`unknown user ${unknown}`, false));
  });
});

describe('admin user set --password-stdin', () => {
  /** The studio's sign-in on the pages of `url`: the callback's URL, or the page that refused. */
  async function signIn(url: string, email: string, password: string) {
    const callback = `${url}/studio/callback`;
    const browser = new Browser();
    const page = await browser.open(
      `${url}/oauth/auth?client_id=mnemo-studio&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(callback)}&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`,
    );
    expect(page.html).toContain('<h1>Sign in</h1>');
    return browser.submit(page, { email, password }, { stopAt: (u) => u.startsWith(callback) });
  }

  test('a new password from stdin signs in on the pages; the old one no longer does', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const server = await buildTestApp({ MNEMO_PUBLIC_URL: url }, { sharedStore: store });
    await server.app.listen({ port, host: '127.0.0.1' });
    try {
      const email = `${randomUUID()}@example.test`;
      const id = await user(email, '--password', 'the old passphrase');
      const newPassword = 'a new one, with spaces ü';
      expect(
        await mnemo.withStdin(
          `${newPassword}\n`,
          ...['admin', 'user', 'set', '--user', id, '--password-stdin', '--json'],
        ),
      ).toEqual(OK);
      const row = await userRow(id);
      expect(row?.password_hash).not.toContain(newPassword);
      expect(row?.status).toBe('active');

      const signedIn = await signIn(url, email, newPassword);
      expect(new URL(signedIn.url).searchParams.get('code')).toEqual(expect.any(String));
      const oldOne = await signIn(url, email, 'the old passphrase');
      expect(oldOne.status).toBe(401);
      expect(oldOne.html).toContain('Wrong email or password.');

      // With a status in the same command, and as text; an unknown user is refused.
      const unknown = randomUUID();
      const [both, noUser] = await Promise.all([
        mnemo.withStdin(
          'a third passphrase\r\n',
          ...['admin', 'user', 'set', '--user', id, '--status', 'suspended', '--password-stdin'],
        ),
        mnemo.withStdin(
          'x',
          'admin',
          'user',
          'set',
          '--user',
          unknown,
          '--password-stdin',
          '--json',
        ),
      ]);
      expect(both).toEqual({
        code: 0,
        stdout: `user ${id} is now suspended and has a new password\n`,
        stderr: '',
      });
      const after = await userRow(id);
      expect(after?.status).toBe('suspended');
      expect(await verifyPassword('a third passphrase', after?.password_hash ?? '')).toBe(true);
      expect(noUser).toEqual(refused(`unknown user ${unknown}`));
      // A password that breaks the rule changes nothing, the status neither.
      expect(
        await mnemo.withStdin(
          'short\n',
          'admin',
          'user',
          'set',
          '--user',
          id,
          '--status',
          'active',
          '--password-stdin',
          '--json',
        ),
      ).toEqual(
        refused('the new password: Use at least 12 characters: a few words make a good password.'),
      );
      expect((await userRow(id))?.status).toBe('suspended');
    } finally {
      await server.close();
    }
  });
});

describe('admin member and admin project', () => {
  test('member add sets or changes the role; unknown org or user is refused', async () => {
    const [orgId, { id: userId }] = await Promise.all([given.org(), given.user()]);
    const unknown = randomUUID();
    const added = await mnemo(
      ...['admin', 'member', 'add', '--org', orgId, '--user', userId, '--role', 'admin', '--json'],
    );
    expect(added).toEqual(OK);
    expect(await roleOf(orgId, userId)).toBe('admin');

    const [demoted, noOrg, noUser] = await Promise.all([
      mnemo('admin', 'member', 'add', '--org', orgId, '--user', userId),
      mnemo('admin', 'member', 'add', '--org', unknown, '--user', userId, '--json'),
      mnemo('admin', 'member', 'add', '--org', orgId, '--user', unknown, '--json'),
    ]);
    expect(demoted).toEqual({
      code: 0,
      stdout: `user ${userId} is a member of organization ${orgId}, role member\n`,
      stderr: '',
    });
    expect(await roleOf(orgId, userId)).toBe('member');
    expect(noOrg).toEqual(refused(`unknown organization ${unknown}`));
    expect(noUser).toEqual(refused(`unknown user ${unknown}`));
  });

  test('member add and remove keep the last owner and write the audit, with the operator as actor', async () => {
    const orgId = await given.org();
    const [{ id: owner }, { id: other }] = await Promise.all([given.user(), given.user()]);
    const member = (verb: 'add' | 'remove', who: string, ...more: string[]) =>
      mnemo('admin', 'member', verb, '--org', orgId, '--user', who, ...more, '--json');

    expect(await member('add', owner, '--role', 'owner')).toEqual(OK);
    // The only owner can be neither demoted nor removed, by the operator either.
    const [demoted, removed] = await Promise.all([
      member('add', owner, '--role', 'admin'),
      member('remove', owner),
    ]);
    expect(demoted).toEqual(refused('the last owner of the organization cannot be demoted'));
    expect(removed).toEqual(refused('the last owner of the organization cannot be removed'));
    expect(await roleOf(orgId, owner)).toBe('owner');

    // With a second owner, the first may go; the same role again changes nothing.
    expect(await member('add', other, '--role', 'owner')).toEqual(OK);
    expect(await member('add', other, '--role', 'owner')).toEqual(OK);
    expect(await member('add', owner, '--role', 'member')).toEqual(OK);
    expect(await member('remove', owner)).toEqual({
      code: 0,
      stdout: '{"ok":true,"revokedGrants":0}\n',
      stderr: '',
    });
    expect(await auditOf(orgId)).toEqual([
      operator(owner, 'member.add', { role: 'owner' }),
      operator(other, 'member.add', { role: 'owner' }),
      operator(owner, 'member.role', { from: 'owner', to: 'member' }),
      operator(owner, 'member.remove', { role: 'member', revokedGrants: 0 }),
    ]);
  });

  test('project create, grant and revoke, with every refusal', async () => {
    const orgId = await given.org();
    const [{ id: member }, { id: outsider }] = await Promise.all([given.user(orgId), given.user()]);
    const projectId = await project(orgId);
    expect(
      await database.db
        .selectFrom('projects')
        .selectAll()
        .where('id', '=', projectId)
        .executeTakeFirst(),
    ).toMatchObject({ org_id: orgId, name: 'Atlas' });

    const unknown = randomUUID();
    const grant = (projectArg: string, userArg: string, access: string, ...more: string[]) =>
      mnemo(
        ...['admin', 'project', 'grant', '--project', projectArg, '--user', userArg],
        ...['--access', access, ...more],
      );
    const [created, takenId, noOrg, granted, notMember, noProject, noUser] = await Promise.all([
      mnemo('admin', 'project', 'create', '--org', orgId, '--name', 'Zeus'),
      mnemo(
        ...['admin', 'project', 'create', '--org', orgId, '--name', 'X', '--id', projectId],
        '--json',
      ),
      mnemo('admin', 'project', 'create', '--org', unknown, '--name', 'X', '--json'),
      grant(projectId, member, 'editor', '--json'),
      grant(projectId, outsider, 'viewer', '--json'),
      grant(unknown, member, 'viewer', '--json'),
      grant(projectId, unknown, 'viewer', '--json'),
    ]);
    expect(created.stdout).toMatch(/^created project "Zeus": [0-9a-f-]{36}\n$/);
    expect(takenId).toEqual(refused(`a project with id ${projectId} already exists`));
    expect(noOrg).toEqual(refused(`unknown organization ${unknown}`));
    expect(granted).toEqual(OK);
    expect(notMember).toEqual(
      refused(`user ${outsider} is not a member of the organization of project ${projectId}`),
    );
    expect(noProject).toEqual(refused(`unknown project ${unknown}`));
    expect(noUser).toEqual(refused(`unknown user ${unknown}`));
    expect(await grantsOf(member)).toEqual({ [projectId]: 'editor' });
    expect(await grantsOf(outsider)).toEqual({});

    expect(await grant(projectId, member, 'owner')).toEqual({
      code: 0,
      stdout: `user ${member} has owner access to project ${projectId}\n`,
      stderr: '',
    });
    expect(await grantsOf(member)).toEqual({ [projectId]: 'owner' });

    const revoke = (projectArg: string, userArg: string, ...more: string[]) =>
      mnemo('admin', 'project', 'revoke', '--project', projectArg, '--user', userArg, ...more);
    expect(await revoke(projectId, member, '--json')).toEqual(OK);
    expect(await grantsOf(member)).toEqual({});
    const [again, outsiders, noSuchProject, noSuchUser] = await Promise.all([
      revoke(projectId, member, '--json'),
      revoke(projectId, outsider),
      revoke(unknown, member, '--json'),
      revoke(projectId, unknown, '--json'),
    ]);
    expect(again).toEqual(refused(`user ${member} has no access to project ${projectId}`));
    expect(outsiders).toEqual(
      refused(`user ${outsider} has no access to project ${projectId}`, false),
    );
    expect(noSuchProject).toEqual(refused(`unknown project ${unknown}`));
    expect(noSuchUser).toEqual(refused(`unknown user ${unknown}`));

    // Through the same service as the API: audited, as the operator, and only what changed.
    const zeus = created.stdout.slice(-37, -1);
    const audit = await auditOf(orgId);
    expect(audit).toHaveLength(5);
    expect(audit).toEqual(
      expect.arrayContaining([
        operator(projectId, 'project.create', { name: 'Atlas' }),
        operator(zeus, 'project.create', { name: 'Zeus' }),
        operator(member, 'collaborator.set', { projectId, access: 'editor', previous: null }),
        operator(member, 'collaborator.set', { projectId, access: 'owner', previous: 'editor' }),
        operator(member, 'collaborator.remove', { projectId, access: 'owner' }),
      ]),
    );
    // The operator owns nothing it made.
    expect(
      await database.db
        .selectFrom('project_access')
        .selectAll()
        .where('project_id', '=', zeus)
        .execute(),
    ).toEqual([]);
  });

  test('project create trims the name as the API does, and refuses a blank one', async () => {
    const orgId = await given.org();
    const id = await createdId(
      mnemo('admin', 'project', 'create', '--org', orgId, '--name', '  Hermes  ', '--json'),
    );
    expect(
      await database.db
        .selectFrom('projects')
        .select('name')
        .where('id', '=', id)
        .executeTakeFirst(),
    ).toEqual({ name: 'Hermes' });
    const blank = await mnemo('admin', 'project', 'create', '--org', orgId, '--name', '   ');
    expect(blank).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'mnemo: --name must not be empty\nusage: mnemo admin project create --org ID --name NAME [--id UUID]\n',
    });
    expect(await auditOf(orgId)).toEqual([operator(id, 'project.create', { name: 'Hermes' })]);
  });

  test("member remove takes the member's grants in that organization with it, and only those", async () => {
    const [orgId, otherOrg] = await Promise.all([given.org(), given.org()]);
    const { id: userId } = await given.user(orgId);
    await given.member(otherOrg, userId);
    const [atlas, zeus, elsewhere] = await Promise.all([
      given.project(orgId, { [userId]: 'editor' }),
      given.project(orgId, { [userId]: 'viewer' }),
      given.project(otherOrg, { [userId]: 'owner' }),
    ]);
    expect(await grantsOf(userId)).toEqual({
      [atlas]: 'editor',
      [zeus]: 'viewer',
      [elsewhere]: 'owner',
    });

    const remove = (org: string, who: string, ...more: string[]) =>
      mnemo('admin', 'member', 'remove', '--org', org, '--user', who, ...more);
    expect(await remove(orgId, userId, '--json')).toEqual({
      code: 0,
      stdout: '{"ok":true,"revokedGrants":2}\n',
      stderr: '',
    });
    expect(await roleOf(orgId, userId)).toBeUndefined();
    expect(await roleOf(otherOrg, userId)).toBe('member');
    expect(await grantsOf(userId)).toEqual({ [elsewhere]: 'owner' });

    const unknown = randomUUID();
    const [again, noOrg, noUser] = await Promise.all([
      remove(orgId, userId, '--json'),
      remove(unknown, userId, '--json'),
      remove(orgId, unknown),
    ]);
    expect(again).toEqual(refused(`user ${userId} is not a member of organization ${orgId}`));
    expect(noOrg).toEqual(refused(`unknown organization ${unknown}`));
    expect(noUser).toEqual(refused(`unknown user ${unknown}`, false));

    // Adding the user back brings none of the old grants back.
    expect(
      await mnemo('admin', 'member', 'add', '--org', orgId, '--user', userId, '--json'),
    ).toEqual(OK);
    expect(await grantsOf(userId)).toEqual({ [elsewhere]: 'owner' });

    expect(await remove(otherOrg, userId)).toEqual({
      code: 0,
      stdout: `removed user ${userId} from organization ${otherOrg} (and 1 project grant)\n`,
      stderr: '',
    });
  });
});

describe('admin keys and admin audit', () => {
  test('keys rotate adds a key that signs from now on', async () => {
    const rotated = await mnemo('admin', 'keys', 'rotate', '--json');
    expect(rotated.code).toBe(0);
    const body = onlyJson(rotated) as { kid: string };
    expect(Object.keys(body)).toEqual(['kid']);
    expect(body.kid).toMatch(/^[\w-]{43}$/);
    const keys = await database.db
      .selectFrom('signing_keys')
      .select('kid')
      .orderBy('created_at', 'desc')
      .execute();
    expect(keys[0]?.kid).toBe(body.kid);

    const text = await mnemo('admin', 'keys', 'rotate');
    expect(text.stdout).toMatch(
      /^new signing key [\w-]{43}: servers sign with it within seconds; older keys stay published until their last tokens expired\n$/,
    );
  });

  test('audit list prints the override log of one organization, newest first', async () => {
    const [orgId, otherOrg, quietOrg] = await Promise.all([given.org(), given.org(), given.org()]);
    const [actor, target, memoryId] = [randomUUID(), randomUUID(), randomUUID()];
    const [first, second, foreign] = [randomUUID(), randomUUID(), randomUUID()];
    const entry = (id: string, org_id: string, action: string, at: number, memory: boolean) => ({
      id,
      org_id,
      actor_id: actor,
      target_id: target,
      action,
      memory_id: memory ? memoryId : null,
      at,
    });
    await database.db
      .insertInto('audit_log')
      .values([
        entry(first, orgId, 'list', Date.UTC(2026, 10, 22, 9, 0, 0), false),
        entry(second, orgId, 'add', Date.UTC(2026, 10, 22, 9, 30, 0, 5), true),
        entry(foreign, otherOrg, 'get', Date.UTC(2026, 10, 22, 10, 0, 0), true),
      ])
      .execute();

    const unknown = randomUUID();
    const list = (org: string, ...more: string[]) =>
      mnemo('admin', 'audit', 'list', '--org', org, ...more);
    const [all, limited, text, empty, noOrg] = await Promise.all([
      list(orgId, '--json'),
      list(orgId, '--limit', '1', '--json'),
      list(orgId),
      list(quietOrg, '--json'),
      list(unknown, '--json'),
    ]);
    const newest = {
      id: second,
      at: '2026-11-22T09:30:00.005Z',
      actorId: actor,
      targetId: target,
      action: 'add',
      memoryId,
    };
    const oldest = {
      id: first,
      at: '2026-11-22T09:00:00.000Z',
      actorId: actor,
      targetId: target,
      action: 'list',
      memoryId: null,
    };
    expect(all).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ entries: [newest, oldest] })}\n`,
      stderr: '',
    });
    expect(onlyJson(limited)).toEqual({ entries: [newest] });
    expect(text).toEqual({
      code: 0,
      stdout: [
        `2026-11-22T09:30:00.005Z  ${actor} add for ${target} (memory ${memoryId})`,
        `2026-11-22T09:00:00.000Z  ${actor} list for ${target}`,
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(onlyJson(empty)).toEqual({ entries: [] });
    expect(noOrg).toEqual(refused(`unknown organization ${unknown}`));
  });

  test('audit list names the operator of the command line, by name in text and by id in JSON', async () => {
    const orgId = await given.org();
    const { id: userId } = await given.user();
    expect(
      await mnemo('admin', 'member', 'add', '--org', orgId, '--user', userId, '--json'),
    ).toEqual(OK);
    const json = onlyJson(await mnemo('admin', 'audit', 'list', '--org', orgId, '--json')) as {
      entries: { at: string; actorId: string }[];
    };
    const [added] = json.entries;
    expect(json.entries).toHaveLength(1);
    expect(added?.actorId).toBe(OPERATOR_ACTOR_ID);
    expect(await mnemo('admin', 'audit', 'list', '--org', orgId)).toEqual({
      code: 0,
      stdout: `${added?.at}  Operator (command line) member.add for ${userId}\n`,
      stderr: '',
    });
  });
});

describe('admin user erase', () => {
  /** How many rows of each table that could hold something of the person still do. */
  async function traces(userId: string, email: string) {
    const { db } = database;
    const count = async (query: { execute(): Promise<unknown[]> }) =>
      (await query.execute()).length;
    const byUser = (table: 'memberships' | 'api_keys' | 'project_access' | 'oauth_connections') =>
      count(db.selectFrom(table).select('user_id').where('user_id', '=', userId));
    return {
      users: await count(db.selectFrom('users').select('id').where('id', '=', userId)),
      memberships: await byUser('memberships'),
      apiKeys: await byUser('api_keys'),
      projectGrants: await byUser('project_access'),
      connections: await byUser('oauth_connections'),
      stores: await count(db.selectFrom('scopes').select('id').where('owner_id', '=', userId)),
      memories: await count(
        db.selectFrom('memories').select('id').where('contributor_id', '=', userId),
      ),
      proposals: await count(
        db.selectFrom('memory_proposals').select('id').where('user_id', '=', userId),
      ),
      oauthRecords: await count(
        db.selectFrom('oauth_records').select('id').where('account_id', '=', userId),
      ),
      accountLinks: await count(
        db.selectFrom('account_links').select('id').where('user_id', '=', userId),
      ),
      invitations: await count(
        db.selectFrom('invitations').select('id').where('email', '=', email),
      ),
    };
  }

  /** A refresh token, a password reset link, a proposal and an invitation, as the server writes them. */
  async function signInsAndWaiting(p: {
    userId: string;
    email: string;
    orgId: string;
    keyId: string;
    invitedBy: string;
  }) {
    const at = Date.now();
    const { db } = database;
    await db
      .insertInto('oauth_records')
      .values({
        model: 'RefreshToken',
        id: randomUUID(),
        payload: JSON.stringify({ accountId: p.userId }),
        grant_id: randomUUID(),
        user_code: null,
        uid: null,
        expires_at: at + 3_600_000,
        consumed_at: null,
        account_id: p.userId,
      })
      .execute();
    await db
      .insertInto('account_links')
      .values({
        id: randomUUID(),
        purpose: 'password-reset',
        secret_hash: randomUUID(),
        user_id: p.userId,
        email: null,
        details: null,
        created_at: at,
        expires_at: at + 3_600_000,
        used_at: null,
      })
      .execute();
    await db
      .insertInto('memory_proposals')
      .values({
        id: randomUUID(),
        org_id: p.orgId,
        user_id: p.userId,
        key_id: p.keyId,
        project_id: null,
        action: 'add',
        memory_id: null,
        content: 'Prefers window seats',
        category: null,
        created_at: at,
      })
      .execute();
    await db
      .insertInto('invitations')
      .values({
        id: randomUUID(),
        org_id: p.orgId,
        email: p.email,
        role: 'member',
        secret_hash: randomUUID(),
        invited_by: p.invitedBy,
        created_at: at,
        expires_at: at + 3_600_000,
        accepted_at: null,
        accepted_by: null,
        revoked_at: null,
      })
      .execute();
  }

  test('a person erased everywhere: every organization’s memories and rights, the account; audited in each; a server on the store refuses them at once', async () => {
    const server = await buildTestApp({}, { sharedStore: store });
    try {
      const [orgA, orgB] = await Promise.all([given.org(), given.org()]);
      const person = await given.user(orgA, 'owner');
      const email = `${person.id}@example.test`;
      await given.member(orgB, person.id, 'member');
      const coOwner = await given.user(orgA, 'owner');
      const project = await given.project(orgA, { [person.id]: 'editor', [coOwner.id]: 'owner' });
      const as = (orgId: string) => ({ orgId, token: person.token });
      const asCoOwner = { orgId: orgA, token: coOwner.token };
      const post = (orgId: string, url: string, payload: object) =>
        server.request(as(orgId), { method: 'POST', url, payload });
      const remembered: string[] = [];
      for (const [orgId, payload] of [
        [orgA, { content: 'Likes tea' }],
        [orgA, { content: 'Runs on Sundays' }],
        [orgB, { content: 'Lives in Porto' }],
        [orgA, { content: 'Deploys on Fridays', project }],
      ] as const) {
        const added = await post(orgId, '/api/v1/memory', payload);
        expect(added.statusCode).toBe(201);
        remembered.push(added.json().memory.id as string);
      }
      const coOwnerCursor = (
        await server.request(asCoOwner, { method: 'GET', url: `/api/v1/memory?project=${project}` })
      ).json().cursor as string;
      const key = await post(orgA, '/api/v1/api-keys', { name: 'CI' });
      expect(key.statusCode).toBe(201);
      const { key: created, secret } = key.json() as { key: { id: string }; secret: string };
      const keyId = created.id;
      const withKey = () =>
        server.app.inject({
          method: 'GET',
          url: '/v1/models',
          headers: { authorization: `Bearer ${secret}` },
        });
      expect((await withKey()).statusCode).toBe(200);
      await signInsAndWaiting({
        userId: person.id,
        email,
        orgId: orgA,
        keyId,
        invitedBy: coOwner.id,
      });
      // The server keeps the person's list (read twice, the second time kept) and their
      // verified credential: the erasure in another process tells it nothing.
      const ownList = () => server.request(as(orgA), { method: 'GET', url: '/api/v1/memory' });
      const theirs = () =>
        server.request(asCoOwner, { method: 'GET', url: `/api/v1/memory?user=${person.id}` });
      for (const read of [ownList, ownList, theirs]) {
        const listed = await read();
        expect(listed.statusCode).toBe(200);
        expect(listed.json().memories).toHaveLength(2);
      }

      const run = await mnemo('admin', 'user', 'erase', '--user', person.id, '--json');
      expect(run.stderr).toBe('');
      const counts = {
        memories: 3,
        poolMemories: 1,
        proposals: 1,
        projectGrants: 1,
        apiKeys: 1,
        invitations: 1,
      };
      expect(onlyJson(run)).toEqual({ ok: true, organizations: 2, ...counts });

      // Nothing of them is left: no row, membership, key, grant, store, memory, proposal,
      // refresh token, link or invitation.
      expect(await traces(person.id, email)).toEqual({
        users: 0,
        memberships: 0,
        apiKeys: 0,
        projectGrants: 0,
        connections: 0,
        stores: 0,
        memories: 0,
        proposals: 0,
        oauthRecords: 0,
        accountLinks: 0,
        invitations: 0,
      });
      // What they gave the pool is a tombstone naming no one: its clients are told.
      const left = await database.db
        .selectFrom('memories')
        .select(['id', 'content', 'contributor_id', 'deleted_at'])
        .where('id', 'in', remembered)
        .execute();
      expect(left).toEqual([
        {
          id: remembered[3],
          content: '',
          contributor_id: ERASED_CONTRIBUTOR,
          deleted_at: expect.any(Number),
        },
      ]);
      const pulled = await server.request(asCoOwner, {
        method: 'GET',
        url: `/api/v1/memory?project=${project}&since=${encodeURIComponent(coOwnerCursor)}`,
      });
      expect(pulled.json()).toMatchObject({ memories: [], deleted: [expect.any(String)] });
      // Audited once in each organization, by the operator, with the counts and nothing else.
      for (const orgId of [orgA, orgB]) {
        const audit = await database.db
          .selectFrom('audit_log')
          .selectAll()
          .where('org_id', '=', orgId)
          .where('action', '=', 'user.erase')
          .execute();
        expect(audit).toHaveLength(1);
        expect(audit[0]).toMatchObject({
          actor_id: OPERATOR_ACTOR_ID,
          target_id: person.id,
          memory_id: null,
        });
        expect(JSON.parse(audit[0]?.details as string)).toEqual(counts);
      }
      // The server that shares the store refuses their credentials at once, and serves their
      // store to no one: it was found through its row, which is gone.
      const after = await ownList();
      expect(after.statusCode).toBe(401);
      expect((await withKey()).statusCode).toBe(401);
      expect(await theirs()).toMatchObject({ statusCode: 400 });

      // Erased once: the id is unknown now, as any unknown id.
      expect(await mnemo('admin', 'user', 'erase', '--user', person.id, '--json')).toEqual(
        refused(`unknown user ${person.id}`),
      );
    } finally {
      await server.close();
    }
  });

  test('the only owner of organizations other people belong to is refused, naming them, and nothing is erased; with only end users left, they are erased', async () => {
    const server = await buildTestApp({}, { sharedStore: store });
    try {
      const [solo, acme, shared] = await Promise.all([
        given.org({ name: 'Solo Corp' }),
        given.org({ name: 'Acme' }),
        given.org({ name: 'Shared' }),
      ]);
      const owner = await given.user(solo, 'owner');
      await given.member(acme, owner.id, 'owner');
      await given.member(shared, owner.id, 'member');
      const [member, other] = await Promise.all([
        given.user(solo, 'member'),
        given.user(acme, 'admin'),
      ]);
      await given.user(shared, 'owner');
      const remembered = await server.request(
        { orgId: solo, token: owner.token },
        { method: 'POST', url: '/api/v1/memory', payload: { content: 'Likes tea' } },
      );
      expect(remembered.statusCode).toBe(201);
      const before = await traces(owner.id, `${owner.id}@example.test`);
      expect(before).toMatchObject({ users: 1, memberships: 3, stores: 1, memories: 1 });

      const run = await mnemo('admin', 'user', 'erase', '--user', owner.id, '--json');
      expect(run).toEqual(
        refused(
          `${owner.id} is the only owner of Acme (${acme}), Solo Corp (${solo}), which other people belong to: make another member owner first (mnemo admin member add --org ID --user ID --role owner)`,
        ),
      );
      expect(await traces(owner.id, `${owner.id}@example.test`)).toEqual(before);
      expect(await roleOf(solo, owner.id)).toBe('owner');
      expect(await userRow(owner.id)).toMatchObject({ status: 'active' });
      const audited = await database.db
        .selectFrom('audit_log')
        .select('id')
        .where('target_id', '=', owner.id)
        .where('action', '=', 'user.erase')
        .execute();
      expect(audited).toEqual([]);

      // Acme gets another owner; Solo Corp's other person goes, its end user stays: they run
      // nothing, and the organization keeps them for the operator to hand on.
      expect(
        await mnemo('admin', 'member', 'add', '--org', acme, '--user', other.id, '--role', 'owner'),
      ).toMatchObject({ code: 0 });
      expect(await mnemo('admin', 'user', 'erase', '--user', member.id, '--json')).toMatchObject({
        code: 0,
      });
      const endUser = await server.request(
        { orgId: solo, token: owner.token },
        { method: 'PUT', url: `/api/v1/orgs/${solo}/end-users/customer-1` },
      );
      expect(endUser.statusCode).toBe(201);
      const endUserId = endUser.json().endUser.id as string;

      const erased = await mnemo('admin', 'user', 'erase', '--user', owner.id);
      expect(erased).toEqual({
        code: 0,
        stdout: `erased user ${owner.id} from 3 organizations: 1 memory, 0 in project pools, 0 proposals, 0 API keys, 0 project accesses, 0 invitations\n`,
        stderr: '',
      });
      expect(await roleOf(solo, endUserId)).toBe('member');
      expect(await roleOf(acme, other.id)).toBe('owner');
      expect(await traces(owner.id, `${owner.id}@example.test`)).toMatchObject({
        users: 0,
        memberships: 0,
        stores: 0,
        memories: 0,
      });
    } finally {
      await server.close();
    }
  });

  test('an unknown id, or the one erased pool memories name, is an unknown user; --user is required', async () => {
    for (const id of [randomUUID(), ERASED_CONTRIBUTOR]) {
      expect(await mnemo('admin', 'user', 'erase', '--user', id, '--json')).toEqual(
        refused(`unknown user ${id}`),
      );
    }
    expect(await mnemo('admin', 'user', 'erase', '--json')).toMatchObject({ code: 2 });
  });
});
