import type { LanguageModelMiddleware } from 'ai';
import type { SearchResponse } from '../types.ts';
import {
  type CallOptions,
  interleave,
  memoryBlock,
  RECALL_LIMIT,
  RECALL_TOKENS,
  type RecalledMemory,
  recallQuery,
  withinBudget,
  withMemoryMessage,
} from './prompt.ts';
import { bindStore, type MemoryStoreOptions, type StoreTarget } from './store.ts';

export interface MemoryMiddlewareOptions extends MemoryStoreOptions {
  /** The best matches searched for, of each store: 1 to 100, 30 by default (as the gateway). */
  readonly limit?: number;
  /**
   * The most tokens of memory lines a prompt is given, each line counted as its characters / 4,
   * rounded up, plus one: 1,000 by default (the gateway's MNEMO_MEMORY_RECALL_TOKENS).
   */
  readonly recallTokens?: number;
}

/**
 * A language model middleware that recalls memories into every call, as mnemo's `/v1` chat
 * gateway does with `x-mnemo-memory: read` (docs/memory-chat.md): it searches the store with the
 * latest three user turns (their last 500 characters), keeps the best matches that fit the
 * budget, and puts them in a system message of its own, after the call's leading system
 * messages and before the conversation, in the gateway's exact words and format. Nothing is
 * added when nothing matches, or when the prompt has no user text.
 *
 * With `project`, the caller's own memories and the pool's are searched, each on its own, and
 * taken in turns; the pool's lines are marked `[shared]`. With `user` or `endUser`, that
 * person's memories alone.
 *
 * A failed search fails the call, before the model is called: the gateway refuses a call whose
 * memory it cannot read (a pool the key's owner may not read: 403; memory switched off: 404)
 * rather than answer without it, and so does the middleware. The MnemoError (or the fetch
 * error) is what `generateText` throws and what `streamText` reports as its error.
 *
 * Unlike the gateway, the middleware always searches: it does not recall a small store whole,
 * and learns nothing (give the model `memoryTools` to save memories).
 *
 * @example
 * const model = wrapLanguageModel({
 *   model: openai('gpt-4.1'),
 *   middleware: memoryMiddleware({ mnemo, endUser: customer.id }),
 * });
 */
export function memoryMiddleware(options: MemoryMiddlewareOptions): LanguageModelMiddleware {
  const store = bindStore(options, 'memoryMiddleware');
  const limit = options.limit ?? RECALL_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new TypeError('memoryMiddleware: limit must be an integer from 1 to 100');
  }
  const budget = options.recallTokens ?? RECALL_TOKENS;
  if (!Number.isInteger(budget) || budget < 0) {
    throw new TypeError('memoryMiddleware: recallTokens must be an integer of 0 or more');
  }
  const { memories } = options.mnemo;

  async function search(
    q: string,
    target: StoreTarget,
    signal: AbortSignal | undefined,
  ): Promise<SearchResponse['memories']> {
    const found = await memories.search(
      { q, limit, ...target },
      signal === undefined ? {} : { signal },
    );
    return found.memories;
  }

  async function recall(query: string, signal: AbortSignal | undefined) {
    const recalled = (items: SearchResponse['memories'], from: RecalledMemory['store']) =>
      items.map(
        ({ id, content, category }): RecalledMemory => ({
          id,
          content,
          category: category ?? null,
          store: from,
        }),
      );
    const target = await store.target();
    if (store.kind !== 'project') return recalled(await search(query, target, signal), 'user');
    // The gateway's stores for a call with a pool: the caller's own and the pool, in turns.
    const [own, pool] = await Promise.all([
      search(query, {}, signal),
      search(query, target, signal),
    ]);
    return interleave([recalled(own, 'user'), recalled(pool, 'project')]);
  }

  return {
    specificationVersion: 'v4',
    async transformParams({ params }): Promise<CallOptions> {
      const query = recallQuery(params.prompt);
      if (!/\S/u.test(query)) return params;
      const kept = withinBudget(await recall(query, params.abortSignal), budget);
      if (kept.length === 0) return params;
      const block = memoryBlock(kept.map((one) => one.line));
      return { ...params, prompt: withMemoryMessage(params.prompt, block) };
    },
  };
}
