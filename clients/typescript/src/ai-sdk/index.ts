/**
 * `@mnemo/client/ai-sdk`: mnemo's memory for the Vercel AI SDK (the `ai` package, a peer
 * dependency of this entry only; `@mnemo/client` itself imports nothing).
 *
 * - `memoryTools`: `search_memories` and `add_memory`, tools a model calls on one store.
 * - `memoryMiddleware`: recalls the store's memories into every call's prompt, as mnemo's `/v1`
 *   chat gateway does.
 */
export {
  type MemoryMiddlewareOptions,
  memoryMiddleware,
} from './middleware.ts';
export type { MemoryStoreOptions, MnemoClient } from './store.ts';
export {
  type AddMemoryInput,
  type AddMemoryOutput,
  type FoundMemory,
  type MemoryTools,
  type MemoryToolsOptions,
  memoryTools,
  type SearchMemoriesInput,
  type SearchMemoriesOutput,
} from './tools.ts';
