import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.ts';
import type { MemoryRow, NewMemoryRow, ProjectAccess, Tables } from '../db/tables.ts';
import type { CursorScope } from './cursor.ts';

export interface ScopeState {
  readonly id: string;
  readonly version: number;
  readonly purgedVersion: number;
}

/**
 * The memory store's queries. Every query names its scope (organization and owner, or the
 * memory's scope id) and takes the executor to run on: the database, or a write transaction.
 */
export function createMemoryRepository(dialect: Dialect) {
  // SQLite serializes writers with BEGIN IMMEDIATE and has no FOR UPDATE.
  const rowLocks = dialect === 'postgres';

  function scopeQuery(db: Kysely<Tables>, scope: CursorScope) {
    return db
      .selectFrom('scopes')
      .select(['id', 'version', 'purged_version'])
      .where('org_id', '=', scope.orgId)
      .where('kind', '=', scope.kind)
      .where('owner_id', '=', scope.ownerId);
  }

  const toState = (row: { id: string; version: number; purged_version: number }): ScopeState => ({
    id: row.id,
    version: row.version,
    purgedVersion: row.purged_version,
  });

  return {
    /** The scope's counter as last committed, or undefined for a store never written. */
    async readScope(db: Kysely<Tables>, scope: CursorScope): Promise<ScopeState | undefined> {
      const row = await scopeQuery(db, scope).executeTakeFirst();
      return row && toState(row);
    },

    /**
     * Takes the scope's counter row for the rest of the transaction, creating it on first use.
     * Every write of the scope goes through here first, so within a scope commit order is
     * counter order.
     */
    async lockScope(trx: Kysely<Tables>, scope: CursorScope): Promise<ScopeState> {
      const locked = () =>
        scopeQuery(trx, scope)
          .$if(rowLocks, (q) => q.forUpdate())
          .executeTakeFirst();
      const existing = await locked();
      if (existing) return toState(existing);
      await trx
        .insertInto('scopes')
        .values({
          id: randomUUID(),
          org_id: scope.orgId,
          kind: scope.kind,
          owner_id: scope.ownerId,
        })
        .onConflict((oc) => oc.columns(['org_id', 'kind', 'owner_id']).doNothing())
        .execute();
      const created = await locked();
      if (!created) throw new Error('scope row vanished inside its transaction');
      return toState(created);
    },

    /** Advances a locked scope's counter and returns the new value. */
    async bumpScope(trx: Kysely<Tables>, scopeId: string): Promise<number> {
      const row = await trx
        .updateTable('scopes')
        .set((eb) => ({ version: eb('version', '+', 1) }))
        .where('id', '=', scopeId)
        .returning('version')
        .executeTakeFirstOrThrow();
      return row.version;
    },

    async findActiveByFoldKey(trx: Kysely<Tables>, scopeId: string, key: string) {
      return trx
        .selectFrom('memories')
        .selectAll()
        .where('scope_id', '=', scopeId)
        .where('fold_key', '=', key)
        .where('deleted_at', 'is', null)
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst();
    },

    async insertMemory(trx: Kysely<Tables>, row: NewMemoryRow): Promise<void> {
      await trx.insertInto('memories').values(row).execute();
    },

    /**
     * Writes a change to a memory. With `expectedUpdatedAt`, only if the stored `updated_at`
     * still equals it (one conditional update, no read-then-write race). Returns whether a
     * row changed.
     */
    async updateMemory(
      trx: Kysely<Tables>,
      id: string,
      changes: Partial<
        Pick<
          MemoryRow,
          'content' | 'fold_key' | 'category' | 'updated_at' | 'version' | 'deleted_at'
        >
      >,
      expectedUpdatedAt?: number,
    ): Promise<boolean> {
      const result = await trx
        .updateTable('memories')
        .set(changes)
        .where('id', '=', id)
        .$if(expectedUpdatedAt !== undefined, (q) =>
          q.where('updated_at', '=', expectedUpdatedAt as number),
        )
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /**
     * A memory the target user may reach by id in this organization: in their personal store,
     * or in a pool they contributed to while they hold one of `poolAccess` on its project.
     */
    async findReachable(
      db: Kysely<Tables>,
      query: {
        orgId: string;
        memoryId: string;
        userId: string;
        poolAccess: readonly ProjectAccess[];
      },
    ): Promise<
      (MemoryRow & { scope_kind: 'user' | 'project'; scope_owner_id: string }) | undefined
    > {
      return db
        .selectFrom('memories as m')
        .innerJoin('scopes as s', 's.id', 'm.scope_id')
        .leftJoin('project_access as a', (join) =>
          join
            .onRef('a.project_id', '=', 's.owner_id')
            .on('s.kind', '=', 'project')
            .on('a.user_id', '=', query.userId),
        )
        .selectAll('m')
        .select(['s.kind as scope_kind', 's.owner_id as scope_owner_id'])
        .where('m.id', '=', query.memoryId)
        .where('s.org_id', '=', query.orgId)
        .where((eb) =>
          eb.or([
            eb.and([eb('s.kind', '=', 'user'), eb('s.owner_id', '=', query.userId)]),
            eb.and([
              eb('s.kind', '=', 'project'),
              eb('m.contributor_id', '=', query.userId),
              eb('a.access', 'in', query.poolAccess),
            ]),
          ]),
        )
        .executeTakeFirst();
    },

    async findById(trx: Kysely<Tables>, id: string) {
      return trx.selectFrom('memories').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async listActive(db: Kysely<Tables>, scopeId: string) {
      return db
        .selectFrom('memories')
        .selectAll()
        .where('scope_id', '=', scopeId)
        .where('deleted_at', 'is', null)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    /** Rows changed after `version`, tombstones included, in commit order. */
    async listChangedSince(db: Kysely<Tables>, scopeId: string, version: number) {
      return db
        .selectFrom('memories')
        .selectAll()
        .where('scope_id', '=', scopeId)
        .where('version', '>', version)
        .orderBy('version')
        .execute();
    },
  };
}

export type MemoryRepository = ReturnType<typeof createMemoryRepository>;
