import { afterAll } from 'vitest';
import { createTestStore, type TestStore } from './test-store.ts';

/**
 * Makes stores for the test file that calls it (at its top level), each removed once the
 * file's tests are done.
 *
 * @example
 * const newStore = storesOfThisFile();
 * const { url } = await newStore();
 */
export function storesOfThisFile(): () => Promise<TestStore> {
  const stores: TestStore[] = [];
  afterAll(async () => {
    for (const store of stores.splice(0)) await store.dispose();
  });
  return async () => {
    const store = await createTestStore();
    stores.push(store);
    return store;
  };
}
