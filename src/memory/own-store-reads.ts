import DataLoader from 'dataloader';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { prepareQuery } from '../db/prepared-query.ts';
import type { ProjectAccess } from '../db/tables.ts';
import {
  type CallerContext,
  callerContextQuery,
  toCallerContext,
} from '../orgs/orgs.repository.ts';
import {
  type ReachableMemory,
  reachableQuery,
  type ScopeState,
  SHOWN,
} from './memory.repository.ts';

/** A caller's context and what was read in the same statement. */
export interface WithCaller<T> {
  /** Undefined when the store does not know the user. */
  readonly context: CallerContext | undefined;
  readonly value: T;
}

export interface OwnMemoryKey {
  readonly orgId: string;
  readonly memoryId: string;
  readonly userId: string;
}

export interface OwnScopeKey {
  readonly orgId: string;
  readonly userId: string;
}

/**
 * At most this many requests' reads in one statement: past a few dozen, a larger batch saves
 * little more per request and its rows wait for the slowest.
 */
const MAX_BATCH = 64;

/**
 * Statements of one kind running at once, at most. A batch waits for a turn: under load, it
 * gathers the reads that arrive while the store answers the ones before (more rows for one
 * round trip); a read alone finds a turn free and goes at once.
 */
const MAX_IN_FLIGHT = 2;

/**
 * When DataLoader may send a batch: after the current turn of the event loop, once fewer than
 * `maxInFlight` statements `run` are running. Until it is sent, a batch takes the reads that
 * come (up to its size).
 */
function createTurns(maxInFlight: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return {
    schedule(dispatch: () => void): void {
      setImmediate(() => {
        if (running < maxInFlight) dispatch();
        else waiting.push(dispatch);
      });
    },
    async run<T>(statement: () => Promise<T>): Promise<T> {
      running++;
      try {
        return await statement();
      } finally {
        running--;
        waiting.shift()?.();
      }
    },
  };
}

/** The memory's columns as the reads select them beside the caller's (`r.` of the join). */
const MEMORY_COLUMNS = [...SHOWN, 'scope_kind', 'scope_owner_id'] as const;

/**
 * What a request on one's own store reads first, in the statement that reads the caller's
 * context (orgs.repository.ts, `callerContextQuery`): GET one's memory, as `findReachable` with
 * the caller as target; the list's store counter. One statement where two would be.
 *
 * On PostgreSQL, where every statement is a round trip (a write, a wake-up and a read on each
 * side, which cost far more than the lookup), the reads of the requests that arrive in one turn
 * of the event loop also go together: one statement over the list of their keys (`unnest … with
 * ordinality`, each key's row joined laterally), DataLoader's batching without its cache. A
 * request alone is sent as soon as the turn ends. On SQLite, in the process, each is a
 * statement of its own.
 */
export function createOwnStoreReads(database: Database, readAccess: readonly ProjectAccess[]) {
  const { db, reader } = database;

  const memoryWithCaller = (p: {
    orgId: string | ReturnType<typeof sql.ref<string>>;
    memoryId: string | ReturnType<typeof sql.ref<string>>;
    userId: string | ReturnType<typeof sql.ref<string>>;
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
    orgId: string | ReturnType<typeof sql.ref<string>>;
    userId: string | ReturnType<typeof sql.ref<string>>;
  }) =>
    callerContextQuery(db, p)
      .leftJoin('scopes as s', (join) =>
        join.on('s.org_id', '=', p.orgId).on('s.kind', '=', 'user').on('s.owner_id', '=', p.userId),
      )
      .select(['s.id as scope_id', 's.version as scope_version', 's.purged_version']);

  type MemoryRow = Awaited<ReturnType<ReturnType<typeof memoryWithCaller>['execute']>>[number];
  type ScopeRow = Awaited<ReturnType<ReturnType<typeof scopeWithCaller>['execute']>>[number];

  const toMemory = (row: MemoryRow | undefined): WithCaller<ReachableMemory | undefined> => {
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
  const toScope = (row: ScopeRow | undefined): WithCaller<ScopeState | undefined> => {
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
      memory: async (key: OwnMemoryKey) => toMemory(await oneMemory.first(reader, key)),
      scope: async (key: OwnScopeKey) => toScope(await oneScope.first(reader, key)),
    };
  }

  // The keys as rows of `q`, numbered: a key's answer is the row of its number (none when the
  // store does not know the user: the inner join drops it).
  const keys = <C extends string>(arrays: readonly unknown[], columns: string) =>
    sql<Record<C, string> & { ord: number }>`unnest(${sql.join(
      arrays.map((array) => sql`${array}::text[]`),
    )}) with ordinality`.as<'q'>(sql.raw(`q(${columns}, ord)`));
  const manyMemories = prepareQuery(
    (p: { orgIds: string[]; memoryIds: string[]; userIds: string[] }) =>
      db
        .selectFrom(
          keys<'org_id' | 'memory_id' | 'user_id'>(
            [p.orgIds, p.memoryIds, p.userIds],
            'org_id, memory_id, user_id',
          ),
        )
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
      .selectFrom(keys<'org_id' | 'user_id'>([p.orgIds, p.userIds], 'org_id, user_id'))
      .innerJoinLateral(
        scopeWithCaller({ orgId: sql.ref('q.org_id'), userId: sql.ref('q.user_id') }).as('k'),
        (join) => join.onTrue(),
      )
      .selectAll('k')
      .select('q.ord'),
  );
  /** Each key's row, by the number `q` gave it (1 for the first key). */
  const byOrdinal = <R extends { ord: number }>(rows: readonly R[], count: number) => {
    const found: Array<R | undefined> = new Array(count).fill(undefined);
    for (const row of rows) found[row.ord - 1] = row;
    return found;
  };
  const memoryTurns = createTurns(MAX_IN_FLIGHT);
  const memories = new DataLoader<OwnMemoryKey, WithCaller<ReachableMemory | undefined>>(
    async (batch) => {
      const rows = await memoryTurns.run(() =>
        manyMemories.rows(reader, {
          orgIds: batch.map((key) => key.orgId),
          memoryIds: batch.map((key) => key.memoryId),
          userIds: batch.map((key) => key.userId),
        }),
      );
      return byOrdinal(rows, batch.length).map(toMemory);
    },
    { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: memoryTurns.schedule },
  );
  const scopeTurns = createTurns(MAX_IN_FLIGHT);
  const scopes = new DataLoader<OwnScopeKey, WithCaller<ScopeState | undefined>>(
    async (batch) => {
      const rows = await scopeTurns.run(() =>
        manyScopes.rows(reader, {
          orgIds: batch.map((key) => key.orgId),
          userIds: batch.map((key) => key.userId),
        }),
      );
      return byOrdinal(rows, batch.length).map(toScope);
    },
    { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: scopeTurns.schedule },
  );
  return {
    memory: (key: OwnMemoryKey) => memories.load(key),
    scope: (key: OwnScopeKey) => scopes.load(key),
  };
}

export type OwnStoreReads = ReturnType<typeof createOwnStoreReads>;
