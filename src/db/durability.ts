/**
 * Commits made durable by a sync that runs beside the event loop, not inside it: each commit is
 * marked, one sync at a time runs (on libuv's thread pool), and a sync covers every commit marked
 * before it started, so commits that arrive while one runs share the next. A failed sync fails
 * the store for good: after a failed fsync the kernel may have dropped the pages it could not
 * write, and a later fsync can succeed without them (PostgreSQL stops on it for that reason).
 */
export interface Durability {
  /** Marks a commit that has just been made; settles once it is on disk. */
  committed(): Promise<void>;
  /**
   * Settles once every commit marked so far is on disk; undefined when nothing is pending, so
   * the common case costs no promise.
   */
  pending(): Promise<void> | undefined;
  /** Settles once nothing is pending (for a clean close). */
  drained(): Promise<void>;
}

export class DurabilityFailed extends Error {
  override readonly name = 'DurabilityFailed';
}

interface Waiter {
  readonly seq: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export function createDurability(sync: () => Promise<void>): Durability {
  let marked = 0;
  let durable = 0;
  let running = false;
  let failure: Error | undefined;
  // In order of seq: commits are marked in order.
  let waiters: Waiter[] = [];

  function waitFor(seq: number): Promise<void> {
    if (failure) return Promise.reject(failure);
    if (seq <= durable) return Promise.resolve();
    return new Promise((resolve, reject) => {
      waiters.push({ seq, resolve, reject });
      if (!running) void run();
    });
  }

  async function run(): Promise<void> {
    running = true;
    while (!failure && durable < marked) {
      const upTo = marked;
      try {
        await sync();
      } catch (error) {
        failure = new DurabilityFailed(`the store could not be synced to disk: ${String(error)}`, {
          cause: error,
        });
        break;
      }
      durable = upTo;
      const done = waiters.filter((w) => w.seq <= upTo);
      waiters = waiters.filter((w) => w.seq > upTo);
      for (const waiter of done) waiter.resolve();
    }
    running = false;
    if (failure) {
      const failed = waiters;
      waiters = [];
      for (const waiter of failed) waiter.reject(failure);
    }
  }

  return {
    committed() {
      marked += 1;
      return waitFor(marked);
    },
    pending() {
      if (failure) return Promise.reject(failure);
      return durable < marked ? waitFor(marked) : undefined;
    },
    drained() {
      return waitFor(marked).catch(() => undefined);
    },
  };
}
