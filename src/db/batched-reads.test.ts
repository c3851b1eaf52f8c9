import { describe, expect, test } from 'vitest';
import { createBatchedRead } from './batched-reads.ts';

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
