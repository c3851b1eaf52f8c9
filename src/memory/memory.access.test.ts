/**
 * Who may act on which memories, through HTTP (`app.inject`): the spec's Authentication, User
 * override and Project pool sections, and docs/design.md §3.2's rows on them (the `userOverride`
 * policy, the audit log, project access, pool memories by id, ids that answer 404 so that
 * nothing leaks). Every answer must carry `Cache-Control: no-store` and a JSON content type.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listAudit } from '../audit/audit.repository.ts';
import type { ProjectAccess } from '../db/tables.ts';
import { deleteProjectAccess } from '../tenancy/projects.repository.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { foldKey } from './fold.ts';
import type { MemoryItem } from './memory.schemas.ts';
import { purgeTombstones } from './tombstone-retention.ts';

const BASE = '/api/v1/memory';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Item = MemoryItem;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
type Policy = 'members' | 'admins';

interface Auth {
  /** Absent: the request carries no Authorization header. */
  readonly token: string | undefined;
  readonly orgId: string;
}

interface Caller extends Auth {
  readonly userId: string;
}

interface User {
  readonly id: string;
  readonly token: string;
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: LightMyRequestResponse['headers'];
}

/**
 * What an answer tells a client, for comparing two: everything but the `date` header, which
 * differs between two answers a second apart.
 */
function told(a: Answer): string {
  const { date: _date, ...headers } = a.headers;
  return JSON.stringify([a.status, a.body, headers]);
}

interface ListBody {
  memories: Item[];
  deleted?: string[];
  cursor: string;
}

/** Every answer: `no-store` and JSON, whatever the status. */
function checked(res: LightMyRequestResponse): Answer {
  const what = `${res.statusCode} ${res.body}`;
  expect(res.headers['cache-control'], what).toBe('no-store');
  expect(res.headers['content-type'], what).toMatch(/^application\/json/);
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

let t: TestApp;

async function send(auth: Auth, method: Method, url: string, payload?: object): Promise<Answer> {
  const res = await t.app.inject({
    method,
    url,
    headers: {
      'x-organization-id': auth.orgId,
      ...(auth.token === undefined ? {} : { authorization: `Bearer ${auth.token}` }),
    },
    ...(payload === undefined ? {} : { payload }),
  });
  return checked(res);
}

function api(auth: Auth) {
  return {
    list: (query = '') => send(auth, 'GET', `${BASE}${query}`),
    one: (id: string, query = '') => send(auth, 'GET', `${BASE}/${id}${query}`),
    post: (payload: object) => send(auth, 'POST', BASE, payload),
    patch: (id: string, payload: object, query = '') =>
      send(auth, 'PATCH', `${BASE}/${id}${query}`, payload),
    del: (id: string, query = '') => send(auth, 'DELETE', `${BASE}/${id}${query}`),
    /** The full list, asserted 200. */
    async full(query = ''): Promise<ListBody> {
      const a = await send(auth, 'GET', `${BASE}${query}`);
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      return a.body as ListBody;
    },
    /** Adds and asserts a new memory (201); returns it. */
    async add(content: string, extra: Record<string, unknown> = {}): Promise<Item> {
      const a = await send(auth, 'POST', BASE, { content, ...extra });
      expect(a.status, JSON.stringify(a.body)).toBe(201);
      return (a.body as { memory: Item }).memory;
    },
  };
}

const memoryOf = (a: Answer) => (a.body as { memory: Item }).memory;
const ids = (items: readonly { id: string }[]) => items.map((m) => m.id).sort();

function expectError(a: Answer, status: number, error: string): void {
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  expect(a.body).toStrictEqual({ error });
}

/**
 * The people of every world. They are created once: an organization, its memberships and a
 * project are made fresh for each test, so stores (per user and organization) never overlap.
 */
let u: {
  /** The store's owner: a plain member, an editor of the project, who contributed `pm`. */
  owner: User;
  member: User;
  admin: User;
  orgOwner: User;
  viewer: User;
  editor: User;
  projectOwner: User;
  /** A member of another organization only. */
  outsider: User;
  suspended: User;
  banned: User;
};
let badTokens: { invalid: string; expired: string; unknown: string };

beforeAll(async () => {
  t = await buildTestApp();
  const user = () => t.fixtures.user();
  u = {
    owner: await user(),
    member: await user(),
    admin: await user(),
    orgOwner: await user(),
    viewer: await user(),
    editor: await user(),
    projectOwner: await user(),
    outsider: await user(),
    suspended: await user(),
    banned: await user(),
  };
  await t.fixtures.status(u.suspended.id, 'suspended');
  await t.fixtures.status(u.banned.id, 'banned');
  const [header, payload] = u.owner.token.split('.');
  const otherSignature = u.member.token.split('.')[2];
  badTokens = {
    invalid: `${header}.${payload}.${otherSignature}`,
    // Past the verifier's 30 s clock tolerance.
    expired: await t.fixtures.token(u.owner.id, -120),
    unknown: await t.fixtures.token(randomUUID()),
  };
});
afterAll(() => t.close());

interface World {
  readonly orgId: string;
  /** The outsider's organization. */
  readonly foreignOrgId: string;
  readonly project: string;
  /** The owner's cursors from before any memory below: personal store, then pool. */
  readonly cursor: string;
  readonly poolCursor: string;
  /** The owner's personal memory. */
  readonly m: Item;
  /** A memory the owner added and deleted. */
  readonly gone: string;
  /** A pool memory the owner contributed. */
  readonly pm: Item;
}

const as = (user: User, orgId: string): Caller => ({ token: user.token, orgId, userId: user.id });

async function world(policy: Policy = 'members'): Promise<World> {
  const f = t.fixtures;
  const orgId = await f.org({ userOverride: policy });
  const foreignOrgId = await f.org();
  for (const x of [u.owner, u.member, u.viewer, u.editor, u.projectOwner, u.suspended, u.banned])
    await f.member(orgId, x.id);
  await f.member(orgId, u.admin.id, 'admin');
  await f.member(orgId, u.orgOwner.id, 'owner');
  await f.member(foreignOrgId, u.outsider.id);
  const project = await f.project(orgId, {
    [u.owner.id]: 'editor',
    [u.viewer.id]: 'viewer',
    [u.editor.id]: 'editor',
    [u.projectOwner.id]: 'owner',
  });
  const o = api(as(u.owner, orgId));
  const cursor = (await o.full()).cursor;
  const poolCursor = (await o.full(`?project=${project}`)).cursor;
  const m = await o.add('I work at Acme', { category: 'identity' });
  const gone = (await o.add('temporary')).id;
  expect((await o.del(gone)).status).toBe(200);
  const pm = await o.add('The API is versioned', { project, category: 'project' });
  return { orgId, foreignOrgId, project, cursor, poolCursor, m, gone, pm };
}

/** Every memory row (tombstones included) of these organizations, with its store. */
async function snapshot(orgIds: readonly string[]) {
  const rows = await t.database.db
    .selectFrom('memories as m')
    .innerJoin('scopes as s', 's.id', 'm.scope_id')
    .selectAll('m')
    .select(['s.org_id', 's.kind', 's.owner_id'])
    .where('s.org_id', 'in', orgIds)
    .orderBy('m.id')
    .execute();
  // node:sqlite rows have no prototype; plain objects compare strictly with expectations.
  // PostgreSQL's search vector is generated from search_terms, which is compared.
  return rows.map((r) => {
    const { search_vector: _, ...row } = r as typeof r & { search_vector?: unknown };
    return row;
  });
}

async function auditOf(...orgIds: string[]) {
  const rows = [];
  for (const orgId of orgIds) rows.push(...(await listAudit(t.database.db, orgId)));
  return rows.map((r) => ({ ...r }));
}

const revoke = (projectId: string, userId: string) =>
  deleteProjectAccess(t.database.db, projectId, userId);

/** Runs `act` and checks that it left every store of `orgIds` and the audit log as they were. */
async function unchanged(orgIds: readonly string[], act: () => Promise<void>): Promise<void> {
  const before = await snapshot(orgIds);
  await act();
  expect(await snapshot(orgIds)).toStrictEqual(before);
  expect(await auditOf(...orgIds)).toStrictEqual([]);
}

// ---------------------------------------------------------------------------------------------
// The matrix
// ---------------------------------------------------------------------------------------------

const ERRORS = {
  '401 missing': [401, 'missing credential: send Authorization: Bearer <platform credential>'],
  '401 invalid': [401, 'invalid credential: the signature does not verify'],
  '401 expired': [401, 'credential has expired'],
  '401 unknown': [401, 'credential does not belong to a known account'],
  '403 suspended': [403, 'account is suspended'],
  '403 banned': [403, 'account is banned'],
  '403 not in org': [403, 'not a member of this organization'],
  '403 override': [
    403,
    'acting for another member is restricted to organization owners and admins',
  ],
  '403 read': [403, 'no access to this project'],
  '403 edit': [403, 'editor access to this project is required'],
  '400 not member': [400, 'user is not a member of this organization'],
  '400 cursor': [400, 'invalid cursor'],
  '404 memory': [404, 'memory not found'],
  '404 project': [404, 'project not found'],
} as const satisfies Record<string, readonly [number, string]>;

/**
 * A success, by the store it acts on: M the owner's personal store (its memory `m`), PM the
 * project pool (its memory `pm`), own the caller's own store. `audited`: one audit row.
 */
const SUCCESSES = {
  'ok:M': { store: 'M', audited: false },
  'ok:M audited': { store: 'M', audited: true },
  'ok:PM': { store: 'PM', audited: false },
  'ok:PM audited': { store: 'PM', audited: true },
  'ok:own': { store: 'own', audited: false },
} as const;

type Code = keyof typeof ERRORS | keyof typeof SUCCESSES;
type Kind = 'list' | 'since' | 'one' | 'add' | 'patch' | 'delete';

interface Column {
  readonly label: string;
  readonly kind: Kind;
  readonly build: (w: World) => { method: Method; url: string; payload?: object };
}

/** The query that acts for the store's owner. */
const forOwner = () => `user=${u.owner.id}`;

const PERSONAL: readonly Column[] = [
  { label: 'GET list', kind: 'list', build: () => ({ method: 'GET', url: BASE }) },
  {
    label: 'GET list since (owner cursor)',
    kind: 'since',
    build: (w) => ({ method: 'GET', url: `${BASE}?since=${w.cursor}` }),
  },
  { label: 'GET m', kind: 'one', build: (w) => ({ method: 'GET', url: `${BASE}/${w.m.id}` }) },
  {
    label: 'POST',
    kind: 'add',
    build: () => ({ method: 'POST', url: BASE, payload: { content: 'added' } }),
  },
  {
    label: 'PATCH m',
    kind: 'patch',
    build: (w) => ({ method: 'PATCH', url: `${BASE}/${w.m.id}`, payload: { content: 'patched' } }),
  },
  {
    label: 'DELETE m',
    kind: 'delete',
    build: (w) => ({ method: 'DELETE', url: `${BASE}/${w.m.id}` }),
  },
];

const OVERRIDE: readonly Column[] = [
  {
    label: 'GET list ?user=owner',
    kind: 'list',
    build: () => ({ method: 'GET', url: `${BASE}?${forOwner()}` }),
  },
  {
    label: 'GET list since ?user=owner',
    kind: 'since',
    build: (w) => ({ method: 'GET', url: `${BASE}?since=${w.cursor}&${forOwner()}` }),
  },
  {
    label: 'GET m ?user=owner',
    kind: 'one',
    build: (w) => ({ method: 'GET', url: `${BASE}/${w.m.id}?${forOwner()}` }),
  },
  {
    label: 'POST {user: owner}',
    kind: 'add',
    build: () => ({ method: 'POST', url: BASE, payload: { content: 'added', user: u.owner.id } }),
  },
  {
    label: 'PATCH m ?user=owner',
    kind: 'patch',
    build: (w) => ({
      method: 'PATCH',
      url: `${BASE}/${w.m.id}?${forOwner()}`,
      payload: { content: 'patched' },
    }),
  },
  {
    label: 'DELETE m ?user=owner',
    kind: 'delete',
    build: (w) => ({ method: 'DELETE', url: `${BASE}/${w.m.id}?${forOwner()}` }),
  },
];

const PROJECT: readonly Column[] = [
  {
    label: 'GET list ?project',
    kind: 'list',
    build: (w) => ({ method: 'GET', url: `${BASE}?project=${w.project}` }),
  },
  {
    label: 'GET list since ?project',
    kind: 'since',
    build: (w) => ({ method: 'GET', url: `${BASE}?since=${w.poolCursor}&project=${w.project}` }),
  },
  {
    label: 'POST {project}',
    kind: 'add',
    build: (w) => ({
      method: 'POST',
      url: BASE,
      payload: { content: 'added', project: w.project },
    }),
  },
];

const POOL_MEMORY: readonly Column[] = [
  { label: 'GET pm', kind: 'one', build: (w) => ({ method: 'GET', url: `${BASE}/${w.pm.id}` }) },
  {
    label: 'PATCH pm',
    kind: 'patch',
    build: (w) => ({ method: 'PATCH', url: `${BASE}/${w.pm.id}`, payload: { content: 'patched' } }),
  },
  {
    label: 'DELETE pm',
    kind: 'delete',
    build: (w) => ({ method: 'DELETE', url: `${BASE}/${w.pm.id}` }),
  },
  {
    label: 'GET pm ?user=owner',
    kind: 'one',
    build: (w) => ({ method: 'GET', url: `${BASE}/${w.pm.id}?${forOwner()}` }),
  },
  {
    label: 'PATCH pm ?user=owner',
    kind: 'patch',
    build: (w) => ({
      method: 'PATCH',
      url: `${BASE}/${w.pm.id}?${forOwner()}`,
      payload: { content: 'patched' },
    }),
  },
  {
    label: 'DELETE pm ?user=owner',
    kind: 'delete',
    build: (w) => ({ method: 'DELETE', url: `${BASE}/${w.pm.id}?${forOwner()}` }),
  },
];

const CALLERS = {
  owner: { policy: 'members', as: (w: World) => as(u.owner, w.orgId) },
  member: { policy: 'members', as: (w: World) => as(u.member, w.orgId) },
  'member, admins policy': { policy: 'admins', as: (w: World) => as(u.member, w.orgId) },
  'org admin, admins policy': { policy: 'admins', as: (w: World) => as(u.admin, w.orgId) },
  'org owner, admins policy': { policy: 'admins', as: (w: World) => as(u.orgOwner, w.orgId) },
  'project viewer': { policy: 'members', as: (w: World) => as(u.viewer, w.orgId) },
  'project editor': { policy: 'members', as: (w: World) => as(u.editor, w.orgId) },
  'project owner': { policy: 'members', as: (w: World) => as(u.projectOwner, w.orgId) },
  'other org, own org id': { policy: 'members', as: (w: World) => as(u.outsider, w.foreignOrgId) },
  'other org, store org id': { policy: 'members', as: (w: World) => as(u.outsider, w.orgId) },
  suspended: { policy: 'members', as: (w: World) => as(u.suspended, w.orgId) },
  banned: { policy: 'members', as: (w: World) => as(u.banned, w.orgId) },
  'no credential': {
    policy: 'members',
    as: (w: World): Caller => ({ token: undefined, orgId: w.orgId, userId: '' }),
  },
  'invalid credential': {
    policy: 'members',
    as: (w: World): Caller => ({ token: badTokens.invalid, orgId: w.orgId, userId: '' }),
  },
  'expired credential': {
    policy: 'members',
    as: (w: World): Caller => ({ token: badTokens.expired, orgId: w.orgId, userId: '' }),
  },
  'unknown account': {
    policy: 'members',
    as: (w: World): Caller => ({ token: badTokens.unknown, orgId: w.orgId, userId: '' }),
  },
} as const satisfies Record<string, { policy: Policy; as: (w: World) => Caller }>;

type CallerName = keyof typeof CALLERS;
type Row = readonly [CallerName, readonly Code[]];

/** Personal store: requests without `user` or `project`. "member" is no project collaborator. */
// biome-ignore format: a matrix reads best aligned
const PERSONAL_MATRIX: readonly Row[] = [
  //                            GET list          since             GET m             POST              PATCH m           DELETE m
  ['owner',                    ['ok:M',           'ok:M',           'ok:M',           'ok:M',           'ok:M',           'ok:M']],
  ['member',                   ['ok:own',         '400 cursor',     '404 memory',     'ok:own',         '404 memory',     '404 memory']],
  ['member, admins policy',    ['ok:own',         '400 cursor',     '404 memory',     'ok:own',         '404 memory',     '404 memory']],
  ['org admin, admins policy', ['ok:own',         '400 cursor',     '404 memory',     'ok:own',         '404 memory',     '404 memory']],
  ['org owner, admins policy', ['ok:own',         '400 cursor',     '404 memory',     'ok:own',         '404 memory',     '404 memory']],
  ['project viewer',           ['ok:own',         '400 cursor',     '404 memory',     'ok:own',         '404 memory',     '404 memory']],
  ['project editor',           ['ok:own',         '400 cursor',     '404 memory',     'ok:own',         '404 memory',     '404 memory']],
  ['project owner',            ['ok:own',         '400 cursor',     '404 memory',     'ok:own',         '404 memory',     '404 memory']],
  ['other org, own org id',    ['ok:own',         '400 cursor',     '404 memory',     'ok:own',         '404 memory',     '404 memory']],
  ['other org, store org id',  ['403 not in org', '403 not in org', '403 not in org', '403 not in org', '403 not in org', '403 not in org']],
  ['suspended',                ['403 suspended',  '403 suspended',  '403 suspended',  '403 suspended',  '403 suspended',  '403 suspended']],
  ['banned',                   ['403 banned',     '403 banned',     '403 banned',     '403 banned',     '403 banned',     '403 banned']],
  ['no credential',            ['401 missing',    '401 missing',    '401 missing',    '401 missing',    '401 missing',    '401 missing']],
  ['invalid credential',       ['401 invalid',    '401 invalid',    '401 invalid',    '401 invalid',    '401 invalid',    '401 invalid']],
  ['expired credential',       ['401 expired',    '401 expired',    '401 expired',    '401 expired',    '401 expired',    '401 expired']],
  ['unknown account',          ['401 unknown',    '401 unknown',    '401 unknown',    '401 unknown',    '401 unknown',    '401 unknown']],
];

/** The owner's store through `user=<owner>`: the owner's own id is no override (no audit). */
// biome-ignore format: a matrix reads best aligned
const OVERRIDE_MATRIX: readonly Row[] = [
  //                            GET list          since             GET m             POST              PATCH m           DELETE m
  ['owner',                    ['ok:M',           'ok:M',           'ok:M',           'ok:M',           'ok:M',           'ok:M']],
  ['member',                   ['ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited']],
  ['member, admins policy',    ['403 override',   '403 override',   '403 override',   '403 override',   '403 override',   '403 override']],
  ['org admin, admins policy', ['ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited']],
  ['org owner, admins policy', ['ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited']],
  ['project viewer',           ['ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited']],
  ['project editor',           ['ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited']],
  ['project owner',            ['ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited',   'ok:M audited']],
  ['other org, own org id',    ['400 not member', '400 not member', '400 not member', '400 not member', '400 not member', '400 not member']],
  ['other org, store org id',  ['403 not in org', '403 not in org', '403 not in org', '403 not in org', '403 not in org', '403 not in org']],
  ['suspended',                ['403 suspended',  '403 suspended',  '403 suspended',  '403 suspended',  '403 suspended',  '403 suspended']],
  ['banned',                   ['403 banned',     '403 banned',     '403 banned',     '403 banned',     '403 banned',     '403 banned']],
  ['no credential',            ['401 missing',    '401 missing',    '401 missing',    '401 missing',    '401 missing',    '401 missing']],
  ['invalid credential',       ['401 invalid',    '401 invalid',    '401 invalid',    '401 invalid',    '401 invalid',    '401 invalid']],
  ['expired credential',       ['401 expired',    '401 expired',    '401 expired',    '401 expired',    '401 expired',    '401 expired']],
  ['unknown account',          ['401 unknown',    '401 unknown',    '401 unknown',    '401 unknown',    '401 unknown',    '401 unknown']],
];

/** The project pool. The owner is an editor; org admins and owners get no project access. */
// biome-ignore format: a matrix reads best aligned
const PROJECT_MATRIX: readonly Row[] = [
  //                            GET list          since             POST
  ['owner',                    ['ok:PM',          'ok:PM',          'ok:PM']],
  ['member',                   ['403 read',       '403 read',       '403 edit']],
  ['member, admins policy',    ['403 read',       '403 read',       '403 edit']],
  ['org admin, admins policy', ['403 read',       '403 read',       '403 edit']],
  ['org owner, admins policy', ['403 read',       '403 read',       '403 edit']],
  ['project viewer',           ['ok:PM',          'ok:PM',          '403 edit']],
  ['project editor',           ['ok:PM',          'ok:PM',          'ok:PM']],
  ['project owner',            ['ok:PM',          'ok:PM',          'ok:PM']],
  ['other org, own org id',    ['404 project',    '404 project',    '404 project']],
  ['other org, store org id',  ['403 not in org', '403 not in org', '403 not in org']],
  ['suspended',                ['403 suspended',  '403 suspended',  '403 suspended']],
  ['banned',                   ['403 banned',     '403 banned',     '403 banned']],
  ['no credential',            ['401 missing',    '401 missing',    '401 missing']],
  ['invalid credential',       ['401 invalid',    '401 invalid',    '401 invalid']],
  ['expired credential',       ['401 expired',    '401 expired',    '401 expired']],
  ['unknown account',          ['401 unknown',    '401 unknown',    '401 unknown']],
];

/**
 * The pool memory `pm` by id, contributed by the owner (an editor). Only its contributor reaches
 * it; acting for the contributor reaches it too, from a member allowed to override who holds
 * the access the verb needs on the project (read for GET, edit for PATCH and DELETE), and is 404
 * to anyone else, as any memory one may not see (see the pool tests below).
 */
// biome-ignore format: a matrix reads best aligned
const POOL_MEMORY_MATRIX: readonly Row[] = [
  //                            GET pm            PATCH pm          DELETE pm         GET ?user=owner   PATCH ?user=owner DELETE ?user=owner
  ['owner',                    ['ok:PM',          'ok:PM',          'ok:PM',          'ok:PM',          'ok:PM',          'ok:PM']],
  ['member',                   ['404 memory',     '404 memory',     '404 memory',     '404 memory',     '404 memory',     '404 memory']],
  ['member, admins policy',    ['404 memory',     '404 memory',     '404 memory',     '403 override',   '403 override',   '403 override']],
  ['org admin, admins policy', ['404 memory',     '404 memory',     '404 memory',     '404 memory',     '404 memory',     '404 memory']],
  ['org owner, admins policy', ['404 memory',     '404 memory',     '404 memory',     '404 memory',     '404 memory',     '404 memory']],
  ['project viewer',           ['404 memory',     '404 memory',     '404 memory',     'ok:PM audited',  '404 memory',     '404 memory']],
  ['project editor',           ['404 memory',     '404 memory',     '404 memory',     'ok:PM audited',  'ok:PM audited',  'ok:PM audited']],
  ['project owner',            ['404 memory',     '404 memory',     '404 memory',     'ok:PM audited',  'ok:PM audited',  'ok:PM audited']],
  ['other org, own org id',    ['404 memory',     '404 memory',     '404 memory',     '400 not member', '400 not member', '400 not member']],
  ['other org, store org id',  ['403 not in org', '403 not in org', '403 not in org', '403 not in org', '403 not in org', '403 not in org']],
  ['suspended',                ['403 suspended',  '403 suspended',  '403 suspended',  '403 suspended',  '403 suspended',  '403 suspended']],
  ['banned',                   ['403 banned',     '403 banned',     '403 banned',     '403 banned',     '403 banned',     '403 banned']],
  ['no credential',            ['401 missing',    '401 missing',    '401 missing',    '401 missing',    '401 missing',    '401 missing']],
  ['invalid credential',       ['401 invalid',    '401 invalid',    '401 invalid',    '401 invalid',    '401 invalid',    '401 invalid']],
  ['expired credential',       ['401 expired',    '401 expired',    '401 expired',    '401 expired',    '401 expired',    '401 expired']],
  ['unknown account',          ['401 unknown',    '401 unknown',    '401 unknown',    '401 unknown',    '401 unknown',    '401 unknown']],
];

interface Cell {
  readonly caller: CallerName;
  readonly request: string;
  readonly code: Code;
  readonly column: Column;
}

function cells(columns: readonly Column[], matrix: readonly Row[]): Cell[] {
  // Every caller has a row, in every table: a new caller must be placed in all of them.
  if (matrix.map(([caller]) => caller).join() !== Object.keys(CALLERS).join())
    throw new Error('a matrix must list every caller, in the order of CALLERS');
  return matrix.flatMap(([caller, codes]) => {
    if (codes.length !== columns.length) throw new Error(`${caller}: one code per column`);
    return columns.map((column, i) => ({
      caller,
      request: column.label,
      code: codes[i] as Code,
      column,
    }));
  });
}

/** Every write of a store stamps its row with the store's counter, so the highest is the counter. */
const nextVersion = (rows: readonly { scope_id: string; version: number }[], scopeId: string) =>
  Math.max(...rows.filter((r) => r.scope_id === scopeId).map((r) => r.version)) + 1;

const ACTIONS: Record<Kind, string> = {
  list: 'list',
  since: 'list',
  one: 'get',
  add: 'add',
  patch: 'update',
  delete: 'delete',
};

const shared = new Map<Policy, Promise<World>>();

/**
 * A cell whose request may change a store runs on a world of its own. Every other cell shares
 * one world per policy: it must leave the stores as they were (asserted), so it cannot disturb
 * the cells after it.
 */
function worldFor(policy: Policy, column: Column, code: Code): Promise<World> {
  const writes = code in SUCCESSES && ['add', 'patch', 'delete'].includes(column.kind);
  if (writes) return world(policy);
  let w = shared.get(policy);
  if (!w) {
    w = world(policy);
    shared.set(policy, w);
  }
  return w;
}

/** One cell: status and exact body, the stores afterwards, and the audit rows it wrote. */
async function runCell({ caller: name, column, code }: Cell): Promise<void> {
  const spec = CALLERS[name];
  const w = await worldFor(spec.policy, column, code);
  const caller = spec.as(w);
  const orgs = [w.orgId, w.foreignOrgId];
  const before = await snapshot(orgs);
  const auditBefore = new Set((await auditOf(...orgs)).map((r) => r.id));
  const { method, url, payload } = column.build(w);
  const startedAt = Date.now();
  const res = await send(caller, method, url, payload);
  const endedAt = Date.now();
  const after = await snapshot(orgs);
  const audit = (await auditOf(...orgs)).filter((r) => !auditBefore.has(r.id));

  if (code in ERRORS) {
    const [status, error] = ERRORS[code as keyof typeof ERRORS];
    expectError(res, status, error);
    expect(after).toStrictEqual(before);
    expect(audit).toStrictEqual([]);
    return;
  }

  const { store, audited } = SUCCESSES[code as keyof typeof SUCCESSES];
  const memory = store === 'PM' ? w.pm : w.m;
  const what = JSON.stringify(res.body);
  let memoryId: string | null = memory.id;
  switch (column.kind) {
    case 'list': {
      expect(res.status, what).toBe(200);
      const memories = store === 'own' ? [] : [memory];
      expect(res.body).toStrictEqual({ memories, cursor: expect.any(String) });
      expect(after).toStrictEqual(before);
      memoryId = null;
      break;
    }
    case 'since': {
      expect(res.status, what).toBe(200);
      const deleted = store === 'M' ? [w.gone] : [];
      expect(res.body).toStrictEqual({ memories: [memory], deleted, cursor: expect.any(String) });
      expect(after).toStrictEqual(before);
      memoryId = null;
      break;
    }
    case 'one':
      expect(res.status, what).toBe(200);
      expect(res.body).toStrictEqual({ memory });
      expect(after).toStrictEqual(before);
      break;
    case 'add': {
      expect(res.status, what).toBe(201);
      const added = memoryOf(res);
      expect(res.body).toStrictEqual({
        memory: {
          id: expect.stringMatching(UUID),
          content: 'added',
          createdAt: expect.stringMatching(TIMESTAMP),
          updatedAt: added.createdAt,
        },
      });
      expect(res.headers.location).toBe(`${BASE}/${added.id}`);
      const into =
        store === 'M'
          ? { org_id: w.orgId, kind: 'user', owner_id: u.owner.id, contributor_id: u.owner.id }
          : store === 'PM'
            ? {
                org_id: w.orgId,
                kind: 'project',
                owner_id: w.project,
                contributor_id: caller.userId,
              }
            : {
                org_id: caller.orgId,
                kind: 'user',
                owner_id: caller.userId,
                contributor_id: caller.userId,
              };
      expect(after.filter((r) => r.id !== added.id)).toStrictEqual(before);
      expect(after.find((r) => r.id === added.id)).toMatchObject({
        ...into,
        content: 'added',
        category: null,
        deleted_at: null,
      });
      memoryId = added.id;
      break;
    }
    case 'patch': {
      expect(res.status, what).toBe(200);
      const patched = memoryOf(res);
      expect(res.body).toStrictEqual({
        memory: { ...memory, content: 'patched', updatedAt: expect.stringMatching(TIMESTAMP) },
      });
      expect(patched.updatedAt > memory.updatedAt).toBe(true);
      expect(after).toStrictEqual(
        before.map((r) =>
          r.id === memory.id
            ? {
                ...r,
                content: 'patched',
                fold_key: foldKey('patched'),
                search_terms: 'patched patch',
                updated_at: Date.parse(patched.updatedAt),
                version: nextVersion(before, r.scope_id),
              }
            : r,
        ),
      );
      break;
    }
    case 'delete':
      expect(res.status, what).toBe(200);
      expect(res.body).toStrictEqual({ ok: true });
      expect(after).toStrictEqual(
        before.map((r) =>
          r.id === memory.id
            ? {
                ...r,
                content: '',
                fold_key: '',
                search_terms: '',
                category: null,
                version: nextVersion(before, r.scope_id),
                updated_at: expect.any(Number),
                deleted_at: expect.any(Number),
              }
            : r,
        ),
      );
      break;
  }

  if (!audited) {
    expect(audit).toStrictEqual([]);
    return;
  }
  expect(audit).toStrictEqual([
    {
      id: expect.stringMatching(UUID),
      org_id: w.orgId,
      actor_id: caller.userId,
      target_id: u.owner.id,
      action: ACTIONS[column.kind],
      memory_id: memoryId,
      at: expect.any(Number),
      details: null,
    },
  ]);
  const at = audit[0]?.at ?? 0;
  expect(at).toBeGreaterThanOrEqual(startedAt);
  expect(at).toBeLessThanOrEqual(endedAt);
}

describe('authorization matrix: caller × request → status and body, on fresh data', () => {
  describe('personal store', () => {
    test.each(cells(PERSONAL, PERSONAL_MATRIX))('$caller | $request → $code', runCell);
  });
  describe('user override (user=<owner>)', () => {
    test.each(cells(OVERRIDE, OVERRIDE_MATRIX))('$caller | $request → $code', runCell);
  });
  describe('project pool', () => {
    test.each(cells(PROJECT, PROJECT_MATRIX))('$caller | $request → $code', runCell);
  });
  describe('pool memory by id', () => {
    test.each(cells(POOL_MEMORY, POOL_MEMORY_MATRIX))('$caller | $request → $code', runCell);
  });
});

// ---------------------------------------------------------------------------------------------
// User override
// ---------------------------------------------------------------------------------------------

type Request = readonly [label: string, method: Method, url: string, payload?: object];

/** Every endpoint that takes `user`, acting for `user` on the world's memory `m`. */
function withUser(w: World, user: string): Request[] {
  const q = `user=${encodeURIComponent(user)}`;
  return [
    ['GET list', 'GET', `${BASE}?${q}`],
    ['GET list since', 'GET', `${BASE}?since=${w.cursor}&${q}`],
    ['GET one', 'GET', `${BASE}/${w.m.id}?${q}`],
    ['POST', 'POST', BASE, { content: 'added', user }],
    ['PATCH', 'PATCH', `${BASE}/${w.m.id}?${q}`, { content: 'patched' }],
    ['DELETE', 'DELETE', `${BASE}/${w.m.id}?${q}`],
  ];
}

async function expectEach(
  caller: Auth,
  requests: readonly Request[],
  status: number,
  error: string,
): Promise<void> {
  for (const [label, method, url, payload] of requests) {
    const a = await send(caller, method, url, payload);
    expect({ label, status: a.status, body: a.body }).toStrictEqual({
      label,
      status,
      body: { error },
    });
  }
}

describe('user override', () => {
  test('a user that is not a UUID: 400 on every endpoint; nothing changes, no audit', async () => {
    for (const policy of ['members', 'admins'] as const) {
      const w = await world(policy);
      await unchanged([w.orgId], async () => {
        for (const bad of ['not-a-uuid', `${u.owner.id}0`, u.owner.id.replaceAll('-', '')])
          await expectEach(as(u.member, w.orgId), withUser(w, bad), 400, 'user must be a UUID');
      });
    }
  });

  test.each([
    ['a random UUID', () => randomUUID()],
    ['a member of another organization only', () => u.outsider.id],
  ])('%s: 400 user is not a member of this organization on every endpoint; nothing changes, no audit', async (_, user) => {
    const members = await world('members');
    const admins = await world('admins');
    await unchanged([members.orgId, admins.orgId], async () => {
      const error = 'user is not a member of this organization';
      await expectEach(as(u.member, members.orgId), withUser(members, user()), 400, error);
      await expectEach(as(u.admin, admins.orgId), withUser(admins, user()), 400, error);
      await expectEach(as(u.orgOwner, admins.orgId), withUser(admins, user()), 400, error);
    });
  });

  test("acting for a member works on that member's store on every endpoint, never on the actor's", async () => {
    const w = await world();
    const owner = api(as(u.owner, w.orgId));
    const actor = api(as(u.member, w.orgId));
    const q = `?user=${u.owner.id}`;
    const mine = await actor.add('my own note');
    const actorCursor = (await actor.full()).cursor;

    const added = await actor.add('for the owner', { user: u.owner.id });
    expect(ids((await owner.full()).memories)).toStrictEqual(ids([w.m, added]));
    expect((await actor.full()).memories).toStrictEqual([mine]);
    expect((await actor.full(q)).memories).toStrictEqual((await owner.full()).memories);

    // The owner's cursor serves the actor acting for the owner; the actor's own does not.
    const pulled = await actor.list(`?since=${w.cursor}&user=${u.owner.id}`);
    expect(pulled.body).toStrictEqual({
      memories: [w.m, added],
      deleted: [w.gone],
      cursor: expect.any(String),
    });
    expectError(
      await actor.list(`?since=${actorCursor}&user=${u.owner.id}`),
      400,
      'invalid cursor',
    );

    expect((await actor.one(w.m.id, q)).body).toStrictEqual({ memory: w.m });
    expectError(await actor.one(w.m.id), 404, 'memory not found');
    // The target's store is the one searched: the actor's own memory is not in it.
    expectError(await actor.one(mine.id, q), 404, 'memory not found');

    const patched = memoryOf(await actor.patch(w.m.id, { content: 'now at Initech' }, q));
    expect(patched).toStrictEqual({
      ...w.m,
      content: 'now at Initech',
      updatedAt: patched.updatedAt,
    });
    expect((await owner.one(w.m.id)).body).toStrictEqual({ memory: patched });
    expectError(await actor.patch(mine.id, { content: 'hijacked' }, q), 404, 'memory not found');

    expect((await actor.del(added.id, q)).body).toStrictEqual({ ok: true });
    expect((await owner.full()).memories).toStrictEqual([patched]);
    expectError(await actor.del(mine.id, q), 404, 'memory not found');

    expect((await actor.full()).memories).toStrictEqual([mine]);
  });

  test("user equal to the caller's own id, in any case, is no override: no audit row, even for a plain member under the admins policy", async () => {
    const w = await world('admins');
    const caller = as(u.owner, w.orgId);
    const o = api(caller);
    for (const self of [u.owner.id, u.owner.id.toUpperCase()]) {
      const q = `?user=${self}`;
      expect((await o.full(q)).memories).toStrictEqual([w.m]);
      expect((await o.list(`?since=${w.cursor}&user=${self}`)).status).toBe(200);
      expect((await o.one(w.m.id, q)).body).toStrictEqual({ memory: w.m });
      const added = await o.add(`added as ${self}`, { user: self });
      expect((await o.patch(added.id, { category: 'goal' }, q)).status).toBe(200);
      expect((await o.del(added.id, q)).body).toStrictEqual({ ok: true });
    }
    expect((await o.full()).memories).toStrictEqual([w.m]);
    expect(await auditOf(w.orgId)).toStrictEqual([]);
  });

  test('POST with user or project in the query: 400 saying they go in the body; nothing added anywhere, no audit', async () => {
    const w = await world();
    const member = as(u.member, w.orgId);
    const misplaced = (name: string) =>
      `query parameter ${name} is not accepted on POST: send "${name}" in the body`;
    await unchanged([w.orgId, w.foreignOrgId], async () => {
      for (const [query, error] of [
        [`?user=${u.owner.id}`, misplaced('user')],
        [`?project=${w.project}`, misplaced('project')],
        // Whatever else the query holds, and whatever it is worth.
        [`?user=not-a-uuid`, misplaced('user')],
        [`?project=&user=${u.owner.id}`, misplaced('user')],
        [`?foo=1&project=${w.project}`, misplaced('project')],
        // Any other parameter: unknown, as on every other endpoint.
        ['?foo=1', 'unknown query parameter: foo'],
        ['?since=abc', 'unknown query parameter: since'],
      ] as const) {
        expectError(
          await send(member, 'POST', `${BASE}${query}`, { content: 'where does it land?' }),
          400,
          error,
        );
      }
    });
    // In the body, the same request acts for the owner.
    const added = await api(member).add('where does it land?', { user: u.owner.id });
    expect((await api(as(u.owner, w.orgId)).full()).memories).toContainEqual(added);
  });

  test('admins policy: a plain member gets the same 403 for any user, member or not, before any membership lookup', async () => {
    const w = await world('admins');
    const error = 'acting for another member is restricted to organization owners and admins';
    await unchanged([w.orgId], async () => {
      for (const user of [u.owner.id, u.admin.id, u.orgOwner.id, randomUUID(), u.outsider.id])
        await expectEach(as(u.member, w.orgId), withUser(w, user), 403, error);
    });
    // Owners and admins pass the policy and meet the membership check.
    const notMember = 'user is not a member of this organization';
    await expectEach(as(u.admin, w.orgId), withUser(w, randomUUID()), 400, notMember);
    await expectEach(as(u.orgOwner, w.orgId), withUser(w, randomUUID()), 400, notMember);
  });
});

// ---------------------------------------------------------------------------------------------
// Audit log
// ---------------------------------------------------------------------------------------------

describe('audit log', () => {
  test('every override writes exactly one row: org, actor, target, action, memory id, time', async () => {
    const w = await world();
    const actor = as(u.editor, w.orgId);
    const q = `user=${u.owner.id}`;
    let created = '';
    const steps: [
      action: string,
      request: () => Promise<Answer>,
      status: number,
      memoryId: () => string | null,
    ][] = [
      ['list', () => send(actor, 'GET', `${BASE}?${q}`), 200, () => null],
      ['list', () => send(actor, 'GET', `${BASE}?since=${w.cursor}&${q}`), 200, () => null],
      ['get', () => send(actor, 'GET', `${BASE}/${w.m.id}?${q}`), 200, () => w.m.id],
      [
        'add',
        async () => {
          const a = await send(actor, 'POST', BASE, { content: 'for you', user: u.owner.id });
          created = memoryOf(a).id;
          return a;
        },
        201,
        () => created,
      ],
      // A folded save is an add all the same.
      [
        'add',
        () => send(actor, 'POST', BASE, { content: 'For you.', user: u.owner.id }),
        200,
        () => created,
      ],
      [
        'update',
        () => send(actor, 'PATCH', `${BASE}/${created}?${q}`, { category: 'goal' }),
        200,
        () => created,
      ],
      ['delete', () => send(actor, 'DELETE', `${BASE}/${created}?${q}`), 200, () => created],
      // Deleting a deleted memory succeeds (idempotent), so it is an act like any other.
      ['delete', () => send(actor, 'DELETE', `${BASE}/${created}?${q}`), 200, () => created],
    ];
    let seen = new Set<string>();
    for (const [action, request, status, memoryId] of steps) {
      const startedAt = Date.now();
      const a = await request();
      const endedAt = Date.now();
      expect(a.status, `${action}: ${JSON.stringify(a.body)}`).toBe(status);
      const rows = await auditOf(w.orgId, w.foreignOrgId);
      const fresh = rows.filter((r) => !seen.has(r.id));
      expect(fresh, action).toStrictEqual([
        {
          id: expect.stringMatching(UUID),
          org_id: w.orgId,
          actor_id: u.editor.id,
          target_id: u.owner.id,
          action,
          memory_id: memoryId(),
          at: expect.any(Number),
          details: null,
        },
      ]);
      expect(fresh[0]?.at).toBeGreaterThanOrEqual(startedAt);
      expect(fresh[0]?.at).toBeLessThanOrEqual(endedAt);
      seen = new Set(rows.map((r) => r.id));
    }
    expect(seen.size).toBe(steps.length);
  });

  test('a refused override request writes no row', async () => {
    const w = await world();
    const strict = await world('admins');
    const actor = as(u.editor, w.orgId);
    const q = `user=${u.owner.id}`;
    const mine = await api(actor).add('my own note');
    const actorCursor = (await api(actor).full()).cursor;
    const refused: [request: () => Promise<Answer>, status: number, error: string][] = [
      [
        () => send(as(u.member, strict.orgId), 'GET', `${BASE}/${strict.m.id}?${q}`),
        403,
        'acting for another member is restricted to organization owners and admins',
      ],
      [
        () => send(actor, 'GET', `${BASE}?user=${randomUUID()}`),
        400,
        'user is not a member of this organization',
      ],
      [() => send(actor, 'GET', `${BASE}?user=nobody`), 400, 'user must be a UUID'],
      [() => send(actor, 'GET', `${BASE}/${randomUUID()}?${q}`), 404, 'memory not found'],
      [() => send(actor, 'GET', `${BASE}/${mine.id}?${q}`), 404, 'memory not found'],
      [() => send(actor, 'GET', `${BASE}/${w.gone}?${q}`), 404, 'memory not found'],
      [() => send(actor, 'GET', `${BASE}/${w.pm.id}x?${q}`), 404, 'memory not found'],
      [
        () => send(actor, 'PATCH', `${BASE}/${w.gone}?${q}`, { content: 'back' }),
        404,
        'memory not found',
      ],
      [
        () => send(actor, 'PATCH', `${BASE}/${w.m.id}?${q}`, {}),
        400,
        'at least one of content or category is required',
      ],
      [() => send(actor, 'DELETE', `${BASE}/${mine.id}?${q}`), 404, 'memory not found'],
      [
        () => send(actor, 'POST', BASE, { content: '   ', user: u.owner.id }),
        400,
        'content is required',
      ],
      [() => send(actor, 'GET', `${BASE}?since=${actorCursor}&${q}`), 400, 'invalid cursor'],
      [
        () => send(actor, 'GET', `${BASE}?project=${w.project}&${q}`),
        400,
        'project cannot be combined with user',
      ],
    ];
    const before = await snapshot([w.orgId, strict.orgId]);
    for (const [request, status, error] of refused) expectError(await request(), status, error);
    expect(await snapshot([w.orgId, strict.orgId])).toStrictEqual(before);
    expect(await auditOf(w.orgId, strict.orgId)).toStrictEqual([]);
  });

  test('an override pull refused with 410 (cursor older than purged tombstones) writes no row', async () => {
    const w = await world();
    // Age this world's tombstone only, then purge with a one-day window.
    await t.database.db
      .updateTable('memories')
      .set({ deleted_at: Date.now() - 2 * 86_400_000 })
      .where('id', '=', w.gone)
      .execute();
    expect(await purgeTombstones(t.database, 1)).toBeGreaterThanOrEqual(1);
    const a = await send(
      as(u.member, w.orgId),
      'GET',
      `${BASE}?since=${w.cursor}&user=${u.owner.id}`,
    );
    expectError(a, 410, 'cursor can no longer be served: pull the full list again without since');
    expect(await auditOf(w.orgId)).toStrictEqual([]);
  });

  test('requests that are no override write no row', async () => {
    const w = await world();
    const o = api(as(u.owner, w.orgId));
    await o.full();
    await o.list(`?since=${w.cursor}`);
    await o.one(w.m.id);
    await o.one(w.pm.id);
    const added = await o.add('mine');
    await o.patch(added.id, { content: 'still mine' });
    await o.del(added.id);
    await o.full(`?project=${w.project}`);
    await o.list(`?since=${w.poolCursor}&project=${w.project}`);
    const pooled = await o.add('pooled', { project: w.project });
    await o.patch(pooled.id, { content: 'pooled, edited' });
    await o.del(pooled.id);
    await api(as(u.viewer, w.orgId)).full(`?project=${w.project}`);
    expect(await auditOf(w.orgId)).toStrictEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Project pools
// ---------------------------------------------------------------------------------------------

describe('project pools', () => {
  test('a viewer lists and pulls the pool but may not add (403); an editor and an owner add', async () => {
    const w = await world();
    const viewer = api(as(u.viewer, w.orgId));
    expect(await viewer.full(`?project=${w.project}`)).toStrictEqual({
      memories: [w.pm],
      cursor: expect.any(String),
    });
    expect((await viewer.list(`?since=${w.poolCursor}&project=${w.project}`)).body).toStrictEqual({
      memories: [w.pm],
      deleted: [],
      cursor: expect.any(String),
    });
    await unchanged([w.orgId], async () => {
      const a = await viewer.post({ content: 'x', project: w.project });
      expectError(a, 403, 'editor access to this project is required');
    });
    const byEditor = await api(as(u.editor, w.orgId)).add('from the editor', {
      project: w.project,
    });
    const byOwner = await api(as(u.projectOwner, w.orgId)).add('from the owner', {
      project: w.project,
    });
    expect(ids((await viewer.full(`?project=${w.project}`)).memories)).toStrictEqual(
      ids([w.pm, byEditor, byOwner]),
    );
  });

  test('an unknown project, or one of another organization: 404 project not found', async () => {
    const w = await world();
    const elsewhere = await t.fixtures.org();
    await t.fixtures.member(elsewhere, u.editor.id);
    // Editor access there does not make the project one of this organization.
    const foreign = await t.fixtures.project(elsewhere, { [u.editor.id]: 'editor' });
    await unchanged([w.orgId, elsewhere], async () => {
      for (const project of [randomUUID(), foreign]) {
        await expectEach(
          as(u.editor, w.orgId),
          [
            ['GET list', 'GET', `${BASE}?project=${project}`],
            ['GET list since', 'GET', `${BASE}?since=${w.poolCursor}&project=${project}`],
            ['POST', 'POST', BASE, { content: 'x', project }],
          ],
          404,
          'project not found',
        );
      }
    });
  });

  test('project with user: 400 project cannot be combined with user, whoever the user', async () => {
    const w = await world();
    await unchanged([w.orgId], async () => {
      for (const user of [u.owner.id, u.editor.id, randomUUID()]) {
        await expectEach(
          as(u.editor, w.orgId),
          [
            ['GET list', 'GET', `${BASE}?project=${w.project}&user=${user}`],
            ['GET since', 'GET', `${BASE}?since=${w.poolCursor}&project=${w.project}&user=${user}`],
            ['POST', 'POST', BASE, { content: 'x', project: w.project, user }],
          ],
          400,
          'project cannot be combined with user',
        );
      }
    });
  });

  test('a pool memory by id: only its contributor, PATCH and DELETE only while editor or owner', async () => {
    const w = await world();
    const contributor = api(as(u.owner, w.orgId));
    const pool = api(as(u.projectOwner, w.orgId));
    const poolList = async () => (await pool.full(`?project=${w.project}`)).memories;
    const notFound = (a: Answer) => expectError(a, 404, 'memory not found');

    await unchanged([w.orgId], async () => {
      for (const other of [u.editor, u.projectOwner, u.viewer]) {
        const o = api(as(other, w.orgId));
        notFound(await o.one(w.pm.id));
        notFound(await o.patch(w.pm.id, { content: 'taken over' }));
        notFound(await o.del(w.pm.id));
      }
    });

    await t.fixtures.grant(w.project, u.owner.id, 'viewer');
    await unchanged([w.orgId], async () => {
      expect((await contributor.one(w.pm.id)).body).toStrictEqual({ memory: w.pm });
      notFound(await contributor.patch(w.pm.id, { content: 'as a viewer' }));
      notFound(await contributor.del(w.pm.id));
    });
    expect(await poolList()).toStrictEqual([w.pm]);

    await revoke(w.project, u.owner.id);
    await unchanged([w.orgId], async () => {
      notFound(await contributor.one(w.pm.id));
      notFound(await contributor.patch(w.pm.id, { content: 'revoked' }));
      notFound(await contributor.del(w.pm.id));
      expectError(
        await contributor.list(`?project=${w.project}`),
        403,
        'no access to this project',
      );
    });
    // The contribution stays in the pool for its collaborators.
    expect(await poolList()).toStrictEqual([w.pm]);

    await t.fixtures.grant(w.project, u.owner.id, 'editor');
    const patched = memoryOf(await contributor.patch(w.pm.id, { content: 'editor again' }));
    expect(patched).toStrictEqual({
      ...w.pm,
      content: 'editor again',
      updatedAt: patched.updatedAt,
    });
    expect(await poolList()).toStrictEqual([patched]);

    // Project owner access serves as well as editor access.
    await t.fixtures.grant(w.project, u.owner.id, 'owner');
    expect((await contributor.del(w.pm.id)).body).toStrictEqual({ ok: true });
    expect(await poolList()).toStrictEqual([]);
    expect((await contributor.del(w.pm.id)).body).toStrictEqual({ ok: true });
    notFound(await contributor.one(w.pm.id));
  });

  test('pool memories never appear in a personal list, personal memories never in the pool', async () => {
    const w = await world();
    const o = api(as(u.owner, w.orgId));
    expect((await o.full()).memories).toStrictEqual([w.m]);
    expect((await o.list(`?since=${w.cursor}`)).body).toStrictEqual({
      memories: [w.m],
      deleted: [w.gone],
      cursor: expect.any(String),
    });
    expect((await o.full(`?project=${w.project}`)).memories).toStrictEqual([w.pm]);
    expect((await o.list(`?since=${w.poolCursor}&project=${w.project}`)).body).toStrictEqual({
      memories: [w.pm],
      deleted: [],
      cursor: expect.any(String),
    });
    for (const other of [u.viewer, u.editor, u.projectOwner, u.member]) {
      expect((await api(as(other, w.orgId)).full()).memories).toStrictEqual([]);
      expect((await o.full(`?user=${other.id}`)).memories).toStrictEqual([]);
    }
    // The same content in both stores is two memories: no fold across them.
    const personal = await o.add('The API is versioned');
    expect(personal.id).not.toBe(w.pm.id);
    expect(ids((await o.full()).memories)).toStrictEqual(ids([w.m, personal]));
    expect((await o.full(`?project=${w.project}`)).memories).toStrictEqual([w.pm]);
  });

  test('GET of a pool memory by a collaborator who did not contribute: the same 404 as an unknown id', async () => {
    const w = await world();
    const viewer = api(as(u.viewer, w.orgId));
    const answers = [
      await viewer.one(w.pm.id),
      await viewer.one(randomUUID()),
      await viewer.one('not-a-uuid'),
    ];
    for (const a of answers) expectError(a, 404, 'memory not found');
    expect(new Set(answers.map(told))).toHaveLength(1);
  });

  test('acting for the contributor reaches a pool memory by id only with the actor’s own access: read for GET, edit for PATCH and DELETE (audited)', async () => {
    const w = await world();
    // `member` starts with no access to the project at all.
    const actor = api(as(u.member, w.orgId));
    const q = `?user=${u.owner.id}`;
    const notFound = (a: Answer) => expectError(a, 404, 'memory not found');
    const poolOf = async () =>
      (await api(as(u.viewer, w.orgId)).full(`?project=${w.project}`)).memories;
    expectError(await actor.list(`?project=${w.project}`), 403, 'no access to this project');
    expectError(
      await actor.list(`?project=${w.project}&user=${u.owner.id}`),
      400,
      'project cannot be combined with user',
    );
    // No access: the same 404 as an unknown id, on every verb; nothing changed, nothing audited.
    await unchanged([w.orgId], async () => {
      const unknown = await actor.one(randomUUID(), q);
      const answers = [
        await actor.one(w.pm.id, q),
        await actor.patch(w.pm.id, { content: 'changed by proxy' }, q),
        await actor.del(w.pm.id, q),
      ];
      for (const a of [unknown, ...answers]) notFound(a);
      expect(new Set([unknown, ...answers].map(told))).toHaveLength(1);
    });

    // Read access: GET reaches it; PATCH and DELETE are still 404.
    await t.fixtures.grant(w.project, u.member.id, 'viewer');
    expect((await actor.one(w.pm.id, q)).body).toStrictEqual({ memory: w.pm });
    const auditAfterRead = await auditOf(w.orgId);
    expect(auditAfterRead.map((r) => [r.action, r.actor_id, r.target_id, r.memory_id])).toEqual([
      ['get', u.member.id, u.owner.id, w.pm.id],
    ]);
    const before = await snapshot([w.orgId]);
    notFound(await actor.patch(w.pm.id, { content: 'changed by proxy' }, q));
    notFound(await actor.del(w.pm.id, q));
    expect(await snapshot([w.orgId])).toStrictEqual(before);
    expect(await auditOf(w.orgId)).toStrictEqual(auditAfterRead);

    // Edit access: all three.
    await t.fixtures.grant(w.project, u.member.id, 'editor');
    const patched = memoryOf(await actor.patch(w.pm.id, { content: 'changed by proxy' }, q));
    expect(patched).toStrictEqual({
      ...w.pm,
      content: 'changed by proxy',
      updatedAt: patched.updatedAt,
    });
    expect(await poolOf()).toStrictEqual([patched]);

    // The contributor's own standing still decides: demoted, no more edits; revoked, nothing.
    await t.fixtures.grant(w.project, u.owner.id, 'viewer');
    expect((await actor.one(w.pm.id, q)).body).toStrictEqual({ memory: patched });
    notFound(await actor.patch(w.pm.id, { content: 'again' }, q));
    notFound(await actor.del(w.pm.id, q));
    await revoke(w.project, u.owner.id);
    notFound(await actor.one(w.pm.id, q));
    await t.fixtures.grant(w.project, u.owner.id, 'editor');

    // And so does the actor's, on every request: revoked, 404 again.
    await revoke(w.project, u.member.id);
    notFound(await actor.one(w.pm.id, q));
    notFound(await actor.del(w.pm.id, q));
    expect(await poolOf()).toStrictEqual([patched]);

    // Project owner access serves as well as editor access.
    await t.fixtures.grant(w.project, u.member.id, 'owner');
    expect((await actor.del(w.pm.id, q)).body).toStrictEqual({ ok: true });
    expect(await poolOf()).toStrictEqual([]);
    expect((await auditOf(w.orgId)).map((r) => [r.action, r.memory_id]).sort()).toStrictEqual(
      [
        ['get', w.pm.id],
        ['update', w.pm.id],
        ['get', w.pm.id],
        ['delete', w.pm.id],
      ].sort(),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Property
// ---------------------------------------------------------------------------------------------

type Step =
  | { readonly kind: 'grant'; readonly who: number; readonly access: ProjectAccess }
  | { readonly kind: 'revoke'; readonly who: number }
  | { readonly kind: 'add'; readonly who: number }
  | {
      readonly kind: 'patch' | 'delete' | 'get';
      readonly who: number;
      readonly pick: number;
      /** Sent by the memory's contributor rather than by `who`. */
      readonly byContributor: boolean;
    }
  | { readonly kind: 'list'; readonly who: number };

const whoArb = fc.nat({ max: 2 });
const accessArb = fc.constantFrom<ProjectAccess>('viewer', 'editor', 'owner');
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('grant' as const), who: whoArb, access: accessArb }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('revoke' as const), who: whoArb }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('add' as const), who: whoArb }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constantFrom('patch' as const, 'delete' as const, 'get' as const),
      who: whoArb,
      // Taken modulo one more than the memories there are: the extra one is an unknown id.
      pick: fc.nat(),
      byContributor: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('list' as const), who: whoArb }) },
);
/** Each member's access when the project is created. */
const initialArb = fc.tuple(...[0, 1, 2].map(() => fc.option(accessArb, { nil: null })));

interface ModelMemory {
  readonly id: string;
  readonly contributor: number;
  content: string;
  deleted: boolean;
}

describe('property: project access and pool writes follow a small model', () => {
  test('random grants, demotions, revokes and adds/patches/deletes/reads by three members', async () => {
    const orgId = await t.fixtures.org();
    const members = [
      await t.fixtures.user(orgId),
      await t.fixtures.user(orgId),
      await t.fixtures.user(orgId),
    ];
    const reader = await t.fixtures.user(orgId);
    let counter = 0;

    await fc.assert(
      fc.asyncProperty(
        initialArb,
        fc.array(stepArb, { minLength: 5, maxLength: 30, size: 'max' }),
        async (initial, steps) => {
          const access: (ProjectAccess | null)[] = [...initial];
          const grants: Record<string, ProjectAccess> = { [reader.id]: 'owner' };
          members.forEach((m, i) => {
            const granted = access[i];
            if (granted) grants[m.id] = granted;
          });
          const project = await t.fixtures.project(orgId, grants);
          const memories: ModelMemory[] = [];
          const canEdit = (who: number) => access[who] === 'editor' || access[who] === 'owner';
          const pick = (m: { id: string; content: string }) => ({ id: m.id, content: m.content });
          const byId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : 1);
          const active = () =>
            memories
              .filter((m) => !m.deleted)
              .map(pick)
              .sort(byId);
          const pool = (who: User) =>
            send({ token: who.token, orgId }, 'GET', `${BASE}?project=${project}`);
          const listed = (a: Answer) => (a.body as ListBody).memories.map(pick).sort(byId);

          for (const step of steps) {
            const label = JSON.stringify(step);
            if (step.kind === 'grant' || step.kind === 'revoke') {
              const user = members[step.who] as User;
              if (step.kind === 'grant') await t.fixtures.grant(project, user.id, step.access);
              else await revoke(project, user.id);
              access[step.who] = step.kind === 'grant' ? step.access : null;
            } else if (step.kind === 'add' || step.kind === 'list') {
              const caller = { token: (members[step.who] as User).token, orgId };
              if (step.kind === 'add') {
                const content = `note ${++counter}`;
                const a = await send(caller, 'POST', BASE, { content, project });
                if (canEdit(step.who)) {
                  expect(a.status, label).toBe(201);
                  const { id } = memoryOf(a);
                  memories.push({ id, contributor: step.who, content, deleted: false });
                } else expectError(a, 403, 'editor access to this project is required');
              } else {
                const a = await pool(members[step.who] as User);
                if (access[step.who] === null) expectError(a, 403, 'no access to this project');
                else {
                  expect(a.status, label).toBe(200);
                  expect(listed(a), label).toStrictEqual(active());
                }
              }
            } else {
              const m = memories[step.pick % (memories.length + 1)];
              const who = m && step.byContributor ? m.contributor : step.who;
              const caller = { token: (members[who] as User).token, orgId };
              const url = `${BASE}/${m?.id ?? randomUUID()}`;
              const own = m !== undefined && m.contributor === who;
              if (step.kind === 'get') {
                const a = await send(caller, 'GET', url);
                if (own && !m.deleted && access[who] !== null) {
                  expect(a.body, label).toStrictEqual({ memory: expect.objectContaining(pick(m)) });
                } else expectError(a, 404, 'memory not found');
              } else if (step.kind === 'patch') {
                const content = `edited ${++counter}`;
                const a = await send(caller, 'PATCH', url, { content });
                if (own && !m.deleted && canEdit(who)) {
                  m.content = content;
                  expect(a.body, label).toStrictEqual({ memory: expect.objectContaining(pick(m)) });
                } else expectError(a, 404, 'memory not found');
              } else {
                const a = await send(caller, 'DELETE', url);
                // Deleting a deleted memory: 200 again, for whoever may still delete it.
                if (own && canEdit(who)) {
                  expect(a.body, label).toStrictEqual({ ok: true });
                  m.deleted = true;
                } else expectError(a, 404, 'memory not found');
              }
            }
            const all = await pool(reader);
            expect(all.status).toBe(200);
            expect(listed(all), label).toStrictEqual(active());
          }
          for (const member of members) {
            const own = await send({ token: member.token, orgId }, 'GET', BASE);
            expect(own.body).toStrictEqual({ memories: [], cursor: expect.any(String) });
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});
