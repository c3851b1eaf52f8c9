import type { Kysely } from 'kysely';

// The platform API: API keys for the chat interface, one usage row per call of it, and details
// on audit entries (what changed, beside who did it to whom).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('project_id', 'text', (c) => c.references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    // The first characters of the secret, shown in lists to tell keys apart.
    .addColumn('prefix', 'text', (c) => c.notNull())
    // SHA-256 of the whole secret, base64url: the only form of it that is stored.
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('api_keys_org_user')
    .on('api_keys')
    .columns(['org_id', 'user_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('usage_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    // The model that answered (for the router, the one it chose) and its provider.
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('prompt_tokens', 'bigint', (c) => c.notNull())
    .addColumn('completion_tokens', 'bigint', (c) => c.notNull())
    .addColumn('total_tokens', 'bigint', (c) => c.notNull())
    // Millionths of a US dollar, an integer: sums are exact on both engines.
    .addColumn('cost_micro_usd', 'bigint', (c) => c.notNull())
    .addColumn('latency_ms', 'bigint', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('usage_records_org_at')
    .on('usage_records')
    .columns(['org_id', 'at'])
    .execute();

  await db.schema.alterTable('audit_log').addColumn('details', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_log').dropColumn('details').execute();
  await db.schema.dropTable('usage_records').execute();
  await db.schema.dropTable('api_keys').execute();
}
