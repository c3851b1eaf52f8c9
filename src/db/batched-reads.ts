import DataLoader from 'dataloader';
import { type AliasedRawBuilder, sql } from 'kysely';
import { isStoreUnavailable } from './availability.ts';
import type { Database } from './database.ts';

/**
 * Statements of one batched read running at once, at most. A batch waits for a turn: under
 * load it gathers the reads that arrive while the store answers the ones before (more keys for
 * one round trip); a read alone finds a turn free and goes at once.
 */
const MAX_IN_FLIGHT = 2;

/**
 * At most this many keys in one statement: past a few dozen, a larger batch saves little more
 * per read, and its rows wait for the slowest.
 */
const MAX_BATCH = 64;

/**
 * Point reads of many requests in one statement, for PostgreSQL, where every statement is a
 * round trip (a write, a wake-up and a read on each side, far dearer than a point lookup).
 * DataLoader's batching without its cache: the reads that come in one turn of the event loop,
 * and while the statements before them run, go together; `load` answers every key of a batch,
 * in order, from one statement. Each read still sees the store as it is when its statement
 * runs: nothing is kept.
 */
export function createBatchedRead<K, V>(load: (keys: readonly K[]) => Promise<V[]>) {
  let running = 0;
  const waiting: Array<() => void> = [];
  /** Set while the batches that waited are sent to fail at once: the store is unavailable. */
  let failing: unknown;
  const loader = new DataLoader<K, V>(
    async (keys) => {
      if (failing !== undefined) throw failing;
      running++;
      let unavailable: unknown;
      try {
        return await load(keys);
      } catch (error) {
        // A failure the store as a whole answers is every read's; any other may be one key's
        // (a value the store refuses): each key is read again alone, and fails on its own.
        if (isStoreUnavailable(error)) unavailable = error;
        if (keys.length === 1 || unavailable !== undefined) throw error;
        return Promise.all(
          keys.map((key) =>
            load([key]).then(
              ([value]) => value as V,
              (alone: unknown) => (alone instanceof Error ? alone : new Error(String(alone))),
            ),
          ),
        );
      } finally {
        running--;
        if (unavailable === undefined) waiting.shift()?.();
        else {
          // The batches waiting for this turn fail with it, now: each would otherwise wait out
          // its own timeout after this one's, and the answers of an outage would add up.
          failing = unavailable;
          for (const dispatch of waiting.splice(0)) dispatch();
          failing = undefined;
        }
      }
    },
    {
      cache: false,
      maxBatchSize: MAX_BATCH,
      // Until it is sent, a batch takes the reads that come (up to its size).
      batchScheduleFn: (dispatch) =>
        setImmediate(() => {
          if (running < MAX_IN_FLIGHT) dispatch();
          else waiting.push(dispatch);
        }),
    },
  );
  return (key: K): Promise<V> => loader.load(key);
}

/**
 * Point reads of many requests in one read of the store, for SQLite, where a statement is a call
 * inside the process but each statement alone takes and drops the file's locks: the reads that
 * come in one turn of the event loop run together (Database.readTogether), each its own
 * statement (`readOne`, which must run its statement as it is called), in one snapshot. Their
 * answers then go out together too, and wake a client once for all of them.
 */
export function createReadTogether<K, V>(
  database: Pick<Database, 'readTogether'>,
  readOne: (key: K) => Promise<V>,
) {
  return createBatchedRead<K, V>((keys) =>
    Promise.all(database.readTogether(() => keys.map(readOne))),
  );
}

/**
 * The keys of a batch as the rows of a table `q`, one text array per column, numbered from 1 in
 * `ord` (`unnest … with ordinality`): join each key's row to it laterally, and find a key's
 * answer by its number.
 */
export function keyRows<C extends string>(
  columns: readonly C[],
  arrays: readonly unknown[],
): AliasedRawBuilder<Record<C, string> & { ord: number }, 'q'> {
  return sql<Record<C, string> & { ord: number }>`unnest(${sql.join(
    arrays.map((array) => sql`${array}::text[]`),
  )}) with ordinality`.as<'q'>(sql.raw(`q(${columns.join(', ')}, ord)`));
}

/** Each key's row by its number (`keyRows`' `ord`), undefined for a key without one. */
export function byOrdinal<R extends { ord: number }>(
  rows: readonly R[],
  count: number,
): Array<R | undefined> {
  const found: Array<R | undefined> = new Array(count).fill(undefined);
  for (const row of rows) found[row.ord - 1] = row;
  return found;
}
