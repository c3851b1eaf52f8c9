import { expect, test } from 'vitest';
import type { MirrorChange } from '../../../clients/typescript/src/index.ts';
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
} from './sync-mirror.ts';

/** Memory `id` at version `second` (its `updatedAt`, seconds into a minute). */
const at = (id: string, second: number, content = `${id} v${second}`): MemoryItem => ({
  id,
  content,
  createdAt: '2026-11-29T09:00:00.000Z',
  updatedAt: `2026-11-29T09:00:${String(second).padStart(2, '0')}.000Z`,
});

let cursors = 0;
/** A batch of the change stream (or an incremental pull): upserts and deletions. */
const batch = (upserted: MemoryItem[], removed: string[] = []): MirrorChange => ({
  full: false,
  upserted,
  removed,
  cursor: `c${++cursors}`,
});
const full = (upserted: MemoryItem[], removed: string[] = []): MirrorChange => ({
  ...batch(upserted, removed),
  full: true,
});

const shown = (mirror: Mirror, local: LocalWrites) =>
  [...visible(mirror, local).values()].map((m) => m.content).sort();

test('a write answered before the batch that carries it shows at once, and that batch settles it', () => {
  let mirror = applyChange(emptyMirror, full([at('a', 1)]));
  let local = settleShown(recordWrite(noLocalWrites, at('a', 2, 'edited'), 1), mirror);
  expect(shown(mirror, local)).toEqual(['edited']);
  // A batch read before the write committed carries the old version: not settled by it.
  mirror = applyChange(mirror, batch([at('a', 1)]));
  local = settleShown(local, mirror);
  expect(local.size).toBe(1);
  expect(shown(mirror, local)).toEqual(['edited']);
  mirror = applyChange(mirror, batch([at('a', 2, 'edited')]));
  local = settleShown(local, mirror);
  expect(local.size).toBe(0);
  expect(shown(mirror, local)).toEqual(['edited']);
});

test('a write answered after the batch that carried it, or a later version, is settled on arrival', () => {
  const mirror = applyChange(emptyMirror, batch([at('a', 3, 'later')]));
  const local = settleShown(recordWrite(noLocalWrites, at('a', 2, 'edited'), 1), mirror);
  expect(local.size).toBe(0);
  expect(shown(mirror, local)).toEqual(['later']);
});

test('a write answered after a batch that deleted its memory does not bring it back', () => {
  let mirror = applyChange(emptyMirror, full([at('a', 1)]));
  mirror = applyChange(mirror, batch([], ['a']));
  const local = settleShown(recordWrite(noLocalWrites, at('a', 2, 'edited'), 1), mirror);
  expect(local.size).toBe(0);
  expect(shown(mirror, local)).toEqual([]);
});

test('a delete hides its memory until a change removes it; a batch still carrying the memory does not settle it', () => {
  let mirror = applyChange(emptyMirror, full([at('a', 1), at('b', 1)]));
  let local = settleShown(recordDelete(noLocalWrites, 'a', 1), mirror);
  expect(shown(mirror, local)).toEqual(['b v1']);
  mirror = applyChange(mirror, batch([at('a', 1)]));
  local = settleShown(local, mirror);
  expect(shown(mirror, local)).toEqual(['b v1']);
  mirror = applyChange(mirror, batch([], ['a']));
  local = settleShown(local, mirror);
  expect(local.size).toBe(0);
  expect(shown(mirror, local)).toEqual(['b v1']);
  // Its answer arriving after that batch: nothing to keep.
  expect(settleShown(recordDelete(noLocalWrites, 'a', 2), mirror).size).toBe(0);
});

test('answers arriving out of order: the later version stays, and a delete stays a delete', () => {
  let local = recordWrite(noLocalWrites, at('a', 3, 'second edit'), 1);
  local = recordWrite(local, at('a', 2, 'first edit'), 2);
  expect(local.get('a')?.item?.content).toBe('second edit');
  local = recordDelete(local, 'a', 3);
  expect(recordWrite(local, at('a', 4), 4).get('a')?.item).toBeUndefined();
});

test('a pull settles by ticks: the writes answered before it was asked, not after', () => {
  let local = recordWrite(noLocalWrites, at('a', 1), 1);
  local = recordWrite(local, at('b', 1), 3);
  // A pull asked at tick 2 that shows neither (a full pull does not name deletions).
  const mirror = applyChange(emptyMirror, full([]));
  local = settleShown(settle(local, 2), mirror);
  expect([...local.keys()]).toEqual(['b']);
});

test('changes apply in any order to the same copy: no memory goes back a version, none deleted comes back', () => {
  const stale = batch([at('a', 1), at('b', 1)]);
  let mirror = applyChange(emptyMirror, full([at('a', 1), at('b', 1)]));
  // A pull asked after the stream read `stale`, applied before it.
  mirror = applyChange(mirror, batch([at('a', 2, 'a newer')], ['b']));
  mirror = applyChange(mirror, stale);
  expect([...mirror.items.values()].map((m) => m.content)).toEqual(['a newer']);
  expect(mirror.gone).toEqual(new Set(['b']));
});

test('a full pull names what the copy held and is gone: seen deleted', () => {
  let mirror = applyChange(emptyMirror, full([at('a', 1), at('b', 1)]));
  mirror = applyChange(mirror, full([at('a', 1)], ['b']));
  expect([...mirror.items.keys()]).toEqual(['a']);
  expect(mirror.gone.has('b')).toBe(true);
});
