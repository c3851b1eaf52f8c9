/**
 * The memory API and what it stands on: the store of each engine, folded saves, sync and the
 * change stream, search and recall, import, export and erasure of a store, proposals. This file is
 * the part's front door: what other parts may use of it. The rest of the folder is private to it.
 */
export { createChatMemory } from './chat-memory.ts';
export { createCursorCodec } from './cursor.ts';
export type { Embedder } from './embedder.ts';
export { EmbeddingRefused } from './embedder.ts';
export type { EmbeddingIndexer } from './embedding-indexer.ts';
export { createEmbeddingIndexer } from './embedding-indexer.ts';
export { parseDateTime } from './import-items.ts';
export { createListCache } from './list-cache.ts';
export { memoryFeatureOff, projectWithUser } from './memory.errors.ts';
export { createMemoryRepository, POOL_ACCESS } from './memory.repository.ts';
export { registerMemoryRoutes } from './memory.routes.ts';
export type { Category } from './memory.schemas.ts';
export {
  CATEGORIES,
  ExportStore,
  ImportResponse,
  MAX_IMPORT_ITEMS,
  MemoryItem,
} from './memory.schemas.ts';
export type { MemoryService, SemanticSearch } from './memory.service.ts';
export { createMemoryService } from './memory.service.ts';
export { createMemoryTargets } from './memory.targets.ts';
export { createMemoryEmbeddingsRepository } from './memory-embeddings.repository.ts';
export type { ErasedMemories, MemoryErasure } from './memory-erasure.ts';
export { createMemoryErasure } from './memory-erasure.ts';
export { createMemoryEvents } from './memory-events.ts';
export { createMemorySearch } from './memory-search.ts';
export { createPostgresWrites } from './memory-writes.postgres.ts';
export { createStatementWrites } from './memory-writes.ts';
export { registerOrgExportRoutes } from './org-export.routes.ts';
export { createOwnStoreReads } from './own-store-reads.ts';
export { createProposalsRepository } from './proposals.repository.ts';
export { registerProposalsRoutes } from './proposals.routes.ts';
export { createProposalsService } from './proposals.service.ts';
export { createQueryEmbedder } from './query-embedding.ts';
export { announcingWrites, createStoreChanges } from './store-changes.ts';
export { scheduleTombstonePurge } from './tombstone-retention.ts';
export { createVectorIndex } from './vector-index.ts';
