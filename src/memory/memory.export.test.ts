/**
 * GET /api/v1/memory/export and GET /api/v1/orgs/{orgId}/export through HTTP, on the suite's
 * engine: JSON lines of exactly the list's memories, read from one snapshot whose cursor
 * (`Mnemo-Cursor`) a pull continues from without missing a change, also when writes run while
 * the export streams; refused as the list is; the organization's export for its owners.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { listAudit } from '../audit/audit.repository.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { createMemoryRepository } from './memory.repository.ts';
import type { MemoryItem } from './memory.schemas.ts';
import { createStoreExport } from './store-export.ts';

const BASE = '/api/v1/memory';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

type Who = Awaited<ReturnType<TestApp['fixtures']['caller']>>;
const member = (orgId?: string, role?: 'owner' | 'admin' | 'member') =>
  t.fixtures.caller(orgId, role);

/** The store's memories as a JSON body would print each, by id. */
const byId = (memories: readonly MemoryItem[]) =>
  [...memories].sort((a, b) => a.id.localeCompare(b.id));

async function list(who: Who, query = '') {
  const res = await t.request(who, { method: 'GET', url: `${BASE}${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { memories: MemoryItem[]; deleted?: string[]; cursor: string };
}

async function exported(who: Who, query = '') {
  const res = await t.request(who, { method: 'GET', url: `${BASE}/export${query}` });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/x-ndjson');
  expect(res.headers['cache-control']).toBe('no-store');
  const cursor = res.headers['mnemo-cursor'];
  expect(typeof cursor).toBe('string');
  return { body: res.body, lines: linesOf(res.body) as MemoryItem[], cursor: cursor as string };
}

function linesOf(body: string): unknown[] {
  if (body === '') return [];
  expect(body.endsWith('\n')).toBe(true);
  return body
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line));
}

async function imported(who: Who, contents: readonly string[], extra = {}) {
  for (let i = 0; i < contents.length; i += 1000) {
    const res = await t.request(who, {
      method: 'POST',
      url: `${BASE}/import`,
      payload: { ...extra, memories: contents.slice(i, i + 1000).map((content) => ({ content })) },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
}

test('the memories of the list, one a line as the list prints them, and the cursor of the same state', async () => {
  const who = await member();
  await imported(who, ['Likes tea', 'Runs on Sundays', 'Lives in Porto']);
  const categorized = await t.request(who, {
    method: 'POST',
    url: BASE,
    payload: { content: 'Ships the beta in June', category: 'goal' },
  });
  expect(categorized.statusCode).toBe(201);
  const gone = (await list(who)).memories.find((m) => m.content === 'Runs on Sundays');
  await t.request(who, { method: 'DELETE', url: `${BASE}/${gone?.id}` });

  const listed = await list(who);
  const { body, lines, cursor } = await exported(who);
  expect(byId(lines)).toEqual(byId(listed.memories));
  expect(lines.map((m) => m.content)).toEqual([
    'Likes tea',
    'Lives in Porto',
    'Ships the beta in June',
  ]);
  // Each line is the list's own JSON of that memory, byte for byte.
  const listBody = (await t.request(who, { method: 'GET', url: BASE })).body;
  for (const line of body.slice(0, -1).split('\n')) expect(listBody).toContain(line);
  expect(cursor).toBe(listed.cursor);
  expect(await list(who, `?since=${encodeURIComponent(cursor)}`)).toEqual({
    memories: [],
    deleted: [],
    cursor,
  });
});

test('a store never written: no line, and a cursor that pulls what comes next', async () => {
  const who = await member();
  const { body, cursor } = await exported(who);
  expect(body).toBe('');
  await imported(who, ['First memory']);
  const pulled = await list(who, `?since=${encodeURIComponent(cursor)}`);
  expect(pulled.memories.map((m) => m.content)).toEqual(['First memory']);
});

test('a store of several pages arrives whole, in the order its memories last changed', async () => {
  const who = await member();
  const contents = Array.from({ length: 2345 }, (_, i) => `Memory number ${i}`);
  await imported(who, contents);
  const first = (await list(who)).memories.find((m) => m.content === 'Memory number 0');
  const edited = await t.request(who, {
    method: 'PATCH',
    url: `${BASE}/${first?.id}`,
    payload: { content: 'Memory number 0, edited' },
  });
  expect(edited.statusCode).toBe(200);
  const { lines } = await exported(who);
  expect(lines).toHaveLength(2345);
  expect(lines.map((m) => m.content)).toEqual([...contents.slice(1), 'Memory number 0, edited']);
  expect(byId(lines)).toEqual(byId((await list(who)).memories));
});

test('a pool and another member’s store as the list reads them; refused as the list refuses', async () => {
  const owner = await member(undefined, 'owner');
  const other = await member(owner.orgId);
  const outsider = await member(owner.orgId);
  const project = await t.fixtures.project(owner.orgId, {
    [owner.userId]: 'owner',
    [other.userId]: 'viewer',
  });
  await imported(owner, ['Deploys on Fridays'], { project });
  await imported(other, ['Prefers short answers']);

  const pool = await exported(other, `?project=${project}`);
  expect(pool.lines.map((m) => m.content)).toEqual(['Deploys on Fridays']);
  expect(pool.cursor).toBe((await list(other, `?project=${project}`)).cursor);

  const forOther = await exported(owner, `?user=${other.userId}`);
  expect(forOther.lines.map((m) => m.content)).toEqual(['Prefers short answers']);
  const audit = await listAudit(t.database.db, owner.orgId, 10);
  expect(audit.map((e) => [e.action, e.actor_id, e.target_id])).toContainEqual([
    'export',
    owner.userId,
    other.userId,
  ]);

  // As the list refuses: a pool without a grant, a user who is no member, an id that is none.
  const refusals = [`?project=${project}`, `?user=${randomUUID()}`, '?user=x'];
  for (const query of refusals) {
    const exportRes = await t.request(outsider, { method: 'GET', url: `${BASE}/export${query}` });
    const listRes = await t.request(outsider, { method: 'GET', url: `${BASE}${query}` });
    expect(listRes.statusCode).toBeGreaterThanOrEqual(400);
    expect([exportRes.statusCode, exportRes.json()]).toEqual([listRes.statusCode, listRes.json()]);
    expect(exportRes.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(exportRes.headers['cache-control']).toBe('no-store');
  }
  // An export has no `since`: it is the whole store.
  const since = await t.request(outsider, { method: 'GET', url: `${BASE}/export?since=abc` });
  expect([since.statusCode, since.json()]).toEqual([
    400,
    { error: expect.stringContaining('since') },
  ]);
  const unauthenticated = await t.app.inject({ method: 'GET', url: `${BASE}/export` });
  expect(unauthenticated.statusCode).toBe(401);
  const posted = await t.request(owner, { method: 'POST', url: `${BASE}/export`, payload: {} });
  expect(posted.statusCode).toBe(405);
  expect(posted.headers.allow).toBe('GET, HEAD');
});

test('the snapshot holds while its lines are taken: what changes meanwhile is not in them, and the pull from its cursor brings it', async () => {
  const who = await member();
  await imported(
    who,
    Array.from({ length: 2500 }, (_, i) => `Seed ${i}`),
  );
  const last = (await list(who)).memories.find((m) => m.content === 'Seed 2499');
  const repo = createMemoryRepository(t.database);
  const exports = createStoreExport({ database: t.database, repository: repo });
  const scope = { orgId: who.orgId, kind: 'user' as const, ownerId: who.userId };
  const { stream } = await exports.store((snapshot) => repo.readScope(snapshot.reader, scope));
  const chunks = stream[Symbol.asyncIterator]();
  const first = await chunks.next();
  expect(first.done).toBe(false);
  // The third page is not read yet: it is read from the snapshot, not from what is now.
  const removed = await t.request(who, { method: 'DELETE', url: `${BASE}/${last?.id}` });
  expect(removed.statusCode).toBe(200);
  await imported(who, ['Added during the export']);
  let body = String(first.value);
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
    body += String(next.value);
  }
  const lines = linesOf(body) as MemoryItem[];
  expect(lines).toHaveLength(2500);
  expect(lines.at(-1)?.content).toBe('Seed 2499');
  expect(lines.some((m) => m.content === 'Added during the export')).toBe(false);
});

test('four exports at once in one process; a fifth is a 503 until one of them ends', async () => {
  const who = await member();
  await imported(who, ['Likes tea']);
  const repo = createMemoryRepository(t.database);
  const exports = createStoreExport({ database: t.database, repository: repo });
  const scope = { orgId: who.orgId, kind: 'user' as const, ownerId: who.userId };
  const open = () => exports.store((snapshot) => repo.readScope(snapshot.reader, scope));
  const running = [await open(), await open(), await open(), await open()];
  await expect(open()).rejects.toMatchObject({
    status: 503,
    message: 'too many exports are running; try again shortly',
    headers: { 'retry-after': '1' },
  });
  const ended = running[0]?.stream;
  ended?.destroy();
  await new Promise((resolve) => ended?.once('close', resolve));
  const fifth = await open();
  for (const { stream } of [...running.slice(1), fifth]) {
    let body = '';
    for await (const chunk of stream) body += String(chunk);
    expect(linesOf(body)).toMatchObject([{ content: 'Likes tea' }]);
  }
});

test('property: the export, then a pull from its cursor, equals the list, with writes racing the export', async () => {
  const op = fc.oneof(
    fc.record({
      kind: fc.constant('add' as const),
      text: fc.string({ minLength: 1, maxLength: 12 }),
    }),
    fc.record({
      kind: fc.constant('edit' as const),
      pick: fc.nat(),
      text: fc.string({ minLength: 1, maxLength: 12 }),
    }),
    fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 2500 }),
      fc.array(op, { maxLength: 12 }),
      async (size, racing) => {
        const who = await member();
        await imported(
          who,
          Array.from({ length: size }, (_, i) => `Seed ${i}`),
        );
        const ids = (await list(who)).memories.map((m) => m.id);
        const write = async (step: (typeof racing)[number], i: number) => {
          if (step.kind === 'add') {
            return t.request(who, {
              method: 'POST',
              url: BASE,
              payload: { content: `${step.text} ${i}` },
            });
          }
          const id = ids[step.pick % Math.max(ids.length, 1)];
          if (id === undefined) return undefined;
          if (step.kind === 'delete')
            return t.request(who, { method: 'DELETE', url: `${BASE}/${id}` });
          return t.request(who, {
            method: 'PATCH',
            url: `${BASE}/${id}`,
            payload: { content: `${step.text} edited ${i}` },
          });
        };
        const [exportRes] = await Promise.all([
          exported(who),
          ...racing.map((step, i) => write(step, i)),
        ]);
        const mirror = new Map(exportRes.lines.map((m) => [m.id, m]));
        const pulled = await list(who, `?since=${encodeURIComponent(exportRes.cursor)}`);
        for (const id of pulled.deleted ?? []) mirror.delete(id);
        for (const memory of pulled.memories) mirror.set(memory.id, memory);
        expect(byId([...mirror.values()])).toEqual(byId((await list(who)).memories));
      },
    ),
    { numRuns: 12 },
  );
});

test('an organization’s export: every store, end users with the app’s id, for its owners only', async () => {
  const owner = await member(undefined, 'owner');
  const admin = await member(owner.orgId, 'admin');
  const project = await t.fixtures.project(owner.orgId, { [owner.userId]: 'owner' });
  await imported(owner, ['Owner likes tea']);
  await imported(admin, ['Admin runs on Sundays', 'Admin lives in Porto']);
  await imported(owner, ['Deploys on Fridays'], { project });
  const registered = await t.request(owner, {
    method: 'PUT',
    url: `/api/v1/orgs/${owner.orgId}/end-users/customer-42`,
    payload: {},
  });
  expect(registered.statusCode, registered.body).toBe(201);
  const endUserId = registered.json().endUser.id as string;
  await imported(owner, ['Customer prefers email'], { user: endUserId });
  // Another organization's memories are not in it.
  await imported(await member(), ['Elsewhere']);

  const res = await t.request(owner, { method: 'GET', url: `/api/v1/orgs/${owner.orgId}/export` });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/x-ndjson');
  expect(res.headers['cache-control']).toBe('no-store');
  const lines = linesOf(res.body) as { store: Record<string, string>; memory: MemoryItem }[];
  const seen = lines.map((l) => [JSON.stringify(l.store), l.memory.content]).sort();
  expect(seen).toEqual(
    [
      [{ user: owner.userId }, 'Owner likes tea'],
      [{ user: admin.userId }, 'Admin runs on Sundays'],
      [{ user: admin.userId }, 'Admin lives in Porto'],
      [{ project }, 'Deploys on Fridays'],
      [{ user: endUserId, endUser: 'customer-42' }, 'Customer prefers email'],
    ]
      .map(([store, content]) => [JSON.stringify(store), content])
      .sort(),
  );
  for (const line of lines) expect(Object.keys(line)).toEqual(['store', 'memory']);
  const audit = await listAudit(t.database.db, owner.orgId, 20);
  expect(audit.map((e) => [e.action, e.actor_id, e.target_id])).toContainEqual([
    'org.export',
    owner.userId,
    owner.orgId,
  ]);

  const refused = await t.request(admin, {
    method: 'GET',
    url: `/api/v1/orgs/${owner.orgId}/export`,
  });
  expect(refused.statusCode).toBe(403);
  expect(refused.json()).toEqual({ error: 'only owners can export the organization' });
  const stranger = await member(undefined, 'owner');
  const elsewhere = await t.request(stranger, {
    method: 'GET',
    url: `/api/v1/orgs/${owner.orgId}/export`,
  });
  expect([elsewhere.statusCode, elsewhere.json()]).toEqual([
    403,
    { error: 'not a member of this organization' },
  ]);
});
