import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * The memory API's three writes as PostgreSQL functions (src/memory/memory-writes.postgres.ts
 * calls them), each one statement: the store's lock is held for that statement and its commit,
 * not across a round trip per step. They carry out the rules of createStatementWrites
 * (src/memory/memory-writes.ts) step for step: the store's lock first, the counter raised once
 * per change, the fold, `updated_at` = greatest(at, previous + 1), tombstones, vectors dropped
 * or carried, the audit row. What needs the application is computed there and passed in: the
 * search terms (one analyzer for both engines), ids, the audit row's time.
 * SQLite has no functions; its writes stay statements, which cost it no round trip.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;

  // The store's counter row, locked for the rest of the transaction; created on first use.
  await sql`create or replace function mnemo_lock_scope(
      p_org text, p_kind text, p_owner text, out scope_id text, out scope_version bigint)
    language plpgsql as $$
    begin
      select s.id, s.version into scope_id, scope_version from scopes as s
        where s.org_id = p_org and s.kind = p_kind and s.owner_id = p_owner for update;
      if found then return; end if;
      insert into scopes (id, org_id, kind, owner_id)
        values (gen_random_uuid()::text, p_org, p_kind, p_owner)
        on conflict (org_id, kind, owner_id) do nothing;
      select s.id, s.version into scope_id, scope_version from scopes as s
        where s.org_id = p_org and s.kind = p_kind and s.owner_id = p_owner for update;
      if not found then raise exception 'scope row vanished inside its transaction'; end if;
    end $$`.execute(db);

  // An act done for another member (null: none): {id, orgId, actorId, targetId, at}.
  await sql`create or replace function mnemo_record_audit(
      p_audit jsonb, p_action text, p_memory_id text) returns void
    language plpgsql as $$
    begin
      if p_audit is null then return; end if;
      insert into audit_log (id, org_id, actor_id, target_id, action, memory_id, at, details)
        values (p_audit ->> 'id', p_audit ->> 'orgId', p_audit ->> 'actorId',
          p_audit ->> 'targetId', p_action, p_memory_id, (p_audit ->> 'at')::bigint, null);
    end $$`.execute(db);

  await createAddMemories(db);

  // Outcome 'gone' (no row answered), 'conflict' (the memory as it is) or 'updated' (as
  // written, and whether its content changed). Null content or category: kept.
  await sql`create or replace function mnemo_update_memory(
      p_org text, p_kind text, p_owner text, p_memory_id text,
      p_content text, p_fold_key text, p_terms text,
      p_set_category boolean, p_category text,
      p_expected_updated_at bigint, p_at bigint, p_audit jsonb)
    returns table (outcome text, id text, content text, category text,
      created_at bigint, updated_at bigint, new_content boolean)
    language plpgsql as $$
    #variable_conflict use_column
    declare
      v_version bigint;
      v_scope text;
      cur record;
    begin
      select l.scope_id, l.scope_version + 1 into v_scope, v_version
        from mnemo_lock_scope(p_org, p_kind, p_owner) as l;
      select m.id, m.content, m.category, m.created_at, m.updated_at, m.version, m.deleted_at
        into cur from memories as m where m.id = p_memory_id;
      if not found or cur.deleted_at is not null then
        outcome := 'gone';
        return next;
        return;
      end if;
      if p_expected_updated_at is not null and cur.updated_at <> p_expected_updated_at then
        outcome := 'conflict';
        id := cur.id;
        content := cur.content;
        category := cur.category;
        created_at := cur.created_at;
        updated_at := cur.updated_at;
        return next;
        return;
      end if;
      update scopes as s set version = v_version where s.id = v_scope;
      update memories as m set
          content = coalesce(p_content, m.content),
          fold_key = coalesce(p_fold_key, m.fold_key),
          category = case when p_set_category then p_category else m.category end,
          version = v_version,
          updated_at = greatest(p_at, cur.updated_at + 1),
          search_terms = coalesce(p_terms, m.search_terms)
        where m.id = cur.id
        returning m.id, m.content, m.category, m.created_at, m.updated_at
        into id, content, category, created_at, updated_at;
      -- New content makes its vectors stale: gone until the indexer embeds it again. The same
      -- content keeps them, current at the new version.
      new_content := content <> cur.content;
      if new_content then
        delete from memory_embeddings as e where e.memory_id = cur.id;
      else
        update memory_embeddings as e set memory_version = v_version
          where e.memory_id = cur.id and e.memory_version = cur.version;
      end if;
      perform mnemo_record_audit(p_audit, 'update', cur.id);
      outcome := 'updated';
      return next;
    end $$`.execute(db);

  await createRemoveMemory(db);
}

/**
 * Deleting a deleted memory changes nothing, but done for another member it is an act all the
 * same, and the audit log records every one. A tombstone keeps only what sync needs.
 * (2026-12-01T00_webhooks replaces it; its `down` puts this one back.)
 */
export async function createRemoveMemory(db: Kysely<any>): Promise<void> {
  await sql`create or replace function mnemo_remove_memory(
      p_org text, p_kind text, p_owner text, p_memory_id text, p_at bigint, p_audit jsonb,
      out removed boolean)
    language plpgsql as $$
    declare
      v_version bigint;
      v_scope text;
      cur record;
    begin
      select l.scope_id, l.scope_version + 1 into v_scope, v_version
        from mnemo_lock_scope(p_org, p_kind, p_owner) as l;
      select m.id, m.updated_at, m.deleted_at into cur from memories as m where m.id = p_memory_id;
      removed := found and cur.deleted_at is null;
      if removed then
        update scopes as s set version = v_version where s.id = v_scope;
        update memories as m set content = '', fold_key = '', category = null,
            search_terms = '', version = v_version,
            updated_at = greatest(p_at, cur.updated_at + 1),
            deleted_at = greatest(p_at, cur.updated_at + 1)
          where m.id = cur.id;
        delete from memory_embeddings as e where e.memory_id = cur.id;
      end if;
      perform mnemo_record_audit(p_audit, 'delete', p_memory_id);
    end $$`.execute(db);
}

/**
 * Adds to one store, in order, one answer each: an item folds into an active memory of its
 * fold key, an earlier item of the batch included, as sequential adds would. The counter is
 * raised once per change and written once, under the lock. (2026-11-28T02_search_words
 * replaces it; its `down` puts this one back.)
 */
export async function createAddMemories(db: Kysely<any>): Promise<void> {
  await sql`create or replace function mnemo_add_memories(
      p_org text, p_kind text, p_owner text,
      p_ids text[], p_contributors text[], p_contents text[], p_fold_keys text[],
      p_categories text[], p_ats bigint[], p_terms text[], p_audits jsonb[])
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
    begin
      select l.scope_id, l.scope_version into v_scope, v_start
        from mnemo_lock_scope(p_org, p_kind, p_owner) as l;
      v_version := v_start;
      for item in
        select * from unnest(p_ids, p_contributors, p_contents, p_fold_keys, p_categories,
            p_ats, p_terms, p_audits) with ordinality
          as x(id, contributor_id, content, fold_key, category, at, terms, audit, n)
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
              item.category, item.at, item.at, v_version, null, item.terms);
          created := true;
          id := item.id;
          content := item.content;
          category := item.category;
          created_at := item.at;
          updated_at := item.at;
        end if;
        perform mnemo_record_audit(item.audit, 'add', id);
        return next;
      end loop;
      if v_version > v_start then
        update scopes as s set version = v_version where s.id = v_scope;
      end if;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const name of [
    'mnemo_remove_memory',
    'mnemo_update_memory',
    'mnemo_add_memories',
    'mnemo_record_audit',
    'mnemo_lock_scope',
  ]) {
    await sql`drop function if exists ${sql.id(name)}`.execute(db);
  }
}

function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
