/**
 * Search quality on the labelled set: a fresh app on a fresh store of one engine
 * (quality-app.ts), the set's memories added through the HTTP API by their owners, then every
 * query asked by its member through GET /api/v1/memory/search, its answer read as the set's keys.
 */
import type { Setup } from '../setups.ts';
import type { HybridSearch } from './hybrid.ts';
import { MEMORIES, QUERIES, USERS, type User } from './labelled-set.ts';
import type { Searched } from './metrics.ts';
import {
  addMemory,
  type Member,
  QualityFailed,
  type SearchMode,
  searchMemories,
  withQualityApp,
} from './quality-app.ts';

export interface QualityRun {
  readonly engine: Setup['engine'];
  readonly mode: SearchMode;
  readonly searched: readonly Searched[];
  /** How many answers said another `mode` than the one configured (hybrid fell back). */
  readonly otherModeAnswers: number;
}

/**
 * Runs the labelled set on `setup`'s engine, lexical or with `hybrid`'s embeddings; the store
 * and app are made for the run and removed after it.
 */
export async function measureQuality(
  setup: Setup,
  hybrid: HybridSearch | undefined,
  dir: string,
  log: (line: string) => void,
): Promise<QualityRun> {
  return withQualityApp(setup, hybrid, dir, 'search-quality', async (app) => {
    const { origin, fixtures, mode } = app;
    const orgId = await fixtures.org({ name: 'Northwind Labs' });
    const members = new Map<User, Member>();
    for (const user of USERS) {
      const { token } = await fixtures.user(orgId);
      members.set(user, { token, orgId });
    }
    const member = (user: User) => members.get(user) as Member;

    log(`search quality, ${setup.engine}, ${mode}: adding ${MEMORIES.length} memories`);
    const keyOf = new Map<string, string>();
    for (const memory of MEMORIES) {
      const body = {
        content: memory.content,
        ...(memory.category === undefined ? {} : { category: memory.category }),
      };
      keyOf.set(await addMemory(origin, member(memory.user), body, memory.key), memory.key);
    }
    if (mode === 'hybrid') {
      log(`search quality, ${setup.engine}, ${mode}: waiting for every memory's vector`);
      await app.settle();
    }
    log(`search quality, ${setup.engine}, ${mode}: ${QUERIES.length} queries`);
    const searched: Searched[] = [];
    let otherModeAnswers = 0;
    for (const query of QUERIES) {
      const answer = await searchMemories(origin, member(query.user), query.q);
      if (answer.mode !== mode) otherModeAnswers++;
      const ranked = answer.ids.map((id) => keyOf.get(id) ?? `unknown ${id}`);
      const stranger = ranked.find((key) => !key.startsWith(`${query.user}/`));
      if (stranger) {
        throw new QualityFailed(`${query.user}: ${query.q}: answered ${stranger}, not theirs`);
      }
      searched.push({ query, ranked });
    }
    return { engine: setup.engine, mode, searched, otherModeAnswers };
  });
}
