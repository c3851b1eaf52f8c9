import { CompiledQuery, type Kysely } from 'kysely';

type Job<DB, T> = (trx: Kysely<DB>) => Promise<T>;

interface Pending<DB> {
  job: Job<DB, unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

export interface GroupCommitOptions {
  readonly maxBatch?: number;
  /**
   * Settles once the batch just committed is on disk (durability.ts). The jobs of a batch are
   * acknowledged only then; the next batch does not wait for it.
   */
  readonly durable?: () => Promise<void>;
}

/**
 * Runs write jobs in shared transactions: the jobs that arrive while one commit is in progress
 * go into the next, each under its own savepoint, so one failing job undoes only its own writes
 * and every job in a batch is acknowledged after the same sync. A job's promise settles only
 * after its batch committed and, with `durable`, reached the disk: nothing is acknowledged
 * before it is durable.
 *
 * For a single-writer store (SQLite): throughput is bound by syncs, not by statements.
 */
// One savepoint name serves every job: each is released (or rolled back and released) before
// the next begins. Compiled once; Kysely's savepoint API builds a transaction object per call.
const SAVEPOINT = CompiledQuery.raw('savepoint job');
const RELEASE = CompiledQuery.raw('release job');
const ROLLBACK = CompiledQuery.raw('rollback to job');

export function createGroupCommit<DB>(db: Kysely<DB>, options: GroupCommitOptions = {}) {
  const maxBatch = options.maxBatch ?? 256;
  let queue: Pending<DB>[] = [];
  let running = false;

  async function flush(): Promise<void> {
    running = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      await runBatch(batch);
    }
    running = false;
  }

  async function runBatch(batch: Pending<DB>[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      const trx = await db.startTransaction().execute();
      try {
        for (const pending of batch) {
          await trx.executeQuery(SAVEPOINT);
          try {
            const value = await pending.job(trx);
            await trx.executeQuery(RELEASE);
            outcomes.push({ ok: true, value });
          } catch (error) {
            await trx.executeQuery(ROLLBACK);
            await trx.executeQuery(RELEASE);
            outcomes.push({ ok: false, error });
          }
        }
        await trx.commit().execute();
      } catch (error) {
        await trx
          .rollback()
          .execute()
          .catch(() => {});
        throw error;
      }
    } catch (error) {
      // The commit itself failed: no job of the batch is durable.
      for (const pending of batch) pending.reject(error);
      return;
    }
    const settle = (durabilityError?: unknown) => {
      for (const [index, pending] of batch.entries()) {
        const outcome = outcomes[index];
        if (!outcome?.ok) pending.reject(outcome?.error);
        else if (durabilityError !== undefined) pending.reject(durabilityError);
        else pending.resolve(outcome.value);
      }
    };
    if (!options.durable) return settle();
    options.durable().then(() => settle(), settle);
  }

  return function run<T>(job: Job<DB, T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ job, resolve: resolve as (value: unknown) => void, reject });
      // Jobs queued in the same turn of the event loop share a batch.
      if (!running) {
        running = true;
        setImmediate(() => {
          flush().catch(() => {});
        });
      }
    });
  };
}
