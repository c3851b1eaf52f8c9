/**
 * Stored memories are analyzed again, and every store's counts (what search's weights are counted
 * over) stay equal to its memories whatever writes them: adds, rewrites and deletes racing each
 * other, an end user's erasure, a pool emptied and its project deleted; undone and done again,
 * the same.
 */
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { indexTerms } from '../../platform/search-analyzer.ts';
import { buildTestApp, type TestApp } from '../../testing/build-test-app.ts';
import { injectTransport } from '../../testing/memory-sync-model.ts';
import { createExactnessWorld, livesArb, runLives } from '../../testing/search-exactness.ts';
import { down, up } from './2026-11-28T01_search_analysis.ts';
import * as searchWords from './2026-11-28T02_search_words.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

interface Counts {
  scope_id: string;
  memories: number;
  terms: number;
}

/** Each store's counts as kept, and as its memories say, stores with none left out of both. */
async function keptAndRecounted(): Promise<{ kept: Counts[]; recounted: Counts[] }> {
  const db = t.database.db;
  const normal = (rows: Counts[]) =>
    rows
      .map((row) => ({
        scope_id: row.scope_id,
        memories: Number(row.memories),
        terms: Number(row.terms),
      }))
      .filter((row) => row.memories !== 0 || row.terms !== 0)
      .sort((a, b) => (a.scope_id < b.scope_id ? -1 : 1));
  const kept = await db.selectFrom('memory_search_counts').selectAll().execute();
  const { rows } = await sql<Counts>`select scope_id, count(*) as memories,
      sum(length(search_terms) - length(replace(search_terms, ' ', '')) + 1) as terms
    from memories where search_terms <> '' group by scope_id`.execute(db);
  return { kept: normal(kept), recounted: normal(rows) };
}

async function countsAreExact() {
  const { kept, recounted } = await keptAndRecounted();
  expect(kept).toEqual(recounted);
}

describe.each(['user', 'project'] as const)('%s store', (kind) => {
  test('property: the counts equal the memories after writes racing each other', async () => {
    const send = injectTransport(t);
    await fc.assert(
      fc.asyncProperty(livesArb, async (lives) => {
        await runLives(await createExactnessWorld(t.fixtures, kind), send, lives);
        await countsAreExact();
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});

test('an erasure and a project deletion take their memories out of the counts', async () => {
  const orgId = await t.fixtures.org();
  const owner = await t.fixtures.user(orgId, 'owner');
  const who = { orgId, token: owner.token };
  const endUser = await t.request(who, {
    method: 'PUT',
    url: `/api/v1/orgs/${orgId}/end-users/customer-7`,
  });
  expect(endUser.statusCode, endUser.body).toBe(201);
  const endUserId = endUser.json().endUser.id as string;
  const projectId = await t.fixtures.project(orgId, { [owner.id]: 'owner' });
  const pooled: string[] = [];
  for (const content of ['Prefers window seats', 'Flies to Lisbon in May']) {
    for (const target of [{ user: endUserId }, { project: projectId }]) {
      const res = await t.request(who, {
        method: 'POST',
        url: '/api/v1/memory',
        payload: { content, ...target },
      });
      expect(res.statusCode, res.body).toBe(201);
      if ('project' in target) pooled.push(res.json().memory.id);
    }
  }
  await countsAreExact();
  const erased = await t.request(who, {
    method: 'DELETE',
    url: `/api/v1/orgs/${orgId}/end-users/customer-7`,
  });
  expect(erased.statusCode, erased.body).toBe(200);
  await countsAreExact();
  // A project is deleted once its pool is empty: its memories deleted, then the project with
  // its store (and the store's counts).
  for (const id of pooled) {
    const res = await t.request(who, { method: 'DELETE', url: `/api/v1/memory/${id}` });
    expect(res.statusCode, res.body).toBe(200);
  }
  await countsAreExact();
  const deleted = await t.request(who, { method: 'DELETE', url: `/api/v1/projects/${projectId}` });
  expect(deleted.statusCode, deleted.body).toBe(200);
  await countsAreExact();
});

test('up analyzes the stored memories again and counts every store; down and up again, the same', async () => {
  const orgId = await t.fixtures.org();
  const user = await t.fixtures.user(orgId);
  const who = { orgId, token: user.token };
  const content = 'Camped by the lakes with the payments team';
  const res = await t.request(who, { method: 'POST', url: '/api/v1/memory', payload: { content } });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().memory.id as string;
  const db = t.database.db;

  // The migration after this one first: it replaces functions this one's down drops.
  await searchWords.down(db);
  await down(db);
  // As the earlier analysis left it: every word as written, none left out.
  await db
    .updateTable('memories')
    .set({ search_terms: 'camped by the lakes with the payments team' })
    .where('id', '=', id)
    .execute();
  await up(db);
  await searchWords.up(db);
  const row = await db
    .selectFrom('memories')
    .select('search_terms')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  expect(row.search_terms).toBe(indexTerms(content));
  expect(row.search_terms).toBe('camped camp lakes lake payments payment team');
  await countsAreExact();
  const found = await t.request(who, { method: 'GET', url: '/api/v1/memory/search?q=camping' });
  expect(found.json().memories.map((m: { id: string }) => m.id)).toEqual([id]);
});
