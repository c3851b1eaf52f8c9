import { type MemoryEvent, readMemoryEvents } from './events.ts';
import { jsonLines } from './json-lines.ts';
import { MemoryMirror, type MirrorOptions } from './mirror.ts';
import type { RequestOptions, Transport } from './transport.ts';
import type {
  AddInput,
  AddResult,
  EraseQuery,
  EraseResponse,
  EventsQuery,
  ExportQuery,
  FoldedMemory,
  ImportInput,
  ImportResponse,
  ListQuery,
  ListResponse,
  MemoryItem,
  SearchQuery,
  SearchResponse,
  UpdateInput,
  UserOption,
} from './types.ts';

const BASE = '/api/v1/memory';

/**
 * Every memory of a store, read from one snapshot: iterate it for the memories; `cursor` is that
 * snapshot's, so `list({ since: cursor })` answers every change made after it.
 */
export interface MemoryExport extends AsyncIterable<MemoryItem> {
  readonly cursor: string;
}

/**
 * The memory API (`/api/v1/memory`). Acting for another member takes `user`, a project's pool
 * takes `project`: in the query of a read, a change or a delete, in the body of an add or an
 * import, as the API takes them; the client puts each where it goes.
 */
export class Memories {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Every active memory of the store, or with `since` (a cursor of an earlier answer) what
   * changed after it and the ids deleted since, in `deleted`. Store `cursor` for the next pull.
   */
  async list(query: ListQuery = {}, options: RequestOptions = {}): Promise<ListResponse> {
    const response = await this.#transport.send({
      method: 'GET',
      path: BASE,
      query,
      signal: options.signal,
    });
    return (await response.json()) as ListResponse;
  }

  /** One memory; a MnemoError 404 for one that does not exist or may not be seen. */
  async get(id: string, query: UserOption = {}, options: RequestOptions = {}): Promise<MemoryItem> {
    const response = await this.#transport.send({
      method: 'GET',
      path: `${BASE}/${encodeURIComponent(id)}`,
      query,
      signal: options.signal,
    });
    return ((await response.json()) as { memory: MemoryItem }).memory;
  }

  /**
   * Adds a memory. An add equal to an active memory of the store (once normalized) is folded
   * into it: `{ created: false, memory: { id, content } }`, and nothing new is stored.
   *
   * @example
   * const added = await mnemo.memories.add({ content: 'Prefers tea', category: 'preference' });
   * if (added.created) console.log(added.memory.createdAt);
   */
  async add(input: AddInput, options: RequestOptions = {}): Promise<AddResult> {
    const response = await this.#transport.send({
      method: 'POST',
      path: BASE,
      body: input,
      signal: options.signal,
    });
    if (response.status === 201) {
      return { created: true, memory: ((await response.json()) as { memory: MemoryItem }).memory };
    }
    return { created: false, memory: ((await response.json()) as { memory: FoldedMemory }).memory };
  }

  /** Changes a memory's content, category (`null` removes it) or both; the memory as it is now. */
  async update(
    id: string,
    patch: UpdateInput,
    query: UserOption = {},
    options: RequestOptions = {},
  ): Promise<MemoryItem> {
    const response = await this.#transport.send({
      method: 'PATCH',
      path: `${BASE}/${encodeURIComponent(id)}`,
      query,
      body: patch,
      signal: options.signal,
    });
    return ((await response.json()) as { memory: MemoryItem }).memory;
  }

  /** Deletes a memory; deleting it again succeeds as well. */
  async delete(id: string, query: UserOption = {}, options: RequestOptions = {}): Promise<void> {
    const response = await this.#transport.send({
      method: 'DELETE',
      path: `${BASE}/${encodeURIComponent(id)}`,
      query,
      signal: options.signal,
    });
    await response.body?.cancel();
  }

  /** The active memories that match `q`, best first, each with its `score`. */
  async search(query: SearchQuery, options: RequestOptions = {}): Promise<SearchResponse> {
    const response = await this.#transport.send({
      method: 'GET',
      path: `${BASE}/search`,
      query,
      signal: options.signal,
    });
    return (await response.json()) as SearchResponse;
  }

  /**
   * Adds up to 1,000 memories in one write, each as an add; an invalid item is answered
   * `invalid` with its error and the others are still added.
   */
  async import(input: ImportInput, options: RequestOptions = {}): Promise<ImportResponse> {
    const response = await this.#transport.send({
      method: 'POST',
      path: `${BASE}/import`,
      body: input,
      signal: options.signal,
    });
    return (await response.json()) as ImportResponse;
  }

  /**
   * Every memory of the store, streamed from one snapshot as it is read.
   *
   * @example
   * const exported = await mnemo.memories.export();
   * for await (const memory of exported) save(memory);
   * const next = await mnemo.memories.list({ since: exported.cursor });
   */
  async export(query: ExportQuery = {}, options: RequestOptions = {}): Promise<MemoryExport> {
    const response = await this.#transport.send({
      method: 'GET',
      path: `${BASE}/export`,
      query,
      signal: options.signal,
    });
    const cursor = response.headers.get('mnemo-cursor');
    const body = response.body;
    if (cursor === null || body === null) {
      await body?.cancel();
      throw new TypeError('the export answered without its Mnemo-Cursor header or a body');
    }
    let taken = false;
    return {
      cursor,
      [Symbol.asyncIterator]() {
        // The body can be read once: a second iteration would silently yield nothing.
        if (taken) throw new TypeError('an export can be iterated once');
        taken = true;
        return jsonLines<MemoryItem>(body);
      },
    };
  }

  /**
   * The store's changes as they happen (`GET /api/v1/memory/events`): without `since`, every
   * memory first, then each change; from `since` (or `lastEventId`, a cursor of an event
   * received before, which wins), what changed after it. A refusal — a cursor the server no
   * longer serves (410), the store's rules — is thrown before the first event. Iterate it; stop
   * (or abort `signal`) to close it.
   *
   * @example
   * for await (const event of await mnemo.memories.events({ since: cursor })) {
   *   if (event.type === 'change') show(event.memory);
   * }
   */
  async events(
    query: EventsQuery = {},
    options: RequestOptions & { readonly lastEventId?: string } = {},
  ): Promise<AsyncIterable<MemoryEvent>> {
    const response = await this.#transport.send({
      method: 'GET',
      path: `${BASE}/events`,
      query,
      signal: options.signal,
      headers: {
        accept: 'text/event-stream',
        ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }),
      },
    });
    const body = response.body;
    if (body === null) throw new TypeError('the change stream answered without a body');
    return readMemoryEvents(body);
  }

  /**
   * A local copy of the store (the caller's, a member's with `user`, a pool's with `project`),
   * kept equal to the server by incremental sync: see MemoryMirror.
   */
  mirror(options: MirrorOptions = {}): MemoryMirror {
    return new MemoryMirror(this, options);
  }

  /** Deletes every memory of the store, or of one `category`; how many were deleted. */
  async erase(query: EraseQuery = {}, options: RequestOptions = {}): Promise<EraseResponse> {
    const response = await this.#transport.send({
      method: 'DELETE',
      path: BASE,
      query,
      signal: options.signal,
    });
    return (await response.json()) as EraseResponse;
  }
}
