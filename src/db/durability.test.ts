import { expect, test } from 'vitest';
import { createDurability, DurabilityFailed } from './durability.ts';

/** A sync the test finishes by hand, recording how many were started. */
function controlledSync() {
  const runs: Array<{ finish: () => void; fail: (error: Error) => void }> = [];
  const sync = () =>
    new Promise<void>((resolve, reject) => {
      runs.push({ finish: resolve, fail: reject });
    });
  return { sync, runs };
}

const settledState = async (promise: Promise<unknown>) => {
  let state = 'pending';
  promise.then(
    () => {
      state = 'resolved';
    },
    () => {
      state = 'rejected';
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return state;
};

test('a commit is durable only once a sync started after it has finished', async () => {
  const { sync, runs } = controlledSync();
  const durability = createDurability(sync);
  expect(durability.pending()).toBeUndefined();
  const first = durability.committed();
  expect(runs).toHaveLength(1);
  // Committed while the first sync runs: that sync does not cover it.
  const second = durability.committed();
  const third = durability.committed();
  expect(runs).toHaveLength(1);
  runs[0]?.finish();
  expect(await settledState(first)).toBe('resolved');
  expect(await settledState(second)).toBe('pending');
  // One sync covers both commits that arrived meanwhile.
  expect(runs).toHaveLength(2);
  expect(durability.pending()).toBeInstanceOf(Promise);
  runs[1]?.finish();
  expect(await settledState(second)).toBe('resolved');
  expect(await settledState(third)).toBe('resolved');
  expect(runs).toHaveLength(2);
  expect(durability.pending()).toBeUndefined();
});

test('pending() settles when everything marked so far is durable', async () => {
  const { sync, runs } = controlledSync();
  const durability = createDurability(sync);
  void durability.committed();
  const pending = durability.pending();
  expect(pending).toBeInstanceOf(Promise);
  expect(await settledState(pending as Promise<void>)).toBe('pending');
  runs[0]?.finish();
  expect(await settledState(pending as Promise<void>)).toBe('resolved');
});

test('a failed sync fails every waiting commit and every later one', async () => {
  const { sync, runs } = controlledSync();
  const durability = createDurability(sync);
  const first = durability.committed();
  const second = durability.committed();
  runs[0]?.fail(new Error('EIO'));
  await expect(first).rejects.toBeInstanceOf(DurabilityFailed);
  await expect(second).rejects.toBeInstanceOf(DurabilityFailed);
  await expect(durability.committed()).rejects.toThrow(/could not be synced/);
  await expect(durability.pending()).rejects.toBeInstanceOf(DurabilityFailed);
  // No further sync is tried: after a failed fsync a later one proves nothing.
  expect(runs).toHaveLength(1);
  await expect(durability.drained()).resolves.toBeUndefined();
});
