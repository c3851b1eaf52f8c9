/**
 * Where a search runs (memory-search.ts), on the suite's engine: on SQLite in worker threads with
 * connections of their own, the same search as on the event loop; on PostgreSQL in this thread.
 */
import diagnostics from 'node:diagnostics_channel';
import type { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { analyzeQuery } from '../platform/search-analyzer.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { searchOn } from './memory-search.ts';

const BASE = '/api/v1/memory';

const started: Worker[] = [];
const onStart = (message: unknown) => started.push((message as { worker: Worker }).worker);
const apps: TestApp[] = [];

beforeEach(() => {
  diagnostics.subscribe('worker_threads', onStart);
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  started.splice(0);
  diagnostics.unsubscribe('worker_threads', onStart);
});

async function member(t: TestApp) {
  const orgId = await t.fixtures.org();
  const user = await t.fixtures.user(orgId);
  return { orgId, token: user.token, userId: user.id };
}

async function appWithMemories(contents: readonly string[]) {
  const t = await buildTestApp();
  apps.push(t);
  const who = await member(t);
  for (const content of contents) {
    const res = await t.request(who, { method: 'POST', url: BASE, payload: { content } });
    expect(res.statusCode, res.body).toBe(201);
  }
  return { t, who };
}

const MEMORIES = [
  'The payments team owns the ledger service',
  'Payments on-call rotates weekly',
  'The search team owns the indexer',
  'Lunch is at noon on Fridays',
  'TICKET-4521 blocks the payments release',
];

test('SQLite searches in a worker started with the first search and ended with the app; PostgreSQL in this thread', async () => {
  const { t, who } = await appWithMemories(MEMORIES);
  expect(started).toHaveLength(0);
  const res = await t.request(who, {
    method: 'GET',
    url: `${BASE}/search?q=${encodeURIComponent('what does the payments team own?')}`,
  });
  expect(res.statusCode, res.body).toBe(200);
  expect((res.json() as { memories: { content: string }[] }).memories[0]?.content).toBe(
    'The payments team owns the ledger service',
  );
  if (t.store.engine === 'postgres') {
    expect(started).toHaveLength(0);
    return;
  }
  expect(started).toHaveLength(1);
  const [worker] = started as [Worker];
  const ended = new Promise((resolve) => worker.once('exit', resolve));
  apps.splice(0);
  await t.close();
  await ended;
  expect(worker.threadId).toBe(-1);
});

test('the worker answers what the same search on the event loop answers', async () => {
  const { t, who } = await appWithMemories(MEMORIES);
  const scope = await t.database.db
    .selectFrom('scopes')
    .select('id')
    .where('owner_id', '=', who.userId)
    .executeTakeFirstOrThrow();
  const onLoop = searchOn(t.database);
  for (const q of [
    'payments team',
    'what does the payments team own?',
    'TICKET-4521',
    'pay',
    'zyzzyva',
  ]) {
    const res = await t.request(who, {
      method: 'GET',
      url: `${BASE}/search?q=${encodeURIComponent(q)}&limit=3`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const viaHttp = (res.json() as { memories: { id: string; score: number }[] }).memories;
    const here = await onLoop({
      scopeId: scope.id,
      query: analyzeQuery(q),
      category: null,
      limit: 3,
    });
    expect(
      viaHttp.map((m) => [m.id, m.score]),
      q,
    ).toEqual(here.map((m) => [m.id, m.score]));
  }
});

test('a statement that fails answers as on the event loop: a 500 that shows nothing', async () => {
  const { t, who } = await appWithMemories(MEMORIES.slice(0, 1));
  await sql`drop table memory_search_counts`.execute(t.database.db);
  const res = await t.request(who, { method: 'GET', url: `${BASE}/search?q=payments` });
  expect(res.statusCode, res.body).toBe(500);
  expect(res.json()).toEqual({ error: 'internal server error' });
});
