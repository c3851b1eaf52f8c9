/**
 * A large store's search in one call on PostgreSQL, and adds that keep their store's search
 * counts themselves: the counts stay equal to the memories whoever keeps them, undone and done
 * again.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { foldKey } from '../../memory/fold.ts';
import { indexTerms } from '../../platform/search-analyzer.ts';
import { buildTestApp, type TestApp } from '../../testing/build-test-app.ts';
import { newRowId } from '../row-id.ts';
import { down, up } from './2026-11-28T02_search_words.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

/** The member's store's counts as kept, and as its memories say. */
async function countsOf(orgId: string, userId: string) {
  const { rows } = await sql<Record<'kept' | 'keptTerms' | 'memories' | 'terms', string | null>>`
    select c.memories as kept, c.terms as "keptTerms",
      (select count(*) from memories as m where m.scope_id = s.id and m.search_terms <> '')
        as memories,
      (select sum(length(m.search_terms) - length(replace(m.search_terms, ' ', '')) + 1)
        from memories as m where m.scope_id = s.id and m.search_terms <> '') as terms
    from scopes as s left join memory_search_counts as c on c.scope_id = s.id
    where s.org_id = ${orgId} and s.owner_id = ${userId}`.execute(t.database.db);
  const row = rows[0];
  return {
    kept: { memories: Number(row?.kept), terms: Number(row?.keptTerms) },
    counted: { memories: Number(row?.memories), terms: Number(row?.terms) },
  };
}

async function addSome(who: { orgId: string; token: string }, contents: string[]) {
  const answers = await Promise.all(
    contents.map((content) =>
      t.request(who, { method: 'POST', url: '/api/v1/memory', payload: { content } }),
    ),
  );
  for (const res of answers) expect(res.statusCode, res.body).toBe(201);
  return answers.map((res) => res.json().memory.id as string);
}

test('adds in batches, folds and deletes keep the counts exact; down and up again, the same', async () => {
  const orgId = await t.fixtures.org();
  const user = await t.fixtures.user(orgId);
  const who = { orgId, token: user.token };
  const exact = async () => {
    const { kept, counted } = await countsOf(orgId, user.id);
    expect(kept).toEqual(counted);
    return kept.memories;
  };
  // Concurrent adds to one store go in batches; the same content again folds.
  const ids = await addSome(
    who,
    Array.from({ length: 40 }, (_, i) => `Deploy checklist item ${i} for the payments team`),
  );
  const folded = await t.request(who, {
    method: 'POST',
    url: '/api/v1/memory',
    payload: { content: 'Deploy checklist item 3 for the payments team' },
  });
  expect(folded.statusCode, folded.body).toBe(200);
  expect(await exact()).toBe(40);
  const removed = await t.request(who, { method: 'DELETE', url: `/api/v1/memory/${ids[0]}` });
  expect(removed.statusCode, removed.body).toBe(200);
  expect(await exact()).toBe(39);

  await down(t.database.db);
  // The build before this migration adds through the function as it was: counted by the trigger.
  if (t.store.engine === 'postgres') {
    for (const content of ['Counted by the trigger again', 'And this one too']) {
      await sql`select * from mnemo_add_memories(${orgId}, 'user', ${user.id},
        array[${newRowId()}], array[${user.id}], array[${content}], array[${foldKey(content)}],
        array[null::text], array[${Date.now()}::bigint], array[${indexTerms(content)}],
        array[null::jsonb])`.execute(t.database.db);
    }
  } else {
    await addSome(who, ['Counted by the trigger again', 'And this one too']);
  }
  expect(await exact()).toBe(41);
  await up(t.database.db);
  await addSome(who, ['Counted by the add itself', 'Once per batch']);
  expect(await exact()).toBe(43);

  const found = await t.request(who, {
    method: 'GET',
    url: `/api/v1/memory/search?q=${encodeURIComponent('checklist item 7')}`,
  });
  expect(found.statusCode, found.body).toBe(200);
  expect(found.json().memories[0].content).toBe('Deploy checklist item 7 for the payments team');
});
