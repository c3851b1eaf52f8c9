import { recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import { ApiError } from '../platform/errors.ts';
import type { Caller } from '../tenancy/index.ts';
import { type CursorCodec, type CursorScope, expiredCursor } from './cursor.ts';
import type { MemoryRepository } from './memory.repository.ts';
import type { ListQuery } from './memory.schemas.ts';
import type { MemoryTargets, Target } from './memory.targets.ts';
import { toMemoryItem } from './memory-item.ts';
import type { StoreChanges } from './store-changes.ts';

/**
 * The change stream of one store (`GET /api/v1/memory/events`, docs/design.md §3.8): the
 * incremental sync procedure, pushed. Its events are the pull's answers cut per memory, each
 * with the cursor of its own version, so a client that applies them in order holds what a pull
 * at that cursor gives, wherever the stream was cut:
 *
 * - without a cursor, first every active memory that the store's counter covered when the
 *   stream opened (`change`), in commit order, then what changed after;
 * - from a cursor, every change after it: `change` with the memory, `delete` with its id;
 * - after each batch, `sync` with the cursor of everything read: the client is up to date.
 *
 * The stream reads the store when a write says it changed (store-changes.ts), and also with
 * every ping, so a wake-up that was lost delays a change, never loses it. The caller is judged
 * again on every wake-up and at least every minute; when refused, the stream says why in an
 * `error` event and ends, and the client's next request gets the refusal as the API gives it.
 */
export interface MemoryEventsDeps {
  readonly database: Pick<Database, 'reader' | 'durable' | 'write'>;
  readonly repository: MemoryRepository;
  readonly targets: MemoryTargets;
  readonly cursors: CursorCodec;
  readonly changes: StoreChanges;
  /**
   * Between pings (and looks at the store): 20 s at most, each wait a quarter shorter at random,
   * so that streams opened together (a thousand clients reconnecting after a restart) do not
   * ping and read the store in step.
   */
  readonly pingMs?: number;
  /** The longest between two judgements of the caller: 50 s. */
  readonly recheckMs?: number;
  /** Memories read at a time. */
  readonly pageSize?: number;
}

/** Judges the caller again, as a request is judged: the credential, the account, the switch. */
export type Recheck = () => Promise<Caller>;

export interface OpenedStream {
  /** The events as the text of the stream, ending when the caller is refused or `signal` ends. */
  readonly events: AsyncGenerator<string, void, undefined>;
}

const PING_MS = 20_000;
/** The part of a ping's wait taken off at random. */
const PING_JITTER = 0.25;
const RECHECK_MS = 50_000;
const PAGE_SIZE = 500;

/** One event of the stream (the SSE format: its data is one line of JSON). */
const event = (name: string, id: string, data: unknown) =>
  `id: ${id}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

export function createMemoryEvents(deps: MemoryEventsDeps) {
  const { database, repository: repo, targets, cursors, changes } = deps;
  const { reader } = database;
  const pingMs = deps.pingMs ?? PING_MS;
  const recheckMs = deps.recheckMs ?? RECHECK_MS;
  const pageSize = deps.pageSize ?? PAGE_SIZE;
  const nextPingAt = () => Date.now() + pingMs * (1 - PING_JITTER * Math.random());

  /** A stream of another member's store is recorded once, when it opens, as their list is. */
  async function audited(caller: Caller, target: Target): Promise<void> {
    if (!target.overridden) return;
    await database.write((trx) =>
      recordAudit(trx, {
        orgId: caller.orgId,
        actorId: caller.userId,
        targetId: target.userId,
        action: 'list',
      }),
    );
  }

  /** Where a stream is: the version after which it has sent nothing, and how it got there. */
  interface Position {
    version: number;
    /** Still sending the active memories, up to `upTo`, of a stream opened without a cursor. */
    full: { readonly upTo: number } | undefined;
  }

  /**
   * The next page of events after `position`, which it advances; `done` when the store has
   * nothing more now. Refuses (410) a position older than the store's purged tombstones.
   */
  async function page(
    scope: CursorScope,
    scopeId: string,
    position: Position,
  ): Promise<{ text: string; done: boolean }> {
    if (position.full) {
      const { upTo } = position.full;
      const rows = await repo.activeAfter(reader, scopeId, position.version, pageSize);
      const covered = rows.filter((row) => row.version <= upTo);
      let text = '';
      for (const row of covered) {
        text += event('change', cursors.encode(scope, row.version), toMemoryItem(row));
      }
      if (covered.length === rows.length && rows.length === pageSize) {
        position.version = covered.at(-1)?.version ?? position.version;
        return { text, done: false };
      }
      // Every active memory the counter covered is sent: changes after it come as a pull's.
      position.version = upTo;
      position.full = undefined;
      return { text, done: false };
    }
    const found = await repo.changesAfter(reader, scopeId, position.version, pageSize);
    if (!found) return { text: '', done: true };
    if (position.version < found.purgedVersion) throw expiredCursor();
    let text = '';
    for (const row of found.changed) {
      const id = cursors.encode(scope, row.version);
      text +=
        row.deleted_at === null
          ? event('change', id, toMemoryItem(row))
          : event('delete', id, { id: row.id });
      position.version = row.version;
    }
    if (found.changed.length === pageSize) return { text, done: false };
    // Read with the rows in one snapshot: every change up to the counter has been sent.
    position.version = Math.max(position.version, found.scopeVersion);
    return { text, done: true };
  }

  return {
    /**
     * Opens a stream of `query`'s store (as the list chooses it) from `cursor` (`since`, or the
     * `Last-Event-ID` of a reconnection). Every refusal a pull would give — the store, the
     * cursor (400, or 410) — is thrown here, before anything is sent.
     */
    async open(
      caller: Caller,
      query: ListQuery,
      cursor: string | undefined,
      recheck: Recheck,
      signal: AbortSignal,
    ): Promise<OpenedStream> {
      const { scope, target } = await targets.forList(caller, query);
      const since = cursor === undefined ? undefined : cursors.decode(scope, cursor);
      let woken = false;
      let wake: () => void = () => {};
      // Watching before the first read: a write committed after it is seen by the read or wakes it.
      const unwatch = await changes.watch(scope, () => {
        woken = true;
        wake();
      });
      try {
        const state = await repo.readScope(reader, scope);
        const version = state?.version ?? 0;
        if (since !== undefined && (since > version || since < (state?.purgedVersion ?? 0))) {
          throw expiredCursor();
        }
        const position: Position =
          since === undefined
            ? { version: 0, full: { upTo: version } }
            : { version: since, full: undefined };
        let scopeId = state?.id;
        // The first page is read now, so that a refusal is the answer, not an event.
        const first = scopeId === undefined ? undefined : await page(scope, scopeId, position);
        await audited(caller, target);
        return { events: follow(first) };

        async function* follow(
          firstPage: { text: string; done: boolean } | undefined,
        ): AsyncGenerator<string, void, undefined> {
          let checkedAt = Date.now();
          let pingAt = nextPingAt();
          try {
            let pending = firstPage;
            // Until the store has nothing more: each page, then `sync` with where it ends.
            const drain = async function* () {
              for (;;) {
                if (scopeId === undefined) {
                  scopeId = (await repo.readScope(reader, scope))?.id;
                  if (scopeId === undefined) break;
                }
                const next = pending ?? (await page(scope, scopeId, position));
                pending = undefined;
                if (next.text !== '') {
                  // Nothing is sent of a commit that a power cut could still take back.
                  await database.durable();
                  yield next.text;
                }
                if (next.done) break;
              }
              yield event('sync', cursors.encode(scope, position.version), {
                cursor: cursors.encode(scope, position.version),
              });
            };
            yield* drain();
            while (!signal.aborted) {
              await new Promise<void>((resolve) => {
                if (woken || signal.aborted) return resolve();
                // Each wait takes its listener off again: a stream waits many times.
                const done = () => {
                  clearTimeout(timer);
                  signal.removeEventListener('abort', done);
                  wake = () => {};
                  resolve();
                };
                const timer = setTimeout(done, Math.max(0, pingAt - Date.now()));
                wake = done;
                signal.addEventListener('abort', done, { once: true });
              });
              if (signal.aborted) return;
              const looked = woken;
              woken = false;
              if (looked || Date.now() - checkedAt >= recheckMs) {
                const refusal = await judged(recheck, query);
                if (refusal) {
                  yield event('error', cursors.encode(scope, position.version), refusal);
                  return;
                }
                checkedAt = Date.now();
              }
              const pinging = Date.now() >= pingAt;
              if (pinging) {
                pingAt = nextPingAt();
                yield ': ping\n\n';
              }
              // A ping also looks: a wake-up that was lost is found then.
              if (looked || pinging) {
                const before = position.version;
                let text = '';
                for await (const chunk of drain()) text += chunk;
                if (position.version !== before) yield text;
              }
            }
          } catch (error) {
            if (error instanceof ApiError) {
              yield event('error', cursors.encode(scope, position.version), {
                error: error.message,
                status: error.status,
              });
              return;
            }
            throw error;
          } finally {
            unwatch();
          }
        }
      } catch (error) {
        unwatch();
        throw error;
      }

      /** The caller judged again, and their access to the store: the refusal, if any. */
      async function judged(
        again: Recheck,
        asked: ListQuery,
      ): Promise<{ error: string; status: number } | undefined> {
        try {
          await targets.forList(await again(), asked);
          return undefined;
        } catch (error) {
          if (error instanceof ApiError) return { error: error.message, status: error.status };
          throw error;
        }
      }
    },
  };
}

export type MemoryEvents = ReturnType<typeof createMemoryEvents>;
