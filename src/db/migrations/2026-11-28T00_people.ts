import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * People who are not operators' accounts: the end users an app registers under its own id, the
 * apps themselves (a service identity behind an OAuth client of an organization), invitations,
 * and the one-time links of sign-up, password reset and sign-in after them.
 *
 * - `users.kind` tells a person (who signs in) from an end user and an app (who never do), and
 *   `users.email` becomes optional: end users and apps have none. `users.status` gains `erased`:
 *   the row of an identity that was erased keeps its id (memories of project pools it
 *   contributed to remain as tombstones that name it) and nothing else.
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

  await refuseMemoriesOfErased(db);

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
    .limit(1)
    .execute();
  if (identities.length > 0) {
    throw new Error(
      'cannot undo 2026-11-28T00_people: the store holds end users, apps or erased accounts, which the earlier schema cannot',
    );
  }
  if (isPostgres(db)) {
    await sql`drop trigger memories_no_erased_contributor on memories`.execute(db);
    await sql`drop function refuse_memory_of_erased()`.execute(db);
  } else {
    await sql`drop trigger memories_no_erased_contributor`.execute(db);
  }
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
 * The store refuses a memory written for an erased identity: a write that passed its checks
 * (the target a member) before the erasure arrives after it, and must not bring the identity
 * back. One lookup by primary key per new memory. On PostgreSQL the lookup takes the lock the
 * foreign key's own check takes (FOR KEY SHARE, nothing more), and an erasure first takes the
 * row FOR UPDATE, which it conflicts with: a write that looked first is committed before the
 * erasure reads what to delete, one that looks later waits for the erasure and sees `erased`.
 * PostgreSQL raises SQLSTATE `MNE01`, SQLite aborts with the same words (memory-erasure.ts tells
 * them apart); SQLite's writes run one at a time anyway.
 */
async function refuseMemoriesOfErased(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`create function refuse_memory_of_erased() returns trigger language plpgsql as $$
      declare
        contributor_status text;
      begin
        select status into contributor_status from users
          where id = new.contributor_id for key share;
        if contributor_status = 'erased' then
          raise exception 'memory contributor was erased' using errcode = 'MNE01';
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger memories_no_erased_contributor before insert on memories
      for each row execute function refuse_memory_of_erased()`.execute(db);
    return;
  }
  await sql`create trigger memories_no_erased_contributor before insert on memories
    when (select status from users where id = new.contributor_id) = 'erased'
    begin select raise(abort, 'memory contributor was erased'); end`.execute(db);
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
