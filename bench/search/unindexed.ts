import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';

/**
 * Takes the search index out of a freshly migrated bench store, so that adds can be measured
 * with and without it in the same run: SQLite's FTS5 table, its key table and the triggers that
 * keep them; PostgreSQL's generated `tsvector` column and its GIN index (migration
 * 2026-11-24T03_memory_search); on both, the triggers that keep the stores' counts (migration
 * 2026-11-28T01_search_analysis), and on SQLite their table. PostgreSQL's add function counts its
 * own batch (2026-11-28T02), one statement a call, which stays with the table: the store without
 * the index pays that statement too. The `search_terms` column stays: the service writes it with
 * every memory, so the analysis is paid on both sides and the difference is the engines'
 * indexing.
 * For the bench's stores only: search cannot run on such a store.
 */
export async function dropSearchIndex(database: Database): Promise<void> {
  const { db } = database;
  if (database.dialect === 'postgres') {
    await sql`drop index memories_search`.execute(db);
    await sql`alter table memories drop column search_vector`.execute(db);
    await sql`drop trigger memory_search_counts on memories`.execute(db);
    await sql`drop trigger memory_search_counts_update on memories`.execute(db);
    await sql`drop function memory_search_count()`.execute(db);
    return;
  }
  for (const trigger of [
    'memory_search_insert',
    'memory_search_delete',
    'memory_search_update',
    'memory_search_counts_insert',
    'memory_search_counts_delete',
    'memory_search_counts_update_old',
    'memory_search_counts_update_new',
  ]) {
    await sql`drop trigger ${sql.id(trigger)}`.execute(db);
  }
  await sql`drop table memory_search_counts`.execute(db);
  await sql`drop table memory_search`.execute(db);
  await sql`drop table memory_search_keys`.execute(db);
}
