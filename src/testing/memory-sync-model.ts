/**
 * A model of memory sync for property tests: random programs of concurrent adds, patches and
 * deletes from three writers of one store (a user's store, or a project pool), with incremental
 * pulls by two syncing clients started in the same batch as the writes. After each batch
 * settles, the full list is checked against what the acknowledgements allow, and every mirror
 * against what a pull that started after the previous batch must show. At the end one more pull
 * makes every mirror equal to the full list. The transport is the test's: one app, or several
 * processes behind one store.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { MemoryItem } from '../memory/memory.schemas.ts';
import type { Fixtures, TestApp } from './build-test-app.ts';

type Item = MemoryItem;

export interface Who {
  token: string;
  orgId: string;
}

export interface Answer {
  status: number;
  body: unknown;
}

export type Send = (who: Who, method: string, url: string, payload?: object) => Promise<Answer>;

export type ScopeKind = 'user' | 'project';

interface Writer {
  who: Who;
  /** What a POST adds to its body to reach the store. */
  addExtra: Record<string, string>;
  /** What a PATCH or DELETE adds to its path. */
  query: string;
}

interface Syncer {
  who: Who;
  listQuery: string;
}

export interface World {
  kind: ScopeKind;
  writers: Writer[];
  syncers: Syncer[];
  /** The full list, read by a store member who does not write. */
  full: () => Promise<ListBody>;
}

export interface ListBody {
  memories: Item[];
  deleted?: string[];
  cursor: string;
}

// ---------------------------------------------------------------------------------------------
// The program
// ---------------------------------------------------------------------------------------------

/** A small alphabet: many of these fold into each other (docs/design.md §3.1: NFKC, case, space, .!?). */
const CONTENTS = [
  'coffee',
  'Coffee.',
  'COFFEE!!',
  '  coffee  ',
  'ｃｏｆｆｅｅ',
  'tea',
  'Tea?',
  'green  tea',
  'Green tea!',
  'water',
] as const;
const CATEGORY_INPUTS = ['omit', 'goal', 'preference', 'bogus', null] as const;
type CategoryInput = (typeof CATEGORY_INPUTS)[number];
const RECOGNIZED = new Set<unknown>([
  'identity',
  'preference',
  'goal',
  'project',
  'relationship',
  'constraint',
]);

type WriteOp =
  | { kind: 'add'; writer: number; content: string; category: CategoryInput }
  | {
      kind: 'patch';
      writer: number;
      /** Index into the ids known when the batch starts; -1: an id that never existed. */
      target: number;
      content: string | undefined;
      category: CategoryInput;
    }
  | { kind: 'delete'; writer: number; target: number };

interface Batch {
  writes: WriteOp[];
  /** Syncers (0 or 1) that pull during this batch, each at a position among the writes. */
  pulls: Array<{ syncer: number; at: number }>;
}

const contentArb = fc.constantFrom(...CONTENTS);
const categoryArb = fc.constantFrom(...CATEGORY_INPUTS);
const writerArb = fc.nat({ max: 2 });
const targetArb = fc.oneof(
  { weight: 12, arbitrary: fc.nat({ max: 1000 }) },
  { weight: 1, arbitrary: fc.constant(-1) },
);
const writeArb: fc.Arbitrary<WriteOp> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      writer: writerArb,
      content: contentArb,
      category: categoryArb,
    }),
  },
  {
    weight: 3,
    arbitrary: fc
      .record({
        kind: fc.constant('patch' as const),
        writer: writerArb,
        target: targetArb,
        content: fc.option(contentArb, { nil: undefined }),
        category: categoryArb,
      })
      // At least one field: a PATCH with none is a 400, not a race.
      .map((op) =>
        op.content === undefined && op.category === 'omit' ? { ...op, content: 'water' } : op,
      ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('delete' as const),
      writer: writerArb,
      target: targetArb,
    }),
  },
);
const batchArb: fc.Arbitrary<Batch> = fc.record({
  writes: fc.array(writeArb, { maxLength: 8 }),
  pulls: fc.uniqueArray(fc.record({ syncer: fc.nat({ max: 1 }), at: fc.nat({ max: 8 }) }), {
    selector: (p) => p.syncer,
    maxLength: 2,
  }),
});
export const programArb = fc.array(batchArb, { minLength: 1, maxLength: 10 });

// ---------------------------------------------------------------------------------------------
// The model's helpers
// ---------------------------------------------------------------------------------------------

/** The fold rule of docs/design.md §3.1, written independently of fold.ts. */
function normalize(content: string): string {
  return content
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/[.!?]+$/u, '')
    .trimEnd();
}

const recognized = (input: CategoryInput): string | undefined =>
  RECOGNIZED.has(input) ? (input as string) : undefined;

const byId = (items: Iterable<Item>) =>
  [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

function applyPull(mirror: Map<string, Item>, body: ListBody): void {
  for (const memory of body.memories) mirror.set(memory.id, memory);
  for (const id of body.deleted ?? []) mirror.delete(id);
}

interface Mirror {
  map: Map<string, Item>;
  cursor: string | undefined;
}

async function pull(world: World, send: Send, syncer: number, mirror: Mirror): Promise<void> {
  const { who, listQuery } = world.syncers[syncer] as Syncer;
  const params = [
    ...(listQuery ? [listQuery] : []),
    ...(mirror.cursor === undefined ? [] : [`since=${encodeURIComponent(mirror.cursor)}`]),
  ];
  const answer = await send(
    who,
    'GET',
    `/api/v1/memory${params.length ? `?${params.join('&')}` : ''}`,
  );
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const body = answer.body as ListBody;
  // `deleted` is present exactly on incremental responses.
  expect(Array.isArray(body.deleted)).toBe(mirror.cursor !== undefined);
  expect(typeof body.cursor).toBe('string');
  applyPull(mirror.map, body);
  mirror.cursor = body.cursor;
}

// ---------------------------------------------------------------------------------------------
// One run of a program
// ---------------------------------------------------------------------------------------------

interface KnownMemory {
  /** Index of the writer that created it (the contributor). */
  contributor: number;
  createdAt: string;
}

interface WriteResult {
  op: WriteOp;
  /** The id a patch or delete targeted. */
  id?: string;
  answer: Answer;
}

export async function runProgram(world: World, send: Send, program: Batch[]): Promise<void> {
  const known = new Map<string, KnownMemory>();
  const order: string[] = [];
  /** Ids whose deletion was acknowledged (200). */
  const deletedAcked = new Set<string>();
  /** For each id, the acknowledged patch with the greatest updatedAt so far. */
  const lastPatch = new Map<string, Item>();
  /** For each id, the greatest updatedAt seen in any answer. */
  const maxUpdatedAt = new Map<string, string>();
  const mirrors: Mirror[] = world.syncers.map(() => ({ map: new Map(), cursor: undefined }));
  let list = new Map<string, Item>();

  const canEdit = (writer: number, id: string) =>
    world.kind === 'user' || known.get(id)?.contributor === writer;
  const seen = (item: Item) => {
    const previous = maxUpdatedAt.get(item.id);
    if (previous === undefined || item.updatedAt > previous)
      maxUpdatedAt.set(item.id, item.updatedAt);
  };

  for (const [b, batch] of program.entries()) {
    const at = `batch ${b}`;
    const start = list;
    const startKnown = new Set(known.keys());
    const deletedBefore = new Set(deletedAcked);
    const targetOf = (target: number) =>
      target < 0 || order.length === 0 ? randomUUID() : (order[target % order.length] as string);

    // Issue every write and the pulls of the batch at once.
    const tasks: Array<() => Promise<WriteResult | { pulled: number }>> = batch.writes.map((op) => {
      const writer = world.writers[op.writer] as Writer;
      if (op.kind === 'add') {
        const payload: Record<string, unknown> = { content: op.content, ...writer.addExtra };
        if (op.category !== 'omit') payload.category = op.category;
        return async () => ({
          op,
          answer: await send(writer.who, 'POST', '/api/v1/memory', payload),
        });
      }
      const id = targetOf(op.target);
      const url = `/api/v1/memory/${id}${writer.query}`;
      if (op.kind === 'delete') {
        return async () => ({ op, id, answer: await send(writer.who, 'DELETE', url) });
      }
      const payload: Record<string, unknown> = {};
      if (op.content !== undefined) payload.content = op.content;
      if (op.category !== 'omit') payload.category = op.category;
      return async () => ({ op, id, answer: await send(writer.who, 'PATCH', url, payload) });
    });
    for (const { syncer, at: position } of batch.pulls) {
      tasks.splice(Math.min(position, tasks.length), 0, async () => {
        await pull(world, send, syncer, mirrors[syncer] as Mirror);
        return { pulled: syncer };
      });
    }
    const settled = await Promise.all(tasks.map((task) => task()));
    const results = settled.filter((r): r is WriteResult => 'op' in r);
    const pulled = settled
      .filter((r): r is { pulled: number } => 'pulled' in r)
      .map((r) => r.pulled);

    const full = await world.full();
    expect(full.deleted, at).toBeUndefined();
    const end = new Map(full.memories.map((m) => [m.id, m]));
    expect(end.size, `${at}: duplicate ids in the full list`).toBe(full.memories.length);

    // --- Each answer, on its own -------------------------------------------------------------
    const created = new Map<string, Item>();
    const patchesOf = new Map<string, Item[]>();
    const deletesOf = new Map<string, number>();
    const foldsInto = new Map<string, Array<string | undefined>>();
    const racingDelete = new Set(
      results
        .filter((r) => r.op.kind === 'delete' && r.id !== undefined && startKnown.has(r.id))
        .filter((r) => canEdit(r.op.writer, r.id as string))
        .map((r) => r.id as string),
    );
    for (const { op, id, answer } of results) {
      const what = `${at}: ${JSON.stringify(op)} on ${id ?? '-'} → ${answer.status} ${JSON.stringify(answer.body)}`;
      if (op.kind === 'add') {
        const category = op.category === 'omit' ? undefined : recognized(op.category);
        if (answer.status === 201) {
          const memory = (answer.body as { memory: Item }).memory;
          expect(memory, what).toEqual({
            id: expect.any(String),
            content: op.content,
            ...(category === undefined ? {} : { category }),
            createdAt: memory.updatedAt,
            updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          });
          expect(known.has(memory.id) || created.has(memory.id), what).toBe(false);
          created.set(memory.id, memory);
          seen(memory);
        } else {
          expect(answer.status, what).toBe(200);
          const folded = (answer.body as { memory: { id: string; content: string } }).memory;
          expect(Object.keys(answer.body as object), what).toEqual(['memory']);
          expect(Object.keys(folded).sort(), what).toEqual(['content', 'id']);
          expect(normalize(folded.content), what).toBe(normalize(op.content));
          foldsInto.set(folded.id, [...(foldsInto.get(folded.id) ?? []), category]);
        }
        continue;
      }
      const target = id as string;
      const exists = startKnown.has(target);
      const allowed = exists && canEdit(op.writer, target);
      if (op.kind === 'delete') {
        if (!allowed) {
          expect(answer.status, what).toBe(404);
          expect(answer.body, what).toEqual({ error: expect.any(String) });
        } else {
          // Idempotent: an already deleted id answers the same.
          expect(answer.status, what).toBe(200);
          expect(answer.body, what).toEqual({ ok: true });
          deletesOf.set(target, (deletesOf.get(target) ?? 0) + 1);
        }
        continue;
      }
      if (!allowed || deletedBefore.has(target)) {
        expect(answer.status, what).toBe(404);
        expect(answer.body, what).toEqual({ error: expect.any(String) });
        continue;
      }
      if (racingDelete.has(target) && answer.status === 404) continue;
      expect(answer.status, what).toBe(200);
      const memory = (answer.body as { memory: Item }).memory;
      const before = start.get(target);
      expect(before, `${what}: not deleted, so in the list before the batch`).toBeDefined();
      expect(memory.id, what).toBe(target);
      expect(memory.createdAt, what).toBe(before?.createdAt);
      expect(memory.updatedAt > (before as Item).updatedAt, `${what}: updatedAt advances`).toBe(
        true,
      );
      if (op.content !== undefined) expect(memory.content, what).toBe(op.content);
      if (op.category !== 'omit') expect(memory.category, what).toBe(recognized(op.category));
      patchesOf.set(target, [...(patchesOf.get(target) ?? []), memory]);
      seen(memory);
      const previous = lastPatch.get(target);
      if (previous === undefined || memory.updatedAt > previous.updatedAt)
        lastPatch.set(target, memory);
    }

    // Folds go only into memories that exist (known before, or created in this batch).
    for (const id of foldsInto.keys()) {
      expect(startKnown.has(id) || created.has(id), `${at}: fold into unknown ${id}`).toBe(true);
      expect(deletedBefore.has(id), `${at}: fold into deleted ${id}`).toBe(false);
    }

    // In a batch of adds only, folding is exact: one memory per normalized content.
    if (batch.writes.every((op) => op.kind === 'add')) {
      const adds = results.filter((r) => r.op.kind === 'add');
      const keys = new Set(adds.map((r) => normalize((r.op as { content: string }).content)));
      for (const key of keys) {
        const same = adds.filter((r) => normalize((r.op as { content: string }).content) === key);
        const existing = [...start.values()].filter((m) => normalize(m.content) === key);
        const ids = same.map((r) => (r.answer.body as { memory: { id: string } }).memory.id);
        const fresh = same.filter((r) => r.answer.status === 201);
        const label = `${at}: adds of "${key}" → ${same.map((r) => r.answer.status)} ${ids}`;
        if (existing.length > 0) {
          expect(fresh, label).toHaveLength(0);
          for (const id of ids)
            expect(
              existing.map((m) => m.id),
              label,
            ).toContain(id);
        } else {
          expect(fresh, label).toHaveLength(1);
          const freshId = ((fresh[0] as WriteResult).answer.body as { memory: Item }).memory.id;
          expect(new Set(ids), label).toEqual(new Set([freshId]));
        }
      }
    }

    // --- The full list after the batch, against what the answers allow ----------------------
    const touched = new Set([...patchesOf.keys(), ...deletesOf.keys(), ...foldsInto.keys()]);
    for (const id of new Set([...startKnown, ...created.keys()])) {
      const now = end.get(id);
      const label = `${at}: memory ${id} (patches ${JSON.stringify(patchesOf.get(id) ?? [])}, deletes ${deletesOf.get(id) ?? 0}, folds ${JSON.stringify(foldsInto.get(id) ?? [])}) → ${JSON.stringify(now)}`;
      const initial = start.get(id) ?? created.get(id);
      if (initial === undefined || (deletesOf.get(id) ?? 0) > 0) {
        // Deleted before the batch, or by an acknowledged delete in it: gone for good.
        expect(now, label).toBeUndefined();
        continue;
      }
      expect(now, `${label}: an acknowledged memory was lost`).toBeDefined();
      const item = now as Item;
      const patches = patchesOf.get(id) ?? [];
      // Racing patches: each commit advances updatedAt, so the last committed has the greatest.
      expect(new Set(patches.map((p) => p.updatedAt)).size, label).toBe(patches.length);
      const base = patches.reduce((a, p) => (p.updatedAt > a.updatedAt ? p : a), initial);
      const foldCategories = (foldsInto.get(id) ?? []).filter((c) => c !== undefined);
      expect(item.createdAt, label).toBe(initial.createdAt);
      expect(item.content, label).toBe(base.content);
      if (item.category === base.category) {
        expect(item.updatedAt, label).toBe(base.updatedAt);
      } else {
        // Only a fold that brings a category to a memory without one changes it, after base.
        expect(base.category, label).toBeUndefined();
        expect(foldCategories, label).toContain(item.category);
        expect(item.updatedAt > base.updatedAt, label).toBe(true);
      }
      if (patches.length === 0 && base.category === undefined && foldCategories.length > 0) {
        expect(foldCategories, `${label}: a fold with a category sets it`).toContain(item.category);
      }
      if (!touched.has(id) && !created.has(id)) expect(item, label).toEqual(initial);
    }
    for (const id of end.keys()) {
      expect(startKnown.has(id) || created.has(id), `${at}: unexpected memory ${id}`).toBe(true);
    }

    // --- Each mirror that pulled during the batch -------------------------------------------
    for (const syncer of pulled) {
      const mirror = (mirrors[syncer] as Mirror).map;
      const label = (id: string) =>
        `${at}: syncer ${syncer}, memory ${id}: mirror ${JSON.stringify(mirror.get(id))}, before ${JSON.stringify(start.get(id))}, after ${JSON.stringify(end.get(id))}`;
      for (const [id, item] of mirror) {
        // A pull can miss only what committed after it began: this batch's deletes.
        expect(end.has(id) || (deletesOf.get(id) ?? 0) > 0, label(id)).toBe(true);
        expect(start.has(id) || created.has(id), label(id)).toBe(true);
        const after = end.get(id);
        if (after) expect(item.updatedAt <= after.updatedAt, label(id)).toBe(true);
        expect(item.createdAt, label(id)).toBe((start.get(id) ?? created.get(id))?.createdAt);
      }
      for (const [id, before] of start) {
        if (!touched.has(id)) {
          expect(mirror.get(id), `${label(id)}: a committed state was missed`).toEqual(before);
        } else if (!mirror.has(id)) {
          expect(deletesOf.get(id) ?? 0, `${label(id)}: missing from the mirror`).toBeGreaterThan(
            0,
          );
        } else {
          expect((mirror.get(id) as Item).updatedAt >= before.updatedAt, label(id)).toBe(true);
        }
      }
    }

    // --- Carry the model forward ------------------------------------------------------------
    for (const [id, memory] of created) {
      const writer = results.find(
        (r) => r.answer.status === 201 && (r.answer.body as { memory: Item }).memory.id === id,
      )?.op.writer as number;
      known.set(id, { contributor: writer, createdAt: memory.createdAt });
      order.push(id);
    }
    for (const id of deletesOf.keys()) deletedAcked.add(id);
    for (const item of end.values()) seen(item);
    list = end;
  }

  // After all writes settled, one more pull brings every mirror to the full list.
  const final = await world.full();
  for (const [syncer, mirror] of mirrors.entries()) {
    await pull(world, send, syncer, mirror);
    expect(byId(mirror.map.values()), `syncer ${syncer} after the last pull`).toEqual(
      byId(final.memories),
    );
  }
  const finalMap = new Map(final.memories.map((m) => [m.id, m]));
  for (const id of known.keys()) {
    // Every acknowledged add is in the final list, or was deleted by an acknowledged delete.
    expect(finalMap.has(id) !== deletedAcked.has(id), `acknowledged add ${id}`).toBe(true);
    const item = finalMap.get(id);
    const patched = lastPatch.get(id);
    if (item && patched)
      expect(item.content, `last acknowledged patch of ${id}`).toBe(patched.content);
    if (item) expect(item.updatedAt, `updatedAt of ${id}`).toBe(maxUpdatedAt.get(id));
  }
  expect(finalMap.size).toBe(known.size - deletedAcked.size);
}

// ---------------------------------------------------------------------------------------------
// Worlds and transports
// ---------------------------------------------------------------------------------------------

export async function createWorld(fixtures: Fixtures, kind: ScopeKind, send: Send): Promise<World> {
  const orgId = await fixtures.org();
  const as = (token: string): Who => ({ token, orgId });
  if (kind === 'user') {
    // Three writers of one user's store: two credentials of its owner, and a member acting for
    // the owner; two syncers: the owner (a third credential) and another member acting for them.
    const owner = await fixtures.user(orgId, 'owner');
    const helper = await fixtures.user(orgId);
    const reader = await fixtures.user(orgId);
    const override = `?user=${owner.id}`;
    const ownerReader = as(await fixtures.token(owner.id));
    return {
      kind,
      writers: [
        { who: as(owner.token), addExtra: {}, query: '' },
        { who: as(await fixtures.token(owner.id)), addExtra: {}, query: '' },
        { who: as(helper.token), addExtra: { user: owner.id }, query: override },
      ],
      syncers: [
        { who: ownerReader, listQuery: '' },
        { who: as(reader.token), listQuery: `user=${owner.id}` },
      ],
      full: async () => {
        const answer = await send(ownerReader, 'GET', '/api/v1/memory');
        expect(answer.status).toBe(200);
        return answer.body as ListBody;
      },
    };
  }
  // Three editors of a project pool; two syncers: a viewer and one of the editors.
  const editors = [
    await fixtures.user(orgId),
    await fixtures.user(orgId),
    await fixtures.user(orgId),
  ];
  const viewer = await fixtures.user(orgId);
  const projectId = await fixtures.project(orgId, {
    [(editors[0] as { id: string }).id]: 'editor',
    [(editors[1] as { id: string }).id]: 'editor',
    [(editors[2] as { id: string }).id]: 'owner',
    [viewer.id]: 'viewer',
  });
  const viewerWho = as(viewer.token);
  return {
    kind,
    writers: editors.map((e) => ({
      who: as(e.token),
      addExtra: { project: projectId },
      query: '',
    })),
    syncers: [
      { who: viewerWho, listQuery: `project=${projectId}` },
      {
        who: as(await fixtures.token((editors[0] as { id: string }).id)),
        listQuery: `project=${projectId}`,
      },
    ],
    full: async () => {
      const answer = await send(viewerWho, 'GET', `/api/v1/memory?project=${projectId}`);
      expect(answer.status).toBe(200);
      return answer.body as ListBody;
    },
  };
}

export function injectTransport(t: TestApp): Send {
  return async (who, method, url, payload) => {
    const response = await t.request(who, {
      method: method as 'GET',
      url,
      ...(payload === undefined ? {} : { payload }),
    });
    return { status: response.statusCode, body: response.json() };
  };
}

export function httpTransport(base: string): Send {
  return async (who, method, url, payload) => {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${who.token}`,
        'x-organization-id': who.orgId,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: await response.json() };
  };
}
