/**
 * A property of search under concurrent writes (docs/design.md §3.4.1: the index changes in the
 * same transaction as the memory): whatever write was acknowledged is what the next search sees.
 *
 * Each memory of a program carries a word of its own (a marker: letters only, all of one length,
 * so no marker is a prefix of another and the analyzer keeps it whole). Memories live their lives
 * in parallel — added, rewritten with a new marker, deleted — each one's steps in order. After
 * every acknowledged step its author searches at once, while the other memories are being
 * written: the current marker finds exactly that memory, a replaced marker and a deleted memory
 * find nothing. At the end, a word every memory shares finds exactly the live ones.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { MemoryItem } from '../memory/memory.schemas.ts';
import type { Fixtures } from './build-test-app.ts';
import type { ScopeKind, Send, Who } from './memory-sync-model.ts';

type Step = { readonly kind: 'update'; readonly category?: string } | { readonly kind: 'delete' };

/** One memory's life: added, then rewritten some times, perhaps deleted at the end. */
interface Life {
  readonly updates: number;
  readonly deleted: boolean;
  readonly category: 'preference' | 'fact' | undefined;
}

const lifeArb: fc.Arbitrary<Life> = fc.record({
  updates: fc.integer({ min: 0, max: 3 }),
  deleted: fc.boolean(),
  category: fc.constantFrom('preference', 'fact', undefined),
});

/** Up to twelve memories living at once. */
export const livesArb = fc.array(lifeArb, { minLength: 1, maxLength: 12 });

/** Words every memory shares, so each search also ranks other memories than its own. */
const SHARED = 'morning coffee notes';

/** A word no other marker begins with: `q` and five letters from a counter. */
function markerFor(n: number): string {
  let word = '';
  let rest = n;
  for (let i = 0; i < 5; i++) {
    word += String.fromCharCode(97 + (rest % 26));
    rest = Math.floor(rest / 26);
  }
  return `q${word}`;
}

interface SearchBody {
  memories: (MemoryItem & { score: number })[];
}

export interface ExactnessWorld {
  readonly who: Who;
  /** Where the memories live (a pool, or nothing): added to a POST body, and to a search. */
  readonly addExtra: Record<string, string>;
  readonly query: string;
}

/** A store of its own: a new user's, or a new pool that user edits. */
export async function createExactnessWorld(
  fixtures: Fixtures,
  kind: ScopeKind,
): Promise<ExactnessWorld> {
  const orgId = await fixtures.org();
  const user = await fixtures.user(orgId);
  const who = { token: user.token, orgId };
  if (kind === 'user') return { who, addExtra: {}, query: '' };
  const projectId = await fixtures.project(orgId, { [user.id]: 'editor' });
  return { who, addExtra: { project: projectId }, query: `project=${projectId}` };
}

/** Runs the lives in parallel through `send`, in a store of their own, checking every search. */
export async function runLives(
  world: ExactnessWorld,
  send: Send,
  lives: readonly Life[],
): Promise<void> {
  let nextMarker = 0;
  const search = async (q: string) => {
    const params = new URLSearchParams({ q, limit: '100' });
    const answer = await send(
      world.who,
      'GET',
      `/api/v1/memory/search?${params}${world.query ? `&${world.query}` : ''}`,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return (answer.body as SearchBody).memories.map((m) => m.id);
  };

  const live = async (life: Life): Promise<string | undefined> => {
    let marker = markerFor(nextMarker++);
    const added = await send(world.who, 'POST', '/api/v1/memory', {
      content: `${SHARED} ${marker}`,
      ...(life.category ? { category: life.category } : {}),
      ...world.addExtra,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const id = (added.body as { memory: MemoryItem }).memory.id;
    expect(await search(marker)).toEqual([id]);

    const steps: Step[] = [
      ...Array.from({ length: life.updates }, (): Step => ({ kind: 'update' })),
      ...(life.deleted ? [{ kind: 'delete' } as const] : []),
    ];
    for (const step of steps) {
      if (step.kind === 'update') {
        const previous = marker;
        marker = markerFor(nextMarker++);
        const updated = await send(world.who, 'PATCH', `/api/v1/memory/${id}`, {
          content: `${SHARED} ${marker}`,
        });
        expect(updated.status, JSON.stringify(updated.body)).toBe(200);
        expect(await search(marker)).toEqual([id]);
        expect(await search(previous)).toEqual([]);
      } else {
        const deleted = await send(world.who, 'DELETE', `/api/v1/memory/${id}`);
        expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
        expect(await search(marker)).toEqual([]);
        return undefined;
      }
    }
    return id;
  };

  const survivors = (await Promise.all(lives.map(live))).filter((id) => id !== undefined);
  // The shared words: every live memory, and no deleted one.
  expect((await search(SHARED)).sort()).toEqual(survivors.sort());
}
