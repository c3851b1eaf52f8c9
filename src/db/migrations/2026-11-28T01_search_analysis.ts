import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { backfill } from './2026-11-24T03_memory_search.ts';

/**
 * Search by stems and without function words (docs/design.md §3.4.1): every active memory's
 * terms are analyzed again, and the engines' indexes follow them (SQLite's FTS5 through its
 * triggers). PostgreSQL's index also learns each memory's store, as SQLite's did in
 * 2026-11-25T01: the `tsvector` holds one more lexeme, `@` and the store's id in hex, which no
 * analyzed term can be (terms are letters and digits only), so a search asks the GIN index for
 * its store's rows holding a word, not every store's.
 *
 * Ranking weighs words over the store searched (BM25 needs how many memories it holds and how
 * many terms they have in all): `memory_search_counts` keeps both for each store, kept by
 * triggers on every change of a memory's terms — insert, update, delete, purge, erasure alike —
 * so no path that writes memories can leave them wrong. A memory's term count is its terms'
 * spaces and one.
 */
const STORE_LEXEME = `array_to_tsvector(array['@' || replace(scope_id::text, '-', '')])`;

const TERMS_OF = (row: string) =>
  `length(${row}.search_terms) - length(replace(${row}.search_terms, ' ', '')) + 1`;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('memory_search_counts')
    .addColumn('scope_id', 'text', (c) =>
      c.primaryKey().references('scopes.id').onDelete('cascade'),
    )
    .addColumn('memories', 'bigint', (c) => c.notNull())
    .addColumn('terms', 'bigint', (c) => c.notNull())
    .execute();
  if (!postgres) {
    await backfill(db);
    await countStores(db);
    await sqliteCountTriggers(db);
    return;
  }
  // The index and the column go first: analyzing again then writes no index entries.
  await sql`drop index memories_search`.execute(db);
  await db.schema.alterTable('memories').dropColumn('search_vector').execute();
  await backfill(db);
  await sql`alter table memories add column search_vector tsvector generated always as (
      case when search_terms = '' then null
        else to_tsvector('simple'::regconfig, search_terms) || ${sql.raw(STORE_LEXEME)} end
    ) stored`.execute(db);
  await sql`create index memories_search on memories using gin (search_vector)`.execute(db);
  await countStores(db);
  await postgresCountTrigger(db);
}

/** Every store's counts, from its memories as they are. */
async function countStores(db: Kysely<any>): Promise<void> {
  await sql
    .raw(`insert into memory_search_counts(scope_id, memories, terms)
      select m.scope_id, count(*), sum(${TERMS_OF('m')}) from memories as m
      where m.search_terms <> '' group by m.scope_id`)
    .execute(db);
}

/** Adds `sign` times row `row`'s memory and terms to its store's counts. */
const countChange = (row: 'new' | 'old', sign: '+' | '-') =>
  `insert into memory_search_counts(scope_id, memories, terms)
    values (${row}.scope_id, ${sign}1, ${sign}(${TERMS_OF(row)}))
    on conflict (scope_id) do update set
      memories = memory_search_counts.memories + excluded.memories,
      terms = memory_search_counts.terms + excluded.terms`;

async function sqliteCountTriggers(db: Kysely<any>): Promise<void> {
  await sql
    .raw(`create trigger memory_search_counts_insert after insert on memories
      when new.search_terms <> '' begin ${countChange('new', '+')}; end`)
    .execute(db);
  await sql
    .raw(`create trigger memory_search_counts_delete after delete on memories
      when old.search_terms <> '' begin ${countChange('old', '-')}; end`)
    .execute(db);
  // Two statements, each guarded: a memory may gain terms, lose them, or change them.
  await sql
    .raw(`create trigger memory_search_counts_update_old after update of search_terms on memories
      when old.search_terms is not new.search_terms and old.search_terms <> ''
      begin ${countChange('old', '-')}; end`)
    .execute(db);
  await sql
    .raw(`create trigger memory_search_counts_update_new after update of search_terms on memories
      when old.search_terms is not new.search_terms and new.search_terms <> ''
      begin ${countChange('new', '+')}; end`)
    .execute(db);
}

/**
 * PostgreSQL: row triggers, fired when a memory is inserted or deleted or its terms change. A store's row of
 * counts is updated in place, and inserted only for the store's first memory: an update costs
 * less than an upsert, which tries the insert first.
 */
async function postgresCountTrigger(db: Kysely<any>): Promise<void> {
  await sql.raw(`create function ${countFunction('')}`).execute(db);
  await sql`create trigger memory_search_counts after insert or delete
    on memories for each row execute function memory_search_count()`.execute(db);
  // The writes set a memory's terms on every update; only a change of them counts.
  await sql`create trigger memory_search_counts_update after update of search_terms on memories
    for each row when (old.search_terms is distinct from new.search_terms)
    execute function memory_search_count()`.execute(db);
}

/**
 * The counts' trigger function, `memory_search_count()`, with `first` as its first statements
 * (2026-11-28T02_search_words adds one).
 */
export function countFunction(first: string): string {
  const change = (row: 'new' | 'old', sign: '+' | '-') => `
        update memory_search_counts set memories = memories ${sign} 1,
            terms = terms ${sign} (${TERMS_OF(row)})
          where scope_id = ${row}.scope_id;
        if not found then ${countChange(row, sign)}; end if;`;
  return `memory_search_count() returns trigger language plpgsql as $$
    begin${first}
      if tg_op in ('UPDATE', 'DELETE') and old.search_terms <> '' then ${change('old', '-')}
      end if;
      if tg_op in ('INSERT', 'UPDATE') and new.search_terms <> '' then ${change('new', '+')}
      end if;
      return null;
    end $$`;
}

/**
 * PostgreSQL's index without stores again. The terms stay as analyzed here (the earlier analysis
 * is no longer in the code); each still holds every word as written, which is what the earlier
 * search matched.
 */
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger memory_search_counts on memories`.execute(db);
    await sql`drop trigger memory_search_counts_update on memories`.execute(db);
    await sql`drop function memory_search_count()`.execute(db);
    await sql`drop index memories_search`.execute(db);
    await db.schema.alterTable('memories').dropColumn('search_vector').execute();
    await sql`alter table memories add column search_vector tsvector
      generated always as (to_tsvector('simple'::regconfig, search_terms)) stored`.execute(db);
    await sql`create index memories_search on memories using gin (search_vector)`.execute(db);
  } else {
    for (const trigger of ['insert', 'delete', 'update_old', 'update_new']) {
      await sql`drop trigger ${sql.id(`memory_search_counts_${trigger}`)}`.execute(db);
    }
  }
  await db.schema.dropTable('memory_search_counts').execute();
}
