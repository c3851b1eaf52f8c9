import type { Kysely } from 'kysely';
import { type Migration, type MigrationResultSet, Migrator } from 'kysely/migration';
import * as initial from './migrations/2026-11-22T00_initial.ts';

/** Every migration, in order. Listed by hand so the graph is readable and nothing is autoloaded. */
const migrations: Record<string, Migration> = {
  '2026-11-22T00_initial': initial,
};

export class UnknownSchemaError extends Error {
  override readonly name = 'UnknownSchemaError';
}

function createMigrator(db: Kysely<any>): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
}

/**
 * Brings the schema up to date. Refuses a store that has migrations this build does not know:
 * it was written by a newer mnemo, and running older code on it could corrupt it.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = createMigrator(db);
  const known = new Set(Object.keys(migrations));
  const unknown = (await appliedNames(db)).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new UnknownSchemaError(
      `the database schema is newer than this mnemo (unknown migrations: ${unknown.join(', ')}); upgrade mnemo`,
    );
  }
  return applied(await migrator.migrateToLatest());
}

export async function migrateDown(db: Kysely<any>): Promise<string[]> {
  return applied(await createMigrator(db).migrateDown());
}

async function appliedNames(db: Kysely<any>): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === 'kysely_migration')) return [];
  const rows = await db.selectFrom('kysely_migration').select('name').execute();
  return rows.map((r: { name: string }) => r.name);
}

function applied({ error, results }: MigrationResultSet): string[] {
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
