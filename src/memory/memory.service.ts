import { createMemoryReadsService } from './memory-reads.service.ts';
import { createMemorySearchService } from './memory-search.service.ts';
import { createMemoryServiceContext, type MemoryServiceDeps } from './memory-service-context.ts';
import { createMemoryWritesService } from './memory-writes.service.ts';

/** What the caller's own read hands back for the routes to keep (memberReading). */
export type { ReachableMemory, ScopeState } from './memory.repository.ts';
export type { RecalledMemory } from './memory-search.service.ts';
export type { MemoryServiceDeps, SemanticSearch } from './memory-service-context.ts';
export type { AddOutcome } from './memory-writes.service.ts';

/**
 * The memory service: the reads and sync (memory-reads.service.ts), the writes
 * (memory-writes.service.ts), search and recall (memory-search.service.ts), as one object.
 */
export function createMemoryService(deps: MemoryServiceDeps) {
  const shared = createMemoryServiceContext(deps);
  return {
    ...createMemoryReadsService(shared),
    ...createMemorySearchService(shared),
    ...createMemoryWritesService(shared),
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;
