import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import type { Tables } from '../db/tables.ts';
import type { TestStore } from './test-store.ts';

export interface HeldLock {
  release(): Promise<void>;
}

/**
 * Takes a lock on the store from a connection of its own, as another process would, and holds it
 * until `release`. On PostgreSQL a table lock: writes to `table` wait for it, and reads too with
 * `blockReads`. On SQLite the whole file's write lock (`BEGIN IMMEDIATE`), whatever the table:
 * every write waits, no read does.
 *
 * @example
 * const lock = await holdStoreLock(store, 'memories');
 * // a write now waits, past the statement timeout (PostgreSQL) or busy_timeout (SQLite)
 * await lock.release();
 */
export async function holdStoreLock(
  store: TestStore,
  table: keyof Tables,
  options: { readonly blockReads?: boolean } = {},
): Promise<HeldLock> {
  if (store.engine === 'sqlite') {
    const connection = new DatabaseSync(store.url.slice('sqlite:'.length));
    connection.exec('begin immediate');
    return {
      release: async () => {
        connection.exec('rollback');
        connection.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: store.url });
  await client.connect();
  await client.query('begin');
  // EXCLUSIVE lets plain reads through; ACCESS EXCLUSIVE stops them too.
  const mode = options.blockReads ? 'access exclusive' : 'exclusive';
  await client.query(`lock table ${table} in ${mode} mode`);
  return {
    release: async () => {
      await client.query('rollback');
      await client.end();
    },
  };
}
