import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * Vectors for semantic search, computed off the request path by the embedding indexer
 * (src/memory/embedding-indexer.ts) from whichever embedding model search is configured with:
 * - `memory_embeddings`: one vector per memory and model, the memory's `version` it was computed
 *   from (older than the memory's: stale, never ranked), the vector as little-endian float32 of
 *   unit length (empty: the provider refused the text, which is found lexically only). A
 *   memory's delete removes its vectors in its own transaction; the foreign key's cascade is
 *   there for the purge of tombstones.
 * - `memory_embedding_progress`: per store and model, the store's change counter up to which
 *   every active memory has its vector, so the indexer finds its work among the changes since
 *   (memories_scope_version) instead of across every memory.
 * Existing memories are embedded by the indexer once a model is configured: the migration needs
 * no provider.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('memory_embeddings')
    .addColumn('memory_id', 'text', (c) =>
      c.notNull().references('memories.id').onDelete('cascade'),
    )
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('memory_version', 'bigint', (c) => c.notNull())
    .addColumn('vector', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('memory_embeddings_pk', ['memory_id', 'model'])
    .execute();
  await db.schema
    .createTable('memory_embedding_progress')
    .addColumn('scope_id', 'text', (c) => c.notNull().references('scopes.id').onDelete('cascade'))
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('memory_embedding_progress_pk', ['scope_id', 'model'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('memory_embedding_progress').execute();
  await db.schema.dropTable('memory_embeddings').execute();
}
