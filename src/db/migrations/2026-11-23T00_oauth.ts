import { type Kysely, sql } from 'kysely';

// The authorization server's state, shared by every process: clients registered by operators,
// oidc-provider's records (sessions, grants, codes, refresh and device codes), and how long each
// signing key must stay published.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('public', 'confidential')`))
    .addColumn('secret_hash', 'text')
    // JSON arrays of strings.
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('grant_types', 'text', (c) => c.notNull())
    .addColumn('service_user_id', 'text', (c) => c.references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oauth_records')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('user_code', 'text')
    .addColumn('uid', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('consumed_at', 'bigint')
    .addPrimaryKeyConstraint('oauth_records_pk', ['model', 'id'])
    .execute();
  await db.schema
    .createIndex('oauth_records_grant')
    .on('oauth_records')
    .column('grant_id')
    .where(sql.ref('grant_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('oauth_records_user_code')
    .on('oauth_records')
    .columns(['model', 'user_code'])
    .where(sql.ref('user_code'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('oauth_records_uid')
    .on('oauth_records')
    .columns(['model', 'uid'])
    .where(sql.ref('uid'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('oauth_records_expiry')
    .on('oauth_records')
    .column('expires_at')
    .where(sql.ref('expires_at'), 'is not', null)
    .execute();

  // The latest expiry of any token the key may have signed: a key that no longer signs stays
  // published and trusted until then. 0: it has signed nothing yet.
  await db.schema
    .alterTable('signing_keys')
    .addColumn('expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  // Keys of an older store may have signed credentials of up to a year (`mnemo token --ttl`).
  await db
    .updateTable('signing_keys')
    .set({ expires_at: Date.now() + 365 * 24 * 3600 * 1000 })
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('signing_keys').dropColumn('expires_at').execute();
  await db.schema.dropTable('oauth_records').execute();
  await db.schema.dropTable('oauth_clients').execute();
}
