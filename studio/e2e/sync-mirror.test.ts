/**
 * Property: whatever the interleaving of this page's writes, other clients' writes and pulls —
 * pulls that begin before a write and end after it, write answers that arrive after a pull —
 * what the page shows equals the server's full list once one more pull has run. Against the
 * real API (app.inject on a migrated store), not a model of it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../src/testing/build-test-app.ts';
import {
  applyPull,
  emptyMirror,
  type ListAnswer,
  type LocalWrites,
  type MemoryItem,
  type Mirror,
  noLocalWrites,
  recordDelete,
  recordWrite,
  settle,
  visible,
} from '../src/memories/sync-mirror.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

type Step =
  | { kind: 'add'; by: 'page' | 'other'; text: number }
  | { kind: 'edit'; by: 'page' | 'other'; pick: number; text: number }
  | { kind: 'delete'; by: 'page' | 'other'; pick: number }
  | { kind: 'begin-pull' }
  | { kind: 'end-pull' }
  | { kind: 'deliver'; pick: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('add' as const),
    by: fc.constantFrom('page' as const, 'other' as const),
    text: fc.nat(40),
  }),
  fc.record({
    kind: fc.constant('edit' as const),
    by: fc.constantFrom('page' as const, 'other' as const),
    pick: fc.nat(),
    text: fc.nat(40),
  }),
  fc.record({
    kind: fc.constant('delete' as const),
    by: fc.constantFrom('page' as const, 'other' as const),
    pick: fc.nat(),
  }),
  fc.constant({ kind: 'begin-pull' as const }),
  fc.constant({ kind: 'end-pull' as const }),
  fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat() }),
);

test('after any interleaving of writes and pulls, one more pull makes what the page shows equal the full list', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 30 }), async (steps) => {
      const orgId = await t.fixtures.org();
      const page = { token: (await t.fixtures.user(orgId)).token, orgId };
      const send = async (method: string, url: string, body?: object) => {
        const response = await t.request(page, {
          method,
          url,
          ...(body === undefined ? {} : { payload: body }),
        });
        return { status: response.statusCode, body: response.json() };
      };
      let mirror: Mirror = emptyMirror;
      let local: LocalWrites = noLocalWrites;
      // The page's clock: a pull takes a tick when it is asked, a write's answer when it arrives.
      let tick = 0;
      // Write answers on their way, as a slow network delivers them: after later requests' answers.
      const held: ((at: number) => void)[] = [];
      let pending: { answer: ListAnswer; askedAt: number } | undefined;
      const known: string[] = [];
      const applyPending = () => {
        if (!pending) return;
        mirror = applyPull(mirror, pending.answer);
        local = settle(local, pending.askedAt);
        pending = undefined;
      };

      const pull = async () => {
        const since = mirror.cursor === undefined ? '' : `?since=${mirror.cursor}`;
        const { status, body } = await send('GET', `/api/v1/memory${since}`);
        expect(status).toBe(200);
        return body as ListAnswer;
      };

      for (const step of steps) {
        if (step.kind === 'begin-pull') {
          // One pull at a time, as the page runs them: asked now, its answer applied later.
          if (!pending) {
            const askedAt = ++tick;
            pending = { answer: await pull(), askedAt };
          }
        } else if (step.kind === 'end-pull') {
          applyPending();
        } else if (step.kind === 'deliver') {
          const [arrive] = held.splice(step.pick % Math.max(1, held.length), 1);
          arrive?.(++tick);
        } else if (step.kind === 'add') {
          const { status, body } = await send('POST', '/api/v1/memory', {
            content: `memory ${step.text}`,
          });
          expect([200, 201]).toContain(status);
          const item = (body as { memory: MemoryItem }).memory;
          known.push(item.id);
          // A folded save answers only id and content: the page waits for the next pull.
          if (status === 201 && step.by === 'page') {
            held.push((at) => {
              local = recordWrite(local, item, at);
            });
          }
        } else if (known.length > 0) {
          const id = known[step.pick % known.length] as string;
          if (step.kind === 'edit') {
            const { status, body } = await send('PATCH', `/api/v1/memory/${id}`, {
              content: `edited ${step.text}`,
            });
            if (status === 200 && step.by === 'page') {
              const item = (body as { memory: MemoryItem }).memory;
              held.push((at) => {
                local = recordWrite(local, item, at);
              });
            }
          } else {
            const { status } = await send('DELETE', `/api/v1/memory/${id}`);
            if (status === 200 && step.by === 'page') {
              held.push((at) => {
                local = recordDelete(local, id, at);
              });
            }
          }
        }
      }
      applyPending();
      for (const arrive of held) arrive(++tick);
      const askedAt = ++tick;
      pending = { answer: await pull(), askedAt };
      applyPending();

      const full = await send('GET', '/api/v1/memory');
      const byId = (a: MemoryItem, b: MemoryItem) => a.id.localeCompare(b.id);
      expect([...visible(mirror, local).values()].sort(byId)).toEqual(
        [...(full.body as ListAnswer).memories].sort(byId),
      );
    }),
    { numRuns: 100 },
  );
}, 120_000);
