import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { createRemoveMemory } from './2026-11-25T02_memory_writes.ts';
import { up as createUpdateMemories } from './2026-11-25T03_memory_update_batches.ts';
import { createAddMemoriesKeepingCounts, planWritesByKey } from './2026-11-28T02_search_words.ts';

/**
 * Webhooks (docs/design.md §3.9, docs/webhooks.md):
 * - `webhooks`: an organization's subscriptions, or one project's; the signing secret sealed.
 * - `webhook_events`: the outbox, one row per event, written in the transaction of the change;
 *   `seq` (an identity) orders a store's events, since they are written under its lock.
 * - `webhook_deliveries`: per event and subscription, its attempts and the last one's outcome;
 *   the delivery worker claims them (a lease), in order per subscription and store.
 *
 * PostgreSQL's write functions record their events themselves: `mnemo_add_memories`,
 * `mnemo_update_memories` and `mnemo_remove_memory` are replaced by copies that also call
 * `mnemo_webhook_event` when `mnemo_webhook_store` found a subscription for the store (one
 * indexed look-up per call otherwise). The memory in a body is printed as the API prints it
 * (`mnemo_memory_item`: `category` only when there is one, last; times `YYYY-MM-DDTHH:mm:ss.sssZ`).
 * `mnemo_update_memory`, unused since 2026-11-25T03, is left as it was. New deliveries wake the
 * delivery workers of every process at their commit (`mnemo_webhooks`, LISTEN/NOTIFY).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('project_id', 'text')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('events', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_reason', 'text')
    .addColumn('disabled_at', 'bigint')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhooks_org_enabled')
    .on('webhooks')
    .columns(['org_id', 'enabled'])
    .execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('seq', postgres ? 'bigint' : 'integer', (c) =>
      postgres ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('store_key', 'text')
    .addColumn('store', 'text')
    .addColumn('person_id', 'text')
    .addColumn('memory_id', 'text')
    .addColumn('payload', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_events_person')
    .on('webhook_events')
    .column('person_id')
    .where(sql.ref('person_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('webhook_events_memory')
    .on('webhook_events')
    .column('memory_id')
    .where(sql.ref('memory_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) =>
      c.notNull().references('webhooks.id').onDelete('cascade'),
    )
    .addColumn('event_seq', 'bigint', (c) =>
      c.notNull().references('webhook_events.seq').onDelete('cascade'),
    )
    .addColumn('store_key', 'text')
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'retrying', 'delivered', 'failed')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('retry_since', 'bigint')
    .addColumn('lease_until', 'bigint')
    .addColumn('lease_token', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('delivered_at', 'bigint')
    .execute();
  // What is due: the few rows not yet delivered, by when.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['next_attempt_at'])
    .where(sql.ref('status'), 'in', sql`('pending', 'retrying')`)
    .execute();
  // The order check: an earlier event of the same subscription and store not yet delivered.
  await db.schema
    .createIndex('webhook_deliveries_order')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'store_key', 'event_seq'])
    .where(sql.ref('status'), '<>', 'delivered')
    .execute();
  // The delivery log, newest first.
  await db.schema
    .createIndex('webhook_deliveries_log')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_event')
    .on('webhook_deliveries')
    .column('event_seq')
    .execute();

  if (postgres) await createEventFunctions(db);
}

async function createEventFunctions(db: Kysely<any>): Promise<void> {
  // The delivery workers of every process are woken when deliveries commit: a NOTIFY is sent at
  // the commit of the transaction that made it, never before (src/webhooks/webhook-delivery.ts).
  await sql`create or replace function mnemo_webhook_notify() returns trigger
    language plpgsql as $$
    begin
      perform pg_notify('mnemo_webhooks', '');
      return null;
    end $$`.execute(db);
  await sql`create trigger webhook_deliveries_notify after insert on webhook_deliveries
    for each statement execute function mnemo_webhook_notify()`.execute(db);

  // A time as the API prints it: exact milliseconds, UTC.
  await sql`create or replace function mnemo_iso_time(p_ms bigint) returns text
    language sql immutable as $$
      select to_char(timestamp '1970-01-01' + p_ms * interval '1 millisecond',
        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    $$`.execute(db);

  // A MemoryItem as every endpoint prints it (src/memory/memory-item.ts): category last, and
  // only when there is one.
  await sql`create or replace function mnemo_memory_item(p_id text, p_content text,
      p_category text, p_created_at bigint, p_updated_at bigint) returns json
    language sql immutable as $$
      select case when p_category is null then
          json_build_object('id', p_id, 'content', p_content,
            'createdAt', mnemo_iso_time(p_created_at), 'updatedAt', mnemo_iso_time(p_updated_at))
        else
          json_build_object('id', p_id, 'content', p_content,
            'createdAt', mnemo_iso_time(p_created_at), 'updatedAt', mnemo_iso_time(p_updated_at),
            'category', p_category)
        end
    $$`.execute(db);

  // The store as an event names it, or null when no enabled subscription of the organization
  // takes its events (a project's webhook takes only its own pool's): then no event is built.
  await sql`create or replace function mnemo_webhook_store(p_org text, p_kind text,
      p_owner text) returns json
    language plpgsql stable as $$
    declare
      v_external text;
    begin
      if not exists (select 1 from webhooks as w where w.org_id = p_org and w.enabled = 1
          and (w.project_id is null or (p_kind = 'project' and w.project_id = p_owner))) then
        return null;
      end if;
      if p_kind = 'project' then return json_build_object('project', p_owner); end if;
      select e.external_id into v_external from end_users as e
        where e.user_id = p_owner and e.org_id = p_org;
      if v_external is null then return json_build_object('user', p_owner); end if;
      return json_build_object('user', p_owner, 'endUser', v_external);
    end $$`.execute(db);

  // An event of a memory store and a delivery for each enabled subscription that takes it
  // (src/webhooks/webhook-outbox.ts does the same in TypeScript); nothing when none does.
  await sql`create or replace function mnemo_webhook_event(p_org text, p_kind text,
      p_owner text, p_store json, p_type text, p_memory_id text, p_data json, p_at bigint)
    returns void
    language plpgsql as $$
    declare
      v_seq bigint;
      v_key text := p_kind || ':' || p_owner;
    begin
      if not exists (select 1 from webhooks as w where w.org_id = p_org and w.enabled = 1
          and (w.project_id is null or (p_kind = 'project' and w.project_id = p_owner))
          and (w.events is null or w.events::jsonb ? p_type)) then
        return;
      end if;
      insert into webhook_events (id, org_id, type, store_key, store, person_id, memory_id,
          payload, created_at)
        values (gen_random_uuid()::text, p_org, p_type, v_key, p_store::text,
          case when p_kind = 'user' then p_owner end, p_memory_id,
          json_build_object('store', p_store, 'memory', p_data)::text, p_at)
        returning seq into v_seq;
      insert into webhook_deliveries (id, webhook_id, event_seq, store_key, status, attempts,
          next_attempt_at, created_at)
        select gen_random_uuid()::text, w.id, v_seq, v_key, 'pending', 0, p_at, p_at
          from webhooks as w where w.org_id = p_org and w.enabled = 1
            and (w.project_id is null or (p_kind = 'project' and w.project_id = p_owner))
            and (w.events is null or w.events::jsonb ? p_type);
    end $$`.execute(db);

  await createAddMemoriesWithEvents(db);
  await createUpdateMemoriesWithEvents(db);
  await createRemoveMemoryWithEvents(db);
  await planWritesByKey(db);
}

/** 2026-11-28T02's function, and each item's event: `memory.created` or `memory.folded`. */
async function createAddMemoriesWithEvents(db: Kysely<any>): Promise<void> {
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
      v_store json;
    begin
      select l.scope_id, l.scope_version into v_scope, v_start
        from mnemo_lock_scope(p_org, p_kind, p_owner) as l;
      v_version := v_start;
      v_store := mnemo_webhook_store(p_org, p_kind, p_owner);
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
        if v_store is not null then
          perform mnemo_webhook_event(p_org, p_kind, p_owner, v_store,
            case when created then 'memory.created' else 'memory.folded' end, id,
            mnemo_memory_item(id, content, category, created_at, updated_at), item.at);
        end if;
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

/** 2026-11-25T03's function, and each update's `memory.updated`. */
async function createUpdateMemoriesWithEvents(db: Kysely<any>): Promise<void> {
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
      v_store json;
    begin
      select l.scope_id, l.scope_version into v_scope, v_start
        from mnemo_lock_scope(p_org, p_kind, p_owner) as l;
      v_version := v_start;
      v_store := mnemo_webhook_store(p_org, p_kind, p_owner);
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
          if v_store is not null then
            perform mnemo_webhook_event(p_org, p_kind, p_owner, v_store, 'memory.updated', id,
              mnemo_memory_item(id, content, category, created_at, updated_at), item.at);
          end if;
          outcome := 'updated';
        end if;
        return next;
      end loop;
      if v_version > v_start then
        update scopes as s set version = v_version where s.id = v_scope;
      end if;
    end $$`.execute(db);
}

/** 2026-11-25T02's function, and a delete's `memory.deleted` (the id alone). */
async function createRemoveMemoryWithEvents(db: Kysely<any>): Promise<void> {
  await sql`create or replace function mnemo_remove_memory(
      p_org text, p_kind text, p_owner text, p_memory_id text, p_at bigint, p_audit jsonb,
      out removed boolean)
    language plpgsql as $$
    declare
      v_version bigint;
      v_scope text;
      cur record;
      v_store json;
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
        v_store := mnemo_webhook_store(p_org, p_kind, p_owner);
        if v_store is not null then
          perform mnemo_webhook_event(p_org, p_kind, p_owner, v_store, 'memory.deleted',
            cur.id, json_build_object('id', cur.id), p_at);
        end if;
      end if;
      perform mnemo_record_audit(p_audit, 'delete', p_memory_id);
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await createAddMemoriesKeepingCounts(db);
    await createUpdateMemories(db);
    await createRemoveMemory(db);
    await planWritesByKey(db);
    await sql`drop trigger if exists webhook_deliveries_notify on webhook_deliveries`.execute(db);
    for (const name of [
      'mnemo_webhook_notify',
      'mnemo_webhook_event',
      'mnemo_webhook_store',
      'mnemo_memory_item',
      'mnemo_iso_time',
    ]) {
      await sql`drop function if exists ${sql.id(name)}`.execute(db);
    }
  }
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_events').execute();
  await db.schema.dropTable('webhooks').execute();
}

function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
