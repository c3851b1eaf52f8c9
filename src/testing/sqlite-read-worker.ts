/**
 * A read worker for the tests of db/sqlite/read-workers.ts: the real `serveReads` over the
 * store's file, answering a read asked as data, or standing for a worker that misbehaves.
 */
import { readFileSync } from 'node:fs';
import { CompiledQuery, sql } from 'kysely';
import { serveReads } from '../db/sqlite/read-worker.ts';

export type TestRead =
  /** The rows of a statement, run on the worker's reader. */
  | { readonly select: string }
  /** A statement run through the worker's Kysely, as a write would be. */
  | { readonly write: string }
  /** Holds the thread for `ms` (as a long statement would), then answers `slept`. */
  | { readonly sleep: number }
  /** This thread's niceness, as the kernel has it (proc(5): the 19th field of its stat). */
  | { readonly niceness: true }
  /** Holds the thread for good: a read that never answers. */
  | { readonly hang: true }
  /** Throws outside the read, after answering nothing: the thread ends on an uncaught error. */
  | { readonly crash: string };

const held = new Int32Array(new SharedArrayBuffer(4));

serveReads((store) => async (input: TestRead) => {
  if ('select' in input) {
    return (await store.reader.executeQuery(CompiledQuery.raw(input.select))).rows;
  }
  if ('write' in input) return (await sql.raw(input.write).execute(store.db)).rows;
  if ('sleep' in input) {
    Atomics.wait(held, 0, 0, input.sleep);
    return 'slept';
  }
  if ('niceness' in input) {
    // The command name, in parentheses, may hold spaces: the fields are counted after it.
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  }
  if ('hang' in input) Atomics.wait(held, 0, 0);
  const message = 'crash' in input ? input.crash : 'unknown read';
  setImmediate(() => {
    throw new Error(message);
  });
  return new Promise(() => {});
});
