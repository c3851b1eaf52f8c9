/**
 * Who may call each endpoint of organization management: every endpoint ×
 * every kind of caller, each case on fresh data, with the exact status and body. A refused
 * request changes nothing (no audit row either).
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listAudit } from '../audit/audit.repository.ts';
import { CREDENTIAL_MESSAGES } from '../credentials/credential-refusals.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { scopedToken } from '../testing/scoped-token.ts';

const TIMESTAMP = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const API_KEY = `mnemo_sk_${'A'.repeat(49)}`;

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface User {
  readonly id: string;
  readonly token: string;
  readonly email: string;
}

/** An organization with one user of each kind, a project, and users to act on. */
async function world() {
  const f = t.fixtures;
  const orgId = await f.org({ name: 'Acme' });
  const otherOrgId = await f.org({ name: 'Other' });
  const user = async (org?: string, role?: 'owner' | 'admin' | 'member'): Promise<User> => {
    const u = await f.user(org, role);
    return { ...u, email: `${u.id}@example.test` };
  };
  const owner = await user(orgId, 'owner');
  const admin = await user(orgId, 'admin');
  const member = await user(orgId, 'member');
  const outsider = await user(otherOrgId, 'owner');
  const suspended = await user(orgId, 'owner');
  await f.status(suspended.id, 'suspended');
  // A member with editor access to the project: the one the changes act on.
  const target = await user(orgId, 'member');
  // A user of no organization, to be added by email.
  const stranger = await user();
  const projectId = await f.project(orgId, { [target.id]: 'editor' });
  return {
    orgId,
    otherOrgId,
    owner,
    admin,
    member,
    outsider,
    suspended,
    target,
    stranger,
    projectId,
  };
}
type World = Awaited<ReturnType<typeof world>>;

type CallerKind =
  | 'owner'
  | 'admin'
  | 'member'
  | 'outsider'
  | 'suspended'
  | 'none'
  | 'apiKey'
  | 'noAdminScope';
const CALLERS: CallerKind[] = [
  'owner',
  'admin',
  'member',
  'outsider',
  'suspended',
  'none',
  'apiKey',
  'noAdminScope',
];

async function authorization(w: World, who: CallerKind): Promise<string | undefined> {
  switch (who) {
    case 'none':
      return undefined;
    case 'apiKey':
      return `Bearer ${API_KEY}`;
    case 'noAdminScope':
      return `Bearer ${await scopedToken(t, w.owner.id, 'memory:read')}`;
    default:
      return `Bearer ${w[who].token}`;
  }
}

interface Call {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  readonly url: string;
  readonly payload?: object;
}

interface Endpoint {
  readonly name: string;
  readonly call: (w: World) => Call;
  /** The answer to an owner or admin (`who`), which the endpoint allows. */
  readonly allowed: (w: World, who: User) => { status: number; body: unknown };
  /** The answer to a plain member of the organization. */
  readonly member: (w: World) => { status: number; body: unknown };
  /** Needs no particular scope, nor any organization. */
  readonly accountOnly?: boolean;
}

const ok = (body: unknown) => ({ status: 200, body });
const refused = (status: number, error: string) => ({ status, body: { error } });
const NOT_FOUND = refused(404, 'not found');

const me = (who: User, org: { id: string; name: string; role: string }) =>
  ok({ user: { id: who.id, email: who.email }, organizations: [org] });

const ENDPOINTS: Endpoint[] = [
  {
    name: 'GET /api/v1/me',
    accountOnly: true,
    call: () => ({ method: 'GET', url: '/api/v1/me' }),
    allowed: (w, who) =>
      me(who, { id: w.orgId, name: 'Acme', role: who === w.owner ? 'owner' : 'admin' }),
    member: (w) => me(w.member, { id: w.orgId, name: 'Acme', role: 'member' }),
  },
  {
    name: 'GET /api/v1/orgs/{orgId}',
    call: (w) => ({ method: 'GET', url: `/api/v1/orgs/${w.orgId}` }),
    allowed: (w) =>
      ok({
        organization: {
          id: w.orgId,
          name: 'Acme',
          userOverride: 'members',
          memoryEnabled: true,
          createdAt: TIMESTAMP,
        },
      }),
    member: (w) =>
      ok({
        organization: {
          id: w.orgId,
          name: 'Acme',
          userOverride: 'members',
          memoryEnabled: true,
          createdAt: TIMESTAMP,
        },
      }),
  },
  {
    name: 'PATCH /api/v1/orgs/{orgId}',
    call: (w) => ({
      method: 'PATCH',
      url: `/api/v1/orgs/${w.orgId}`,
      payload: { name: 'Acme Corp', userOverride: 'admins' },
    }),
    allowed: (w) =>
      ok({
        organization: {
          id: w.orgId,
          name: 'Acme Corp',
          userOverride: 'admins',
          memoryEnabled: true,
          createdAt: TIMESTAMP,
        },
      }),
    member: () => refused(403, "only owners and admins can change the organization's settings"),
  },
  {
    name: 'GET /api/v1/orgs/{orgId}/members',
    call: (w) => ({ method: 'GET', url: `/api/v1/orgs/${w.orgId}/members` }),
    allowed: (w) => ok({ members: members(w) }),
    member: (w) => ok({ members: members(w) }),
  },
  {
    name: 'POST /api/v1/orgs/{orgId}/members',
    call: (w) => ({
      method: 'POST',
      url: `/api/v1/orgs/${w.orgId}/members`,
      payload: { email: w.stranger.email.toUpperCase(), role: 'admin' },
    }),
    allowed: (w) => ({
      status: 201,
      body: {
        member: {
          userId: w.stranger.id,
          email: w.stranger.email,
          role: 'admin',
          status: 'active',
          joinedAt: TIMESTAMP,
        },
      },
    }),
    member: () => refused(403, 'only owners and admins can add members'),
  },
  {
    name: 'PATCH /api/v1/orgs/{orgId}/members/{userId}',
    call: (w) => ({
      method: 'PATCH',
      url: `/api/v1/orgs/${w.orgId}/members/${w.target.id}`,
      payload: { role: 'admin' },
    }),
    allowed: (w) =>
      ok({
        member: {
          userId: w.target.id,
          email: w.target.email,
          role: 'admin',
          status: 'active',
          joinedAt: TIMESTAMP,
        },
      }),
    member: () => refused(403, "only owners and admins can change members' roles"),
  },
  {
    name: 'DELETE /api/v1/orgs/{orgId}/members/{userId}',
    call: (w) => ({ method: 'DELETE', url: `/api/v1/orgs/${w.orgId}/members/${w.target.id}` }),
    allowed: () => ok({ ok: true }),
    member: () => refused(403, 'only owners and admins can remove members'),
  },
  {
    name: 'GET /api/v1/orgs/{orgId}/projects',
    call: (w) => ({ method: 'GET', url: `/api/v1/orgs/${w.orgId}/projects` }),
    allowed: (w) => ok({ projects: [{ id: w.projectId, name: 'Project', createdAt: TIMESTAMP }] }),
    // The member has no access to the one project.
    member: () => ok({ projects: [] }),
  },
  {
    name: 'POST /api/v1/orgs/{orgId}/projects',
    call: (w) => ({
      method: 'POST',
      url: `/api/v1/orgs/${w.orgId}/projects`,
      payload: { name: '  Launch  ' },
    }),
    allowed: () => ({
      status: 201,
      body: {
        project: { id: expect.any(String), name: 'Launch', createdAt: TIMESTAMP, access: 'owner' },
      },
    }),
    member: () => refused(403, 'only owners and admins can create projects'),
  },
  {
    name: 'PATCH /api/v1/projects/{projectId}',
    call: (w) => ({
      method: 'PATCH',
      url: `/api/v1/projects/${w.projectId}`,
      payload: { name: 'Renamed' },
    }),
    allowed: (w) => ok({ project: { id: w.projectId, name: 'Renamed', createdAt: TIMESTAMP } }),
    member: () => NOT_FOUND,
  },
  {
    name: 'DELETE /api/v1/projects/{projectId}',
    call: (w) => ({ method: 'DELETE', url: `/api/v1/projects/${w.projectId}` }),
    allowed: () => ok({ ok: true }),
    member: () => NOT_FOUND,
  },
  {
    name: 'GET /api/v1/projects/{projectId}/collaborators',
    call: (w) => ({ method: 'GET', url: `/api/v1/projects/${w.projectId}/collaborators` }),
    allowed: (w) =>
      ok({
        collaborators: [
          { userId: w.target.id, kind: 'person', email: w.target.email, access: 'editor' },
        ],
      }),
    member: () => NOT_FOUND,
  },
  {
    name: 'PUT /api/v1/projects/{projectId}/collaborators/{userId}',
    call: (w) => ({
      method: 'PUT',
      url: `/api/v1/projects/${w.projectId}/collaborators/${w.member.id}`,
      payload: { access: 'viewer' },
    }),
    allowed: (w) =>
      ok({
        collaborator: {
          userId: w.member.id,
          kind: 'person',
          email: w.member.email,
          access: 'viewer',
        },
      }),
    member: () => NOT_FOUND,
  },
  {
    name: 'DELETE /api/v1/projects/{projectId}/collaborators/{userId}',
    call: (w) => ({
      method: 'DELETE',
      url: `/api/v1/projects/${w.projectId}/collaborators/${w.target.id}`,
    }),
    allowed: () => ok({ ok: true }),
    member: () => NOT_FOUND,
  },
  {
    name: 'GET /api/v1/audit',
    call: () => ({ method: 'GET', url: '/api/v1/audit' }),
    allowed: () => ok({ entries: [], next: null }),
    member: () => refused(403, 'only owners and admins can read the audit log'),
  },
];

function members(w: World) {
  const row = (u: User, role: string, status = 'active') => ({
    userId: u.id,
    email: u.email,
    role,
    status,
    joinedAt: TIMESTAMP,
  });
  return [
    row(w.owner, 'owner'),
    row(w.admin, 'admin'),
    row(w.member, 'member'),
    row(w.suspended, 'owner', 'suspended'),
    row(w.target, 'member'),
  ];
}

function expected(endpoint: Endpoint, w: World, who: CallerKind) {
  switch (who) {
    case 'owner':
    case 'admin':
      return endpoint.allowed(w, w[who]);
    case 'member':
      return endpoint.member(w);
    case 'outsider':
      return endpoint.accountOnly
        ? me(w.outsider, { id: w.otherOrgId, name: 'Other', role: 'owner' })
        : refused(403, 'not a member of this organization');
    case 'suspended':
      return refused(403, 'account is suspended');
    case 'none':
      return refused(401, CREDENTIAL_MESSAGES.missing);
    case 'apiKey':
      return refused(401, CREDENTIAL_MESSAGES.apiKey(`${t.config.publicUrl}/oauth`));
    case 'noAdminScope':
      return endpoint.accountOnly
        ? endpoint.allowed(w, w.owner)
        : refused(403, 'the credential lacks the admin scope');
  }
}

/** Lists are compared as sets where the order between equal keys is the store's to choose. */
function normalized(body: unknown): unknown {
  if (body && typeof body === 'object' && 'members' in body) {
    const list = (body as { members: { userId: string }[] }).members;
    return { members: [...list].sort((a, b) => (a.userId < b.userId ? -1 : 1)) };
  }
  return body;
}

describe.each(ENDPOINTS)('$name', (endpoint) => {
  test.each(CALLERS)('as %s', async (who) => {
    const w = await world();
    const call = endpoint.call(w);
    const auth = await authorization(w, who);
    const res: LightMyRequestResponse = await t.app.inject({
      method: call.method,
      url: call.url,
      headers: {
        'x-organization-id': w.orgId,
        ...(auth === undefined ? {} : { authorization: auth }),
      },
      ...(call.payload === undefined ? {} : { payload: call.payload }),
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const want = expected(endpoint, w, who);
    expect({ status: res.statusCode, body: normalized(res.json()) }).toEqual({
      status: want.status,
      body: normalized(want.body),
    });
    if (res.statusCode >= 400) {
      expect(await listAudit(t.database.db, w.orgId)).toEqual([]);
    } else if (call.method !== 'GET') {
      expect(await listAudit(t.database.db, w.orgId)).toHaveLength(1);
    }
  });
});
