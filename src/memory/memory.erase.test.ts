/**
 * DELETE /api/v1/memory through HTTP, on the suite's engine: a whole store (or one category of it)
 * deleted in one write, every memory a tombstone the next pull lists, search and the list
 * forgetting them; a pool's owners only; an act for another member audited once, with the count;
 * adds racing the erase either deleted with it or kept, never half.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { listAudit } from '../audit/audit.repository.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { recountedSearchCounts, searchCounts } from '../testing/search-counts.ts';

const BASE = '/api/v1/memory';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

type Who = Awaited<ReturnType<TestApp['fixtures']['caller']>>;
const member = (orgId?: string, role?: 'owner' | 'member') => t.fixtures.caller(orgId, role);

async function add(who: Who, content: string, extra: Record<string, unknown> = {}) {
  const res = await t.request(who, {
    method: 'POST',
    url: BASE,
    payload: { content, ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().memory.id as string;
}

const erase = (who: Who, query = '') =>
  t.request(who, { method: 'DELETE', url: `${BASE}${query}` });

async function list(who: Who, query = '') {
  const res = await t.request(who, { method: 'GET', url: `${BASE}${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    memories: { id: string; content: string }[];
    deleted?: string[];
    cursor: string;
  };
}

test('every memory of the store deleted in one write: the pull lists each, the list and search forget them', async () => {
  const who = await member();
  const other = await member(who.orgId);
  const kept = await add(other, 'Not theirs to erase');
  const ids = [
    await add(who, 'Likes tea', { category: 'preference' }),
    await add(who, 'Runs on Sundays'),
    await add(who, 'Lives in Porto', { category: 'identity' }),
  ];
  const removed = await t.request(who, { method: 'DELETE', url: `${BASE}/${ids[1]}` });
  expect(removed.statusCode).toBe(200);
  const { cursor } = await list(who);

  const res = await erase(who);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.json()).toEqual({ ok: true, deleted: 2 });

  expect((await list(who)).memories).toEqual([]);
  const pulled = await list(who, `?since=${encodeURIComponent(cursor)}`);
  expect(pulled.memories).toEqual([]);
  expect([...(pulled.deleted ?? [])].sort()).toEqual([ids[0], ids[2]].sort());
  const found = await t.request(who, { method: 'GET', url: `${BASE}/search?q=tea` });
  expect(found.json().memories).toEqual([]);
  expect((await list(other)).memories.map((m) => m.id)).toEqual([kept]);
  // Nothing left: nothing to delete, still ok.
  expect((await erase(who)).json()).toEqual({ ok: true, deleted: 0 });
  // The store takes new memories as before.
  await add(who, 'Likes tea');
  expect((await list(who)).memories.map((m) => m.content)).toEqual(['Likes tea']);
});

test('category= deletes that category only; an unknown one is a 400 that deletes nothing', async () => {
  const who = await member();
  await add(who, 'Likes tea', { category: 'preference' });
  await add(who, 'Prefers aisle seats', { category: 'preference' });
  await add(who, 'Lives in Porto', { category: 'identity' });
  await add(who, 'No category');
  const bad = await erase(who, '?category=hobby');
  expect(bad.statusCode, bad.body).toBe(400);
  expect(bad.json()).toEqual({
    error: 'category must be one of identity, preference, goal, project, relationship, constraint',
  });
  expect((await erase(who, '?category=preference')).json()).toEqual({ ok: true, deleted: 2 });
  expect((await list(who)).memories.map((m) => m.content)).toEqual([
    'Lives in Porto',
    'No category',
  ]);
  // The store's search counts are what its memories hold (search ranks by them).
  expect(await searchCounts(t.database, who.userId)).toEqual(
    await recountedSearchCounts(t.database, who.userId),
  );
  expect((await erase(who)).json()).toEqual({ ok: true, deleted: 2 });
  expect(await searchCounts(t.database, who.userId)).toEqual({ memories: 0, terms: 0 });
});

test("a pool is erased by its owners only; another member's store as the override rules allow, audited once with the count", async () => {
  const owner = await member(await t.fixtures.org({ userOverride: 'admins' }), 'owner');
  const editor = await member(owner.orgId);
  const project = await t.fixtures.project(owner.orgId, {
    [owner.userId]: 'owner',
    [editor.userId]: 'editor',
  });
  await add(editor, 'Deploys on Fridays', { project });
  const refused = await erase(editor, `?project=${project}`);
  expect(refused.statusCode, refused.body).toBe(403);
  expect(refused.json()).toEqual({ error: 'owner access to this project is required' });
  expect((await erase(owner, `?project=${project}`)).json()).toEqual({ ok: true, deleted: 1 });
  expect((await list(owner, `?project=${project}`)).memories).toEqual([]);

  await add(editor, 'Speaks Portuguese');
  await add(editor, 'Runs on Sundays');
  expect((await erase(editor, `?user=${owner.userId}`)).statusCode).toBe(403);
  expect((await erase(owner, `?user=${editor.userId}`)).json()).toEqual({ ok: true, deleted: 2 });
  const audit = await listAudit(t.database.db, owner.orgId, 20);
  const erased = audit.filter((row) => row.action === 'erase');
  expect(erased).toHaveLength(1);
  expect(erased[0]).toMatchObject({ actor_id: owner.userId, target_id: editor.userId });
  expect(JSON.parse(erased[0]?.details as string)).toEqual({ deleted: 2 });
});

test('adds racing an erase are deleted with it or kept, never half; a mirror kept by pulls equals the list', async () => {
  const who = await member();
  for (let i = 0; i < 20; i++) await add(who, `Before ${i}`);
  const { cursor } = await list(who);
  const adds = Array.from({ length: 40 }, (_, i) =>
    t.request(who, { method: 'POST', url: BASE, payload: { content: `Racing ${i}` } }),
  );
  const [erased, ...added] = await Promise.all([erase(who), ...adds]);
  expect(erased?.statusCode, erased?.body).toBe(200);
  const addedIds = added.map((res) => {
    expect(res.statusCode, res.body).toBe(201);
    return res.json().memory.id as string;
  });
  const after = await list(who);
  const pulled = await list(who, `?since=${encodeURIComponent(cursor)}`);
  const deleted = new Set(pulled.deleted ?? []);
  const alive = new Set(after.memories.map((m) => m.id));
  // Every add acknowledged is either alive or among the deleted the pull reports.
  for (const id of addedIds) expect(alive.has(id) !== deleted.has(id), id).toBe(true);
  expect(erased?.json().deleted).toBe(20 + addedIds.filter((id) => deleted.has(id)).length);
  // What is left was added after the erase took the store: none of what was there before.
  const keptAfter = after.memories.map((m) => m.content);
  expect(keptAfter.every((content) => content.startsWith('Racing'))).toBe(true);
  const mirror = new Map<string, string>();
  for (const m of pulled.memories) mirror.set(m.id, m.content);
  for (const id of deleted) mirror.delete(id);
  expect([...mirror.keys()].sort()).toEqual([...alive].sort());
});

test('DELETE, GET and POST are the store itself; PUT is a 405 naming them', async () => {
  const who = await member();
  const res = await t.request(who, { method: 'PUT', url: BASE, payload: {} });
  expect(res.statusCode, res.body).toBe(405);
  expect(res.headers.allow).toBe('GET, POST, DELETE, HEAD');
});
