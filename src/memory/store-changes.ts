import { MAX_PAYLOAD_BYTES, type Notifications } from '../db/notifications.ts';
import type { CursorScope } from './cursor.ts';
import type { MemoryWrites } from './memory-writes.ts';

/**
 * Tells the change streams of every process that memory stores changed. A write says so after
 * it committed; the stores changed in one turn of the event loop go out together, in as few
 * notifications as their keys fit. A stream wakes on its store's key and reads the store: the
 * rows are the truth, a notification only says when to look, so one that is lost (or a write
 * made by another program, such as the command line on SQLite) delays a change until the
 * stream's next look, never loses it.
 */
export interface StoreChanges {
  /** After a commit that changed `scopes`' memories. Never throws, never waits. */
  changed(scopes: Iterable<CursorScope>): void;
  /**
   * Calls `wake` whenever `scope` may have changed: a write said so, or notifications may have
   * been lost (every watcher is woken then). The function it gives stops it.
   */
  watch(scope: CursorScope, wake: () => void): Promise<() => void>;
}

/** The channel of the stores' wake-ups. */
const CHANNEL = 'mnemo_store_changes';

/** A store as a notification names it: its organization, kind and owner. */
export const storeKey = (scope: CursorScope) => `${scope.orgId}/${scope.kind}/${scope.ownerId}`;

export function createStoreChanges(
  notifications: Notifications,
  onError: (error: unknown) => void,
): StoreChanges {
  const watchers = new Map<string, Set<() => void>>();
  let pending: Set<string> | undefined;
  let listening: Promise<void> | undefined;

  function flush(keys: Set<string>) {
    for (const payload of payloads(keys)) {
      notifications.notify(CHANNEL, payload).catch(onError);
    }
  }

  function deliver(payload: string) {
    for (const key of payload.split(' ')) {
      for (const wake of watchers.get(key) ?? []) wake();
    }
  }

  function wakeAll() {
    for (const set of watchers.values()) for (const wake of set) wake();
  }

  return {
    changed(scopes) {
      if (pending === undefined) {
        pending = new Set();
        const keys = pending;
        setImmediate(() => {
          pending = undefined;
          flush(keys);
        });
      }
      for (const scope of scopes) pending.add(storeKey(scope));
    },

    async watch(scope, wake) {
      // One listener for the process, opened by the first stream and kept.
      listening ??= notifications.listen(CHANNEL, deliver, wakeAll).then(
        () => undefined,
        (error: unknown) => {
          listening = undefined;
          throw error;
        },
      );
      await listening;
      const key = storeKey(scope);
      let set = watchers.get(key);
      if (set === undefined) {
        set = new Set();
        watchers.set(key, set);
      }
      set.add(wake);
      return () => {
        set.delete(wake);
        if (set.size === 0 && watchers.get(key) === set) watchers.delete(key);
      };
    },
  };
}

/**
 * `writes`, saying after each write that its store changed. (A fold, or a change refused for a
 * conflict, changed nothing: the streams that wake read nothing new.)
 */
export function announcingWrites(writes: MemoryWrites, changes: StoreChanges): MemoryWrites {
  const after = async <T>(scopes: CursorScope[], write: Promise<T>): Promise<T> => {
    try {
      return await write;
    } finally {
      // A failed write may have committed before it failed (a lost answer): a look costs little.
      changes.changed(scopes);
    }
  };
  return {
    add: (write) => after([write.scope], writes.add(write)),
    addMany: (batch) =>
      after(
        batch.map((write) => write.scope),
        writes.addMany(batch),
      ),
    update: (write) => after([write.scope], writes.update(write)),
    remove: (write) => after([write.scope], writes.remove(write)),
  };
}

/** Keys joined by spaces (none holds one), in payloads that PostgreSQL takes whole. */
function* payloads(keys: Iterable<string>): Generator<string> {
  let payload = '';
  for (const key of keys) {
    if (payload !== '' && payload.length + 1 + key.length > MAX_PAYLOAD_BYTES) {
      yield payload;
      payload = '';
    }
    payload = payload === '' ? key : `${payload} ${key}`;
  }
  if (payload !== '') yield payload;
}
