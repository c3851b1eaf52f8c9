import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { type Migration, type MigrationResultSet, Migrator } from 'kysely/migration';
import * as initial from './migrations/2026-11-22T00_initial.ts';
import * as oauth from './migrations/2026-11-23T00_oauth.ts';
import * as platform from './migrations/2026-11-24T00_platform.ts';
import * as unpricedUsage from './migrations/2026-11-24T01_unpriced_usage.ts';
import * as reasoningTokens from './migrations/2026-11-24T02_reasoning_tokens.ts';
import * as memorySearch from './migrations/2026-11-24T03_memory_search.ts';
import * as memoryEmbeddings from './migrations/2026-11-24T04_memory_embeddings.ts';
import * as oauthConnections from './migrations/2026-11-24T05_oauth_connections.ts';
import * as memoryChat from './migrations/2026-11-25T00_memory_chat.ts';
import * as searchByStore from './migrations/2026-11-25T01_search_by_store.ts';
import * as memoryWrites from './migrations/2026-11-25T02_memory_writes.ts';
import * as memoryUpdateBatches from './migrations/2026-11-25T03_memory_update_batches.ts';
import * as people from './migrations/2026-11-28T00_people.ts';
import * as searchAnalysis from './migrations/2026-11-28T01_search_analysis.ts';
import * as searchWords from './migrations/2026-11-28T02_search_words.ts';
import * as webhooks from './migrations/2026-12-01T00_webhooks.ts';

/** Every migration, in order. Listed by hand so the graph is readable and nothing is autoloaded. */
const migrations: Record<string, Migration> = {
  '2026-11-22T00_initial': initial,
  '2026-11-23T00_oauth': oauth,
  '2026-11-24T00_platform': platform,
  '2026-11-24T01_unpriced_usage': unpricedUsage,
  '2026-11-24T02_reasoning_tokens': reasoningTokens,
  '2026-11-24T03_memory_search': memorySearch,
  '2026-11-24T04_memory_embeddings': memoryEmbeddings,
  '2026-11-24T05_oauth_connections': oauthConnections,
  '2026-11-25T00_memory_chat': memoryChat,
  '2026-11-25T01_search_by_store': searchByStore,
  '2026-11-25T02_memory_writes': memoryWrites,
  '2026-11-25T03_memory_update_batches': memoryUpdateBatches,
  '2026-11-28T00_people': people,
  '2026-11-28T01_search_analysis': searchAnalysis,
  '2026-11-28T02_search_words': searchWords,
  '2026-12-01T00_webhooks': webhooks,
};

export class UnknownSchemaError extends Error {
  override readonly name = 'UnknownSchemaError';
}

/**
 * Where the migration table lives: on PostgreSQL the connection's current schema, named, since
 * Kysely otherwise takes a `kysely_migration` table in any schema of the database for its own.
 * Undefined on SQLite, which has one schema.
 */
async function migrationSchema(db: Kysely<any>): Promise<string | undefined> {
  if (!isPostgres(db)) return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('the connection has no current schema: check its search_path');
  return schema;
}

function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

async function createMigrator(db: Kysely<any>): Promise<Migrator> {
  const schema = await migrationSchema(db);
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
}

/**
 * Brings the schema up to date. Refuses a store that has migrations this build does not know:
 * it was written by a newer mnemo, and running older code on it could corrupt it.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = await createMigrator(db);
  const known = new Set(Object.keys(migrations));
  const unknown = (await appliedNames(db, await migrationSchema(db))).filter(
    (name) => !known.has(name),
  );
  if (unknown.length > 0) {
    throw new UnknownSchemaError(
      `the database schema is newer than this mnemo (unknown migrations: ${unknown.join(', ')}); upgrade mnemo`,
    );
  }
  return applied(await migrator.migrateToLatest());
}

export async function migrateDown(db: Kysely<any>): Promise<string[]> {
  return applied(await (await createMigrator(db)).migrateDown());
}

async function appliedNames(db: Kysely<any>, schema: string | undefined): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  const exists = tables.some(
    (t) => t.name === 'kysely_migration' && (schema === undefined || t.schema === schema),
  );
  if (!exists) return [];
  const table = schema === undefined ? 'kysely_migration' : `${schema}.kysely_migration`;
  const rows = await db.selectFrom(table).select('name').execute();
  return rows.map((r: { name: string }) => r.name);
}

function applied({ error, results }: MigrationResultSet): string[] {
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
