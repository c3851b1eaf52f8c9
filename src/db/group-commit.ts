import type { Kysely } from 'kysely';

type Job<DB, T> = (trx: Kysely<DB>) => Promise<T>;

interface Pending<DB> {
  job: Job<DB, unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/**
 * Runs write jobs in shared transactions: the jobs that arrive while one commit is in progress
 * go into the next, each under its own savepoint, so one failing job undoes only its own writes
 * and every job in a batch is acknowledged after the same fsync. A job's promise settles only
 * after its batch committed, so nothing is acknowledged before it is durable.
 *
 * For a single-writer store (SQLite): throughput is bound by fsyncs, not by statements.
 */
export function createGroupCommit<DB>(db: Kysely<DB>, maxBatch = 256) {
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
        for (const [index, pending] of batch.entries()) {
          const name = `job${index}`;
          const inner = await trx.savepoint(name).execute();
          try {
            const value = await pending.job(inner);
            await inner.releaseSavepoint(name).execute();
            outcomes.push({ ok: true, value });
          } catch (error) {
            await inner.rollbackToSavepoint(name).execute();
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
    for (const [index, pending] of batch.entries()) {
      const outcome = outcomes[index];
      if (outcome?.ok) pending.resolve(outcome.value);
      else pending.reject(outcome?.error);
    }
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
