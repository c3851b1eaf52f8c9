import { randomUUID } from 'node:crypto';
import { type Expression, type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { type PreparedQuery, prepareQuery, type QueryRunner } from '../db/prepared-query.ts';
import type { MemoryRow, ProjectAccess, Tables } from '../db/tables.ts';
import { indexTerms } from '../platform/search-analyzer.ts';
import type { CursorScope } from './cursor.ts';

export interface ScopeState {
  readonly id: string;
  readonly version: number;
  readonly purgedVersion: number;
}

/** What an answer shows of a memory (and whether it is deleted). */
export const SHOWN = [
  'id',
  'content',
  'category',
  'created_at',
  'updated_at',
  'deleted_at',
] as const;
export type ShownMemory = Pick<MemoryRow, (typeof SHOWN)[number]>;

/** What a write reads of a memory: its state, and what an answer shows. */
const WRITABLE = [
  'id',
  'content',
  'fold_key',
  'category',
  'created_at',
  'updated_at',
  'version',
  'deleted_at',
] as const;
/** A memory as a write reads it. */
export type WritableMemory = Pick<MemoryRow, (typeof WRITABLE)[number]>;

/** A memory as an answer shows it, with the store it lives in. */
export type ReachableMemory = ShownMemory & {
  scope_kind: 'user' | 'project';
  scope_owner_id: string;
};

/** What a write may change of a memory: everything but its identity, scope and creation. */
export type MemoryState = Pick<
  MemoryRow,
  'id' | 'content' | 'fold_key' | 'category' | 'updated_at' | 'version' | 'deleted_at'
>;

/** Who reaches which memory: the values of `reachableQuery`, or columns of a query around it. */
type ReachableParams = {
  orgId: string;
  memoryId: string;
  /** The target: whose memory it must be. */
  userId: string;
  /** Who asks: the target itself unless acting for another member. */
  callerId: string;
};
type Operands<T> = { readonly [K in keyof T]: T[K] | Expression<T[K]> };

/** The project grants that reach a pool memory: to read it, and to edit it. */
export const POOL_ACCESS: Readonly<Record<'read' | 'edit', readonly ProjectAccess[]>> = {
  read: ['viewer', 'editor', 'owner'],
  edit: ['editor', 'owner'],
};

/**
 * A memory the target reaches by id, with its store (`ReachableMemory`'s columns): in their
 * personal store, or in a pool they contributed to while both they and the caller hold one of
 * `poolAccess` on its project. A pool memory needs the access twice: the target's (a
 * contributor who left the project reaches it no more) and the caller's own (acting for a
 * contributor opens no pool the caller may not see); the same row when both are one.
 */
export function reachableQuery(
  db: Kysely<Tables>,
  p: Operands<ReachableParams>,
  poolAccess: readonly ProjectAccess[],
) {
  return db
    .selectFrom('memories as m')
    .innerJoin('scopes as s', 's.id', 'm.scope_id')
    .leftJoin('project_access as a', (join) =>
      join
        .onRef('a.project_id', '=', 's.owner_id')
        .on('s.kind', '=', 'project')
        .on('a.user_id', '=', p.userId),
    )
    .leftJoin('project_access as c', (join) =>
      join
        .onRef('c.project_id', '=', 's.owner_id')
        .on('s.kind', '=', 'project')
        .on('c.user_id', '=', p.callerId),
    )
    .select(SHOWN.map((column) => `m.${column}` as const))
    .select(['s.kind as scope_kind', 's.owner_id as scope_owner_id'])
    .where('m.id', '=', p.memoryId)
    .where('s.org_id', '=', p.orgId)
    .where((eb) =>
      eb.or([
        eb.and([eb('s.kind', '=', 'user'), eb('s.owner_id', '=', p.userId)]),
        eb.and([
          eb('s.kind', '=', 'project'),
          eb('m.contributor_id', '=', p.userId),
          eb('a.access', 'in', [...poolAccess]),
          eb('c.access', 'in', [...poolAccess]),
        ]),
      ]),
    );
}

export const toState = (row: {
  id: string;
  version: number;
  purged_version: number;
}): ScopeState => ({
  id: row.id,
  version: row.version,
  purgedVersion: row.purged_version,
});

/**
 * The memory store's queries, each compiled once (they run on every request). Every query names
 * its scope (organization and owner, or the memory's scope id) and takes the executor to run on:
 * the database, or a write transaction.
 */
/**
 * Values bound per statement of a batch stay far below either engine's limit (SQLite: 32,766;
 * PostgreSQL: 65,535): 500 keys, or 200 rows of 11 columns.
 */
const KEYS_PER_STATEMENT = 500;
const ROWS_PER_INSERT = 200;

/**
 * PostgreSQL: whether the counts trigger of migration 2026-11-28T01 leaves the store's counts to
 * the writer for the rest of the transaction (2026-11-28T02 taught it to).
 */
async function keepSearchCounts(trx: Kysely<Tables>, setting: 'on' | 'off') {
  await sql`select set_config('mnemo.search_counts_kept_by_writer', ${setting}, true)`.execute(trx);
}

function* chunksOf<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let at = 0; at < items.length; at += size) yield items.slice(at, at + size);
}

export function createMemoryRepository(database: Database) {
  const { db } = database;
  const postgres = database.dialect === 'postgres';
  // SQLite serializes writers with BEGIN IMMEDIATE and has no FOR UPDATE.
  const rowLocks = postgres;

  const scopeOf = (p: CursorScope) =>
    db
      .selectFrom('scopes')
      .select(['id', 'version', 'purged_version'])
      .where('org_id', '=', p.orgId)
      .where('kind', '=', p.kind)
      .where('owner_id', '=', p.ownerId);
  const readScope = prepareQuery((p: CursorScope) => scopeOf(p));
  const lockedScope = prepareQuery((p: CursorScope) =>
    scopeOf(p).$if(rowLocks, (q) => q.forUpdate()),
  );
  const insertScope = prepareQuery((p: CursorScope & { id: string }) =>
    db
      .insertInto('scopes')
      .values({ id: p.id, org_id: p.orgId, kind: p.kind, owner_id: p.ownerId })
      .onConflict((oc) => oc.columns(['org_id', 'kind', 'owner_id']).doNothing()),
  );
  const bumpScope = prepareQuery((p: { scopeId: string }) =>
    db
      .updateTable('scopes')
      .set((eb) => ({ version: eb('version', '+', 1) }))
      .where('id', '=', p.scopeId)
      .returning('version'),
  );
  // Every column a statement selects costs on each run, even when no row matches, and most
  // adds fold into nothing: the check reads the id only.
  const activeByFoldKey = prepareQuery((p: { scopeId: string; key: string }) =>
    db
      .selectFrom('memories')
      .select('id')
      .where('scope_id', '=', p.scopeId)
      .where('fold_key', '=', p.key)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .limit(1),
  );
  // The search terms travel in the memory's own statement: the index costs the add no
  // statement of its own (each engine indexes them in the same transaction).
  const insertMemory = prepareQuery((p: MemoryRow & { terms: string }) =>
    db.insertInto('memories').values({
      id: p.id,
      scope_id: p.scope_id,
      contributor_id: p.contributor_id,
      content: p.content,
      fold_key: p.fold_key,
      category: p.category,
      created_at: p.created_at,
      updated_at: p.updated_at,
      version: p.version,
      deleted_at: p.deleted_at,
      search_terms: p.terms,
    }),
  );
  type WrittenState = MemoryState & { terms: string };
  const writeMemory = prepareQuery((p: WrittenState) =>
    db
      .updateTable('memories')
      .set({
        content: p.content,
        fold_key: p.fold_key,
        category: p.category,
        updated_at: p.updated_at,
        version: p.version,
        deleted_at: p.deleted_at,
        search_terms: p.terms,
      })
      .where('id', '=', p.id),
  );
  // Named columns, never `*`: on PostgreSQL a prepared statement's result shape is fixed, and a
  // column added by a later migration would fail `*` on the processes still running.
  const byId = prepareQuery((p: { id: string }) =>
    db.selectFrom('memories').select(WRITABLE).where('id', '=', p.id),
  );
  const listActive = prepareQuery((p: { scopeId: string }) =>
    db
      .selectFrom('memories')
      .select(SHOWN)
      .where('scope_id', '=', p.scopeId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id'),
  );
  // In commit order, which the scope's version index gives without sorting: an export reads a
  // large store a page at a time.
  const activeAfter = prepareQuery((p: { scopeId: string; version: number; limit: number }) =>
    db
      .selectFrom('memories')
      .select([...SHOWN, 'version'])
      .where('scope_id', '=', p.scopeId)
      .where('version', '>', p.version)
      .where('deleted_at', 'is', null)
      .orderBy('version')
      .limit(p.limit),
  );
  const storesAfter = prepareQuery((p: { orgId: string; id: string; limit: number }) =>
    db
      .selectFrom('scopes as s')
      .leftJoin('end_users as e', (join) =>
        join.onRef('e.user_id', '=', 's.owner_id').onRef('e.org_id', '=', 's.org_id'),
      )
      .select(['s.id', 's.kind', 's.owner_id', 'e.external_id'])
      .where('s.org_id', '=', p.orgId)
      .where('s.id', '>', p.id)
      .orderBy('s.id')
      .limit(p.limit),
  );
  // Counts no further than needed: whether a store is small is all a chat call asks.
  const activeCountUpTo = prepareQuery((p: { scopeId: string; limit: number }) =>
    db
      .selectFrom((eb) =>
        eb
          .selectFrom('memories')
          .select('id')
          .where('scope_id', '=', p.scopeId)
          .where('deleted_at', 'is', null)
          .limit(p.limit)
          .as('active'),
      )
      .select((eb) => eb.fn.countAll<number | string>().as('count')),
  );
  const recentActive = prepareQuery((p: { scopeId: string; limit: number }) =>
    db
      .selectFrom('memories')
      .select(SHOWN)
      .where('scope_id', '=', p.scopeId)
      .where('deleted_at', 'is', null)
      .orderBy('version', 'desc')
      .limit(p.limit),
  );
  // The store's row joined to its changes: one statement, so one snapshot for both. A store
  // with no change after `version` still gives its row, with no memory on it.
  const changedSince = prepareQuery((p: { scopeId: string; version: number }) =>
    db
      .selectFrom('scopes as s')
      .leftJoin('memories as m', (join) =>
        join.onRef('m.scope_id', '=', 's.id').on('m.version', '>', p.version),
      )
      .select(['s.purged_version', ...SHOWN.map((column) => `m.${column}` as const)])
      .where('s.id', '=', p.scopeId)
      .orderBy('m.version'),
  );

  // The same, a page at a time, with the store's counter: a change stream drains a store's
  // changes in pages (memory-events.ts), every page one snapshot with the marks it is judged by.
  const changesAfter = prepareQuery((p: { scopeId: string; version: number; limit: number }) =>
    db
      .selectFrom('scopes as s')
      .leftJoin(
        (eb) =>
          eb
            .selectFrom('memories')
            .select([...SHOWN, 'version'])
            .where('scope_id', '=', p.scopeId)
            .where('version', '>', p.version)
            .orderBy('version')
            .limit(p.limit)
            .as('m'),
        (join) => join.onTrue(),
      )
      .select([
        's.purged_version',
        's.version as scope_version',
        'm.version',
        ...SHOWN.map((column) => `m.${column}` as const),
      ])
      .where('s.id', '=', p.scopeId)
      .orderBy('m.version'),
  );

  const reachableFor = (poolAccess: readonly ProjectAccess[]) =>
    prepareQuery((p: ReachableParams) => reachableQuery(db, p, poolAccess));
  // One compiled query per access list, keyed by the list itself: they are the service's few
  // constants, and a key built per call would cost more than the lookup saves.
  const reachable = new Map<
    readonly ProjectAccess[],
    PreparedQuery<ReachableParams, ReachableMemory>
  >();

  return {
    /** The scope's counter as last committed, or undefined for a store never written. */
    async readScope(db: QueryRunner, scope: CursorScope): Promise<ScopeState | undefined> {
      const row = await readScope.first(db, scope);
      return row && toState(row);
    },

    /**
     * Takes the scope's counter row for the rest of the transaction, creating it on first use.
     * Every write of the scope goes through here first, so within a scope commit order is
     * counter order.
     */
    async lockScope(trx: QueryRunner, scope: CursorScope): Promise<ScopeState> {
      const existing = await lockedScope.first(trx, scope);
      if (existing) return toState(existing);
      await insertScope.execute(trx, { ...scope, id: randomUUID() });
      const created = await lockedScope.first(trx, scope);
      if (!created) throw new Error('scope row vanished inside its transaction');
      return toState(created);
    },

    /** Advances a locked scope's counter and returns the new value. */
    async bumpScope(trx: QueryRunner, scopeId: string): Promise<number> {
      const row = await bumpScope.first(trx, { scopeId });
      if (!row) throw new Error(`no scope ${scopeId} to advance`);
      return row.version;
    },

    /** The active memory of the store whose content folds to `key`, if there is one. */
    async findActiveByFoldKey(trx: QueryRunner, scopeId: string, key: string) {
      const match = await activeByFoldKey.first(trx, { scopeId, key });
      return match && byId.first(trx, { id: match.id });
    },

    async insertMemory(trx: QueryRunner, row: MemoryRow): Promise<void> {
      await insertMemory.execute(trx, { ...row, terms: indexTerms(row.content) });
    },

    /**
     * Advances the store's counter by `count` at once (a batch of writes takes one number each)
     * and answers the first of them.
     */
    async bumpScopeBy(trx: Kysely<Tables>, scopeId: string, count: number): Promise<number> {
      const row = await trx
        .updateTable('scopes')
        .set((eb) => ({ version: eb('version', '+', count) }))
        .where('id', '=', scopeId)
        .returning('version')
        .executeTakeFirst();
      if (!row) throw new Error(`no scope ${scopeId} to advance`);
      return row.version - count + 1;
    },

    /**
     * The active memory of the store that each of `keys` folds into, by key: what
     * `findActiveByFoldKey` finds for each, read a few statements for all of them.
     */
    async findActiveByFoldKeys(trx: Kysely<Tables>, scopeId: string, keys: readonly string[]) {
      const found = new Map<string, WritableMemory>();
      // PostgreSQL takes every key as one array (one short statement to plan); SQLite, which has
      // no arrays, a list of them a statement.
      const chunks = postgres ? [keys] : chunksOf(keys, KEYS_PER_STATEMENT);
      for (const chunk of chunks) {
        const rows = await trx
          .selectFrom('memories')
          .select(WRITABLE)
          .where('scope_id', '=', scopeId)
          .where(
            'fold_key',
            postgres ? '=' : 'in',
            postgres ? sql<string>`any(cast(${chunk} as text[]))` : chunk,
          )
          .where('deleted_at', 'is', null)
          .orderBy('created_at')
          .execute();
        // The earliest of a key's memories, as the one-key query takes it.
        for (const row of rows) if (!found.has(row.fold_key)) found.set(row.fold_key, row);
      }
      return found;
    },

    /**
     * Inserts new memories of one store, each with its search terms: on SQLite many a statement;
     * on PostgreSQL all in one, a column an array. PostgreSQL's counts trigger would update the
     * store's counts row once per memory: the insert tells it to leave them (a setting local to
     * the transaction, off again after) and the store's counts grow once, by what the trigger
     * would have added (a memory with terms counts one, and its terms' spaces and one).
     */
    async insertMemories(trx: Kysely<Tables>, rows: readonly MemoryRow[]): Promise<void> {
      const [first] = rows;
      if (!first) return;
      const indexed = rows.map((row) => ({ ...row, search_terms: indexTerms(row.content) }));
      if (!postgres) {
        for (const chunk of chunksOf(indexed, ROWS_PER_INSERT)) {
          await trx.insertInto('memories').values(chunk).execute();
        }
        return;
      }
      const column = <K extends keyof (typeof indexed)[number]>(name: K) =>
        indexed.map((row) => row[name]);
      await keepSearchCounts(trx, 'on');
      await sql`insert into memories (id, scope_id, contributor_id, content, fold_key, category,
          created_at, updated_at, version, deleted_at, search_terms)
        select r.id, ${first.scope_id}, r.contributor_id, r.content, r.fold_key, r.category,
          r.created_at, r.updated_at, r.version, null, r.search_terms
        from unnest(cast(${column('id')} as text[]), cast(${column('contributor_id')} as text[]),
          cast(${column('content')} as text[]), cast(${column('fold_key')} as text[]),
          cast(${column('category')} as text[]), cast(${column('created_at')} as bigint[]),
          cast(${column('updated_at')} as bigint[]), cast(${column('version')} as bigint[]),
          cast(${column('search_terms')} as text[]))
          as r(id, contributor_id, content, fold_key, category, created_at, updated_at, version,
            search_terms)`.execute(trx);
      await keepSearchCounts(trx, 'off');
      const counted = indexed.filter((row) => row.search_terms !== '');
      if (counted.length === 0) return;
      const terms = counted.reduce((sum, row) => sum + row.search_terms.split(' ').length, 0);
      await trx
        .insertInto('memory_search_counts')
        .values({ scope_id: first.scope_id, memories: counted.length, terms })
        .onConflict((oc) =>
          oc.column('scope_id').doUpdateSet((eb) => ({
            memories: eb('memory_search_counts.memories', '+', eb.ref('excluded.memories')),
            terms: eb('memory_search_counts.terms', '+', eb.ref('excluded.terms')),
          })),
        )
        .execute();
    },

    /** Writes a memory's new state (the caller holds its store's lock). */
    async writeMemory(trx: QueryRunner, state: MemoryState): Promise<void> {
      // A tombstone (deleted, content gone) has no terms: it leaves the index.
      const terms = state.deleted_at === null ? indexTerms(state.content) : '';
      await writeMemory.execute(trx, { ...state, terms });
    },

    /**
     * A memory the target user may reach by id in this organization: in their personal store,
     * or in a pool they contributed to while both they and the caller (`callerId`, the target
     * itself when no one acts for another) hold one of `poolAccess` on its project.
     * `poolAccess` must be a constant list: each distinct list is compiled once and kept.
     */
    findReachable(
      db: QueryRunner,
      query: ReachableParams & { poolAccess: readonly ProjectAccess[] },
    ): Promise<ReachableMemory | undefined> {
      let prepared = reachable.get(query.poolAccess);
      if (!prepared) {
        prepared = reachableFor(query.poolAccess);
        reachable.set(query.poolAccess, prepared);
      }
      const { orgId, memoryId, userId, callerId } = query;
      return prepared.first(db, { orgId, memoryId, userId, callerId });
    },

    findById: (trx: QueryRunner, id: string) => byId.first(trx, { id }),

    listActive: (db: QueryRunner, scopeId: string) => listActive.rows(db, { scopeId }),

    /** Up to `limit` of the store's active memories changed after `version`, in commit order. */
    activeAfter: (db: QueryRunner, scopeId: string, version: number, limit: number) =>
      activeAfter.rows(db, { scopeId, version, limit }),

    /**
     * Up to `limit` of the organization's stores with ids above `id`, by id; a store of an end
     * user with the end user's external id.
     */
    storesAfter: (db: QueryRunner, orgId: string, id: string, limit: number) =>
      storesAfter.rows(db, { orgId, id, limit }),

    /** How many active memories the store holds, counting no further than `limit`. */
    async activeCountUpTo(db: QueryRunner, scopeId: string, limit: number): Promise<number> {
      const row = await activeCountUpTo.first(db, { scopeId, limit });
      return Number(row?.count ?? 0);
    },

    /** The store's `limit` most recently changed active memories, the latest first. */
    recentActive: (db: QueryRunner, scopeId: string, limit: number) =>
      recentActive.rows(db, { scopeId, limit }),

    /**
     * The store's memories changed after `version`, tombstones included, in commit order, and
     * how far its tombstones were purged: read in one statement, so a purge cannot fall between
     * the two and pass unnoticed. Undefined when the store has no row.
     */
    async changesSince(
      db: QueryRunner,
      scopeId: string,
      version: number,
    ): Promise<{ changed: ShownMemory[]; purgedVersion: number } | undefined> {
      const rows = await changedSince.rows(db, { scopeId, version });
      const [first] = rows;
      if (!first) return undefined;
      const changed = rows.filter(
        (row): row is (typeof rows)[number] & ShownMemory => row.id !== null,
      );
      return { changed, purgedVersion: first.purged_version };
    },

    /**
     * Up to `limit` of the store's changes after `version` (memories and tombstones, each with
     * its version) in commit order, with the store's counter and purge mark as the same
     * snapshot held them; undefined for a store never written.
     */
    async changesAfter(
      db: QueryRunner,
      scopeId: string,
      version: number,
      limit: number,
    ): Promise<
      | {
          changed: (ShownMemory & { version: number })[];
          scopeVersion: number;
          purgedVersion: number;
        }
      | undefined
    > {
      const rows = await changesAfter.rows(db, { scopeId, version, limit });
      const [first] = rows;
      if (!first) return undefined;
      const changed = rows.filter(
        (row): row is (typeof rows)[number] & ShownMemory & { version: number } => row.id !== null,
      );
      return {
        changed,
        scopeVersion: first.scope_version,
        purgedVersion: first.purged_version,
      };
    },
  };
}

export type MemoryRepository = ReturnType<typeof createMemoryRepository>;
