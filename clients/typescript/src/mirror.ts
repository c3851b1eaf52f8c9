import { MnemoError } from './errors.ts';
import type { MemoryEvent } from './events.ts';
import type { RequestOptions } from './transport.ts';
import type { EventsQuery, ListQuery, ListResponse, MemoryItem } from './types.ts';

/** A value, or a promise of it: a storage may be synchronous (memory) or not (a database). */
export type Awaitable<T> = T | Promise<T>;

/**
 * What one pull changed. A full pull (`full`) replaces everything held with `upserted`;
 * `removed` then names what was held and is gone, so a listener can update a view without
 * reading the whole store. An incremental pull upserts `upserted` and removes `removed` (the
 * answer's `deleted`).
 */
export interface MirrorChange {
  readonly full: boolean;
  readonly upserted: readonly MemoryItem[];
  readonly removed: readonly string[];
  /** The cursor to pull from next, stored with the change. */
  readonly cursor: string;
}

/**
 * Where a mirror keeps its copy. `apply` must store a change whole or not at all, its cursor
 * with it: a copy whose cursor ran ahead of its memories would miss changes for good, one whose
 * cursor lagged behind only pulls some again (upserts are idempotent).
 */
export interface MirrorStorage {
  /** The cursor of the last change applied; undefined before the first. */
  cursor(): Awaitable<string | undefined>;
  get(id: string): Awaitable<MemoryItem | undefined>;
  /** Every memory held, in no particular order. */
  all(): Awaitable<readonly MemoryItem[]>;
  apply(change: MirrorChange): Awaitable<void>;
}

/** The default storage: a Map, gone with the process. */
export class InMemoryMirrorStorage implements MirrorStorage {
  #items = new Map<string, MemoryItem>();
  #cursor: string | undefined;

  /** The memories held, by id: a live view, changed by each `apply`. */
  get items(): ReadonlyMap<string, MemoryItem> {
    return this.#items;
  }

  cursor(): string | undefined {
    return this.#cursor;
  }

  get(id: string): MemoryItem | undefined {
    return this.#items.get(id);
  }

  all(): readonly MemoryItem[] {
    return [...this.#items.values()];
  }

  apply(change: MirrorChange): void {
    if (change.full) this.#items = new Map();
    for (const id of change.removed) this.#items.delete(id);
    for (const item of change.upserted) this.#items.set(item.id, item);
    this.#cursor = change.cursor;
  }
}

/** Which store a mirror copies: the caller's own, a member's (`user`) or a pool (`project`). */
export type MirrorScope = Pick<ListQuery, 'user' | 'project'>;

export interface MirrorOptions extends MirrorScope {
  /** Where the copy is kept; in memory by default. */
  readonly storage?: MirrorStorage;
}

/** Where a mirror reads the store: the memory API's list and change stream (`Memories`). */
export interface MirrorSource {
  list(query: ListQuery, options: RequestOptions): Promise<ListResponse>;
  events(
    query: EventsQuery,
    options: RequestOptions & { readonly lastEventId?: string },
  ): Promise<AsyncIterable<MemoryEvent>>;
}

export interface FollowOptions {
  /**
   * Follow the store's change stream (the default), pulling only to catch up before each
   * connection; false: pull every `intervalMs` instead.
   */
  readonly stream?: boolean;
  /**
   * Between the end of one pull and the next when not streaming, in ms; 5,000 by default. After
   * a failure, the wait before trying again (doubled after each failure in a row, up to a
   * minute), streaming or not.
   */
  readonly intervalMs?: number;
  /** Ends following; the promise `follow` returned then resolves. */
  readonly signal?: AbortSignal;
  /**
   * Told of a pull that failed; following goes on, waiting longer after each failure in a row
   * (up to a minute), and never less than a refusal's Retry-After. A refusal that asking again cannot change (400, 401, 403, 404) ends it:
   * `follow` rejects with that error.
   */
  readonly onError?: (error: unknown) => void;
}

type Listener = (change: MirrorChange) => void;

/** Waiting after failures in a row: doubled each time, up to this. */
const MAX_BACKOFF_MS = 60_000;
/** Refusals that asking again cannot change. */
const FINAL_STATUSES = new Set([400, 401, 403, 404]);
/** How long a refusal asked to be left (a 429's or 503's Retry-After), in ms; else 0. */
function retryAfterMs(error: unknown): number {
  return error instanceof MnemoError && error.retryAfter !== undefined
    ? error.retryAfter * 1000
    : 0;
}

/** A stream that ends sooner than this after it opened counts as a failure (no tight loop). */
const SHORTEST_STREAM_MS = 1_000;

/**
 * A local copy of one store, kept equal to the server by the memory API's incremental sync
 * (README, "Incremental sync"): the first `sync()` pulls the whole store; each later one pulls
 * what changed since the stored cursor, upserts the changed memories and removes the deleted
 * ones, and stores the new cursor with them. A cursor the server can no longer serve (410, or a
 * 400 `invalid cursor`: one of another store, say) is dropped for a full pull in the same call.
 *
 * `follow()` keeps the copy current by the store's change stream: each batch of events is applied
 * as one change, with the cursor of its `sync` event.
 *
 * @example
 * const mirror = mnemo.memories.mirror();
 * mirror.onChange(({ upserted, removed }) => render(upserted, removed));
 * await mirror.sync();
 * await mirror.follow({ signal }); // follows the change stream until the signal ends it
 */
export class MemoryMirror {
  readonly storage: MirrorStorage;
  readonly #source: MirrorSource;
  readonly #scope: MirrorScope;
  readonly #listeners = new Set<Listener>();
  #running: Promise<MirrorChange> | undefined;
  #queued: Promise<MirrorChange> | undefined;
  /** The last change being applied: the next waits for it, so that changes apply in order. */
  #applying: Promise<unknown> = Promise.resolve();

  constructor(source: MirrorSource, options: MirrorOptions = {}) {
    this.#source = source;
    const { storage, ...scope } = options;
    this.storage = storage ?? new InMemoryMirrorStorage();
    this.#scope = scope;
  }

  /** Every memory of the copy. */
  async memories(): Promise<readonly MemoryItem[]> {
    return this.storage.all();
  }

  async get(id: string): Promise<MemoryItem | undefined> {
    return this.storage.get(id);
  }

  /** Calls `listener` after each pull that changed the copy; returns what stops it. */
  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * One pull, applied. Pulls of one mirror run one at a time, each from the cursor the one
   * before stored: a call made while one runs waits for it and then pulls again, so it sees
   * every write made before it was called (calls made meanwhile share that second pull).
   */
  sync(options: RequestOptions = {}): Promise<MirrorChange> {
    if (this.#running === undefined) return this.#start(options);
    this.#queued ??= this.#running
      .catch(() => undefined)
      .then(() => {
        this.#queued = undefined;
        return this.#start(options);
      });
    return this.#queued;
  }

  /**
   * Keeps the copy current until `signal` ends it: a pull to catch up, then the store's change
   * stream, each batch of its events applied as one change when its `sync` event comes; when
   * the stream ends (the server restarting, a proxy closing it), a pull again and a new stream.
   * When a stream cannot be held, the pulls go on, every `intervalMs` and longer after each
   * failure in a row. With `stream: false`, a pull every `intervalMs`.
   */
  async follow(options: FollowOptions = {}): Promise<void> {
    const { intervalMs = 5_000, signal, onError, stream = true } = options;
    const requestOptions = signal === undefined ? {} : { signal };
    let failures = 0;
    let lastError: unknown;
    while (!signal?.aborted) {
      lastError = undefined;
      try {
        await this.sync(requestOptions);
        if (stream) {
          const opened = Date.now();
          await this.#followStream(requestOptions);
          if (Date.now() - opened < SHORTEST_STREAM_MS && !signal?.aborted) {
            throw new Error('the change stream ended as soon as it opened');
          }
        }
        failures = 0;
      } catch (error) {
        if (signal?.aborted) return;
        // A cursor the stream will not serve: the next pull starts over in full.
        if (!unservable(error)) {
          if (error instanceof MnemoError && FINAL_STATUSES.has(error.status)) throw error;
          lastError = error;
          onError?.(error);
          failures += 1;
        }
      }
      if (stream && failures === 0) continue;
      const backoff =
        failures === 0 ? intervalMs : Math.min(MAX_BACKOFF_MS, intervalMs * 2 ** failures);
      await pause(Math.max(backoff, retryAfterMs(lastError)), signal);
    }
  }

  /** Applies the stream's events from the stored cursor until it ends. */
  async #followStream(options: RequestOptions): Promise<void> {
    const since = await this.storage.cursor();
    const events = await this.#source.events(
      { ...this.#scope, ...(since === undefined ? {} : { since }) },
      options,
    );
    let upserted = new Map<string, MemoryItem>();
    let removed = new Set<string>();
    for await (const event of events) {
      if (event.type === 'change') {
        upserted.set(event.memory.id, event.memory);
        removed.delete(event.memory.id);
      } else if (event.type === 'delete') {
        upserted.delete(event.id);
        removed.add(event.id);
      } else if (event.type === 'sync') {
        await this.#apply({
          full: false,
          upserted: [...upserted.values()],
          removed: [...removed],
          cursor: event.cursor,
        });
        upserted = new Map();
        removed = new Set();
      } else if (event.type === 'error') {
        throw new MnemoError(event.status, event.error, { error: event.error });
      }
    }
  }

  /** Stores `change` (after any being stored) and tells the listeners when it changed anything. */
  #apply(change: MirrorChange): Promise<void> {
    const applied = this.#applying.then(async () => {
      await this.storage.apply(change);
      if (change.full || change.upserted.length > 0 || change.removed.length > 0) {
        for (const listener of this.#listeners) listener(change);
      }
    });
    this.#applying = applied.catch(() => undefined);
    return applied;
  }

  #start(options: RequestOptions): Promise<MirrorChange> {
    const run = this.#pull(options).finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
    this.#running = run;
    return run;
  }

  async #pull(options: RequestOptions): Promise<MirrorChange> {
    const since = await this.storage.cursor();
    const answer =
      since === undefined
        ? undefined
        : await this.#source.list({ ...this.#scope, since }, options).catch((error: unknown) => {
            if (unservable(error)) return undefined;
            throw error;
          });
    const change = answer
      ? {
          full: false,
          upserted: answer.memories,
          removed: answer.deleted ?? [],
          cursor: answer.cursor,
        }
      : await this.#fullChange(options);
    await this.#apply(change);
    return change;
  }

  /** A full pull, with what it no longer has among what is held. */
  async #fullChange(options: RequestOptions): Promise<MirrorChange> {
    const answer = await this.#source.list({ ...this.#scope }, options);
    const present = new Set(answer.memories.map((memory) => memory.id));
    const held = await this.storage.all();
    return {
      full: true,
      upserted: answer.memories,
      removed: held.flatMap((memory) => (present.has(memory.id) ? [] : [memory.id])),
      cursor: answer.cursor,
    };
  }
}

/** A cursor the server will not serve: 410 (older than the kept deletions) or a foreign one. */
function unservable(error: unknown): boolean {
  return (
    error instanceof MnemoError &&
    (error.status === 410 || (error.status === 400 && error.message === 'invalid cursor'))
  );
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
