import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { createAddMemories } from './2026-11-25T02_memory_writes.ts';
import { countFunction } from './2026-11-28T01_search_analysis.ts';

/**
 * PostgreSQL: a search of a large store in one call (src/memory/memory-search.repository.ts,
 * docs/design.md §3.4.1). `mnemo_search_words` counts how many of the store's memories hold each
 * word, one past `p_common_after` at most, and answers with the store's memories holding its rare
 * words (those held by 1 to `p_common_after`); when every word is common, with the latest
 * `p_common_read` memories holding all of them, else any. Every row carries the words' counts and
 * the store's counts; a search that finds nothing answers one row without a memory, for them.
 * A query of one word and no category takes one statement: the latest memories holding the word,
 * one past `p_common_after` at most, are its count and its memories at once.
 *
 * Each statement inside is planned with its words as values (EXECUTE … USING), and as for
 * storage whose random reads cost about what sequential ones do (`random_page_cost` 1.1, the
 * value PostgreSQL's documentation gives for solid-state drives; the rows a search reads are the
 * ones its GIN index points at). With the server's default of 4 the planner reads the table
 * until it has counted enough memories holding a word held by a few thousand, 4.6 ms where the
 * index takes 1.5 ms.
 *
 * Adds keep their store's search counts themselves: `mnemo_add_memories` adds what its batch
 * inserted to the store's row once, and tells the counts' row trigger, for its own inserts only
 * (a setting local to the transaction, switched off again before it returns), to leave them.
 * Every other change of memories is still counted by the trigger. Measured with pgbench, one
 * connection calling `mnemo_add_memories` with 100 new memories: 6.2–6.7 ms a call with the
 * trigger counting each, 4.5–5.0 ms now. The function also takes each new memory's creation
 * time apart from its time of change (an import keeps the original's).
 *
 * The write functions plan their statements with sequential scans switched off
 * (`planWritesByKey`): each looks rows up by key, and PL/pgSQL keeps a function's plans for the
 * connection's life. Planned while the table was small — on a new deployment, before
 * PostgreSQL's first ANALYZE of it — a kept plan read the whole table for every memory added:
 * 48.9 ms against 4.5 ms a batch of 100 adds, until autovacuum came by.
 *
 * SQLite: nothing (its search and its writes are statements).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`create or replace function mnemo_search_words(
      p_scope text, p_store text, p_words text[], p_category text,
      p_common_after integer, p_common_read integer)
    returns table (counts integer[], id text, content text, category text, created_at bigint,
      updated_at bigint, version bigint, search_terms text, store_memories bigint,
      store_terms bigint)
    language plpgsql stable
    set random_page_cost = 1.1
    as $$
    declare
      v_store tsquery := p_store::tsquery;
      v_word text;
      v_held integer;
      v_counts integer[] := '{}';
      v_rare tsquery;
      v_rare_words integer := 0;
      v_all tsquery;
      v_any tsquery;
      v_memories bigint;
      v_terms bigint;
      v_read constant text := 'select $1, m.id, m.content, m.category, m.created_at,
          m.updated_at, m.version, m.search_terms, $2, $3
        from memories as m
        where m.search_vector @@ $4 and m.scope_id = $5 and m.deleted_at is null
          and ($6::text is null or m.category = $6)
        order by m.version desc limit $7';
    begin
      select c.memories, c.terms into v_memories, v_terms
        from memory_search_counts as c where c.scope_id = p_scope;
      -- One word, any category: the latest memories holding it, one past p_common_after at
      -- most, are its count and its candidates at once — all of them when the word is rare,
      -- the latest p_common_read when it is common.
      if p_category is null and array_length(p_words, 1) = 1 then
        return query execute 'select array[held.n]::integer[], held.id, held.content,
            held.category, held.created_at, held.updated_at, held.version, held.search_terms,
            $2, $3
          from (select count(*) over () as n,
              row_number() over (order by latest.version desc) as r, latest.*
            from (select m.id, m.content, m.category, m.created_at, m.updated_at, m.version,
                m.search_terms
              from memories as m
              where m.search_vector @@ $4 and m.scope_id = $5 and m.deleted_at is null
              order by m.version desc limit $1 + 1) as latest) as held
          where held.n <= $1 or held.r <= $6
          order by held.version desc'
          using p_common_after, v_memories, v_terms,
            to_tsquery('simple', p_words[1]) && v_store, p_scope, p_common_read;
        if found then return; end if;
        v_counts := array[0];
      else
        foreach v_word in array p_words loop
          execute 'select count(*)::integer from (select 1 from memories
              where search_vector @@ $1 limit $2) as held'
            into v_held using to_tsquery('simple', v_word) && v_store, p_common_after + 1;
          v_counts := v_counts || v_held;
          v_all := case when v_all is null then to_tsquery('simple', v_word)
            else v_all && to_tsquery('simple', v_word) end;
          v_any := case when v_any is null then to_tsquery('simple', v_word)
            else v_any || to_tsquery('simple', v_word) end;
          if v_held between 1 and p_common_after then
            v_rare := case when v_rare is null then to_tsquery('simple', v_word)
              else v_rare || to_tsquery('simple', v_word) end;
            v_rare_words := v_rare_words + 1;
          end if;
        end loop;
        if v_rare is not null then
          return query execute v_read using v_counts, v_memories, v_terms, v_rare && v_store,
            p_scope, p_category, p_common_after * v_rare_words;
          return;
        end if;
        -- Only common words: the latest memories holding all of them, else any.
        if 0 < any (v_counts) then
          if array_length(p_words, 1) > 1 then
            return query execute v_read using v_counts, v_memories, v_terms, v_all && v_store,
              p_scope, p_category, p_common_read;
            if found then return; end if;
          end if;
          return query execute v_read using v_counts, v_memories, v_terms, v_any && v_store,
            p_scope, p_category, p_common_read;
          if found then return; end if;
        end if;
      end if;
      return query select v_counts, null::text, null::text, null::text, null::bigint,
        null::bigint, null::bigint, null::text, v_memories, v_terms;
    end $$`.execute(db);
  await sql
    .raw(
      `create or replace function ${countFunction(`
      if current_setting('mnemo.search_counts_kept_by_writer', true) = 'on' then
        return null;
      end if;`)}`,
    )
    .execute(db);
  // The earlier signature goes: a call names the one below, which also takes each new memory's
  // creation time (an import keeps the original's; an add passes its time twice).
  await sql`drop function mnemo_add_memories(text, text, text, text[], text[], text[], text[],
    text[], bigint[], text[], jsonb[])`.execute(db);
  await createAddMemoriesKeepingCounts(db);
  await planWritesByKey(db);
}

/**
 * Adds to one store as 2026-11-25T02_memory_writes's function did, keeping the store's search
 * counts itself and taking each new memory's creation time. (2026-12-01T00_webhooks replaces
 * it; its `down` puts this one back.)
 */
export async function createAddMemoriesKeepingCounts(db: Kysely<any>): Promise<void> {
  await sql`create or replace function mnemo_add_memories(
      p_org text, p_kind text, p_owner text,
      p_ids text[], p_contributors text[], p_contents text[], p_fold_keys text[],
      p_categories text[], p_ats bigint[], p_created_ats bigint[], p_terms text[],
      p_audits jsonb[])
    returns table (created boolean, id text, content text, category text,
      created_at bigint, updated_at bigint)
    language plpgsql as $$
    #variable_conflict use_column
    declare
      v_scope text;
      v_start bigint;
      v_version bigint;
      item record;
      existing record;
      v_added bigint := 0;
      v_added_terms bigint := 0;
    begin
      select l.scope_id, l.scope_version into v_scope, v_start
        from mnemo_lock_scope(p_org, p_kind, p_owner) as l;
      v_version := v_start;
      perform set_config('mnemo.search_counts_kept_by_writer', 'on', true);
      for item in
        select * from unnest(p_ids, p_contributors, p_contents, p_fold_keys, p_categories,
            p_ats, p_created_ats, p_terms, p_audits) with ordinality
          as x(id, contributor_id, content, fold_key, category, at, created, terms, audit, n)
          order by n
      loop
        select m.id, m.content, m.category, m.created_at, m.updated_at, m.version
          into existing from memories as m
          where m.scope_id = v_scope and m.fold_key = item.fold_key and m.deleted_at is null
          order by m.created_at limit 1;
        if found then
          created := false;
          id := existing.id;
          content := existing.content;
          category := existing.category;
          created_at := existing.created_at;
          updated_at := existing.updated_at;
          -- A fold that brings a category to a memory without one is a change; otherwise none.
          -- Its content, so its search terms, stay.
          if existing.category is null and item.category is not null then
            v_version := v_version + 1;
            update memories as m set category = item.category, version = v_version,
                updated_at = greatest(item.at, existing.updated_at + 1)
              where m.id = existing.id
              returning m.category, m.updated_at into category, updated_at;
            update memory_embeddings as e set memory_version = v_version
              where e.memory_id = existing.id and e.memory_version = existing.version;
          end if;
        else
          v_version := v_version + 1;
          insert into memories (id, scope_id, contributor_id, content, fold_key, category,
              created_at, updated_at, version, deleted_at, search_terms)
            values (item.id, v_scope, item.contributor_id, item.content, item.fold_key,
              item.category, item.created, item.at, v_version, null, item.terms);
          if item.terms <> '' then
            v_added := v_added + 1;
            v_added_terms := v_added_terms + length(item.terms) - length(replace(item.terms, ' ', '')) + 1;
          end if;
          created := true;
          id := item.id;
          content := item.content;
          category := item.category;
          created_at := item.created;
          updated_at := item.at;
        end if;
        perform mnemo_record_audit(item.audit, 'add', id);
        return next;
      end loop;
      perform set_config('mnemo.search_counts_kept_by_writer', 'off', true);
      if v_added > 0 then
        insert into memory_search_counts as c (scope_id, memories, terms)
          values (v_scope, v_added, v_added_terms)
          on conflict (scope_id) do update set memories = c.memories + excluded.memories,
            terms = c.terms + excluded.terms;
      end if;
      if v_version > v_start then
        update scopes as s set version = v_version where s.id = v_scope;
      end if;
    end $$`.execute(db);
}

/** The write functions, each planned by key (see above); `enable_seqscan` is theirs alone. */
const KEYED_WRITES = [
  'mnemo_lock_scope',
  'mnemo_add_memories',
  'mnemo_update_memory',
  'mnemo_update_memories',
  'mnemo_remove_memory',
];

export async function planWritesByKey(db: Kysely<any>): Promise<void> {
  for (const name of KEYED_WRITES) {
    await sql`alter function ${sql.id(name)} set enable_seqscan = off`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const name of KEYED_WRITES) {
    await sql`alter function ${sql.id(name)} reset enable_seqscan`.execute(db);
  }
  await sql`drop function if exists mnemo_search_words`.execute(db);
  await sql`drop function mnemo_add_memories(text, text, text, text[], text[], text[], text[],
    text[], bigint[], bigint[], text[], jsonb[])`.execute(db);
  await sql.raw(`create or replace function ${countFunction('')}`).execute(db);
  await createAddMemories(db);
}

function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
