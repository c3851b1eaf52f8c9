/**
 * Property: search is exact under concurrent writes, in one process over real HTTP (the model of
 * src/testing/search-exactness.ts); memory.multi-process.postgres.test.ts runs it through two.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { httpTransport } from '../testing/memory-sync-model.ts';
import { createExactnessWorld, livesArb, runLives } from '../testing/search-exactness.ts';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t?.close());

describe.each(['user', 'project'] as const)('%s store', (kind) => {
  test('what a write acknowledged is what the next search finds, while others write', async () => {
    const send = httpTransport(base);
    await fc.assert(
      fc.asyncProperty(livesArb, async (lives) => {
        await runLives(await createExactnessWorld(t.fixtures, kind), send, lives);
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
