/**
 * Organization settings and members through HTTP: the owner rules (only owners make or touch
 * owners; the last owner can be neither demoted nor removed), grants leaving with a member, the
 * audit row of each change, and the validation errors.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { auditTrail, call } from '../testing/management-client.ts';

/** An enum field's message: the generic one, or one that lists the values. */
const oneOf = (field: string, values: string) =>
  expect.stringMatching(new RegExp(`^${field} (is invalid|must be one of: ${values})$`));

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function org() {
  const orgId = await t.fixtures.org({ name: 'Acme' });
  const owner = await t.fixtures.user(orgId, 'owner');
  const admin = await t.fixtures.user(orgId, 'admin');
  const member = await t.fixtures.user(orgId, 'member');
  return { orgId, owner, admin, member, members: `/api/v1/orgs/${orgId}/members` };
}

const roles = async (orgId: string) =>
  Object.fromEntries(
    (
      await t.database.db
        .selectFrom('memberships')
        .select(['user_id', 'role'])
        .where('org_id', '=', orgId)
        .execute()
    ).map((r) => [r.user_id, r.role]),
  );

describe('the last owner', () => {
  test('cannot demote or remove themselves: 409, and nothing changes', async () => {
    const o = await org();
    const before = await roles(o.orgId);
    for (const role of ['admin', 'member']) {
      expect(await call(t, o.owner.token, 'PATCH', `${o.members}/${o.owner.id}`, { role })).toEqual(
        {
          status: 409,
          body: { error: 'the last owner of the organization cannot be demoted' },
        },
      );
    }
    expect(await call(t, o.owner.token, 'DELETE', `${o.members}/${o.owner.id}`)).toEqual({
      status: 409,
      body: { error: 'the last owner of the organization cannot be removed' },
    });
    expect(await roles(o.orgId)).toEqual(before);
    expect(await auditTrail(t, o.orgId)).toEqual([]);
  });

  test('with a second owner, one may go; then the other is the last', async () => {
    const o = await org();
    const second = await t.fixtures.user(o.orgId, 'owner');
    expect(
      await call(t, second.token, 'PATCH', `${o.members}/${o.owner.id}`, { role: 'member' }),
    ).toMatchObject({ status: 200, body: { member: { userId: o.owner.id, role: 'member' } } });
    expect(await call(t, second.token, 'DELETE', `${o.members}/${second.id}`)).toEqual({
      status: 409,
      body: { error: 'the last owner of the organization cannot be removed' },
    });
  });

  test('two owners demoting each other at once: one wins, an owner is left', async () => {
    const o = await org();
    const second = await t.fixtures.user(o.orgId, 'owner');
    const answers = await Promise.all([
      call(t, o.owner.token, 'PATCH', `${o.members}/${second.id}`, { role: 'member' }),
      call(t, second.token, 'PATCH', `${o.members}/${o.owner.id}`, { role: 'member' }),
    ]);
    // The loser is refused as no longer an owner (403) or as the last one (409).
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const owners = Object.values(await roles(o.orgId)).filter((r) => r === 'owner');
    expect(owners).toHaveLength(1);
  });
});

describe('owners and admins', () => {
  test('an admin cannot make, change or remove owners; an owner can', async () => {
    const o = await org();
    const url = `${o.members}/${o.member.id}`;
    expect(await call(t, o.admin.token, 'PATCH', url, { role: 'owner' })).toEqual({
      status: 403,
      body: { error: 'only owners can make owners or change an owner' },
    });
    expect(
      await call(t, o.admin.token, 'PATCH', `${o.members}/${o.owner.id}`, { role: 'admin' }),
    ).toEqual({ status: 403, body: { error: 'only owners can make owners or change an owner' } });
    expect(await call(t, o.admin.token, 'DELETE', `${o.members}/${o.owner.id}`)).toEqual({
      status: 403,
      body: { error: 'only owners can remove an owner' },
    });
    const newcomer = await t.fixtures.user();
    expect(
      await call(t, o.admin.token, 'POST', o.members, {
        email: `${newcomer.id}@example.test`,
        role: 'owner',
      }),
    ).toEqual({ status: 403, body: { error: 'only owners can make owners' } });
    expect(await auditTrail(t, o.orgId)).toEqual([]);
    expect(await call(t, o.owner.token, 'PATCH', url, { role: 'owner' })).toMatchObject({
      status: 200,
      body: { member: { role: 'owner' } },
    });
  });

  test('the same role again answers 200 and writes no audit row', async () => {
    const o = await org();
    const url = `${o.members}/${o.member.id}`;
    expect(await call(t, o.admin.token, 'PATCH', url, { role: 'member' })).toMatchObject({
      status: 200,
      body: { member: { role: 'member' } },
    });
    expect(await auditTrail(t, o.orgId)).toEqual([]);
  });
});

describe('adding and removing', () => {
  test('add by email: unknown 404, a member already 409, else 201 and an audit row', async () => {
    const o = await org();
    expect(
      await call(t, o.admin.token, 'POST', o.members, { email: 'nobody@example.test' }),
    ).toEqual({ status: 404, body: { error: 'no user with this email' } });
    expect(
      await call(t, o.admin.token, 'POST', o.members, { email: `${o.member.id}@example.test` }),
    ).toEqual({
      status: 409,
      body: { error: 'the user is already a member of this organization' },
    });
    const newcomer = await t.fixtures.user();
    const added = await call(t, o.admin.token, 'POST', o.members, {
      email: `${newcomer.id}@EXAMPLE.test`,
    });
    expect(added).toMatchObject({
      status: 201,
      body: { member: { userId: newcomer.id, role: 'member', status: 'active' } },
    });
    expect(await auditTrail(t, o.orgId)).toEqual([
      {
        actorId: o.admin.id,
        targetId: newcomer.id,
        action: 'member.add',
        details: { role: 'member' },
      },
    ]);
  });

  test("removal takes the member's grants in this organization, and only those", async () => {
    const o = await org();
    const other = await t.fixtures.org();
    await t.fixtures.member(other, o.member.id);
    const here = await t.fixtures.project(o.orgId, { [o.member.id]: 'editor' });
    const there = await t.fixtures.project(other, { [o.member.id]: 'viewer' });
    expect(await call(t, o.owner.token, 'DELETE', `${o.members}/${o.member.id}`)).toEqual({
      status: 200,
      body: { ok: true },
    });
    const grants = await t.database.db
      .selectFrom('project_access')
      .select('project_id')
      .where('user_id', '=', o.member.id)
      .execute();
    expect(grants.map((g) => g.project_id)).toEqual([there]);
    expect(here).not.toBe(there);
    expect(await auditTrail(t, o.orgId)).toEqual([
      {
        actorId: o.owner.id,
        targetId: o.member.id,
        action: 'member.remove',
        details: { role: 'member', revokedGrants: 1 },
      },
    ]);
    expect(await call(t, o.owner.token, 'DELETE', `${o.members}/${o.member.id}`)).toEqual({
      status: 404,
      body: { error: 'member not found' },
    });
  });

  test('role changes are audited with from and to', async () => {
    const o = await org();
    await call(t, o.owner.token, 'PATCH', `${o.members}/${o.member.id}`, { role: 'admin' });
    expect(await auditTrail(t, o.orgId)).toEqual([
      {
        actorId: o.owner.id,
        targetId: o.member.id,
        action: 'member.role',
        details: { from: 'member', to: 'admin' },
      },
    ]);
  });
});

describe('organization settings', () => {
  test('rename and policy change: one audit row with what changed; memoryEnabled shows the effective switch', async () => {
    const o = await org();
    const url = `/api/v1/orgs/${o.orgId}`;
    expect(
      await call(t, o.admin.token, 'PATCH', url, { name: ' Acme Corp ', userOverride: 'members' }),
    ).toMatchObject({
      status: 200,
      body: { organization: { name: 'Acme Corp', memoryEnabled: true } },
    });
    expect(await auditTrail(t, o.orgId)).toEqual([
      {
        actorId: o.admin.id,
        targetId: o.orgId,
        action: 'org.update',
        details: { name: { from: 'Acme', to: 'Acme Corp' } },
      },
    ]);
    const off = await t.fixtures.org({ memoryEnabled: false });
    const owner = await t.fixtures.user(off, 'owner');
    expect(await call(t, owner.token, 'GET', `/api/v1/orgs/${off}`)).toMatchObject({
      body: { organization: { memoryEnabled: false } },
    });
  });

  test('in production memory is on only where the flag is on', async () => {
    const prod = await buildTestApp({ MNEMO_ENV: 'production' });
    try {
      const unset = await prod.fixtures.org();
      const owner = await prod.fixtures.user(unset, 'owner');
      const on = await prod.fixtures.org({ memoryEnabled: true });
      await prod.fixtures.member(on, owner.id, 'owner');
      expect(await call(prod, owner.token, 'GET', `/api/v1/orgs/${unset}`)).toMatchObject({
        body: { organization: { memoryEnabled: false } },
      });
      expect(await call(prod, owner.token, 'GET', `/api/v1/orgs/${on}`)).toMatchObject({
        body: { organization: { memoryEnabled: true } },
      });
    } finally {
      await prod.close();
    }
  });
});

describe('validation', () => {
  test.each<
    [string, 'PATCH' | 'POST', (o: Awaited<ReturnType<typeof org>>) => string, object, string]
  >([
    [
      'memoryEnabled is read-only',
      'PATCH',
      (o) => `/api/v1/orgs/${o.orgId}`,
      { memoryEnabled: false },
      'memoryEnabled is read-only here: operators use mnemo admin org set',
    ],
    [
      'nothing to change',
      'PATCH',
      (o) => `/api/v1/orgs/${o.orgId}`,
      {},
      'nothing to change: give name, userOverride or both',
    ],
    [
      'empty name',
      'PATCH',
      (o) => `/api/v1/orgs/${o.orgId}`,
      { name: '' },
      'name must not be blank',
    ],
    [
      'blank name',
      'PATCH',
      (o) => `/api/v1/orgs/${o.orgId}`,
      { name: '   ' },
      'name must not be blank',
    ],
    [
      'unknown policy',
      'PATCH',
      (o) => `/api/v1/orgs/${o.orgId}`,
      { userOverride: 'everyone' },
      oneOf('userOverride', 'members, admins'),
    ],
    [
      'unknown field',
      'PATCH',
      (o) => `/api/v1/orgs/${o.orgId}`,
      { colour: 'red' },
      'unknown field: colour',
    ],
    ['no email', 'POST', (o) => o.members, { role: 'member' }, 'email is required'],
    ['email not a string', 'POST', (o) => o.members, { email: 7 }, 'email must be a string'],
    [
      'unknown role',
      'POST',
      (o) => o.members,
      { email: 'a@example.test', role: 'boss' },
      oneOf('role', 'owner, admin, member'),
    ],
    ['role missing', 'PATCH', (o) => `${o.members}/${o.member.id}`, {}, 'role is required'],
  ])('%s: 400', async (_, method, url, payload, error) => {
    const o = await org();
    expect(await call(t, o.owner.token, method, url(o), payload)).toEqual({
      status: 400,
      body: { error },
    });
    expect(await auditTrail(t, o.orgId)).toEqual([]);
  });

  test('unknown or malformed ids: 404', async () => {
    const o = await org();
    const stranger = await t.fixtures.user();
    for (const url of [
      `/api/v1/orgs/${crypto.randomUUID()}`,
      '/api/v1/orgs/not-a-uuid',
      '/api/v1/orgs/not-a-uuid/members',
    ]) {
      expect(await call(t, o.owner.token, 'GET', url)).toEqual({
        status: 404,
        body: { error: 'not found' },
      });
    }
    for (const id of [stranger.id, 'not-a-uuid']) {
      expect(
        await call(t, o.owner.token, 'PATCH', `${o.members}/${id}`, { role: 'admin' }),
      ).toEqual({ status: 404, body: { error: 'member not found' } });
      expect(await call(t, o.owner.token, 'DELETE', `${o.members}/${id}`)).toEqual({
        status: 404,
        body: { error: 'member not found' },
      });
    }
  });

  test('a body that is not JSON: 415; too large: 413; malformed: 400', async () => {
    const o = await org();
    const url = `/api/v1/orgs/${o.orgId}`;
    const send = (headers: Record<string, string>, payload?: string) =>
      t.app.inject({
        method: 'PATCH',
        url,
        headers: { authorization: `Bearer ${o.owner.token}`, ...headers },
        ...(payload === undefined ? {} : { payload }),
      });
    const noType = await send({});
    expect([noType.statusCode, noType.json()]).toEqual([
      415,
      { error: 'Content-Type must be application/json' },
    ]);
    const text = await send({ 'content-type': 'text/plain' }, 'name=x');
    expect(text.statusCode).toBe(415);
    const big = await send(
      { 'content-type': 'application/json' },
      JSON.stringify({ name: 'x'.repeat(70_000) }),
    );
    expect([big.statusCode, big.json()]).toEqual([
      413,
      { error: 'request body is too large: at most 64 KiB' },
    ]);
    const malformed = await send({ 'content-type': 'application/json' }, '{"name":');
    expect([malformed.statusCode, malformed.json()]).toEqual([
      400,
      { error: 'malformed JSON body' },
    ]);
  });
});
