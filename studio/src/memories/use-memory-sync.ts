import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  MemoryMirror,
  type MirrorSource,
  MnemoError,
} from '../../../clients/typescript/src/index.ts';
import { asApiError, createMemoryClient } from '../api/memory-client.ts';
import { useStudio } from '../app/studio-context.tsx';
import { listQuery, type MemoryScope, scopeKey } from './memory-scope.ts';
import {
  emptyMirror,
  type LocalWrites,
  type MemoryItem,
  type Mirror,
  noLocalWrites,
  recordDelete,
  recordDeletes,
  recordWrite,
  SnapshotStorage,
  settle,
  settleShown,
  visible,
} from './sync-mirror.ts';

/** Between pulls while no stream can be held: 3 to 4 seconds, so a change shows within 5. */
const PULL_EVERY_MS = 3000;
const PULL_JITTER_MS = 1000;
/** While pulling because a stream was refused (429), how long before asking for one again. */
const STREAM_AGAIN_MS = 30_000;
/** How long a hidden tab keeps following before it closes its stream. */
const HIDDEN_CLOSE_MS = 60_000;

/**
 * `live`: a change stream is open. `polling`: the account holds all the streams it may (or the
 * stream was refused otherwise with 429), so the copy is pulled every few seconds. `paused`:
 * the tab has been hidden a while and closed its stream. `retrying`: the last attempt failed and
 * is tried again later. `refused`: the API refused the store itself (400, 401, 403, 404).
 */
export type SyncStatus = 'loading' | 'live' | 'polling' | 'paused' | 'retrying' | 'refused';

export interface MemorySync {
  /** The store as the page shows it: the mirror, with the page's own writes over it. */
  readonly items: ReadonlyMap<string, MemoryItem>;
  /** Whether the first pull of this store has been applied. */
  readonly loaded: boolean;
  readonly status: SyncStatus;
  /** Why the last attempt failed: shown while `status` is `retrying` or `refused`. */
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
 * Keeps a store's copy with the TypeScript client's mirror, which follows the store's change
 * stream (`mirror.follow()`: a pull to catch up, then each batch of events applied as one change;
 * after a stream ends or fails, a pull and a new stream, waiting longer after each failure).
 * A stream refused with 429 — the account holds its 20 open streams already, other tabs or its
 * own scripts — is not waited for: the copy is pulled every few seconds instead, and a stream
 * asked for again after half a minute. A 400/401/403/404 for the scope itself ends following,
 * since asking again cannot change the answer.
 *
 * A hidden tab keeps its stream for a minute, so that a look at another tab costs nothing, then
 * closes it until it is shown again (a pull to catch up, then a stream): tabs left in the
 * background would otherwise hold the account's streams, which are limited, and the browser's
 * connections to this origin, six over HTTP/1.1.
 */
export function useMemorySync(scope: MemoryScope): MemorySync {
  const { session, org } = useStudio();
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
    const stopped = new AbortController();
    // The tick each pull was asked at, by the cursor of its answer: applying that cursor settles
    // the writes answered before (a batch reaching the same cursor holds the same, so it may too).
    const askedAt = new Map<string, number>();
    let mode: 'stream' | 'pulls' = 'stream';
    let round: AbortController | undefined;
    let refusal: unknown;
    let closed = false;
    let wake: (() => void) | undefined;
    let hiddenTimer: ReturnType<typeof setTimeout> | undefined;

    const storage = new SnapshotStorage((snapshot, change) => {
      if (stopped.signal.aborted) return;
      const asked = askedAt.get(change.cursor);
      askedAt.delete(change.cursor);
      mirrorRef.current = snapshot;
      setMirror(snapshot);
      updateLocal((l) => settleShown(asked === undefined ? l : settle(l, asked), snapshot));
      setSyncedAt(Date.now());
      if (mode === 'pulls' && !closed) {
        setError(undefined);
        setStatus('polling');
      }
    });
    const { memories } = createMemoryClient(session, org.id);
    // A refused stream is told at once, so that pulls take over without waiting its Retry-After.
    const streams = createMemoryClient(session, org.id, { retry: { maxRetries: 0 } }).memories;
    const source: MirrorSource = {
      async list(query, options) {
        const at = ++tick.current;
        const answer = await memories.list(query, options);
        askedAt.set(answer.cursor, Math.max(at, askedAt.get(answer.cursor) ?? 0));
        return answer;
      },
      async events(query, options) {
        try {
          const events = await streams.events(query, options);
          if (!options.signal?.aborted) {
            setError(undefined);
            setStatus('live');
          }
          return events;
        } catch (failure) {
          if (failure instanceof MnemoError && failure.status === 429) refusal = failure;
          throw failure;
        }
      },
    };
    const copy = new MemoryMirror(source, { ...listQuery(scope), storage });
    mirrorRef.current = emptyMirror;
    setMirror(emptyMirror);
    updateLocal(() => noLocalWrites);
    setStatus('loading');
    setError(undefined);

    // Rounds of following until the page leaves: by stream, or by pulls for a while after a
    // stream was refused; none while the tab has been hidden too long.
    async function run() {
      while (!stopped.signal.aborted) {
        if (closed) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            stopped.signal.addEventListener('abort', () => resolve(), { once: true });
          });
          continue;
        }
        const current = new AbortController();
        round = current;
        const streaming = mode === 'stream';
        const back = streaming
          ? undefined
          : setTimeout(() => {
              mode = 'stream';
              current.abort();
            }, STREAM_AGAIN_MS);
        try {
          await copy.follow({
            signal: AbortSignal.any([stopped.signal, current.signal]),
            stream: streaming,
            intervalMs: PULL_EVERY_MS + Math.random() * PULL_JITTER_MS,
            onError(failure) {
              if (streaming && failure === refusal) {
                mode = 'pulls';
                current.abort();
                return;
              }
              // The account's rate budget, spent by its other tabs or scripts: the mirror waits
              // the Retry-After and pulls again, which is nothing to tell.
              if (failure instanceof MnemoError && failure.status === 429) return;
              setError(asApiError(failure));
              setStatus('retrying');
            },
          });
        } catch (failure) {
          if (stopped.signal.aborted) return;
          setError(asApiError(failure));
          setStatus('refused');
          return;
        } finally {
          clearTimeout(back);
        }
      }
    }
    void run();
    pullRef.current = () => {
      if (!closed) copy.sync({ signal: stopped.signal }).catch(() => {});
    };

    const onVisibility = () => {
      clearTimeout(hiddenTimer);
      if (document.visibilityState === 'hidden') {
        hiddenTimer = setTimeout(() => {
          closed = true;
          setStatus((s) => (s === 'refused' ? s : 'paused'));
          round?.abort();
        }, HIDDEN_CLOSE_MS);
      } else if (closed) {
        closed = false;
        wake?.();
      }
    };
    document.addEventListener('visibilitychange', onVisibility);
    onVisibility();
    return () => {
      stopped.abort();
      clearTimeout(hiddenTimer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [key, session, updateLocal]);

  const items = useMemo(() => visible(mirror, local), [mirror, local]);
  return {
    items,
    loaded: mirror.cursor !== undefined,
    status,
    error,
    syncedAt,
    wrote: useCallback(
      (item) =>
        updateLocal((l) => settleShown(recordWrite(l, item, ++tick.current), mirrorRef.current)),
      [updateLocal],
    ),
    deleted: useCallback(
      (id) =>
        updateLocal((l) => settleShown(recordDelete(l, id, ++tick.current), mirrorRef.current)),
      [updateLocal],
    ),
    deletedAll: useCallback(() => {
      const at = ++tick.current;
      const shown = [...visible(mirrorRef.current, localRef.current).keys()];
      updateLocal((l) => settleShown(recordDeletes(l, shown, at), mirrorRef.current));
    }, [updateLocal]),
    pullNow: useCallback(() => pullRef.current(), []),
  };
}
