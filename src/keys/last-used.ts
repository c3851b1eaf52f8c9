import type { Database } from '../db/database.ts';
import { touchApiKey } from './keys.repository.ts';

/**
 * When each API key was last used, kept in memory and written in batches: a write per call of
 * the chat interface would put the store's write path under every read. Each flush is one
 * write transaction for every key used since the last one; `last_used_at` only moves forward,
 * so the flushes of several processes can interleave in any order.
 */
export interface LastUsedRecorder {
  /** Notes a use of the key; written by the next flush. */
  record(keyId: string, at: number): void;
  /** Writes what was noted so far; settles when it is committed. */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left: call it before the store closes. */
  close(): Promise<void>;
}

export interface LastUsedRecorderDeps {
  readonly database: Pick<Database, 'write'>;
  /** How long a use may wait before it is written. Default 5 s. */
  readonly flushIntervalMs?: number;
  /** A failed flush; its uses are kept for the next one. */
  readonly onError?: (error: unknown) => void;
}

export const DEFAULT_LAST_USED_FLUSH_MS = 5000;

export function createLastUsedRecorder(deps: LastUsedRecorderDeps): LastUsedRecorder {
  const interval = deps.flushIntervalMs ?? DEFAULT_LAST_USED_FLUSH_MS;
  let pending = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  /** The flush under way: flushes run one after another. */
  let running: Promise<void> = Promise.resolve();
  let closed = false;

  const note = (keyId: string, at: number) => {
    const known = pending.get(keyId);
    if (known === undefined || known < at) pending.set(keyId, at);
  };

  // A timer only while something waits to be written: an idle process does nothing.
  const schedule = () => {
    if (timer !== undefined || closed || pending.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      flush().catch(() => {});
    }, interval);
    timer.unref();
  };

  async function writeBatch(): Promise<void> {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await deps.database.write(async (trx) => {
        for (const [keyId, at] of batch) await touchApiKey(trx, keyId, at);
      });
    } catch (error) {
      for (const [keyId, at] of batch) note(keyId, at);
      deps.onError?.(error);
      schedule();
      throw error;
    }
  }

  function flush(): Promise<void> {
    const next = running.then(writeBatch, writeBatch);
    running = next.catch(() => {});
    return next;
  }

  return {
    record(keyId, at) {
      if (closed) return;
      note(keyId, at);
      schedule();
    },
    flush,
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      // A failure was reported through onError; closing goes on.
      await flush().catch(() => {});
    },
  };
}
