import { type Kysely, sql } from 'kysely';

// Portable across SQLite and PostgreSQL: text ids, bigint milliseconds, no engine-specific types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('active', 'suspended', 'banned')`),
    )
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('memory_enabled', 'integer')
    .addColumn('user_override', 'text', (c) =>
      c.notNull().check(sql`user_override in ('members', 'admins')`),
    )
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('memberships')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['org_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_user').on('memberships').column('user_id').execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('projects_org').on('projects').column('org_id').execute();

  await db.schema
    .createTable('project_access')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('access', 'text', (c) =>
      c.notNull().check(sql`access in ('viewer', 'editor', 'owner')`),
    )
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('project_access_pk', ['project_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('scopes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('user', 'project')`))
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('purged_version', 'bigint', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('scopes_owner', ['org_id', 'kind', 'owner_id'])
    .execute();

  await db.schema
    .createTable('memories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scope_id', 'text', (c) => c.notNull().references('scopes.id'))
    .addColumn('contributor_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('fold_key', 'text', (c) => c.notNull())
    .addColumn('category', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  // Incremental pulls read a scope's rows above a version; the full list reads its active rows.
  await db.schema
    .createIndex('memories_scope_version')
    .on('memories')
    .columns(['scope_id', 'version'])
    .execute();
  await db.schema
    .createIndex('memories_scope_fold')
    .on('memories')
    .columns(['scope_id', 'fold_key', 'created_at'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('memories_tombstones')
    .on('memories')
    .column('deleted_at')
    .where(sql.ref('deleted_at'), 'is not', null)
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('memory_id', 'text')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_log_org_at')
    .on('audit_log')
    .columns(['org_id', 'at'])
    .execute();

  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('instance_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'instance_secrets',
    'signing_keys',
    'audit_log',
    'memories',
    'scopes',
    'project_access',
    'projects',
    'memberships',
    'organizations',
    'users',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
