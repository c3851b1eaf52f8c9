/**
 * The API keys endpoints through HTTP (`app.inject`): who may do what, the secret shown once,
 * the project rules, validation, the audit log and the OpenAPI document.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { API_KEY_PREFIX, hashApiKey, parseApiKey } from '../credentials/api-key-secret.ts';
import { CREDENTIAL_MESSAGES } from '../credentials/credential-refusals.ts';
import { buildTestApp, type TestApp, testConfig } from '../testing/build-test-app.ts';
import { scopedToken as credentialWithScope } from '../testing/scoped-token.ts';
import type { ApiKey } from './keys.schemas.ts';

const BASE = '/api/v1/api-keys';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NOT_FOUND = { error: 'API key not found' };
/** The 401 of an API key where the platform credential belongs, naming where to get one. */
const API_KEY_REFUSED = CREDENTIAL_MESSAGES.apiKey(`${testConfig().publicUrl}/oauth`);

interface Answer {
  status: number;
  body: unknown;
  headers: LightMyRequestResponse['headers'];
  raw: string;
}

interface Created {
  key: ApiKey;
  secret: string;
}

let t: TestApp;
let orgId: string;
let otherOrgId: string;
const who: Record<string, { id: string; token: string }> = {};
/** Every raw answer of this file, headers included, to search for secrets afterwards. */
const transcript: string[] = [];

/** Every answer: `no-store` and JSON, whatever the status. */
function checked(res: LightMyRequestResponse): Answer {
  const what = `${res.statusCode} ${res.body}`;
  transcript.push(JSON.stringify(res.headers) + res.body);
  expect(res.headers['cache-control'], what).toBe('no-store');
  expect(res.headers['content-type'], what).toMatch(/^application\/json/);
  return { status: res.statusCode, body: res.json(), headers: res.headers, raw: res.body };
}

async function call(
  token: string | undefined,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return checked(
    await t.app.inject({
      method,
      url,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        'x-organization-id': orgId,
        ...headers,
      },
      ...(payload === undefined ? {} : { payload: payload as object }),
    }),
  );
}

async function create(token: string, body: object = { name: 'laptop' }): Promise<Created> {
  const res = await call(token, 'POST', BASE, body);
  expect(res.status, res.raw).toBe(201);
  return res.body as Created;
}

async function list(token: string, org = orgId): Promise<ApiKey[]> {
  const res = await call(token, 'GET', BASE, undefined, { 'x-organization-id': org });
  expect(res.status, res.raw).toBe(200);
  return (res.body as { keys: ApiKey[] }).keys;
}

/** A credential of the built-in issuer with a `scope` claim, as the authorization server makes. */
const scopedToken = (userId: string, scope: string) => credentialWithScope(t, userId, scope);

const countKeys = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

beforeAll(async () => {
  t = await buildTestApp();
  orgId = await t.fixtures.org();
  otherOrgId = await t.fixtures.org();
  who.owner = await t.fixtures.user(orgId, 'owner');
  who.admin = await t.fixtures.user(orgId, 'admin');
  who.member = await t.fixtures.user(orgId, 'member');
  who.member2 = await t.fixtures.user(orgId, 'member');
  who.other = await t.fixtures.user(otherOrgId, 'owner');
  who.suspended = await t.fixtures.user(orgId, 'owner');
  await t.fixtures.status(who.suspended.id, 'suspended');
});

afterAll(async () => {
  await t?.close();
});

const as = (name: string) => {
  const user = who[name];
  if (!user) throw new Error(`no user ${name}`);
  return user;
};

describe('authorization matrix', () => {
  /** Callers refused before anything about the request is looked at, on every endpoint. */
  const refused: Array<[string, () => Promise<string | undefined>, number, object]> = [
    [
      'a member of another organization',
      async () => as('other').token,
      403,
      { error: 'not a member of this organization' },
    ],
    [
      'a suspended owner',
      async () => as('suspended').token,
      403,
      { error: 'account is suspended' },
    ],
    ['no credential', async () => undefined, 401, { error: CREDENTIAL_MESSAGES.missing }],
    [
      'an API key instead of the credential',
      async () => (await create(as('owner').token, { name: 'not a credential' })).secret,
      401,
      { error: API_KEY_REFUSED },
    ],
    [
      'a credential without the keys scope',
      () => scopedToken(as('owner').id, 'memory:read memory:write'),
      403,
      { error: 'the credential lacks the keys scope' },
    ],
  ];

  describe.each(refused)('%s', (_name, token, status, body) => {
    test('POST, GET and DELETE are refused, and nothing changes', async () => {
      const target = await create(as('owner').token, { name: 'target' });
      const credential = await token();
      const before = await countKeys();
      expect(await call(credential, 'POST', BASE, { name: 'x' })).toMatchObject({ status, body });
      expect(await call(credential, 'GET', BASE)).toMatchObject({ status, body });
      expect(await call(credential, 'DELETE', `${BASE}/${target.key.id}`)).toMatchObject({
        status,
        body,
      });
      expect(await countKeys()).toBe(before);
      const stored = (await list(as('owner').token)).find((k) => k.id === target.key.id);
      expect(stored?.revokedAt).toBeNull();
    });
  });

  test('the insufficient scope names the scope (RFC 6750)', async () => {
    const res = await call(await scopedToken(as('owner').id, 'memory:read'), 'GET', BASE);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="mnemo", error="insufficient_scope", error_description="the credential lacks the keys scope", scope="keys"',
    );
  });

  test('the keys scope alone is enough', async () => {
    const token = await scopedToken(as('member').id, 'keys');
    expect((await call(token, 'GET', BASE)).status).toBe(200);
  });

  test.each(['owner', 'admin', 'member'])('%s: creates (201) and lists (200)', async (role) => {
    const { id, token } = as(role);
    const created = await create(token, { name: `${role} key` });
    expect(created.key.userId).toBe(id);
    expect((await list(token)).map((k) => k.id)).toContain(created.key.id);
  });

  test.each([
    ['owner', 200, { ok: true }],
    ['admin', 200, { ok: true }],
    ['member', 404, NOT_FOUND],
  ])("%s revoking another member's key: %i", async (role, status, body) => {
    const target = await create(as('member2').token, { name: 'target' });
    expect(await call(as(role).token, 'DELETE', `${BASE}/${target.key.id}`)).toMatchObject({
      status,
      body,
    });
    const stored = (await list(as('owner').token)).find((k) => k.id === target.key.id);
    expect(stored?.revokedAt === null).toBe(status === 404);
  });

  test.each(['owner', 'admin', 'member'])('%s revoking their own key: 200', async (role) => {
    const { token } = as(role);
    const created = await create(token);
    expect(await call(token, 'DELETE', `${BASE}/${created.key.id}`)).toMatchObject({
      status: 200,
      body: { ok: true },
    });
  });

  test('X-Organization-Id missing or not a UUID: 400', async () => {
    const { token } = as('owner');
    const res = await t.app.inject({
      method: 'GET',
      url: BASE,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(checked(res)).toMatchObject({
      status: 400,
      body: { error: 'X-Organization-Id is required' },
    });
    expect(await call(token, 'GET', BASE, undefined, { 'x-organization-id': 'x' })).toMatchObject({
      status: 400,
      body: { error: 'X-Organization-Id must be an organization UUID' },
    });
  });

  test('an API key on the memory API: 401, the platform credential only', async () => {
    const { secret } = await create(as('member').token);
    for (const method of ['GET', 'POST'] as const) {
      const res = await call(
        secret,
        method,
        '/api/v1/memory',
        method === 'POST' ? { content: 'x' } : undefined,
      );
      expect(res).toMatchObject({ status: 401, body: { error: API_KEY_REFUSED } });
      expect(res.headers['www-authenticate']).toBe(
        `Bearer realm="mnemo", error="invalid_token", error_description="${API_KEY_REFUSED}"`,
      );
    }
  });
});

describe('create', () => {
  test('201 with the key, its secret, and Location', async () => {
    const before = Date.now();
    const res = await call(as('member').token, 'POST', BASE, { name: '  CI runner  ' });
    expect(res.status).toBe(201);
    const { key, secret } = res.body as Created;
    expect(Object.keys(res.body as object).sort()).toEqual(['key', 'secret']);
    expect(res.headers.location).toBe(`${BASE}/${key.id}`);
    expect(parseApiKey(secret)).toEqual({ secret, prefix: key.prefix });
    expect(key).toEqual({
      id: expect.stringMatching(UUID),
      name: 'CI runner',
      prefix: secret.slice(0, API_KEY_PREFIX.length + 4),
      userId: as('member').id,
      memory: 'off',
      memoryAccess: 'read-write',
      createdAt: expect.stringMatching(TIMESTAMP),
      lastUsedAt: null,
      expiresAt: null,
      revokedAt: null,
    });
    expect(Date.parse(key.createdAt)).toBeGreaterThanOrEqual(before);
    expect(key).not.toHaveProperty('projectId');
  });

  test('only the hash is stored', async () => {
    const { key, secret } = await create(as('member').token);
    const row = await t.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(hashApiKey(secret));
    expect(JSON.stringify(row)).not.toContain(secret.slice(API_KEY_PREFIX.length + 4));
    expect(row).toMatchObject({ org_id: orgId, user_id: as('member').id, prefix: key.prefix });
  });

  test('expiresAt in the future is kept (any RFC 3339 offset, shown in UTC)', async () => {
    const { key } = await create(as('member').token, {
      name: 'x',
      expiresAt: '2999-01-02T03:04:05+02:00',
    });
    expect(key.expiresAt).toBe('2999-01-02T01:04:05.000Z');
  });

  test('100 characters of name are accepted, counted as characters (an emoji is one)', async () => {
    const { key } = await create(as('member').token, { name: '🔑'.repeat(100) });
    expect(key.name).toBe('🔑'.repeat(100));
  });

  test.each([
    [{}, 'name is required'],
    [{ name: '' }, 'name must not be blank'],
    [{ name: ' \t\n ' }, 'name must not be blank'],
    [{ name: 'x'.repeat(101) }, 'name must be at most 100 characters'],
    [{ name: ` ${'🔑'.repeat(101)} ` }, 'name must be at most 100 characters'],
    [{ name: 7 }, 'name must be a string'],
    [{ name: 'x', scope: 'all' }, 'unknown field: scope'],
    [{ name: 'x', expiresAt: 'tomorrow' }, 'expiresAt must be a valid date-time'],
    [{ name: 'x', expiresAt: 1 }, 'expiresAt must be a string'],
    [{ name: 'x', expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt must be in the future'],
    [{ name: 'x', projectId: 'p1' }, 'projectId must be a UUID'],
    [[], 'request body must be a JSON object'],
  ])('%j: 400 %s', async (body, error) => {
    const before = await countKeys();
    expect(await call(as('member').token, 'POST', BASE, body)).toMatchObject({
      status: 400,
      body: { error },
    });
    expect(await countKeys()).toBe(before);
  });

  test('an expiry that is now or past: 400', async () => {
    const res = await call(as('member').token, 'POST', BASE, {
      name: 'x',
      expiresAt: new Date().toISOString(),
    });
    expect(res).toMatchObject({ status: 400, body: { error: 'expiresAt must be in the future' } });
  });

  test('malformed JSON 400, no JSON type 415, too large 413', async () => {
    const { token } = as('member');
    const send = (payload: string, type?: string) =>
      t.app
        .inject({
          method: 'POST',
          url: BASE,
          headers: {
            authorization: `Bearer ${token}`,
            'x-organization-id': orgId,
            ...(type === undefined ? {} : { 'content-type': type }),
          },
          payload,
        })
        .then(checked);
    expect(await send('{"name":', 'application/json')).toMatchObject({
      status: 400,
      body: { error: 'malformed JSON body' },
    });
    expect(await send('{"name":"x"}', 'text/plain')).toMatchObject({
      status: 415,
      body: { error: 'Content-Type must be application/json' },
    });
    expect(await send('')).toMatchObject({
      status: 415,
      body: { error: 'Content-Type must be application/json' },
    });
    expect(
      await send(JSON.stringify({ name: 'x'.repeat(70 * 1024) }), 'application/json'),
    ).toMatchObject({ status: 413, body: { error: 'request body is too large: at most 64 KiB' } });
  });

  test('a method the path does not serve: 405 with Allow', async () => {
    const { token } = as('member');
    const res = await call(token, 'PUT', BASE, { name: 'x' });
    expect(res).toMatchObject({ status: 405, body: { error: 'method not allowed' } });
    expect(res.headers.allow).toBe('GET, POST, HEAD');
    const one = await call(token, 'GET', `${BASE}/${randomUUID()}`);
    expect(one).toMatchObject({ status: 405 });
    expect(one.headers.allow).toBe('PATCH, DELETE');
  });
});

describe('projectId', () => {
  test('a project of the organization the caller can read: the key is bound to it', async () => {
    const { id, token } = as('member');
    const projectId = await t.fixtures.project(orgId, { [id]: 'viewer' });
    const { key } = await create(token, { name: 'x', projectId: projectId.toUpperCase() });
    expect(key.projectId).toBe(projectId);
    expect((await list(token)).find((k) => k.id === key.id)?.projectId).toBe(projectId);
  });

  test('a project of the organization the caller cannot read: 403', async () => {
    const projectId = await t.fixtures.project(orgId, { [as('member2').id]: 'owner' });
    // Owners and admins read projects through grants, as in the memory API.
    for (const role of ['member', 'owner']) {
      expect(await call(as(role).token, 'POST', BASE, { name: 'x', projectId })).toMatchObject({
        status: 403,
        body: { error: 'no access to this project' },
      });
    }
  });

  test("another organization's project, or none: 404", async () => {
    const foreign = await t.fixtures.project(otherOrgId, { [as('member').id]: 'owner' });
    for (const projectId of [foreign, randomUUID()]) {
      expect(await call(as('member').token, 'POST', BASE, { name: 'x', projectId })).toMatchObject({
        status: 404,
        body: { error: 'project not found' },
      });
    }
  });
});

describe('list', () => {
  test("members see their own keys; owners and admins every key of the organization's, newest first", async () => {
    const org = await t.fixtures.org();
    const owner = await t.fixtures.user(org, 'owner');
    const admin = await t.fixtures.user(org, 'admin');
    const a = await t.fixtures.user(org, 'member');
    const b = await t.fixtures.user(org, 'member');
    await t.fixtures.member(org, as('member').id, 'member');
    const inOrg = (token: string, body: object) =>
      call(token, 'POST', BASE, body, { 'x-organization-id': org }).then(
        (res) => (res.body as Created).key.id,
      );
    const a1 = await inOrg(a.token, { name: 'a1' });
    const b1 = await inOrg(b.token, { name: 'b1' });
    const a2 = await inOrg(a.token, { name: 'a2' });
    const o1 = await inOrg(owner.token, { name: 'o1' });

    expect((await list(a.token, org)).map((k) => k.id)).toEqual([a2, a1]);
    expect((await list(b.token, org)).map((k) => k.id)).toEqual([b1]);
    // A member of both organizations sees, here, none of the keys made in the other.
    expect(await list(as('member').token, org)).toEqual([]);
    for (const manager of [owner, admin]) {
      expect((await list(manager.token, org)).map((k) => k.id)).toEqual([o1, a2, b1, a1]);
    }
    for (const key of await list(owner.token, org)) {
      expect(Object.keys(key).sort()).toEqual([
        'createdAt',
        'expiresAt',
        'id',
        'lastUsedAt',
        'memory',
        'memoryAccess',
        'name',
        'prefix',
        'revokedAt',
        'userId',
      ]);
    }
  });
});

describe('memory settings', () => {
  test('set at creation; memory may not exceed memoryAccess, and nothing is made then', async () => {
    const { key } = await create(as('member').token, {
      name: 'assistant',
      memory: 'read',
      memoryAccess: 'read',
    });
    expect(key).toMatchObject({ memory: 'read', memoryAccess: 'read' });
    const before = (await list(as('member').token)).length;
    for (const body of [
      { name: 'x', memory: 'read-write', memoryAccess: 'read' },
      { name: 'x', memory: 'read', memoryAccess: 'off' },
    ]) {
      expect(await call(as('member').token, 'POST', BASE, body)).toMatchObject({
        status: 400,
        body: { error: 'memory cannot exceed memoryAccess (off < read < read-write)' },
      });
    }
    expect(
      await call(as('member').token, 'POST', BASE, { name: 'x', memory: 'always' }),
    ).toMatchObject({
      status: 400,
    });
    expect(await list(as('member').token)).toHaveLength(before);
  });

  test('PATCH changes them for the next call of the key, audited; the rule and the rights hold', async () => {
    const { key, secret } = await create(as('member').token, { name: 'agent' });
    const url = `${BASE}/${key.id}`;
    const patched = await call(as('member').token, 'PATCH', url, { memory: 'read-write' });
    expect(patched).toMatchObject({
      status: 200,
      body: { key: { ...key, memory: 'read-write', memoryAccess: 'read-write' } },
    });
    const found = await t.database.db
      .selectFrom('api_keys')
      .select(['memory', 'memory_access'])
      .where('secret_hash', '=', hashApiKey(parseApiKey(secret)?.secret ?? ''))
      .executeTakeFirstOrThrow();
    expect(found).toEqual({ memory: 'read-write', memory_access: 'read-write' });

    // Lowering the rights below the setting is refused, and changes nothing.
    expect(await call(as('member').token, 'PATCH', url, { memoryAccess: 'read' })).toMatchObject({
      status: 400,
      body: { error: 'memory cannot exceed memoryAccess (off < read < read-write)' },
    });
    expect(
      await call(as('member').token, 'PATCH', url, { memory: 'off', memoryAccess: 'off' }),
    ).toMatchObject({ status: 200, body: { key: { memory: 'off', memoryAccess: 'off' } } });
    expect(await call(as('member').token, 'PATCH', url, {})).toMatchObject({
      status: 400,
      body: { error: 'memory or memoryAccess is required' },
    });
    expect(await call(as('member').token, 'PATCH', url, { name: 'renamed' })).toMatchObject({
      status: 400,
    });
    // Another member's key is not theirs to see; an admin may change it.
    expect(await call(as('member2').token, 'PATCH', url, { memory: 'off' })).toEqual(
      expect.objectContaining({ status: 404, body: NOT_FOUND }),
    );
    expect(await call(as('admin').token, 'PATCH', url, { memoryAccess: 'read' })).toMatchObject({
      status: 200,
      body: { key: { memory: 'off', memoryAccess: 'read' } },
    });
    const audits = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor_id', 'details'])
      .where('action', '=', 'api_key.update')
      .execute();
    expect(audits.filter((a) => a.details?.includes(key.id)).map((a) => a.actor_id)).toEqual([
      as('member').id,
      as('member').id,
      as('admin').id,
    ]);
  });
});

describe('revoke', () => {
  test('idempotent: 200 again, one revocation time, one audit record', async () => {
    const { token } = as('member');
    const { key } = await create(token);
    expect((await call(token, 'DELETE', `${BASE}/${key.id}`)).body).toEqual({ ok: true });
    const first = (await list(token)).find((k) => k.id === key.id)?.revokedAt;
    expect(first).toMatch(TIMESTAMP);
    expect((await call(token, 'DELETE', `${BASE}/${key.id}`)).body).toEqual({ ok: true });
    expect((await list(token)).find((k) => k.id === key.id)?.revokedAt).toBe(first);
    const audits = await t.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'api_key.revoke')
      .execute();
    expect(audits.filter((a) => a.details?.includes(key.id))).toHaveLength(1);
  });

  test("unknown, not a UUID, another organization's: the same 404", async () => {
    const res = await call(
      as('other').token,
      'POST',
      BASE,
      { name: 'theirs' },
      {
        'x-organization-id': otherOrgId,
      },
    );
    const theirs = (res.body as Created).key.id;
    for (const id of [randomUUID(), 'not-a-uuid', theirs]) {
      expect(await call(as('owner').token, 'DELETE', `${BASE}/${id}`)).toEqual(
        expect.objectContaining({ status: 404, body: NOT_FOUND }),
      );
    }
    const stored = await list(as('other').token, otherOrgId);
    expect(stored.find((k) => k.id === theirs)?.revokedAt).toBeNull();
  });
});

describe('audit log', () => {
  test('create and revoke are recorded with the key id and name, target the key owner', async () => {
    const { key } = await create(as('member2').token, { name: 'audited' });
    await call(as('admin').token, 'DELETE', `${BASE}/${key.id}`);
    const rows = await t.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('details', 'like', `%${key.id}%`)
      .orderBy('id')
      .execute();
    expect(
      rows.map((r) => ({
        action: r.action,
        actor: r.actor_id,
        target: r.target_id,
        details: JSON.parse(r.details ?? 'null'),
      })),
    ).toEqual([
      {
        action: 'api_key.create',
        actor: as('member2').id,
        target: as('member2').id,
        details: { keyId: key.id, name: 'audited' },
      },
      {
        action: 'api_key.revoke',
        actor: as('admin').id,
        target: as('member2').id,
        details: { keyId: key.id, name: 'audited' },
      },
    ]);
  });
});

describe('the secret is shown once', () => {
  test('only the create response ever holds the secret or its hash', async () => {
    const { token } = as('member');
    const start = transcript.length;
    const { key, secret } = await create(token, { name: 'once' });
    const hash = hashApiKey(secret);
    const random = secret.slice(API_KEY_PREFIX.length + 4);
    // Everything else a client could ask, by any route that shows keys or anything at all.
    await list(token);
    await list(as('owner').token);
    await list(as('admin').token);
    await call(token, 'GET', `${BASE}/${key.id}`);
    await call(token, 'DELETE', `${BASE}/${key.id}`);
    await call(token, 'DELETE', `${BASE}/${key.id}`);
    await list(token);
    await call(token, 'GET', '/api/v1/memory');
    await call(secret, 'GET', BASE);
    await call(token, 'GET', '/openapi.json');
    await call(token, 'GET', '/api/v1/nothing-here');

    const answers = transcript.slice(start);
    const holding = answers.filter((a) => a.includes(random) || a.includes(hash));
    expect(holding).toHaveLength(1);
    expect(holding[0]).toBe(answers[0]);
    expect(answers[0]).not.toContain(hash);
    const audit = await t.database.db.selectFrom('audit_log').select('details').execute();
    expect(JSON.stringify(audit)).not.toContain(random);
  });
});

describe('OpenAPI', () => {
  test('the three operations, tagged, with their scope and response schemas', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const doc = res.json() as {
      paths: Record<
        string,
        Record<string, { tags: string[]; security: unknown; responses: Record<string, unknown> }>
      >;
      components: { schemas: Record<string, unknown> };
    };
    const ops = [doc.paths[BASE]?.post, doc.paths[BASE]?.get, doc.paths[`${BASE}/{id}`]?.delete];
    for (const op of ops) {
      expect(op?.tags).toEqual(['api-keys']);
      expect(op?.security).toEqual([{ platformCredential: ['keys'] }]);
      expect(Object.keys(op?.responses ?? {})).toEqual(
        expect.arrayContaining(['429', '503', '4XX', '5XX']),
      );
    }
    expect(Object.keys(doc.paths[BASE]?.post?.responses ?? {})).toContain('201');
    expect(doc.components.schemas).toHaveProperty('ApiKey');
  });
});
