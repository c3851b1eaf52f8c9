/**
 * The people migration on both engines: users made again (SQLite) or altered (PostgreSQL) keep
 * every row and every reference to them; a person must have an email, an end user or an app
 * need not; sessions learn their account; undone, the earlier schema is back.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestStore, type TestStore } from '../../testing/test-store.ts';
import { createDatabase, type Database } from '../database.ts';
import { migrateToLatest } from '../migrator.ts';
import { down, up } from './2026-11-28T00_people.ts';

let store: TestStore;
let database: Database;
beforeAll(async () => {
  store = await createTestStore();
  database = createDatabase(store.url);
  await migrateToLatest(database.db);
});
afterAll(async () => {
  await database?.close();
  await store?.dispose();
});

const ORG = '0a6d0a53-8b0e-4f5e-9a43-0c1c9d0b1f01';
const ADA = '0a6d0a53-8b0e-4f5e-9a43-0c1c9d0b1f02';
/** The contributor erased identities' pool tombstones name (memory-erasure.ts). */
const ERASED = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

test('down and up again keep users and what refers to them; the new rules hold', async () => {
  const db = database.db;
  await down(db);
  await db
    .insertInto('organizations')
    .values({
      id: ORG,
      name: 'Acme',
      memory_enabled: null,
      user_override: 'members',
      created_at: 1,
    })
    .execute();
  await db
    .insertInto('users')
    .values({
      id: ADA,
      email: 'ada@acme.test',
      name: 'Ada',
      password_hash: null,
      status: 'suspended',
      created_at: 2,
    } as never)
    .execute();
  await db
    .insertInto('memberships')
    .values({ org_id: ORG, user_id: ADA, role: 'owner', created_at: 3 })
    .execute();
  await db
    .insertInto('oauth_records')
    .values({
      model: 'Session',
      id: 's1',
      payload: JSON.stringify({ accountId: ADA, uid: 'u' }),
      grant_id: null,
      user_code: null,
      uid: 'u',
      expires_at: null,
      consumed_at: null,
    } as never)
    .execute();

  await up(db);
  expect(await db.selectFrom('users').selectAll().where('id', '!=', ERASED).execute()).toEqual([
    {
      id: ADA,
      email: 'ada@acme.test',
      name: 'Ada',
      password_hash: null,
      status: 'suspended',
      kind: 'person',
      created_at: 2,
    },
  ]);
  expect(await db.selectFrom('oauth_records').select(['id', 'account_id']).execute()).toEqual([
    { id: 's1', account_id: ADA },
  ]);
  // The membership still refers to the user: removing the user is refused.
  await expect(db.deleteFrom('users').where('id', '=', ADA).execute()).rejects.toThrow(
    /foreign key/i,
  );

  const user = (id: string, fields: Record<string, unknown>) =>
    db
      .insertInto('users')
      .values({
        id,
        name: null,
        password_hash: null,
        status: 'active',
        created_at: 4,
        ...fields,
      } as never)
      .execute();
  await user('end-user', { email: null, kind: 'end_user' });
  await user('app', { email: null, kind: 'app' });
  await user('gone', { email: null, kind: 'person', status: 'erased' });
  await expect(user('no-email', { email: null, kind: 'person' })).rejects.toThrow(/check/i);
  await expect(user('odd', { email: 'x@acme.test', kind: 'robot' })).rejects.toThrow(/check/i);

  // The one row that erased identities' pool tombstones name.
  expect(await db.selectFrom('users').selectAll().where('id', '=', ERASED).execute()).toEqual([
    {
      id: ERASED,
      email: null,
      name: null,
      password_hash: null,
      status: 'erased',
      kind: 'person',
      created_at: 0,
    },
  ]);
  // The earlier schema cannot hold identities without an email: down says so, changing nothing.
  await expect(down(db)).rejects.toThrow(/end users, apps or what erased ones left/);
  await db.deleteFrom('users').where('kind', '!=', 'person').execute();
  await db.deleteFrom('users').where('status', '=', 'erased').where('id', '!=', ERASED).execute();
  await down(db);
  expect(await db.selectFrom('users').select('id').where('id', '=', ERASED).execute()).toEqual([]);
  await expect(user('no-email-again', { email: null })).rejects.toThrow(/null/i);
  await up(db);
  expect(await db.selectFrom('users').select(['id', 'kind']).orderBy('id').execute()).toEqual([
    { id: ADA, kind: 'person' },
    { id: ERASED, kind: 'person' },
  ]);
});
