import type { Kysely } from 'kysely';

// The tokens a reasoning model spent thinking, out of its completion tokens: recorded per call,
// so usage can say how much of a bill was reasoning. Calls recorded before have none known: 0.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('usage_records')
    .addColumn('reasoning_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('usage_records').dropColumn('reasoning_tokens').execute();
}
