/**
 * Property: nothing is lost, and incremental sync converges, in one process: the model of
 * src/testing/memory-sync-model.ts run in process (app.inject) and over real HTTP.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import {
  createWorld,
  httpTransport,
  injectTransport,
  programArb,
  runProgram,
} from '../testing/memory-sync-model.ts';

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

test('clients that start at once on a fresh server are all served', async () => {
  // The first requests a server sees, all at once: every client of a world pulls in full and
  // every writer adds. A valid credential is never a 401, however the requests interleave.
  const fresh = await buildTestApp();
  try {
    const send = injectTransport(fresh);
    for (const kind of ['user', 'project'] as const) {
      const world = await createWorld(fresh.fixtures, kind, send);
      const answers = await Promise.all([
        ...world.syncers.map((s) =>
          send(s.who, 'GET', `/api/v1/memory${s.listQuery ? `?${s.listQuery}` : ''}`),
        ),
        ...world.writers.map((w, i) =>
          send(w.who, 'POST', '/api/v1/memory', { content: `first ${i}`, ...w.addExtra }),
        ),
      ]);
      expect(answers.map((a) => `${a.status} ${JSON.stringify(a.body)}`)).toEqual([
        ...world.syncers.map(() => expect.stringMatching(/^200 /)),
        ...world.writers.map(() => expect.stringMatching(/^201 /)),
      ]);
    }
  } finally {
    await fresh.close();
  }
});

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  // Warm the credential verifier with one request: concurrent first requests of a fresh server
  // are the test above; here the programs exercise sync, from their first batch on.
  const orgId = await t.fixtures.org();
  const warm = await t.request(
    { token: (await t.fixtures.user(orgId)).token, orgId },
    { method: 'GET', url: '/api/v1/memory' },
  );
  expect(warm.statusCode).toBe(200);
});
afterAll(() => t?.close());

const RUNS = { inject: 100, http: 25 };

describe.each(['user', 'project'] as const)('%s store', (kind) => {
  test('concurrent writers and syncing clients, in process (app.inject)', async () => {
    const send = injectTransport(t);
    await fc.assert(
      fc.asyncProperty(programArb, async (program) => {
        await runProgram(await createWorld(t.fixtures, kind, send), send, program);
      }),
      { numRuns: RUNS.inject },
    );
  }, 120_000);

  test('concurrent writers and syncing clients, over real HTTP', async () => {
    const send = httpTransport(base);
    await fc.assert(
      fc.asyncProperty(programArb, async (program) => {
        await runProgram(await createWorld(t.fixtures, kind, send), send, program);
      }),
      { numRuns: RUNS.http },
    );
  }, 120_000);
});
