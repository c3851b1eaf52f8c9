import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { indexTerms } from '../../platform/search-analyzer.ts';

/**
 * Lexical search over memories. Each memory keeps its content's search terms (one analysis in
 * TypeScript for both engines), written in the same statement as the memory itself; each engine
 * indexes them with its built-in full text, in the same transaction:
 * - SQLite: a contentless FTS5 table of the terms, kept exact by triggers on every insert,
 *   change of terms and delete (a purge too). FTS5 keys its rows by an integer, and the
 *   memories table has none that lasts (its implicit rowid may change on VACUUM): each memory's
 *   key is a row of `memory_search_keys`, whose INTEGER PRIMARY KEY does. Its tokenizer keeps
 *   marks inside words, as the analysis does, and folds nothing more.
 * - PostgreSQL: a generated `tsvector` column (the `simple` configuration: no stemming, no stop
 *   words) with a GIN index.
 * Existing memories are analyzed here, before the index is built over them.
 */
const BATCH = 500;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .alterTable('memories')
    .addColumn('search_terms', 'text', (column) => column.notNull().defaultTo(''))
    .execute();
  await backfill(db);
  if (postgres) {
    await sql`alter table memories add column search_vector tsvector
      generated always as (to_tsvector('simple'::regconfig, search_terms)) stored`.execute(db);
    await sql`create index memories_search on memories using gin (search_vector)`.execute(db);
    return;
  }
  await sql`create table memory_search_keys (
      key integer primary key, memory_id text not null unique references memories(id))`.execute(db);
  await sql`create virtual table memory_search using fts5(
      search_terms, content='', contentless_delete=1,
      tokenize="unicode61 remove_diacritics 0 categories 'L* N* Co M*'")`.execute(db);
  await sql`insert into memory_search_keys(memory_id) select id from memories`.execute(db);
  await sql`insert into memory_search(rowid, search_terms)
      select k.key, m.search_terms from memory_search_keys as k
      join memories as m on m.id = k.memory_id`.execute(db);
  // Inside a trigger, last_insert_rowid() is the key just inserted.
  await sql`create trigger memory_search_insert after insert on memories begin
      insert into memory_search_keys(memory_id) values (new.id);
      insert into memory_search(rowid, search_terms) values (last_insert_rowid(), new.search_terms);
    end`.execute(db);
  await sql`create trigger memory_search_delete after delete on memories begin
      delete from memory_search
        where rowid = (select key from memory_search_keys where memory_id = old.id);
      delete from memory_search_keys where memory_id = old.id;
    end`.execute(db);
  await sql`create trigger memory_search_update after update of search_terms on memories
    when old.search_terms is not new.search_terms begin
      delete from memory_search
        where rowid = (select key from memory_search_keys where memory_id = old.id);
      insert into memory_search(rowid, search_terms)
        values ((select key from memory_search_keys where memory_id = new.id), new.search_terms);
    end`.execute(db);
}

/** Analyzes every active memory, a batch at a time (tombstones have no content to find). */
export async function backfill(db: Kysely<any>): Promise<void> {
  let after = '';
  for (;;) {
    const rows: { id: string; content: string }[] = await db
      .selectFrom('memories')
      .select(['id', 'content'])
      .where('deleted_at', 'is', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const row of rows) {
      await db
        .updateTable('memories')
        .set({ search_terms: indexTerms(row.content) })
        .where('id', '=', row.id)
        .execute();
    }
    const last = rows.at(-1);
    if (!last || rows.length < BATCH) return;
    after = last.id;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop index memories_search`.execute(db);
    await db.schema.alterTable('memories').dropColumn('search_vector').execute();
  } else {
    for (const trigger of [
      'memory_search_insert',
      'memory_search_delete',
      'memory_search_update',
    ]) {
      await sql`drop trigger ${sql.id(trigger)}`.execute(db);
    }
    await sql`drop table memory_search`.execute(db);
    await sql`drop table memory_search_keys`.execute(db);
  }
  await db.schema.alterTable('memories').dropColumn('search_terms').execute();
}
