/**
 * Search quality on LoCoMo (locomo.ts): a fresh app on a fresh store of one engine
 * (quality-app.ts); one organization whose owner makes a project per conversation through the
 * API and adds each turn to its conversation's pool; then every question of categories 1–4 is
 * asked, as written, of its own conversation's pool, and the memories answered are read back as
 * the turns they are.
 */
import type { Setup } from '../setups.ts';
import type { HybridSearch } from './hybrid.ts';
import type { LocomoQuestion, LocomoSet } from './locomo.ts';
import type { Retrieved } from './locomo-metrics.ts';
import {
  addMemory,
  call,
  inFlight,
  type Member,
  QualityFailed,
  type SearchMode,
  searchMemories,
  withQualityApp,
} from './quality-app.ts';

/**
 * Searches in flight at once. One at a time, the 2,760 adds took 4.2 s on SQLite and 7.1 s on
 * PostgreSQL (each waits for its commit); 16 at once, 2.2 and 3.6 s; 64 no less. Adds go one
 * conversation each at once (below).
 */
export const IN_FLIGHT = 16;

export interface LocomoSearched extends Retrieved {
  readonly question: LocomoQuestion;
}

export interface LocomoRun {
  readonly engine: Setup['engine'];
  readonly mode: SearchMode;
  /** Every question asked, in the data's order. */
  readonly searched: readonly LocomoSearched[];
  /** How many answers said another `mode` than the one configured (hybrid fell back). */
  readonly otherModeAnswers: number;
  /** Wall time of the adds (and of the wait for their vectors, when hybrid), and of the searches. */
  readonly seconds: { readonly adds: number; readonly searches: number };
}

async function createProject(origin: string, owner: Member, name: string): Promise<string> {
  const path = `/api/v1/orgs/${owner.orgId}/projects`;
  const { status, text } = await call(origin, owner, 'POST', path, { name });
  if (status !== 201) throw new QualityFailed(`creating the project ${name}: ${status} ${text}`);
  return (JSON.parse(text) as { project: { id: string } }).project.id;
}

const since = (started: number) => (performance.now() - started) / 1000;

/**
 * Runs LoCoMo's questions on `setup`'s engine, lexical or with `hybrid`'s embeddings; the store
 * and app are made for the run and removed after it.
 */
export async function measureLocomo(
  setup: Setup,
  hybrid: HybridSearch | undefined,
  set: LocomoSet,
  dir: string,
  log: (line: string) => void,
): Promise<LocomoRun> {
  return withQualityApp(setup, hybrid, dir, 'search-locomo', async (app) => {
    const { origin, fixtures, mode } = app;
    const name = `search LoCoMo, ${setup.engine}, ${mode}`;
    const orgId = await fixtures.org({ name: 'LoCoMo' });
    const { token } = await fixtures.user(orgId, 'owner');
    const owner: Member = { token, orgId };
    // The creator of a project is its owner, so may add to its pool and search it.
    const pools = new Map<string, string>();
    for (const conversation of set.conversations) {
      pools.set(conversation.id, await createProject(origin, owner, conversation.id));
    }
    const poolOf = (conversation: string) => pools.get(conversation) as string;

    // Each conversation's turns are added in their order, one at a time, as a conversation is
    // kept: the order a store was written in is part of what search weighs (a memory's
    // sitting, docs/design.md §3.4.1). The five conversations are added side by side.
    const turns = set.conversations.flatMap((c) =>
      c.turns.map((turn) => ({ conversation: c.id, diaId: turn.diaId, content: turn.content })),
    );
    log(`${name}: adding ${turns.length} turns, each conversation's in order`);
    const adding = performance.now();
    const added = await inFlight(set.conversations, set.conversations.length, async (c) => {
      const mine: string[] = [];
      for (const turn of c.turns) {
        mine.push(
          await addMemory(
            origin,
            owner,
            { content: turn.content, project: poolOf(c.id) },
            `${c.id} ${turn.diaId}`,
          ),
        );
      }
      return mine;
    });
    const ids = added.flat();
    const turnOf = new Map(ids.map((id, i) => [id, turns[i] as (typeof turns)[number]]));
    if (mode === 'hybrid') {
      log(`${name}: waiting for every memory's vector`);
      await app.settle();
    }
    const adds = since(adding);

    const questions = set.conversations.flatMap((c) => c.questions);
    log(`${name}: ${questions.length} questions (adds took ${adds.toFixed(1)} s)`);
    const searching = performance.now();
    let otherModeAnswers = 0;
    const searched = await inFlight(questions, IN_FLIGHT, async (question) => {
      const answer = await searchMemories(origin, owner, question.question, {
        project: poolOf(question.conversation),
      });
      if (answer.mode !== mode) otherModeAnswers++;
      const ranked = answer.ids.map((id) => {
        const turn = turnOf.get(id);
        if (turn?.conversation !== question.conversation) {
          const what = turn ? `${turn.conversation} ${turn.diaId}` : `unknown ${id}`;
          throw new QualityFailed(
            `${question.conversation} #${question.index}: answered ${what}, not of its pool`,
          );
        }
        return turn.diaId;
      });
      return { question, evidence: question.evidence, ranked };
    });
    return {
      engine: setup.engine,
      mode,
      searched,
      otherModeAnswers,
      seconds: { adds, searches: since(searching) },
    };
  });
}
