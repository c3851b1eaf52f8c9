import { afterEach, beforeEach, expect, test } from 'vitest';
import { createTestStore, type TestStore } from '../testing/test-store.ts';
import { createDatabase, type Database } from './database.ts';
import { createGroupCommit } from './group-commit.ts';
import { migrateToLatest } from './migrator.ts';

let store: TestStore;
let database: Database;

beforeEach(async () => {
  store = await createTestStore('sqlite');
  database = createDatabase(store.url);
  await migrateToLatest(database.db);
});
afterEach(async () => {
  await database.close();
  await store.dispose();
});

const secret = (name: string) => ({ name, value: name.toUpperCase() });
const names = async () =>
  (await database.db.selectFrom('instance_secrets').select('name').orderBy('name').execute()).map(
    (r) => r.name,
  );

test('jobs of one batch share a commit; a failing job undoes only its own writes', async () => {
  const write = createGroupCommit(database.db);
  const results = await Promise.allSettled([
    write(async (trx) => {
      await trx.insertInto('instance_secrets').values(secret('a')).execute();
      return 'a';
    }),
    write(async (trx) => {
      await trx.insertInto('instance_secrets').values(secret('b')).execute();
      throw new Error('b fails after writing');
    }),
    write(async (trx) => {
      // A constraint violation inside the job: its savepoint is rolled back, the batch goes on.
      await trx.insertInto('instance_secrets').values(secret('a')).execute();
      return 'duplicate';
    }),
    write(async (trx) => {
      await trx.insertInto('instance_secrets').values(secret('c')).execute();
      return 'c';
    }),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
  expect(results[1]).toMatchObject({ reason: new Error('b fails after writing') });
  expect(await names()).toEqual(['a', 'c']);
});

test('a job is acknowledged only once its batch is durable; the next batch does not wait', async () => {
  const gates: Array<() => void> = [];
  const write = createGroupCommit(database.db, {
    durable: () => new Promise<void>((resolve) => gates.push(resolve)),
  });
  let firstDone = false;
  const first = write((trx) => trx.insertInto('instance_secrets').values(secret('a')).execute());
  first.then(() => {
    firstDone = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  // Committed (visible) but not yet acknowledged.
  expect(await names()).toEqual(['a']);
  expect(firstDone).toBe(false);
  // A second batch commits while the first waits for its sync.
  const second = write((trx) => trx.insertInto('instance_secrets').values(secret('b')).execute());
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await names()).toEqual(['a', 'b']);
  expect(gates).toHaveLength(2);
  gates[0]?.();
  await first;
  expect(firstDone).toBe(true);
  gates[1]?.();
  await second;
});

test('when the batch cannot be made durable, its successful jobs fail; failed ones keep their error', async () => {
  const write = createGroupCommit(database.db, {
    durable: () => Promise.reject(new Error('fsync failed')),
  });
  const results = await Promise.allSettled([
    write((trx) => trx.insertInto('instance_secrets').values(secret('a')).execute()),
    write(async () => {
      throw new Error('own error');
    }),
  ]);
  expect(results).toMatchObject([
    { status: 'rejected', reason: new Error('fsync failed') },
    { status: 'rejected', reason: new Error('own error') },
  ]);
});
