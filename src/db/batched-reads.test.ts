import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createBatchedRead, createReadTogether } from './batched-reads.ts';
import { createSqliteReader, openSqliteFile } from './sqlite/node-sqlite-database.ts';

/** A load that records each call's keys and answers them doubled, after `gate` opens. */
function recordingLoad(fail?: (key: number) => Error | undefined) {
  const calls: number[][] = [];
  let open: () => void = () => {};
  let gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const load = async (keys: readonly number[]) => {
    calls.push([...keys]);
    await gate;
    const failure = keys.map((key) => fail?.(key)).find((error) => error !== undefined);
    if (failure) throw failure;
    return keys.map((key) => key * 2);
  };
  return {
    calls,
    load,
    release() {
      open();
      gate = Promise.resolve();
    },
  };
}

describe('createBatchedRead', () => {
  test('reads of one turn go in one call, each answered with its own value', async () => {
    const { calls, load, release } = recordingLoad();
    release();
    const read = createBatchedRead(load);
    expect(await Promise.all([read(1), read(2), read(3)])).toEqual([2, 4, 6]);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  test('two calls at most at once: a third batch gathers what comes until one returns', async () => {
    const { calls, load, release } = recordingLoad();
    const read = createBatchedRead(load);
    const first = read(1);
    await new Promise((resolve) => setImmediate(resolve));
    const second = read(2);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [read(3), read(4)];
    await new Promise((resolve) => setImmediate(resolve));
    const evenLater = read(5);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([[1], [2]]);
    release();
    expect(await Promise.all([first, second, ...later, evenLater])).toEqual([2, 4, 6, 8, 10]);
    expect(calls).toEqual([[1], [2], [3, 4, 5]]);
  });

  test('a key the store refuses fails its own read: the others of its batch are answered', async () => {
    const refused = new Error('invalid byte sequence for encoding "UTF8": 0x00');
    const { calls, load, release } = recordingLoad((key) => (key === 2 ? refused : undefined));
    release();
    const read = createBatchedRead(load);
    const answers = await Promise.allSettled([read(1), read(2), read(3)]);
    expect(answers).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: refused },
      { status: 'fulfilled', value: 6 },
    ]);
    expect(calls).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  test('the store unavailable fails every read of the batch at once, read again by none', async () => {
    const down = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const { calls, load, release } = recordingLoad(() => down);
    release();
    const read = createBatchedRead(load);
    const answers = await Promise.allSettled([read(1), read(2)]);
    expect(answers).toEqual([
      { status: 'rejected', reason: down },
      { status: 'rejected', reason: down },
    ]);
    expect(calls).toEqual([[1, 2]]);
  });

  test('when the store is found unavailable, the batches waiting for a turn fail with it at once', async () => {
    const down = Object.assign(new Error('Query read timeout'), { code: 'ETIMEDOUT' });
    const { calls, load, release } = recordingLoad(() => down);
    const read = createBatchedRead(load);
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const inFlight = [read(1)];
    await turn();
    inFlight.push(read(2));
    await turn();
    const waiting = read(3);
    await turn();
    release();
    const answers = await Promise.allSettled([...inFlight, waiting]);
    expect(answers.map((answer) => answer.status === 'rejected' && answer.reason)).toEqual([
      down,
      down,
      down,
    ]);
    // The waiting read was never sent: it failed with the store.
    expect(calls).toEqual([[1], [2]]);
  });
});

describe('createReadTogether', () => {
  test('the reads of one turn run together, each with its own answer, in one call of readTogether', async () => {
    const together: number[][] = [];
    let reading: number[] | undefined;
    const database = {
      readTogether<T>(run: () => T): T {
        reading = [];
        const result = run();
        together.push(reading);
        reading = undefined;
        return result;
      },
    };
    const read = createReadTogether(database, async (key: number) => {
      // Each read runs as it is called: inside readTogether, not after it.
      if (!reading) throw new Error('read outside readTogether');
      reading.push(key);
      return key * 10;
    });
    expect(await Promise.all([read(1), read(2), read(3)])).toEqual([10, 20, 30]);
    expect(await read(4)).toBe(40);
    expect(together).toEqual([[1, 2, 3], [4]]);
  });
});

describe('a SQLite reader: reads together see one snapshot', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mnemo-read-together-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('a commit made between two reads of one readTogether shows in neither, and in the next', async () => {
    const file = join(dir, 'store.db');
    const writer = openSqliteFile(file);
    writer.exec('create table facts (n integer)');
    writer.exec('insert into facts values (1)');
    const reader = createSqliteReader(openSqliteFile(file, { readOnly: true }));
    const count = () =>
      reader.executeQuery<{ n: number }>({
        sql: 'select count(*) as n from facts',
        parameters: [],
        query: undefined as never,
        queryId: undefined as never,
      });
    const [before, after] = await Promise.all(
      reader.together(() => {
        const first = count();
        writer.exec('insert into facts values (2)');
        return [first, count()];
      }),
    );
    expect(before?.rows).toEqual([{ n: 1 }]);
    expect(after?.rows).toEqual([{ n: 1 }]);
    expect((await count()).rows).toEqual([{ n: 2 }]);
    writer.close();
  });
});
