import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * SQLite's search index learns which store each memory is in. FTS5 matched a query's words
 * across every store of the database and only then kept the one store searched: a search, or a
 * chat call's recall, cost as much as every store together held the words (with 20,000
 * memories of others, 13 ms instead of 0.8). Each indexed row now has a second column, `store`,
 * holding one token for its store (`s` and the scope id's hex digits), so a query whose words
 * many memories hold names its store inside MATCH and FTS5 ranks only that store's rows; BM25
 * weighs that column 0 (memory-search.repository.ts chooses when).
 * PostgreSQL keeps its index: its query filters by store before ranking.
 */
const TOKENIZER = `tokenize="unicode61 remove_diacritics 0 categories 'L* N* Co M*'"`;
/** The `store` column's text for a memory row `m`: its store's token. */
const STORE_TEXT = `'s' || replace(m.scope_id, '-', '')`;

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await rebuild(db, 'search_terms, store', `m.search_terms, ${STORE_TEXT}`);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await rebuild(db, 'search_terms', 'm.search_terms');
}

/** The index made again with `columns`, each memory's row holding `values` of memory `m`. */
async function rebuild(db: Kysely<any>, columns: string, values: string): Promise<void> {
  for (const trigger of ['memory_search_insert', 'memory_search_delete', 'memory_search_update']) {
    await sql`drop trigger ${sql.id(trigger)}`.execute(db);
  }
  await sql`drop table memory_search`.execute(db);
  await sql
    .raw(`create virtual table memory_search using fts5(
      ${columns}, content='', contentless_delete=1, ${TOKENIZER})`)
    .execute(db);
  await sql
    .raw(`insert into memory_search(rowid, ${columns})
      select k.key, ${values} from memory_search_keys as k join memories as m on m.id = k.memory_id`)
    .execute(db);
  // The memory as `m` in the triggers below: `new` for inserts and updates.
  const of = (row: 'new') => values.replaceAll('m.', `${row}.`);
  // Inside a trigger, last_insert_rowid() is the key just inserted.
  await sql
    .raw(`create trigger memory_search_insert after insert on memories begin
      insert into memory_search_keys(memory_id) values (new.id);
      insert into memory_search(rowid, ${columns}) values (last_insert_rowid(), ${of('new')});
    end`)
    .execute(db);
  await sql`create trigger memory_search_delete after delete on memories begin
      delete from memory_search
        where rowid = (select key from memory_search_keys where memory_id = old.id);
      delete from memory_search_keys where memory_id = old.id;
    end`.execute(db);
  await sql
    .raw(`create trigger memory_search_update after update of search_terms on memories
    when old.search_terms is not new.search_terms begin
      delete from memory_search
        where rowid = (select key from memory_search_keys where memory_id = old.id);
      insert into memory_search(rowid, ${columns})
        values ((select key from memory_search_keys where memory_id = new.id), ${of('new')});
    end`)
    .execute(db);
}
