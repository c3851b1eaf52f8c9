import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * People who are not operators' accounts: the end users an app registers under its own id, the
 * apps themselves (a service identity behind an OAuth client of an organization), invitations,
 * and the one-time links of sign-up, password reset and sign-in after them.
 *
 * - `users.kind` tells a person (who signs in) from an end user and an app (who never do), and
 *   `users.email` becomes optional: end users and apps have none. `users.status` gains `erased`,
 *   the status of one row, `ERASED_CONTRIBUTOR`: the contributor the tombstones of an erased
 *   identity's pool contributions name once its own row is gone.
 * - `end_users`: an end user's id in the app's own terms, one per organization.
 * - `oauth_clients.org_id`: the organization an app belongs to; `rate_limit_per_minute`: the
 *   limit its owners gave it above the default (null: the default).
 * - `invitations`: only the SHA-256 of an invitation's secret is kept.
 * - `account_links`: sign-up confirmations, password resets and sign-in tickets, each a secret
 *   of which only the SHA-256 is kept, single use, with an expiry.
 * - `oauth_records.account_id`: the account a session, grant or token belongs to, so that a new
 *   password can end them all.
 */
const STATUSES = `('active', 'suspended', 'banned', 'erased')`;
/** The max UUID (RFC 9562 §5.10), which no user is given: kept in step with the code's. */
const ERASED_CONTRIBUTOR = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
/** Only a person signs in, by email: every person has one, until erased. */
const PERSON_HAS_EMAIL = `email is not null or kind <> 'person' or status = 'erased'`;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await db.schema
      .alterTable('users')
      .alterColumn('email', (column) => column.dropNotNull())
      .execute();
    await sql`alter table users drop constraint users_status_check`.execute(db);
    await sql
      .raw(`alter table users add constraint users_status_check check (status in ${STATUSES})`)
      .execute(db);
    await db.schema
      .alterTable('users')
      .addColumn('kind', 'text', (c) =>
        c.notNull().defaultTo('person').check(sql`kind in ('person', 'end_user', 'app')`),
      )
      .execute();
    await sql
      .raw(`alter table users add constraint users_person_email check (${PERSON_HAS_EMAIL})`)
      .execute(db);
  } else {
    await rebuildSqliteUsers(
      db,
      `id text primary key,
      email text unique,
      name text,
      password_hash text,
      status text not null check (status in ${STATUSES}),
      created_at bigint not null,
      kind text not null default 'person' check (kind in ('person', 'end_user', 'app')),
      constraint users_person_email check (${PERSON_HAS_EMAIL})`,
    );
  }

  await db.schema
    .createTable('end_users')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('external_id', 'text', (c) => c.notNull())
    // Lower-cased in TypeScript (one rule on both engines) for prefix search by id and name.
    .addColumn('external_key', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('end_users_external', ['org_id', 'external_id'])
    .execute();
  await db.schema
    .createIndex('end_users_org_created')
    .on('end_users')
    .columns(['org_id', 'created_at', 'user_id'])
    .execute();

  await db.schema
    .alterTable('oauth_clients')
    .addColumn('org_id', 'text', (c) => c.references('organizations.id'))
    .execute();
  await db.schema
    .alterTable('oauth_clients')
    .addColumn('rate_limit_per_minute', 'integer')
    .execute();
  await db.schema
    .createIndex('oauth_clients_org')
    .on('oauth_clients')
    .column('org_id')
    .where(sql.ref('org_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('accepted_at', 'bigint')
    .addColumn('accepted_by', 'text')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('invitations_org_created')
    .on('invitations')
    .columns(['org_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('account_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) =>
      c.notNull().check(sql`purpose in ('sign-up', 'password-reset', 'sign-in')`),
    )
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text')
    .addColumn('email', 'text')
    // JSON: what the link carries out when used (a sign-up's account before it exists).
    .addColumn('details', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('account_links_user')
    .on('account_links')
    .columns(['user_id', 'purpose'])
    .where(sql.ref('user_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('account_links_expiry')
    .on('account_links')
    .column('expires_at')
    .execute();

  // Never signs in, belongs nowhere: only named by tombstones (identity-erasure.ts).
  await db
    .insertInto('users')
    .values({
      id: ERASED_CONTRIBUTOR,
      email: null,
      name: null,
      password_hash: null,
      status: 'erased',
      kind: 'person',
      created_at: 0,
    })
    .execute();

  await db.schema.alterTable('oauth_records').addColumn('account_id', 'text').execute();
  await db
    .updateTable('oauth_records')
    .set({
      account_id: isPostgres(db)
        ? sql`payload::jsonb ->> 'accountId'`
        : sql`json_extract(payload, '$.accountId')`,
    })
    .execute();
  await db.schema
    .createIndex('oauth_records_account')
    .on('oauth_records')
    .column('account_id')
    .where(sql.ref('account_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const identities = await db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb.or([eb('kind', '!=', 'person'), eb('status', '=', 'erased')]))
    .where('id', '!=', ERASED_CONTRIBUTOR)
    .limit(1)
    .execute();
  const erasedContributions = await db
    .selectFrom('memories')
    .select('id')
    .where('contributor_id', '=', ERASED_CONTRIBUTOR)
    .limit(1)
    .execute();
  if (identities.length > 0 || erasedContributions.length > 0) {
    throw new Error(
      'cannot undo 2026-11-28T00_people: the store holds end users, apps or what erased ones left, which the earlier schema cannot',
    );
  }
  await db.deleteFrom('users').where('id', '=', ERASED_CONTRIBUTOR).execute();
  await db.schema.dropIndex('oauth_records_account').execute();
  await db.schema.alterTable('oauth_records').dropColumn('account_id').execute();
  await db.schema.dropTable('account_links').execute();
  await db.schema.dropTable('invitations').execute();
  await db.schema.dropIndex('oauth_clients_org').execute();
  await db.schema.alterTable('oauth_clients').dropColumn('rate_limit_per_minute').execute();
  await db.schema.alterTable('oauth_clients').dropColumn('org_id').execute();
  await db.schema.dropTable('end_users').execute();
  if (isPostgres(db)) {
    await sql`alter table users drop constraint users_person_email`.execute(db);
    await db.schema.alterTable('users').dropColumn('kind').execute();
    await sql`alter table users drop constraint users_status_check`.execute(db);
    await sql`alter table users add constraint users_status_check
      check (status in ('active', 'suspended', 'banned'))`.execute(db);
    await db.schema
      .alterTable('users')
      .alterColumn('email', (column) => column.setNotNull())
      .execute();
    return;
  }
  await rebuildSqliteUsers(
    db,
    `id text primary key,
    email text not null unique,
    name text,
    password_hash text,
    status text not null check (status in ('active', 'suspended', 'banned')),
    created_at bigint not null`,
  );
}

/**
 * SQLite cannot change a column's constraints in place: the table is made again with them
 * (SQLite's "generalized ALTER TABLE procedure": a new table, the rows copied, the old one
 * dropped, the new one renamed), with foreign keys off while the tables that reference `users`
 * point at no table, and checked before the commit. Kysely runs SQLite's migrations outside a
 * transaction, where the pragma takes effect. `definition` is the new table's body; the columns
 * of the first schema are copied.
 */
async function rebuildSqliteUsers(db: Kysely<any>, definition: string): Promise<void> {
  const kept = 'id, email, name, password_hash, status, created_at';
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await sql.raw(`create table users_rebuilt (${definition})`).execute(trx);
      await sql.raw(`insert into users_rebuilt (${kept}) select ${kept} from users`).execute(trx);
      await sql`drop table users`.execute(trx);
      await sql`alter table users_rebuilt rename to users`.execute(trx);
      const broken = await sql`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) {
        throw new Error(`rebuilding users broke ${broken.rows.length} foreign key references`);
      }
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
