import type { Kysely } from 'kysely';

// Memory in chat calls (docs/memory-chat.md). Each API key says what a call does without the
// `x-mnemo-memory` header (`memory`) and the most any call with it may do (`memory_access`);
// keys made before keep their behaviour: no memory unless a call asks, which they may.
// Usage tells a chat call from the extraction call that learns from it. Proposals are what an
// extraction found while extraction waits for review (MNEMO_MEMORY_EXTRACTION=review).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('memory', 'text', (column) => column.notNull().defaultTo('off'))
    .execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('memory_access', 'text', (column) => column.notNull().defaultTo('read-write'))
    .execute();
  await db.schema
    .alterTable('usage_records')
    .addColumn('kind', 'text', (column) => column.notNull().defaultTo('chat'))
    .execute();

  await db.schema
    .createTable('memory_proposals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    // Whose memories: the key's owner, the only one who sees and decides.
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('key_id', 'text', (c) => c.notNull())
    // The project pool it would go to; null for the user's own store.
    .addColumn('project_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    // The memory an `update` would change.
    .addColumn('memory_id', 'text')
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('category', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('memory_proposals_owner')
    .on('memory_proposals')
    .columns(['org_id', 'user_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('memory_proposals').execute();
  await db.schema.alterTable('usage_records').dropColumn('kind').execute();
  await db.schema.alterTable('api_keys').dropColumn('memory_access').execute();
  await db.schema.alterTable('api_keys').dropColumn('memory').execute();
}
