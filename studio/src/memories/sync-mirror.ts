import type {
  MemoryItem,
  MirrorChange,
  MirrorStorage,
} from '../../../clients/typescript/src/index.ts';

export type { MemoryItem };

/**
 * The studio's copy of one memory store as one immutable snapshot, which React compares by
 * reference: kept by the client's mirror (the spec's incremental sync procedure, pulled or
 * streamed) through SnapshotStorage, and by nothing else.
 */
export interface Mirror {
  readonly items: ReadonlyMap<string, MemoryItem>;
  /** The cursor of the last change applied; undefined before the first. */
  readonly cursor: string | undefined;
  /** Every memory the copy has seen deleted: a deletion is final, as ids are never reused. */
  readonly gone: ReadonlySet<string>;
}

export const emptyMirror: Mirror = { items: new Map(), cursor: undefined, gone: new Set() };

/** Whether `a` is a later version of its memory than `b`: `updatedAt` strictly increases. */
function later(a: MemoryItem, b: MemoryItem): boolean {
  return Date.parse(a.updatedAt) > Date.parse(b.updatedAt);
}

/**
 * A change (a pull's, or a batch of the change stream) applied to a snapshot: a new snapshot,
 * the old one left as it was. No memory goes back to an earlier version and none deleted comes
 * back: a pull asked while a stream is open may be applied before a batch the stream read
 * earlier, and that batch's versions must not undo the pull's.
 */
export function applyChange(mirror: Mirror, change: MirrorChange): Mirror {
  if (!change.full && change.upserted.length === 0 && change.removed.length === 0) {
    // Nothing changed: the same items, so nothing that shows them renders again.
    return { ...mirror, cursor: change.cursor };
  }
  const items = new Map(change.full ? [] : mirror.items);
  let gone = mirror.gone;
  if (change.removed.length > 0) {
    const more = new Set(gone);
    for (const id of change.removed) {
      items.delete(id);
      more.add(id);
    }
    gone = more;
  }
  for (const item of change.upserted) {
    if (gone.has(item.id)) continue;
    const held = mirror.items.get(item.id);
    items.set(item.id, held && later(held, item) ? held : item);
  }
  return { items, cursor: change.cursor, gone };
}

/**
 * The mirror's storage port over one snapshot, replaced whole by each change. `onApply` hears
 * of every change stored, those that changed nothing too: a pull or a batch that brought nothing
 * still says the copy is current, and a pull may settle this page's writes.
 */
export class SnapshotStorage implements MirrorStorage {
  snapshot: Mirror = emptyMirror;
  readonly #onApply: ((snapshot: Mirror, change: MirrorChange) => void) | undefined;

  constructor(onApply?: (snapshot: Mirror, change: MirrorChange) => void) {
    this.#onApply = onApply;
  }

  cursor(): string | undefined {
    return this.snapshot.cursor;
  }

  get(id: string): MemoryItem | undefined {
    return this.snapshot.items.get(id);
  }

  all(): readonly MemoryItem[] {
    return [...this.snapshot.items.values()];
  }

  apply(change: MirrorChange): void {
    this.snapshot = applyChange(this.snapshot, change);
    this.#onApply?.(this.snapshot, change);
  }
}

/**
 * What this page wrote and the mirror may not show yet: each memory's version as the API
 * answered the write (undefined once deleted), and the page's tick when that answer arrived.
 *
 * The page shows its own writes at once, over the mirror. A write's answer cannot simply go
 * into the mirror: answers of separate requests can arrive out of order, and a write answered
 * before a pull was asked, but arriving after it, would bring back a memory that pull already
 * knew deleted (a full pull does not list deletions). So a write stays here, over the mirror,
 * until the mirror shows it or something later, which two rules tell:
 *
 * - by ticks, for pulls (`settle`): a pull asked after the write's answer arrived was served
 *   after the write was committed, so it shows the write or anything later: applying it
 *   settles every local write older than it;
 * - by what the mirror holds, for any change, a stream's batches above all (`settleShown`): a
 *   stream has no "asked after the answer", but a batch carries each memory it changed at its
 *   version then, and `updatedAt` strictly increases with each change while a deletion is
 *   final. The mirror holding the memory at the written `updatedAt` or later, or having seen
 *   it deleted, shows the write or what came after it. Checked again when an answer arrives,
 *   since the batch that carries a write may come before its answer.
 *
 * What neither rule settles waits for the next pull: only a write whose memory the mirror has
 * neither held nor seen deleted, answered after a full pull was asked (a full pull names no
 * deletion it did not hold), and that is the first pull of a page, before it can write.
 */
export type LocalWrites = ReadonlyMap<string, { item: MemoryItem | undefined; at: number }>;

export const noLocalWrites: LocalWrites = new Map();

/**
 * A memory this page added or changed, as the API answered, at tick `at`. Answers can arrive
 * out of order: one of an earlier version than this page already holds, or of a memory it
 * deleted, is too late to matter.
 */
export function recordWrite(local: LocalWrites, item: MemoryItem, at: number): LocalWrites {
  const held = local.get(item.id);
  if (held && (held.item === undefined || later(held.item, item))) return local;
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

/**
 * Forgets the writes the mirror shows or has superseded: a memory it holds at the written
 * version or a later one, or one it has seen deleted (after an upsert or a delete alike).
 */
export function settleShown(local: LocalWrites, mirror: Mirror): LocalWrites {
  const kept = [...local].filter(([id, { item }]) => {
    if (mirror.gone.has(id)) return false;
    const held = mirror.items.get(id);
    return item === undefined || held === undefined || later(item, held);
  });
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
