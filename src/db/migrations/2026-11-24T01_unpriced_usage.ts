import { type Kysely, PostgresAdapter, sql } from 'kysely';

// A model may have no price (a self-hosted server): the cost of its calls is not known, and is
// stored as null rather than as a made-up 0.
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await db.schema
      .alterTable('usage_records')
      .alterColumn('cost_micro_usd', (column) => column.dropNotNull())
      .execute();
    return;
  }
  // SQLite cannot drop a NOT NULL constraint: the column is replaced by a nullable copy, in one
  // transaction (SQLite's DDL is transactional; Kysely runs its migrations outside one).
  await db.transaction().execute(async (trx) => {
    await trx.schema.alterTable('usage_records').addColumn('cost_known', 'bigint').execute();
    await trx
      .updateTable('usage_records')
      .set({ cost_known: sql.ref('cost_micro_usd') })
      .execute();
    await trx.schema.alterTable('usage_records').dropColumn('cost_micro_usd').execute();
    await trx.schema
      .alterTable('usage_records')
      .renameColumn('cost_known', 'cost_micro_usd')
      .execute();
  });
}

export async function down(db: Kysely<any>): Promise<void> {
  // The earlier schema has no unknown cost: those calls count as free again.
  if (isPostgres(db)) {
    await db
      .updateTable('usage_records')
      .set({ cost_micro_usd: 0 })
      .where('cost_micro_usd', 'is', null)
      .execute();
    await db.schema
      .alterTable('usage_records')
      .alterColumn('cost_micro_usd', (column) => column.setNotNull())
      .execute();
    return;
  }
  await db.transaction().execute(async (trx) => {
    await trx.schema
      .alterTable('usage_records')
      .addColumn('cost_known', 'bigint', (column) => column.notNull().defaultTo(0))
      .execute();
    await trx
      .updateTable('usage_records')
      .set({ cost_known: sql`coalesce(${sql.ref('cost_micro_usd')}, 0)` })
      .execute();
    await trx.schema.alterTable('usage_records').dropColumn('cost_micro_usd').execute();
    await trx.schema
      .alterTable('usage_records')
      .renameColumn('cost_known', 'cost_micro_usd')
      .execute();
  });
}

function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
