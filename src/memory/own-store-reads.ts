import { type Expression, sql } from 'kysely';
import { byOrdinal, createBatchedRead, createReadTogether, keyRows } from '../db/batched-reads.ts';
import type { Database } from '../db/database.ts';
import { prepareQuery } from '../db/prepared-query.ts';
import type { ProjectAccess } from '../db/tables.ts';
import type { ReadAlong } from '../tenancy/index.ts';
import { callerContextQuery, toCallerContext } from '../tenancy/index.ts';
import {
  type ReachableMemory,
  reachableQuery,
  type ScopeState,
  SHOWN,
} from './memory.repository.ts';

export interface OwnMemoryKey {
  readonly orgId: string;
  readonly memoryId: string;
  readonly userId: string;
}

export interface OwnScopeKey {
  readonly orgId: string;
  readonly userId: string;
}

/** The memory's columns as the reads select them beside the caller's (`r.` of the join). */
const MEMORY_COLUMNS = [...SHOWN, 'scope_kind', 'scope_owner_id'] as const;

/**
 * What a request on one's own store reads first, in the statement that reads the caller's
 * context (orgs.repository.ts, `callerContextQuery`): GET one's memory, as `findReachable` with
 * the caller as target; the list's store counter. One statement where two would be.
 *
 * The reads of concurrent requests also go together (db/batched-reads.ts). On PostgreSQL in one
 * statement over the list of their keys, each key's row joined laterally; on SQLite, in the
 * process, each is a statement of its own, all in one read transaction.
 */
export function createOwnStoreReads(database: Database, readAccess: readonly ProjectAccess[]) {
  const { db, reader } = database;

  const memoryWithCaller = (p: {
    orgId: string | Expression<string>;
    memoryId: string | Expression<string>;
    userId: string | Expression<string>;
  }) =>
    callerContextQuery(db, p)
      .leftJoin(
        reachableQuery(
          db,
          { orgId: p.orgId, memoryId: p.memoryId, userId: p.userId, callerId: p.userId },
          readAccess,
        ).as('r'),
        (join) => join.onTrue(),
      )
      .select(MEMORY_COLUMNS.map((column) => `r.${column}` as const));
  const scopeWithCaller = (p: {
    orgId: string | Expression<string>;
    userId: string | Expression<string>;
  }) =>
    callerContextQuery(db, p)
      .leftJoin('scopes as s', (join) =>
        join.on('s.org_id', '=', p.orgId).on('s.kind', '=', 'user').on('s.owner_id', '=', p.userId),
      )
      .select(['s.id as scope_id', 's.version as scope_version', 's.purged_version']);

  type MemoryRow = Awaited<ReturnType<ReturnType<typeof memoryWithCaller>['execute']>>[number];
  type ScopeRow = Awaited<ReturnType<ReturnType<typeof scopeWithCaller>['execute']>>[number];

  const toMemory = (row: MemoryRow | undefined): ReadAlong<ReachableMemory | undefined> => {
    if (!row) return { context: undefined, value: undefined };
    return {
      context: toCallerContext(row),
      value:
        row.id === null
          ? undefined
          : {
              id: row.id,
              content: row.content as string,
              category: row.category,
              created_at: row.created_at as number,
              updated_at: row.updated_at as number,
              deleted_at: row.deleted_at,
              scope_kind: row.scope_kind as ReachableMemory['scope_kind'],
              scope_owner_id: row.scope_owner_id as string,
            },
    };
  };
  const toScope = (row: ScopeRow | undefined): ReadAlong<ScopeState | undefined> => {
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
  };

  if (database.dialect === 'sqlite') {
    const oneMemory = prepareQuery((p: OwnMemoryKey) => memoryWithCaller(p));
    const oneScope = prepareQuery((p: OwnScopeKey) => scopeWithCaller(p));
    return {
      memory: createReadTogether(database, async (key: OwnMemoryKey) =>
        toMemory(await oneMemory.first(reader, key)),
      ),
      scope: createReadTogether(database, async (key: OwnScopeKey) =>
        toScope(await oneScope.first(reader, key)),
      ),
    };
  }

  const manyMemories = prepareQuery(
    (p: { orgIds: string[]; memoryIds: string[]; userIds: string[] }) =>
      db
        .selectFrom(keyRows(['org_id', 'memory_id', 'user_id'], [p.orgIds, p.memoryIds, p.userIds]))
        .innerJoinLateral(
          memoryWithCaller({
            orgId: sql.ref('q.org_id'),
            memoryId: sql.ref('q.memory_id'),
            userId: sql.ref('q.user_id'),
          }).as('k'),
          (join) => join.onTrue(),
        )
        .selectAll('k')
        .select('q.ord'),
  );
  const manyScopes = prepareQuery((p: { orgIds: string[]; userIds: string[] }) =>
    db
      .selectFrom(keyRows(['org_id', 'user_id'], [p.orgIds, p.userIds]))
      .innerJoinLateral(
        scopeWithCaller({ orgId: sql.ref('q.org_id'), userId: sql.ref('q.user_id') }).as('k'),
        (join) => join.onTrue(),
      )
      .selectAll('k')
      .select('q.ord'),
  );
  const memories = createBatchedRead(async (batch: readonly OwnMemoryKey[]) => {
    const rows = await manyMemories.rows(reader, {
      orgIds: batch.map((key) => key.orgId),
      memoryIds: batch.map((key) => key.memoryId),
      userIds: batch.map((key) => key.userId),
    });
    return byOrdinal(rows, batch.length).map(toMemory);
  });
  const scopes = createBatchedRead(async (batch: readonly OwnScopeKey[]) => {
    const rows = await manyScopes.rows(reader, {
      orgIds: batch.map((key) => key.orgId),
      userIds: batch.map((key) => key.userId),
    });
    return byOrdinal(rows, batch.length).map(toScope);
  });
  return { memory: memories, scope: scopes };
}

export type OwnStoreReads = ReturnType<typeof createOwnStoreReads>;
