import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Updates to one store carried in batches, as adds are (src/memory/memory-writes.postgres.ts):
 * `mnemo_update_memories` takes them side by side, in order, under one lock of the store, and
 * answers one row each, exactly as `mnemo_update_memory` (2026-11-25T02_memory_writes) would
 * have answered them one after another; the store's counter is raised once per change and
 * written once. `mnemo_update_memory` stays for processes of the build before this one, until a
 * later migration drops it. SQLite: nothing (its writes are statements).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`create or replace function mnemo_update_memories(
      p_org text, p_kind text, p_owner text, p_memory_ids text[],
      p_contents text[], p_fold_keys text[], p_terms text[],
      p_set_categories boolean[], p_categories text[],
      p_expected_updated_ats bigint[], p_ats bigint[], p_audits jsonb[])
    returns table (outcome text, id text, content text, category text,
      created_at bigint, updated_at bigint, new_content boolean)
    language plpgsql as $$
    #variable_conflict use_column
    declare
      v_scope text;
      v_start bigint;
      v_version bigint;
      item record;
      cur record;
    begin
      select l.scope_id, l.scope_version into v_scope, v_start
        from mnemo_lock_scope(p_org, p_kind, p_owner) as l;
      v_version := v_start;
      for item in
        select * from unnest(p_memory_ids, p_contents, p_fold_keys, p_terms, p_set_categories,
            p_categories, p_expected_updated_ats, p_ats, p_audits) with ordinality
          as x(memory_id, content, fold_key, terms, set_category, category, expected, at, audit, n)
          order by n
      loop
        outcome := null; id := null; content := null; category := null;
        created_at := null; updated_at := null; new_content := null;
        select m.id, m.content, m.category, m.created_at, m.updated_at, m.version, m.deleted_at
          into cur from memories as m where m.id = item.memory_id;
        if not found or cur.deleted_at is not null then
          outcome := 'gone';
        elsif item.expected is not null and cur.updated_at <> item.expected then
          outcome := 'conflict';
          id := cur.id;
          content := cur.content;
          category := cur.category;
          created_at := cur.created_at;
          updated_at := cur.updated_at;
        else
          v_version := v_version + 1;
          update memories as m set
              content = coalesce(item.content, m.content),
              fold_key = coalesce(item.fold_key, m.fold_key),
              category = case when item.set_category then item.category else m.category end,
              version = v_version,
              updated_at = greatest(item.at, cur.updated_at + 1),
              search_terms = coalesce(item.terms, m.search_terms)
            where m.id = cur.id
            returning m.id, m.content, m.category, m.created_at, m.updated_at
            into id, content, category, created_at, updated_at;
          -- New content makes its vectors stale: gone until the indexer embeds it again. The
          -- same content keeps them, current at the new version.
          new_content := content <> cur.content;
          if new_content then
            delete from memory_embeddings as e where e.memory_id = cur.id;
          else
            update memory_embeddings as e set memory_version = v_version
              where e.memory_id = cur.id and e.memory_version = cur.version;
          end if;
          perform mnemo_record_audit(item.audit, 'update', cur.id);
          outcome := 'updated';
        end if;
        return next;
      end loop;
      if v_version > v_start then
        update scopes as s set version = v_version where s.id = v_scope;
      end if;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop function if exists mnemo_update_memories`.execute(db);
}

function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
