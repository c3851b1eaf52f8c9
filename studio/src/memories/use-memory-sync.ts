import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { data, inOrg } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { useStudio } from '../app/studio-context.tsx';
import { listQuery, type MemoryScope, scopeKey } from './memory-scope.ts';
import {
  applyPull,
  emptyMirror,
  type ListAnswer,
  type LocalWrites,
  type MemoryItem,
  type Mirror,
  noLocalWrites,
  recordDelete,
  recordDeletes,
  recordWrite,
  settle,
  visible,
} from './sync-mirror.ts';

/** Between pulls while the tab is visible: 3 to 4 seconds, so a change shows within 5. */
const PULL_EVERY_MS = 3000;
const PULL_JITTER_MS = 1000;
/** After a failed pull, wait longer each time, up to this. */
const MAX_BACKOFF_MS = 30_000;

export type SyncStatus = 'loading' | 'live' | 'paused' | 'retrying' | 'refused';

export interface MemorySync {
  /** The store as the page shows it: the mirror, with the page's own writes over it. */
  readonly items: ReadonlyMap<string, MemoryItem>;
  /** Whether the first pull of this store has been applied. */
  readonly loaded: boolean;
  readonly status: SyncStatus;
  /** Why the last pull failed: shown while `status` is `retrying` or `refused`. */
  readonly error: unknown;
  /** When the copy last matched the server. */
  readonly syncedAt: number | undefined;
  readonly wrote: (item: MemoryItem) => void;
  readonly deleted: (id: string) => void;
  /** The whole store was deleted (`DELETE /api/v1/memory` answered): every memory shown goes. */
  readonly deletedAll: () => void;
  /** Pull now (after a folded save, whose answer carries no full memory). */
  readonly pullNow: () => void;
}

/**
 * Keeps a store's mirror by the spec's incremental sync: a full pull, then `since` every few
 * seconds while the tab is visible; paused while it is hidden; at once when it is shown or
 * focused again. A 410 (the cursor is older than the kept deletions) starts over with a full
 * pull. 429s are waited out by the API client; a 400/403/404 for the scope itself stops the
 * loop, since asking again cannot change the answer.
 */
export function useMemorySync(scope: MemoryScope): MemorySync {
  const { api, org } = useStudio();
  const [mirror, setMirror] = useState<Mirror>(emptyMirror);
  const [local, setLocal] = useState<LocalWrites>(noLocalWrites);
  const [status, setStatus] = useState<SyncStatus>('loading');
  const [error, setError] = useState<unknown>();
  const [syncedAt, setSyncedAt] = useState<number>();
  const mirrorRef = useRef(mirror);
  const localRef = useRef(local);
  // The page's clock, to order pulls asked against write answers received (sync-mirror.ts).
  const tick = useRef(0);
  const pullRef = useRef<() => void>(() => {});
  const key = `${org.id} ${scopeKey(scope)}`;

  const updateLocal = useCallback((change: (l: LocalWrites) => LocalWrites) => {
    localRef.current = change(localRef.current);
    setLocal(localRef.current);
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names the scope and org.
  useEffect(() => {
    let stopped = false;
    let running = false;
    let again = false;
    let failures = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    mirrorRef.current = emptyMirror;
    setMirror(emptyMirror);
    updateLocal(() => noLocalWrites);
    setStatus('loading');
    setError(undefined);

    const schedule = (delay: number) => {
      clearTimeout(timer);
      if (!stopped && document.visibilityState === 'visible') {
        timer = setTimeout(pull, delay);
      }
    };

    async function pull() {
      if (stopped) return;
      if (running) {
        again = true;
        return;
      }
      running = true;
      clearTimeout(timer);
      try {
        const since = mirrorRef.current.cursor;
        const askedAt = ++tick.current;
        const answer = await data<ListAnswer>(
          api.GET('/api/v1/memory', {
            params: {
              header: inOrg(org.id),
              query: { ...listQuery(scope), ...(since === undefined ? {} : { since }) },
            },
            signal: controller.signal,
          }),
        ).catch((failure: unknown) => {
          if (failure instanceof ApiError && failure.status === 410) {
            // The cursor outlived the kept deletions: start again from a full pull.
            mirrorRef.current = { ...mirrorRef.current, cursor: undefined };
            again = true;
            return undefined;
          }
          throw failure;
        });
        if (stopped) return;
        if (answer) {
          mirrorRef.current = applyPull(mirrorRef.current, answer);
          setMirror(mirrorRef.current);
          updateLocal((l) => settle(l, askedAt));
          setSyncedAt(Date.now());
        }
        failures = 0;
        setError(undefined);
        setStatus(document.visibilityState === 'visible' ? 'live' : 'paused');
        schedule(PULL_EVERY_MS + Math.random() * PULL_JITTER_MS);
      } catch (failure) {
        if (stopped || controller.signal.aborted) return;
        setError(failure);
        const final = failure instanceof ApiError && [400, 403, 404].includes(failure.status);
        setStatus(final ? 'refused' : 'retrying');
        if (!final) {
          failures += 1;
          schedule(Math.min(MAX_BACKOFF_MS, PULL_EVERY_MS * 2 ** failures));
        }
      } finally {
        running = false;
        if (again && !stopped) {
          again = false;
          void pull();
        }
      }
    }
    pullRef.current = () => void pull();

    const onVisibility = () => {
      if (document.visibilityState === 'visible') void pull();
      else {
        clearTimeout(timer);
        setStatus((s) => (s === 'live' ? 'paused' : s));
      }
    };
    const onFocus = () => void pull();
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('focus', onFocus);
    void pull();
    return () => {
      stopped = true;
      clearTimeout(timer);
      controller.abort();
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('focus', onFocus);
    };
  }, [key, api, updateLocal]);

  const items = useMemo(() => visible(mirror, local), [mirror, local]);
  return {
    items,
    loaded: mirror.cursor !== undefined,
    status,
    error,
    syncedAt,
    wrote: useCallback(
      (item) => updateLocal((l) => recordWrite(l, item, ++tick.current)),
      [updateLocal],
    ),
    deleted: useCallback(
      (id) => updateLocal((l) => recordDelete(l, id, ++tick.current)),
      [updateLocal],
    ),
    deletedAll: useCallback(() => {
      const at = ++tick.current;
      const shown = [...visible(mirrorRef.current, localRef.current).keys()];
      updateLocal((l) => recordDeletes(l, shown, at));
    }, [updateLocal]),
    pullNow: useCallback(() => pullRef.current(), []),
  };
}
