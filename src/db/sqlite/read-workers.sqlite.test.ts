/**
 * SQLite reads in worker threads: real workers (the real `serveReads`, testing/sqlite-read-worker.ts
 * standing for a read that misbehaves) on a real store file, beside its writer.
 */
import diagnostics from 'node:diagnostics_channel';
import { getPriority } from 'node:os';
import { DatabaseSync } from 'node:sqlite';
import type { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { TestRead } from '../../testing/sqlite-read-worker.ts';
import { createTestStore, type TestStore } from '../../testing/test-store.ts';
import { isStoreUnavailable } from '../availability.ts';
import { createDatabase, type Database } from '../database.ts';
import { receivedError, sendableError } from './read-worker.ts';
import {
  createReadWorkers,
  type ReadWorkersOptions,
  ReadWorkerUnavailable,
} from './read-workers.ts';

const MODULE = new URL('../../testing/sqlite-read-worker.ts', import.meta.url);

/** Every worker thread this file starts, as it starts. */
const started: Worker[] = [];
const onStart = (message: unknown) => started.push((message as { worker: Worker }).worker);
const exited = (worker: Worker) =>
  worker.threadId === -1
    ? Promise.resolve()
    : new Promise((resolve) => worker.once('exit', resolve));

let store: TestStore;
let database: Database;
const pools: Array<{ close(): Promise<void> }> = [];

beforeEach(async () => {
  diagnostics.subscribe('worker_threads', onStart);
  store = await createTestStore('sqlite');
  database = createDatabase(store.url);
  await sql`create table t (x integer)`.execute(database.db);
  await database.write((trx) => sql`insert into t values (1)`.execute(trx));
});

afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
  await Promise.all(started.splice(0).map(exited));
  diagnostics.unsubscribe('worker_threads', onStart);
  await database.close();
  await store.dispose();
});

function pool(options: Omit<ReadWorkersOptions, 'file' | 'module'> = {}) {
  const workers = createReadWorkers<TestRead, unknown>({
    file: database.file as string,
    module: MODULE,
    ...options,
  });
  pools.push(workers);
  return workers;
}

const count = { select: 'select count(*) as n from t' };
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );

describe('reads on a worker', () => {
  test('see every commit acknowledged before they were asked, and start with the first read', async () => {
    const reads = pool();
    expect(started).toHaveLength(0);
    expect(await reads.run(count)).toEqual([{ n: 1 }]);
    expect(started).toHaveLength(1);
    for (let i = 2; i <= 5; i++) {
      await database.write((trx) => sql`insert into t values (${i})`.execute(trx));
      expect(await reads.run(count)).toEqual([{ n: i }]);
    }
    expect(started).toHaveLength(1);
  });

  test('never write: the worker connection is read-only', async () => {
    const reads = pool();
    const error = await rejection(reads.run({ write: 'insert into t values (2)' }));
    expect(error).toMatchObject({
      code: 'ERR_SQLITE_ERROR',
      errstr: 'attempt to write a readonly database',
    });
    expect(await reads.run(count)).toEqual([{ n: 1 }]);
  });

  test('run at a lower priority than the event loop, which keeps its own', async () => {
    const workers = pool();
    const loop = getPriority();
    expect(await workers.run({ niceness: true })).toBe(Math.max(10, loop));
    expect(getPriority()).toBe(loop);
  });

  test("a failed statement fails the read with SQLite's error, as on the event loop (a 500)", async () => {
    const reads = pool();
    const error = await rejection(reads.run({ select: 'select * from missing' }));
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: 'ERR_SQLITE_ERROR', errcode: 1 });
    expect((error as Error).message).toMatch(/no such table: missing/);
    expect(isStoreUnavailable(error)).toBe(false);
    // The worker goes on.
    expect(await reads.run(count)).toEqual([{ n: 1 }]);
    expect(started).toHaveLength(1);
  });

  test('a SQLITE_BUSY crosses from the worker still the store unavailable (503)', () => {
    // A real one: a connection asks for the write lock another holds.
    const holder = new DatabaseSync(database.file as string);
    const asker = new DatabaseSync(database.file as string);
    holder.exec('begin immediate');
    let busy: unknown;
    try {
      asker.exec('begin immediate');
    } catch (error) {
      busy = error;
    } finally {
      holder.exec('rollback');
      holder.close();
      asker.close();
    }
    expect(isStoreUnavailable(busy)).toBe(true);
    const crossed = receivedError(structuredClone(sendableError(busy)));
    expect(crossed).toMatchObject({ code: 'ERR_SQLITE_ERROR', errcode: 5 });
    expect(isStoreUnavailable(crossed)).toBe(true);
  });
});

describe('a worker that fails', () => {
  test('one that dies fails its read as the store unavailable (503), and the next read has another', async () => {
    const reads = pool({ size: 1 });
    expect(await reads.run(count)).toEqual([{ n: 1 }]);
    const died = await rejection(reads.run({ crash: 'out of its mind' }));
    expect(died).toBeInstanceOf(ReadWorkerUnavailable);
    expect(died).toMatchObject({ reason: 'exited' });
    expect((died as Error).cause).toMatchObject({ message: 'out of its mind' });
    expect(isStoreUnavailable(died)).toBe(true);
    expect(await reads.run(count)).toEqual([{ n: 1 }]);
    expect(started).toHaveLength(2);
  });

  test('a read past its deadline fails (503), its worker is replaced, and the queue behind it moves', async () => {
    // Longer than a worker takes to start on a loaded machine: only the hung read is late.
    const reads = pool({ size: 1, deadlineMs: 4000 });
    const hung = rejection(reads.run({ hang: true }));
    // Waiting behind the hung read: its deadline counts from when it was asked.
    const behind = rejection(reads.run(count));
    const error = await hung;
    expect(error).toMatchObject({ reason: 'timed-out' });
    expect(isStoreUnavailable(error)).toBe(true);
    expect(await behind).toMatchObject({ reason: 'timed-out' });
    await exited(started[0] as Worker);
    expect(await reads.run(count)).toEqual([{ n: 1 }]);
    expect(started.length).toBeGreaterThanOrEqual(2);
  });

  test('a read aborted while it waits is not run; one aborted while running is answered at once', async () => {
    const reads = pool({ size: 1, deadlineMs: 5000 });
    const running = new AbortController();
    const first = rejection(reads.run({ sleep: 300 }, running.signal));
    const waiting = new AbortController();
    // Were it run, it would hold the worker past the deadline of the read behind it.
    const skipped = rejection(reads.run({ hang: true }, waiting.signal));
    const last = reads.run(count);
    const asked = Date.now();
    waiting.abort(new Error('the client left'));
    running.abort(new Error('the client left too'));
    expect(await first).toMatchObject({ message: 'the client left too' });
    expect(Date.now() - asked).toBeLessThan(250);
    expect(await skipped).toMatchObject({ message: 'the client left' });
    expect(await last).toEqual([{ n: 1 }]);
    // The same worker: an abort ends no thread.
    expect(started).toHaveLength(1);
    expect(await rejection(reads.run(count, AbortSignal.abort(new Error('gone'))))).toMatchObject({
      message: 'gone',
    });
  });

  test('past the queue limit a read fails at once (503)', async () => {
    const reads = pool({ size: 1, queueLimit: 1 });
    const running = reads.run({ sleep: 200 });
    const waiting = reads.run(count);
    const refused = await rejection(reads.run(count));
    expect(refused).toMatchObject({ reason: 'queue-full' });
    expect(isStoreUnavailable(refused)).toBe(true);
    expect(await running).toBe('slept');
    expect(await waiting).toEqual([{ n: 1 }]);
  });
});

describe('closing', () => {
  test('answers the read running, fails those waiting, ends every thread, and refuses more', async () => {
    const reads = pool({ size: 2 });
    const busy = [reads.run({ sleep: 200 }), reads.run({ sleep: 200 })];
    const waiting = rejection(reads.run(count));
    const threads = [...started];
    expect(threads).toHaveLength(2);
    await reads.close();
    expect(await Promise.all(busy)).toEqual(['slept', 'slept']);
    expect(await waiting).toMatchObject({ reason: 'closed' });
    for (const thread of threads) expect(thread.threadId).toBe(-1);
    expect(await rejection(reads.run(count))).toMatchObject({ reason: 'closed' });
    await reads.close();
  });
});
