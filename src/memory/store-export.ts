import { Readable } from 'node:stream';
import type { Database, Snapshot } from '../db/database.ts';
import { ApiError } from '../platform/errors.ts';
import type { MemoryRepository, ScopeState } from './memory.repository.ts';
import type { ExportStore } from './memory.schemas.ts';
import { toMemoryItem } from './memory-item.ts';

/** Memories read (and lines written) at a time: the most an export holds in memory. */
const PAGE = 1000;
/** Stores of an organization read at a time. */
const STORES_PAGE = 500;
/**
 * Exports one process runs at once. Each holds a snapshot for as long as its client takes the
 * lines: on PostgreSQL a connection of the pool, which other requests need too.
 */
const MAX_OPEN = 4;

const exportsBusy = () =>
  new ApiError(503, 'exports_busy', 'too many exports are running; try again shortly', {
    headers: { 'retry-after': '1' },
  });

/**
 * Memories streamed as JSON lines, each read from one snapshot (Database.openSnapshot): what a
 * client receives is the state of one moment, however long it takes to read, and memory use
 * does not grow with the store (a page of memories at a time, written as the client takes them).
 */
export function createStoreExport(deps: {
  readonly database: Pick<Database, 'openSnapshot'>;
  readonly repository: MemoryRepository;
}) {
  const { repository: repo } = deps;
  let open = 0;

  /**
   * The snapshot, given to `start` (which reads what the answer's headers need) and then to
   * `lines`; closed when the stream ends or is abandoned, or when `start` fails.
   */
  async function streamed<T>(
    start: (snapshot: Snapshot) => Promise<T>,
    lines: (snapshot: Snapshot, started: T) => AsyncIterable<string>,
  ): Promise<{ started: T; stream: Readable }> {
    if (open >= MAX_OPEN) throw exportsBusy();
    open += 1;
    let snapshot: Snapshot;
    try {
      snapshot = await deps.database.openSnapshot();
    } catch (error) {
      open -= 1;
      throw error;
    }
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      open -= 1;
      // A close that fails (the connection already gone) has nothing left to release.
      snapshot.close().catch(() => undefined);
    };
    try {
      const started = await start(snapshot);
      // Not objectMode: the lines are bytes to send, buffered up to the usual high-water mark.
      const stream = Readable.from(lines(snapshot, started), { objectMode: false });
      stream.once('close', close);
      return { started, stream };
    } catch (error) {
      close();
      throw error;
    }
  }

  /** The store's active memories, a page at a time, in commit order. */
  async function* pagesOf(snapshot: Snapshot, scopeId: string) {
    let after = 0;
    for (;;) {
      const rows = await repo.activeAfter(snapshot.reader, scopeId, after, PAGE);
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1]?.version ?? after;
    }
  }

  return {
    /**
     * One store's active memories, one MemoryItem a line. `start` reads the store's state in the
     * snapshot (its counter makes the export's cursor) before anything is sent.
     */
    store: (start: (snapshot: Snapshot) => Promise<ScopeState | undefined>) =>
      streamed(start, async function* (snapshot, state) {
        if (!state) return;
        for await (const rows of pagesOf(snapshot, state.id)) {
          let chunk = '';
          for (const row of rows) chunk += `${JSON.stringify(toMemoryItem(row))}\n`;
          yield chunk;
        }
      }),

    /** Every store of the organization: one `{"store", "memory"}` a line, store by store. */
    organization: (orgId: string, start: (snapshot: Snapshot) => Promise<void>) =>
      streamed(start, async function* (snapshot) {
        let after = '';
        for (;;) {
          const stores = await repo.storesAfter(snapshot.reader, orgId, after, STORES_PAGE);
          for (const store of stores) {
            const prefix = `{"store":${JSON.stringify(storeOf(store))},"memory":`;
            for await (const rows of pagesOf(snapshot, store.id)) {
              let chunk = '';
              for (const row of rows) chunk += `${prefix}${JSON.stringify(toMemoryItem(row))}}\n`;
              yield chunk;
            }
          }
          if (stores.length < STORES_PAGE) return;
          after = stores[stores.length - 1]?.id ?? after;
        }
      }),
  };
}

/** How a line of an organization's export names its store. */
function storeOf(store: {
  kind: 'user' | 'project';
  owner_id: string;
  external_id: string | null;
}): ExportStore {
  if (store.kind === 'project') return { project: store.owner_id };
  return store.external_id === null
    ? { user: store.owner_id }
    : { user: store.owner_id, endUser: store.external_id };
}

export type StoreExport = ReturnType<typeof createStoreExport>;
