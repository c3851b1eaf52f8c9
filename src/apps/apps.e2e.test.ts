/**
 * Apps over real HTTP: registered by an owner, a secret shown once, a platform credential by
 * client_credentials that acts as the app's own member identity (registering end users and
 * writing their memories with an admin role), its own rate limit up to the operator's ceiling,
 * its secret replaced, and its revocation ending its tokens at their next request.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type OAuthServer, startOAuthServer } from '../testing/oauth-server.ts';

let server: OAuthServer;
let orgId: string;
let owner: { id: string; token: string };

/** A server and an organization with its owner; rate limits off unless `env` turns them on. */
async function start(env: Record<string, string> = {}) {
  server = await startOAuthServer({ MNEMO_APP_RATE_LIMIT_MAX: '8', ...env });
  orgId = await server.t.fixtures.org({ name: 'Acme' });
  const person = await server.person({ orgId, role: 'owner' });
  owner = { id: person.id, token: await server.t.fixtures.token(person.id) };
}

beforeAll(() => start());
afterAll(() => server?.close());

interface AppAnswer {
  app: {
    id: string;
    name: string;
    userId: string;
    role: string;
    rateLimitPerMinute: number | null;
    createdAt: string;
  };
  secret: string;
}

async function api(token: string, method: string, path: string, body?: unknown, org = orgId) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'x-organization-id': org,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

/** `POST /oauth/token` with client_credentials, the client's id and secret in Basic. */
async function tokenOf(clientId: string, secret: string, scope = 'memory:read memory:write admin') {
  const res = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  return {
    status: res.status,
    body: (await res.json()) as { access_token?: string; error?: string },
  };
}

async function createApp(body: object) {
  const created = await api(owner.token, 'POST', `/api/v1/orgs/${orgId}/apps`, body);
  expect(created.status).toBe(201);
  return created.body as AppAnswer;
}

async function appToken(app: AppAnswer) {
  const issued = await tokenOf(app.app.id, app.secret);
  expect(issued.status).toBe(200);
  return issued.body.access_token as string;
}

describe('registering an app', () => {
  test('shows the secret once; its token acts as the app, which registers end users and writes their memories', async () => {
    const made = await createApp({ name: '  Support bot ', role: 'admin' });
    expect(made).toEqual({
      app: {
        id: expect.stringMatching(/^mnemo_client_[A-Za-z0-9_-]{22}$/),
        name: 'Support bot',
        userId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        role: 'admin',
        rateLimitPerMinute: null,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      },
      secret: expect.stringMatching(/^mnemo_cs_[A-Za-z0-9_-]{43}$/),
    });
    const listed = await api(owner.token, 'GET', `/api/v1/orgs/${orgId}/apps`);
    expect(listed.body.rateLimits).toEqual({ defaultPerMinute: 0, maxPerMinute: 8 });
    expect(listed.body.apps).toContainEqual(made.app);
    expect(JSON.stringify(listed.body)).not.toContain(made.secret);
    expect(
      (await api(owner.token, 'GET', `/api/v1/orgs/${orgId}/apps/${made.app.id}`)).body,
    ).toEqual({
      app: made.app,
    });

    const token = await appToken(made);
    expect(decodeJwt(token)).toMatchObject({
      sub: made.app.userId,
      client_id: made.app.id,
      org_ids: [orgId],
      scope: 'memory:read memory:write admin',
    });
    expect(decodeJwt(token).mnemo_rate_limit).toBeUndefined();
    const userinfo = await fetch(`${server.url}/oauth/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await userinfo.json()).toEqual({
      sub: made.app.userId,
      name: 'Support bot',
      organizations: [{ id: orgId, name: 'Acme', role: 'admin' }],
    });
    const endUser = await api(token, 'PUT', `/api/v1/orgs/${orgId}/end-users/customer-7`, {
      name: 'Jo',
    });
    expect(endUser.status).toBe(201);
    const userId = endUser.body.endUser.id as string;
    const added = await api(token, 'POST', '/api/v1/memory', {
      content: 'Allergic to nuts',
      user: userId,
    });
    expect(added.status).toBe(201);
    const listedMemories = await api(token, 'GET', `/api/v1/memory?user=${userId}`);
    expect(listedMemories.body.memories.map((m: { content: string }) => m.content)).toEqual([
      'Allergic to nuts',
    ]);
    // Its own identity is no person of Members, and the acts are its own in the audit log.
    const members = await api(owner.token, 'GET', `/api/v1/orgs/${orgId}/members`);
    expect(members.body.members.map((m: { userId: string }) => m.userId)).not.toContain(
      made.app.userId,
    );
    const audit = await api(owner.token, 'GET', '/api/v1/audit?limit=100');
    const actions = audit.body.entries
      .filter((e: { actorId: string }) => e.actorId === made.app.userId)
      .map((e: { action: string }) => e.action);
    expect(actions).toEqual(['list', 'add', 'end_user.register']);
  });

  test('a member app may not register end users; an owner role is not offered; bad input is a 400', async () => {
    const plain = await createApp({ name: 'Notes sync' });
    expect(plain.app.role).toBe('member');
    const token = await appToken(plain);
    expect((await api(token, 'PUT', `/api/v1/orgs/${orgId}/end-users/x`)).status).toBe(403);
    const cases: [object, string][] = [
      [{ name: ' ' }, 'name must not be blank'],
      [{}, 'name is required'],
      [{ name: 'x'.repeat(101) }, 'name must be at most 100 characters'],
      [
        { name: 'x', role: 'owner' },
        expect.stringMatching(/^role (is invalid|must be one of: admin, member)$/) as never,
      ],
      [
        { name: 'x', rateLimitPerMinute: 9 },
        'rateLimitPerMinute must be at most 8, the most this server gives an app',
      ],
      [{ name: 'x', rateLimitPerMinute: 0 }, 'rateLimitPerMinute must be at least 1'],
      [{ name: 'x', secret: 'mine' }, 'unknown field: secret'],
    ];
    for (const [body, error] of cases) {
      expect(await api(owner.token, 'POST', `/api/v1/orgs/${orgId}/apps`, body)).toMatchObject({
        status: 400,
        body: { error },
      });
    }
    const member = await server.person({ orgId, role: 'member' });
    const memberToken = await server.t.fixtures.token(member.id);
    expect(
      (await api(memberToken, 'POST', `/api/v1/orgs/${orgId}/apps`, { name: 'x' })).status,
    ).toBe(403);
    expect((await api(memberToken, 'GET', `/api/v1/orgs/${orgId}/apps`)).status).toBe(403);
    expect(
      (await api(owner.token, 'PATCH', `/api/v1/orgs/${orgId}/apps/${plain.app.id}`, {})).body,
    ).toEqual({
      error: 'at least one of name, role or rateLimitPerMinute is required',
    });
    expect(
      (await api(owner.token, 'GET', `/api/v1/orgs/${orgId}/apps/mnemo_client_nope`)).status,
    ).toBe(404);
  });
});

describe('a new secret and revocation', () => {
  test('a new secret replaces the old at once; tokens already issued live on', async () => {
    const made = await createApp({ name: 'Rotator' });
    const before = await appToken(made);
    const rotated = await api(
      owner.token,
      'POST',
      `/api/v1/orgs/${orgId}/apps/${made.app.id}/secret`,
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.app).toEqual(made.app);
    expect(rotated.body.secret).not.toBe(made.secret);
    expect(await tokenOf(made.app.id, made.secret)).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    expect((await tokenOf(made.app.id, rotated.body.secret)).status).toBe(200);
    expect((await api(before, 'GET', '/api/v1/memory')).status).toBe(200);
  });

  test('revoking ends its tokens at their next request and erases what it held; what it wrote for others stays', async () => {
    const made = await createApp({ name: 'Leaving bot', role: 'admin' });
    const token = await appToken(made);
    const projectId = await server.t.fixtures.project(orgId, { [made.app.userId]: 'editor' });
    const pool = `/api/v1/memory?project=${projectId}`;
    await server.t.fixtures.grant(projectId, owner.id, 'viewer');
    const cursor = (await api(owner.token, 'GET', pool)).body.cursor as string;
    const contributed = await api(token, 'POST', '/api/v1/memory', {
      content: 'Deploys on Tuesdays',
      project: projectId,
    });
    expect(contributed.status).toBe(201);
    await api(token, 'POST', '/api/v1/memory', { content: 'My own note' });
    const endUser = (await api(token, 'PUT', `/api/v1/orgs/${orgId}/end-users/kept-${made.app.id}`))
      .body.endUser;
    await api(token, 'POST', '/api/v1/memory', { content: 'Likes jazz', user: endUser.id });

    expect(
      await api(owner.token, 'DELETE', `/api/v1/orgs/${orgId}/apps/${made.app.id}`),
    ).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    expect(await api(token, 'GET', '/api/v1/memory')).toMatchObject({
      status: 401,
      body: { error: 'credential does not belong to a known account' },
    });
    expect(await tokenOf(made.app.id, made.secret)).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    expect(
      (await api(owner.token, 'DELETE', `/api/v1/orgs/${orgId}/apps/${made.app.id}`)).status,
    ).toBe(404);
    expect(
      (await api(owner.token, 'GET', `/api/v1/orgs/${orgId}/apps`)).body.apps.map(
        (a: { id: string }) => a.id,
      ),
    ).not.toContain(made.app.id);

    // Syncing the pool is told its contribution is gone; nothing of it is found.
    const pulled = await api(owner.token, 'GET', `${pool}&since=${cursor}`);
    expect(pulled.body).toMatchObject({ memories: [], deleted: [contributed.body.memory.id] });
    const found = await api(
      owner.token,
      'GET',
      `/api/v1/memory/search?project=${projectId}&q=Tuesdays`,
    );
    expect(found.body.memories).toEqual([]);
    // The end user's memory is theirs.
    const kept = await api(owner.token, 'GET', `/api/v1/memory?user=${endUser.id}`);
    expect(kept.body.memories.map((m: { content: string }) => m.content)).toEqual(['Likes jazz']);
    const audit = await api(owner.token, 'GET', '/api/v1/audit?limit=5');
    const revoked = audit.body.entries.find((e: { action: string }) => e.action === 'app.revoke');
    expect(revoked).toMatchObject({
      actorId: owner.id,
      targetId: made.app.userId,
      action: 'app.revoke',
      details: {
        appId: made.app.id,
        memories: 1,
        poolMemories: 1,
        proposals: 0,
        projectGrants: 1,
        apiKeys: 0,
      },
    });
    // Its identity is gone; the tombstone it left in the pool names no one.
    const { db } = server.t.database;
    expect(
      await db.selectFrom('users').select('id').where('id', '=', made.app.userId).execute(),
    ).toEqual([]);
    expect(
      await db
        .selectFrom('memories')
        .select('contributor_id')
        .where('id', '=', contributed.body.memory.id)
        .execute(),
    ).toEqual([{ contributor_id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' }]);
  });
});

describe('rate limits', () => {
  beforeAll(async () => {
    await server.close();
    await start({ MNEMO_RATE_LIMIT_PER_MINUTE: '5' });
  });

  test('the default for every credential; an app given more gets it in new tokens, up to the ceiling', async () => {
    const made = await createApp({ name: 'Importer', role: 'member' });
    expect((await api(owner.token, 'GET', `/api/v1/orgs/${orgId}/apps`)).body.rateLimits).toEqual({
      defaultPerMinute: 5,
      maxPerMinute: 8,
    });
    const spend = async (token: string, times: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < times; i++)
        statuses.push((await api(token, 'GET', '/api/v1/memory')).status);
      return statuses;
    };
    const first = await appToken(made);
    const answer = await api(first, 'GET', '/api/v1/memory');
    expect(answer.headers.get('ratelimit-policy')).toBe('"credential";q=5;w=60');
    expect(await spend(first, 5)).toEqual([200, 200, 200, 200, 429]);

    const changed = await api(owner.token, 'PATCH', `/api/v1/orgs/${orgId}/apps/${made.app.id}`, {
      rateLimitPerMinute: 8,
    });
    expect(changed.body.app.rateLimitPerMinute).toBe(8);
    // The token issued before the change keeps the limit it was issued with.
    expect((await api(first, 'GET', '/api/v1/memory')).status).toBe(429);
    const second = await appToken(made);
    expect(decodeJwt(second).mnemo_rate_limit).toBe(8);
    const more = await api(second, 'GET', '/api/v1/memory');
    expect(more.status).toBe(200);
    expect(more.headers.get('ratelimit-policy')).toBe('"credential";q=8;w=60');
    // One budget per subject: the 5 already spent count.
    expect(await spend(second, 3)).toEqual([200, 200, 429]);

    const back = await api(owner.token, 'PATCH', `/api/v1/orgs/${orgId}/apps/${made.app.id}`, {
      rateLimitPerMinute: null,
    });
    expect(back.body.app.rateLimitPerMinute).toBeNull();
    expect(decodeJwt(await appToken(made)).mnemo_rate_limit).toBeUndefined();
  });
});
