import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { type PreparedQuery, prepareQuery, type QueryRunner } from '../db/prepared-query.ts';
import type { MemoryRow, ProjectAccess } from '../db/tables.ts';
import {
  type CallerContext,
  callerContextQuery,
  toCallerContext,
} from '../orgs/orgs.repository.ts';
import { indexTerms } from '../platform/search-analyzer.ts';
import type { CursorScope } from './cursor.ts';

export interface ScopeState {
  readonly id: string;
  readonly version: number;
  readonly purgedVersion: number;
}

/** A caller's context and what was read in the same statement. */
export interface WithCaller<T> {
  /** Undefined when the store does not know the user. */
  readonly context: CallerContext | undefined;
  readonly value: T;
}

/** What an answer shows of a memory (and whether it is deleted). */
const SHOWN = ['id', 'content', 'category', 'created_at', 'updated_at', 'deleted_at'] as const;
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

const toState = (row: { id: string; version: number; purged_version: number }): ScopeState => ({
  id: row.id,
  version: row.version,
  purgedVersion: row.purged_version,
});

/**
 * The memory store's queries, each compiled once (they run on every request). Every query names
 * its scope (organization and owner, or the memory's scope id) and takes the executor to run on:
 * the database, or a write transaction.
 */
export function createMemoryRepository(database: Database) {
  const { db } = database;
  // SQLite serializes writers with BEGIN IMMEDIATE and has no FOR UPDATE.
  const rowLocks = database.dialect === 'postgres';

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
  const changedSince = prepareQuery((p: { scopeId: string; version: number }) =>
    db
      .selectFrom('memories')
      .select(SHOWN)
      .where('scope_id', '=', p.scopeId)
      .where('version', '>', p.version)
      .orderBy('version'),
  );

  type ReachableParams = { orgId: string; memoryId: string; userId: string; callerId: string };
  // A pool memory needs the access twice: the target's (a contributor who left the project
  // reaches it no more) and the caller's own (acting for a contributor opens no pool the caller
  // may not see). The same row when both are one; looked up for pool memories only.
  const reachableQuery = (p: ReachableParams, poolAccess: readonly ProjectAccess[]) =>
    db
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
  const reachableFor = (poolAccess: readonly ProjectAccess[]) =>
    prepareQuery((p: ReachableParams) => reachableQuery(p, poolAccess));
  // The caller's own statement with what a read of their own memories needs first: one round
  // trip where two would be (orgs.repository.ts, callerContextQuery).
  const ownReachableWithCaller = (poolAccess: readonly ProjectAccess[]) =>
    prepareQuery((p: { orgId: string; memoryId: string; userId: string }) =>
      callerContextQuery(db, p)
        .leftJoin(
          reachableQuery(
            { orgId: p.orgId, memoryId: p.memoryId, userId: p.userId, callerId: p.userId },
            poolAccess,
          ).as('r'),
          (join) => join.onTrue(),
        )
        .select([
          'r.id',
          'r.content',
          'r.category',
          'r.created_at',
          'r.updated_at',
          'r.deleted_at',
          'r.scope_kind',
          'r.scope_owner_id',
        ]),
    );
  const ownScopeWithCaller = prepareQuery((p: { orgId: string; userId: string }) =>
    callerContextQuery(db, p)
      .leftJoin('scopes as s', (join) =>
        join.on('s.org_id', '=', p.orgId).on('s.kind', '=', 'user').on('s.owner_id', '=', p.userId),
      )
      .select(['s.id as scope_id', 's.version as scope_version', 's.purged_version']),
  );
  // One compiled query per access list, keyed by the list itself: they are the service's few
  // constants, and a key built per call would cost more than the lookup saves.
  const reachable = new Map<
    readonly ProjectAccess[],
    PreparedQuery<ReachableParams, ReachableMemory>
  >();
  const ownReachable = new Map<
    readonly ProjectAccess[],
    ReturnType<typeof ownReachableWithCaller>
  >();
  const compiledFor = <Q>(
    kept: Map<readonly ProjectAccess[], Q>,
    poolAccess: readonly ProjectAccess[],
    compile: (poolAccess: readonly ProjectAccess[]) => Q,
  ): Q => {
    let prepared = kept.get(poolAccess);
    if (!prepared) {
      prepared = compile(poolAccess);
      kept.set(poolAccess, prepared);
    }
    return prepared;
  };

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
      const { orgId, memoryId, userId, callerId } = query;
      const prepared = compiledFor(reachable, query.poolAccess, reachableFor);
      return prepared.first(db, { orgId, memoryId, userId, callerId });
    },

    /**
     * `findReachable` for a caller reaching their own memories, in the statement that reads the
     * caller's context (the platform's checks): one round trip for both.
     */
    async findOwnReachableWithCaller(
      db: QueryRunner,
      query: {
        orgId: string;
        memoryId: string;
        userId: string;
        poolAccess: readonly ProjectAccess[];
      },
    ): Promise<WithCaller<ReachableMemory | undefined>> {
      const { orgId, memoryId, userId } = query;
      const prepared = compiledFor(ownReachable, query.poolAccess, ownReachableWithCaller);
      const row = await prepared.first(db, { orgId, memoryId, userId });
      if (!row) return { context: undefined, value: undefined };
      const { id, content, category, created_at, updated_at, deleted_at } = row;
      return {
        context: toCallerContext(row),
        value:
          id === null
            ? undefined
            : {
                id,
                content: content as string,
                category,
                created_at: created_at as number,
                updated_at: updated_at as number,
                deleted_at,
                scope_kind: row.scope_kind as ReachableMemory['scope_kind'],
                scope_owner_id: row.scope_owner_id as string,
              },
      };
    },

    /** `readScope` of the caller's personal store, in the statement of the caller's context. */
    async readOwnScopeWithCaller(
      db: QueryRunner,
      query: { orgId: string; userId: string },
    ): Promise<WithCaller<ScopeState | undefined>> {
      const row = await ownScopeWithCaller.first(db, query);
      if (!row) return { context: undefined, value: undefined };
      return {
        context: toCallerContext(row),
        value:
          row.scope_id === null
            ? undefined
            : {
                id: row.scope_id,
                version: row.scope_version as number,
                purgedVersion: row.purged_version as number,
              },
      };
    },

    findById: (trx: QueryRunner, id: string) => byId.first(trx, { id }),

    listActive: (db: QueryRunner, scopeId: string) => listActive.rows(db, { scopeId }),

    /** How many active memories the store holds, counting no further than `limit`. */
    async activeCountUpTo(db: QueryRunner, scopeId: string, limit: number): Promise<number> {
      const row = await activeCountUpTo.first(db, { scopeId, limit });
      return Number(row?.count ?? 0);
    },

    /** The store's `limit` most recently changed active memories, the latest first. */
    recentActive: (db: QueryRunner, scopeId: string, limit: number) =>
      recentActive.rows(db, { scopeId, limit }),

    /** Rows changed after `version`, tombstones included, in commit order. */
    listChangedSince: (db: QueryRunner, scopeId: string, version: number) =>
      changedSince.rows(db, { scopeId, version }),
  };
}

export type MemoryRepository = ReturnType<typeof createMemoryRepository>;
