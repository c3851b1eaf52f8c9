import type { Database } from '../db/database.ts';

/**
 * The search counts of `userId`'s personal store as kept (the row search ranks by), and as
 * counted again from its memories: after any write the two must be equal.
 */
export async function searchCounts(database: Database, userId: string) {
  const row = await database.db
    .selectFrom('memory_search_counts as c')
    .innerJoin('scopes as s', 's.id', 'c.scope_id')
    .select(['c.memories', 'c.terms'])
    .where('s.owner_id', '=', userId)
    .where('s.kind', '=', 'user')
    .executeTakeFirstOrThrow();
  return { memories: Number(row.memories), terms: Number(row.terms) };
}

/** What `searchCounts` should hold: a memory with terms counts one, its terms their number. */
export async function recountedSearchCounts(database: Database, userId: string) {
  const rows = await database.db
    .selectFrom('memories as m')
    .innerJoin('scopes as s', 's.id', 'm.scope_id')
    .select('m.search_terms')
    .where('s.owner_id', '=', userId)
    .where('s.kind', '=', 'user')
    .where('m.search_terms', '<>', '')
    .execute();
  return {
    memories: rows.length,
    terms: rows.reduce((sum, row) => sum + row.search_terms.split(' ').length, 0),
  };
}
