import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * The engine the suite runs on, chosen by `MNEMO_TEST_ENGINE` (vitest.config.ts sets it per
 * project): `sqlite` by default, `postgres` on the server `MNEMO_TEST_POSTGRES_URL` names.
 */
export type TestEngine = 'sqlite' | 'postgres';

export function testEngine(): TestEngine {
  const engine = process.env.MNEMO_TEST_ENGINE ?? 'sqlite';
  if (engine !== 'sqlite' && engine !== 'postgres') {
    throw new Error(`MNEMO_TEST_ENGINE must be sqlite or postgres, not ${engine}`);
  }
  return engine;
}

/**
 * The PostgreSQL server tests create their databases on: a URL whose database the tests may
 * connect to (CI gives a database it created for the run). Undefined when not configured.
 */
export function testPostgresUrl(): string | undefined {
  return process.env.MNEMO_TEST_POSTGRES_URL || undefined;
}

/** The Redis server of tests that need one; undefined when not configured. */
export function testRedisUrl(): string | undefined {
  return process.env.MNEMO_TEST_REDIS_URL || undefined;
}

export interface TestStore {
  readonly engine: TestEngine;
  /** `MNEMO_DATABASE_URL` of the store. */
  readonly url: string;
  /** Whether nothing has been written to the store yet: no file, or no table. */
  readonly untouched: () => Promise<boolean>;
  /** Removes the store: the temp folder, or the database. */
  readonly dispose: () => Promise<void>;
}

/**
 * A fresh, empty store for one test or test file, on the suite's engine: a SQLite file in a temp
 * folder, or a PostgreSQL database of its own (created in ~70 ms; a schema would need every
 * connection's search_path set, and Kysely's migrator looks for its table in every schema).
 */
export async function createTestStore(engine: TestEngine = testEngine()): Promise<TestStore> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mnemo-test-'));
    const file = join(dir, 'mnemo.db');
    return {
      engine,
      url: `sqlite:${file}`,
      untouched: async () => !existsSync(file),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const adminUrl = testPostgresUrl();
  if (!adminUrl) {
    throw new Error('MNEMO_TEST_ENGINE=postgres needs MNEMO_TEST_POSTGRES_URL (postgres://…)');
  }
  const url = new URL(adminUrl);
  // Named after the run's database, so whoever made that one can find and drop what is left.
  const name = `${url.pathname.slice(1) || 'postgres'}_${randomBytes(6).toString('hex')}`;
  await onAdmin(adminUrl, `create database ${name}`);
  url.pathname = `/${name}`;
  return {
    engine,
    url: url.toString(),
    untouched: async () => {
      const { rows } = await onAdmin(
        url.toString(),
        "select count(*)::int as n from information_schema.tables where table_schema = 'public'",
      );
      return rows[0]?.n === 0;
    },
    // FORCE: a server process killed mid-test may leave its connections behind for a moment.
    dispose: async () => {
      await onAdmin(adminUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

async function onAdmin(adminUrl: string, statement: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await client.query(statement);
  } finally {
    await client.end();
  }
}
