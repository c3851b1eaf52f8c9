import type { components } from '../api/openapi.d.ts';

export type MemoryItem = components['schemas']['MemoryItem'];

/** A list answer of `GET /api/v1/memory`: full (no `deleted`) or incremental. */
export interface ListAnswer {
  readonly memories: readonly MemoryItem[];
  readonly deleted?: readonly string[];
  readonly cursor: string;
}

/**
 * The studio's copy of one memory store, kept by the spec's incremental sync procedure and by
 * nothing else: a full pull stores everything and the cursor; each later pull with `since`
 * upserts what changed, removes what was deleted, and replaces the cursor. The page runs one
 * pull at a time, so answers are applied in the order they were asked.
 */
export interface Mirror {
  readonly items: ReadonlyMap<string, MemoryItem>;
  /** The cursor of the last pull; undefined before the first. */
  readonly cursor: string | undefined;
}

export const emptyMirror: Mirror = { items: new Map(), cursor: undefined };

/** Steps 1 to 5 of the procedure for one answer, full or incremental. */
export function applyPull(mirror: Mirror, answer: ListAnswer): Mirror {
  const items = new Map(answer.deleted === undefined ? [] : mirror.items);
  for (const id of answer.deleted ?? []) items.delete(id);
  for (const item of answer.memories) items.set(item.id, item);
  return { items, cursor: answer.cursor };
}

/**
 * What this page wrote and the mirror may not show yet: each memory's version as the API
 * answered the write (undefined once deleted), and the page's tick when that answer arrived.
 *
 * The page shows its own writes at once, over the mirror. A write's answer cannot simply go
 * into the mirror: answers of separate requests can arrive out of order, and a write answered
 * before a pull was asked, but arriving after it, would bring back a memory that pull already
 * knew deleted (a full pull does not list deletions). A pull asked after the write's answer
 * arrived was served after the write was committed, so it shows the write or anything later:
 * applying it settles every local write older than it.
 */
export type LocalWrites = ReadonlyMap<string, { item: MemoryItem | undefined; at: number }>;

export const noLocalWrites: LocalWrites = new Map();

/** A memory this page added or changed, as the API answered, at tick `at`. */
export function recordWrite(local: LocalWrites, item: MemoryItem, at: number): LocalWrites {
  return new Map(local).set(item.id, { item, at });
}

/** A memory this page deleted (the API answered `{"ok": true}`), at tick `at`. */
export function recordDelete(local: LocalWrites, id: string, at: number): LocalWrites {
  return new Map(local).set(id, { item: undefined, at });
}

/** Memories this page deleted at once (a whole store, `DELETE /api/v1/memory`), at tick `at`. */
export function recordDeletes(local: LocalWrites, ids: Iterable<string>, at: number): LocalWrites {
  const next = new Map(local);
  for (const id of ids) next.set(id, { item: undefined, at });
  return next;
}

/** Forgets the writes that a pull asked at tick `askedAt` shows (or has superseded). */
export function settle(local: LocalWrites, askedAt: number): LocalWrites {
  const kept = [...local].filter(([, write]) => write.at >= askedAt);
  return kept.length === local.size ? local : new Map(kept);
}

/** What the page shows: the mirror, with this page's unsettled writes over it. */
export function visible(mirror: Mirror, local: LocalWrites): ReadonlyMap<string, MemoryItem> {
  if (local.size === 0) return mirror.items;
  const items = new Map(mirror.items);
  for (const [id, { item }] of local) {
    if (item) items.set(id, item);
    else items.delete(id);
  }
  return items;
}
