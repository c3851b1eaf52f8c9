/**
 * Properties: whatever the interleaving of this page's writes, other clients' writes, pulls and
 * the change stream's batches — pulls that begin before a write and end after it, write answers
 * that arrive after a pull or a batch, batches read before a write and applied after its answer —
 * what the page shows equals the server's full list once one more pull (or batch) has run.
 * Against the real API (app.inject on a migrated store), not a model of it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { MirrorChange } from '../../clients/typescript/src/index.ts';
import { buildTestApp, type TestApp } from '../../src/testing/build-test-app.ts';
import {
  applyChange,
  emptyMirror,
  type LocalWrites,
  type MemoryItem,
  type Mirror,
  noLocalWrites,
  recordDelete,
  recordWrite,
  settle,
  settleShown,
  visible,
} from '../src/memories/sync-mirror.ts';

/** A list answer of `GET /api/v1/memory`: full (no `deleted`) or incremental. */
interface ListAnswer {
  readonly memories: readonly MemoryItem[];
  readonly deleted?: readonly string[];
  readonly cursor: string;
}

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
      let pending: { change: MirrorChange; askedAt: number } | undefined;
      const known: string[] = [];
      const applyPending = () => {
        if (!pending) return;
        mirror = applyChange(mirror, pending.change);
        local = settle(local, pending.askedAt);
        pending = undefined;
      };

      const pull = async () => {
        const since = mirror.cursor === undefined ? '' : `?since=${mirror.cursor}`;
        const { status, body } = await send('GET', `/api/v1/memory${since}`);
        expect(status).toBe(200);
        // The change the client's mirror makes of the answer (a full pull replaces everything).
        const answer = body as ListAnswer;
        return {
          full: answer.deleted === undefined,
          upserted: answer.memories,
          removed: answer.deleted ?? [],
          cursor: answer.cursor,
        } satisfies MirrorChange;
      };

      for (const step of steps) {
        if (step.kind === 'begin-pull') {
          // One pull at a time, as the page runs them: asked now, its answer applied later.
          if (!pending) {
            const askedAt = ++tick;
            pending = { change: await pull(), askedAt };
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
      pending = { change: await pull(), askedAt };
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

type StreamStep =
  | Exclude<Step, { kind: 'begin-pull' } | { kind: 'end-pull' }>
  | { kind: 'read-batch' }
  | { kind: 'apply-batch' }
  | { kind: 'begin-pull' }
  | { kind: 'end-pull' }
  | { kind: 'reconnect' };

const streamStepArb: fc.Arbitrary<StreamStep> = fc.oneof(
  { arbitrary: stepArb, weight: 6 },
  { arbitrary: fc.constant({ kind: 'read-batch' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'apply-batch' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'reconnect' as const }), weight: 1 },
);

/**
 * The page as use-memory-sync.ts runs it over a change stream: a full pull, then the stream's
 * batches, each applied as one change when its `sync` comes. A batch is what the stream reads
 * from where its last one ended, the changes after a cursor: a list with `since` answers the
 * same (docs/design.md §3.8), so the store is read that way here. Batches read are applied in
 * order, perhaps long after (a slow network); a pull (the page's `pullNow`) may run meanwhile;
 * a stream broken drops what it had not applied and starts again with a pull.
 */
test('over the change stream: after any interleaving of writes, batches and pulls, one more batch settles every write and the page shows the full list', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(streamStepArb, { minLength: 5, maxLength: 40 }), async (steps) => {
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
      const changesSince = async (cursor: string | undefined) => {
        const since = cursor === undefined ? '' : `?since=${cursor}`;
        const { status, body } = await send('GET', `/api/v1/memory${since}`);
        expect(status).toBe(200);
        const answer = body as ListAnswer;
        return {
          full: answer.deleted === undefined,
          upserted: answer.memories,
          // A full change names what the copy held and is gone, as the client's mirror does.
          removed:
            answer.deleted ??
            [...mirror.items.keys()].filter((id) => !answer.memories.some((m) => m.id === id)),
          cursor: answer.cursor,
        } satisfies MirrorChange;
      };

      let mirror: Mirror = emptyMirror;
      let local: LocalWrites = noLocalWrites;
      let tick = 0;
      // As the page keeps them: the tick each pull was asked at, by its answer's cursor.
      const askedAt = new Map<string, number>();
      const apply = (change: MirrorChange) => {
        mirror = applyChange(mirror, change);
        const asked = askedAt.get(change.cursor);
        askedAt.delete(change.cursor);
        local = settleShown(asked === undefined ? local : settle(local, asked), mirror);
      };
      const pull = async () => {
        const asked = ++tick;
        const change = await changesSince(mirror.cursor);
        askedAt.set(change.cursor, Math.max(asked, askedAt.get(change.cursor) ?? 0));
        return change;
      };
      const held: ((at: number) => void)[] = [];
      // What the page was told, and what anyone deleted: the page never shows less.
      const told = new Map<string, MemoryItem | undefined>();
      const deleted = new Set<string>();
      const answered = (id: string, item: MemoryItem | undefined) =>
        held.push((at) => {
          const before = told.get(id);
          if (!told.has(id) || (before && (!item || item.updatedAt > before.updatedAt))) {
            told.set(id, item);
          }
          local = settleShown(
            item ? recordWrite(local, item, at) : recordDelete(local, id, at),
            mirror,
          );
        });
      const neverBehind = () => {
        const shown = visible(mirror, local);
        for (const [id, item] of told) {
          const now = shown.get(id);
          // Deleted by another client, it may still show until the page hears of it.
          if (item === undefined) expect(now).toBeUndefined();
          else if (now || !deleted.has(id))
            expect(now && now.updatedAt >= item.updatedAt).toBe(true);
        }
      };
      const known: string[] = [];

      // Following begins: a full pull, then a stream from its cursor.
      apply(await pull());
      let streamAt = mirror.cursor;
      let batches: MirrorChange[] = [];
      let pending: MirrorChange | undefined;

      for (const step of steps) {
        if (step.kind === 'read-batch') {
          const batch = await changesSince(streamAt);
          streamAt = batch.cursor;
          batches.push(batch);
        } else if (step.kind === 'apply-batch') {
          const batch = batches.shift();
          if (batch) apply(batch);
        } else if (step.kind === 'begin-pull') {
          pending ??= await pull();
        } else if (step.kind === 'end-pull') {
          if (pending) apply(pending);
          pending = undefined;
        } else if (step.kind === 'reconnect') {
          batches = [];
          apply(await pull());
          streamAt = mirror.cursor;
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
          if (status === 201 && step.by === 'page') answered(item.id, item);
        } else if (known.length > 0) {
          const id = known[step.pick % known.length] as string;
          if (step.kind === 'edit') {
            const { status, body } = await send('PATCH', `/api/v1/memory/${id}`, {
              content: `edited ${step.text}`,
            });
            if (status === 200 && step.by === 'page') {
              answered(id, (body as { memory: MemoryItem }).memory);
            }
          } else {
            const { status } = await send('DELETE', `/api/v1/memory/${id}`);
            if (status === 200) deleted.add(id);
            if (status === 200 && step.by === 'page') answered(id, undefined);
          }
        }
        neverBehind();
      }
      // Everything on its way arrives, in any order that is left; then the stream's next batch.
      for (const arrive of held) {
        arrive(++tick);
        neverBehind();
      }
      for (const change of [...(pending ? [pending] : []), ...batches]) {
        apply(change);
        neverBehind();
      }
      apply(await changesSince(streamAt));

      expect(local.size).toBe(0);
      const full = await send('GET', '/api/v1/memory');
      const byId = (a: MemoryItem, b: MemoryItem) => a.id.localeCompare(b.id);
      expect([...visible(mirror, local).values()].sort(byId)).toEqual(
        [...(full.body as ListAnswer).memories].sort(byId),
      );
    }),
    { numRuns: 300 },
  );
}, 120_000);
