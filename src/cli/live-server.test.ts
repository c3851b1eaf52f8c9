/**
 * docs/design.md §4: provisioning runs against the same MNEMO_DATABASE_URL as the server, which
 * sees the change at once, without a restart. A real server process keeps running on a store
 * while `mnemo` changes accounts, organizations, memberships and keys beside it.
 */
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { OPERATOR_ACTOR_ID } from '../audit/index.ts';
import { type ServerProcess, startServerProcess } from '../testing/server-process.ts';
import { createTestStore, type TestStore } from '../testing/test-store.ts';
import { createMnemo, type MnemoRun, onlyJson } from './mnemo-process.ts';

let store: TestStore;
let server: ServerProcess;
let mnemo: ReturnType<typeof createMnemo>;

beforeAll(async () => {
  store = await createTestStore();
  const { url } = store;
  server = await startServerProcess({
    env: {
      MNEMO_DATABASE_URL: url,
      MNEMO_SEED_DEMO: 'off',
      MNEMO_LOG_LEVEL: 'silent',
      MNEMO_RATE_LIMIT_PER_MINUTE: '0',
    },
  });
  // The credential's issuer and audience come from the public URL: the server's own.
  mnemo = createMnemo({ MNEMO_DATABASE_URL: url, MNEMO_PUBLIC_URL: server.url });
});
afterAll(async () => {
  await server?.stop();
  await store?.dispose();
});

async function ok(run: Promise<MnemoRun>): Promise<unknown> {
  const done = await run;
  expect(done.stderr, done.stderr).toBe('');
  expect(done.code).toBe(0);
  return onlyJson(done);
}

const idOf = async (run: Promise<MnemoRun>) => ((await ok(run)) as { id: string }).id;

test('the running server sees every change of the command at once', async () => {
  const [orgId, alice, bob] = await Promise.all([
    idOf(mnemo('admin', 'org', 'create', '--name', 'Live', '--json')),
    idOf(mnemo('admin', 'user', 'create', '--email', 'alice@live.test', '--json')),
    idOf(mnemo('admin', 'user', 'create', '--email', 'bob@live.test', '--json')),
  ]);
  await Promise.all([
    ok(mnemo('admin', 'member', 'add', '--org', orgId, '--user', alice, '--json')),
    ok(mnemo('admin', 'member', 'add', '--org', orgId, '--user', bob, '--json')),
  ]);
  const tokenOf = async () => {
    const { token } = (await ok(mnemo('token', '--user', alice, '--json'))) as { token: string };
    return token;
  };
  const firstToken = await tokenOf();

  const get = async (token: string, query = '') => {
    const response = await fetch(`${server.url}/api/v1/memory${query}`, {
      headers: { authorization: `Bearer ${token}`, 'x-organization-id': orgId },
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const status = async (token: string, query = '') => (await get(token, query)).status;
  const set = (...args: string[]) => ok(mnemo('admin', ...args, '--json'));

  expect(await get(firstToken)).toEqual({
    status: 200,
    body: { memories: [], cursor: expect.any(String) },
  });

  await set('user', 'set', '--user', alice, '--status', 'suspended');
  expect(await get(firstToken)).toEqual({ status: 403, body: { error: 'account is suspended' } });
  await set('user', 'set', '--user', alice, '--status', 'active');
  expect(await status(firstToken)).toBe(200);

  await set('org', 'set', '--org', orgId, '--memory', 'off');
  expect(await get(firstToken)).toEqual({
    status: 404,
    body: { error: 'memory is not enabled for this organization' },
  });
  await set('org', 'set', '--org', orgId, '--memory', 'on');
  expect(await status(firstToken)).toBe(200);

  // By default any member may act for another; `admins` restricts it to owners and admins.
  expect(await status(firstToken, `?user=${bob}`)).toBe(200);
  await set('org', 'set', '--org', orgId, '--user-override', 'admins');
  expect(await get(firstToken, `?user=${bob}`)).toEqual({
    status: 403,
    body: { error: 'acting for another member is restricted to organization owners and admins' },
  });
  const audit = (await ok(mnemo('admin', 'audit', 'list', '--org', orgId, '--json'))) as {
    entries: unknown[];
  };
  const entry = (actorId: string, targetId: string, action: string) => ({
    id: expect.any(String),
    at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    actorId,
    targetId,
    action,
    memoryId: null,
  });
  // Newest first: the policy set to `admins`; Alice's list for Bob, made before it; the memory
  // switched on, then off; the two additions (made at once, so in either order); the creation
  // of the organization. The operator's acts carry its nil UUID as actor.
  expect(audit.entries).toHaveLength(7);
  expect(audit.entries.slice(0, 4)).toEqual([
    entry(OPERATOR_ACTOR_ID, orgId, 'org.update'),
    entry(alice, bob, 'list'),
    entry(OPERATOR_ACTOR_ID, orgId, 'org.update'),
    entry(OPERATOR_ACTOR_ID, orgId, 'org.update'),
  ]);
  expect(audit.entries.slice(4, 6)).toEqual(
    expect.arrayContaining([
      entry(OPERATOR_ACTOR_ID, alice, 'member.add'),
      entry(OPERATOR_ACTOR_ID, bob, 'member.add'),
    ]),
  );
  expect(audit.entries[6]).toEqual(entry(OPERATOR_ACTOR_ID, orgId, 'org.create'));

  // A rotated key signs the next credential; the server takes it at once, and the older
  // credential keeps working.
  const { kid } = (await set('keys', 'rotate')) as { kid: string };
  const rotatedToken = await tokenOf();
  expect(decodeProtectedHeader(rotatedToken).kid).toBe(kid);
  expect(decodeProtectedHeader(firstToken).kid).not.toBe(kid);
  expect(await status(rotatedToken)).toBe(200);
  expect(await status(firstToken)).toBe(200);

  await set('member', 'remove', '--org', orgId, '--user', alice);
  expect(await get(rotatedToken)).toEqual({
    status: 403,
    body: { error: 'not a member of this organization' },
  });
  expect(await status(firstToken)).toBe(403);
  expect(server.hasExited()).toBe(false);
  // About twenty `mnemo` processes, one after another: seconds each on a busy machine.
}, 120_000);

test('a person erased beside the running server: their credential and API key are refused at once, and their store is served to no one', async () => {
  const [orgId, carol, dave] = await Promise.all([
    idOf(mnemo('admin', 'org', 'create', '--name', 'Forget', '--json')),
    idOf(mnemo('admin', 'user', 'create', '--email', 'carol@live.test', '--json')),
    idOf(mnemo('admin', 'user', 'create', '--email', 'dave@live.test', '--json')),
  ]);
  const admin = (...args: string[]) => ok(mnemo('admin', ...args, '--json'));
  await Promise.all(
    [carol, dave].map((user) =>
      admin('member', 'add', '--org', orgId, '--user', user, '--role', 'owner'),
    ),
  );
  const tokenOf = async (userId: string) =>
    ((await ok(mnemo('token', '--user', userId, '--json'))) as { token: string }).token;
  const [carolToken, daveToken] = await Promise.all([tokenOf(carol), tokenOf(dave)]);
  const call = async (token: string, path: string, body?: object) => {
    const response = await fetch(`${server.url}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        'x-organization-id': orgId,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  expect((await call(carolToken, '/api/v1/memory', { content: 'Likes tea' })).status).toBe(201);
  const key = await call(carolToken, '/api/v1/api-keys', { name: 'CI' });
  expect(key.status).toBe(201);
  const { secret } = key.body as { secret: string };
  // The server keeps the credential it verified and the list it served (the second read).
  const listed = {
    status: 200,
    body: {
      memories: [expect.objectContaining({ content: 'Likes tea' })],
      cursor: expect.any(String),
    },
  };
  expect(await call(carolToken, '/api/v1/memory')).toEqual(listed);
  expect(await call(carolToken, '/api/v1/memory')).toEqual(listed);
  expect(await call(daveToken, `/api/v1/memory?user=${carol}`)).toEqual(listed);
  expect((await call(secret, '/v1/models')).status).toBe(200);

  expect(await admin('user', 'erase', '--user', carol)).toMatchObject({
    ok: true,
    organizations: 1,
    memories: 1,
    apiKeys: 1,
  });
  expect(await call(carolToken, '/api/v1/memory')).toMatchObject({ status: 401 });
  expect(await call(secret, '/v1/models')).toMatchObject({ status: 401 });
  expect(await call(daveToken, `/api/v1/memory?user=${carol}`)).toEqual({
    status: 400,
    body: { error: 'user is not a member of this organization' },
  });
  expect(server.hasExited()).toBe(false);
}, 120_000);
