import { type AnalyzedQuery, matchesWord, type QueryWord } from '../platform/search-analyzer.ts';

/**
 * How a store's memories are ranked for a query, the same on both engines: the engines find the
 * memories that hold some word of the query (candidates, with their indexed terms) and count the
 * store; the order is decided here, from the same
 * analysis, so SQLite and PostgreSQL answer alike. docs/design.md §3.4.1 says why each step is
 * there and what it gained.
 */

/** A memory that holds some word of the query, with the terms it is indexed by. */
export interface Candidate {
  readonly id: string;
  readonly content: string;
  readonly category: string | null;
  readonly created_at: number;
  readonly updated_at: number;
  /** The store's change counter at its last change: the order memories were written in. */
  readonly version: number;
  readonly search_terms: string;
}

/** What a store holds, for the weights: its searchable memories and their terms in all. */
export interface StoreCounts {
  readonly memories: number;
  readonly terms: number;
}

export type Ranked = Omit<Candidate, 'search_terms' | 'version'> & { score: number };
type Scored = Omit<Candidate, 'search_terms'> & { score: number };

/** BM25's usual constants: a word's count saturates by k1, a memory's length counts by b. */
const K1 = 1.2;
const B = 0.75;
/**
 * A memory's BM25 score is multiplied by the share of the query's weight it covers, squared:
 * of two memories with the same sum, the one holding more of what was asked comes first, and one
 * repeating a single word of a long question falls behind.
 */
const COVERAGE_POWER = 2;

/** The words a memory is scored on: every word of every group, and each joined form. */
export function scoredWords(query: AnalyzedQuery): QueryWord[] {
  return query.groups.flatMap((group) =>
    group.joined === undefined ? group.words : [...group.words, group.joined],
  );
}

/** Inverse document frequency as BM25 has it, never negative. */
export function idf(memories: number, holding: number): number {
  return Math.log(1 + (memories - holding + 0.5) / (holding + 0.5));
}

/**
 * Each candidate's own score, best first: Okapi BM25 over the store searched (Robertson and
 * Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009) — each word weighs by
 * how few of the store's memories hold it, saturates with how often a memory holds it, and counts
 * less in a longer memory — times the coverage above. `holding` gives how many of the store's
 * memories hold a scored word when the candidates are not all of them; for the others the count
 * is read from the candidates.
 */
export function scoreCandidates(
  query: AnalyzedQuery,
  candidates: readonly Candidate[],
  store: StoreCounts,
  holding?: readonly (number | undefined)[],
): Scored[] {
  const words = scoredWords(query);
  if (words.length === 0 || candidates.length === 0) return [];
  const frequencies = candidates.map((candidate) => {
    const terms = candidate.search_terms.split(' ');
    return { length: terms.length, counts: words.map((word) => occurrences(word, terms)) };
  });
  const held = words.map(
    (_, w) => holding?.[w] ?? frequencies.filter((f) => (f.counts[w] ?? 0) > 0).length,
  );
  // The store was counted apart from the candidates: never fewer than they show.
  const memories = Math.max(store.memories, candidates.length);
  const averageLength = Math.max(store.terms / Math.max(memories, 1), 1);
  const weights = held.map((n) => idf(memories, n));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const scored = candidates.map((candidate, c): Scored => {
    const { length, counts } = frequencies[c] as (typeof frequencies)[number];
    const norm = K1 * (1 - B + (B * length) / averageLength);
    let sum = 0;
    let covered = 0;
    for (const [w, tf] of counts.entries()) {
      if (tf === 0) continue;
      const weight = weights[w] ?? 0;
      sum += (weight * tf * (K1 + 1)) / (tf + norm);
      covered += weight;
    }
    const coverage = total > 0 ? (covered / total) ** COVERAGE_POWER : 1;
    const { search_terms: _, ...memory } = candidate;
    return { ...memory, score: sum * coverage };
  });
  return scored.sort(byScore);
}

function occurrences(word: QueryWord, terms: readonly string[]): number {
  let n = 0;
  for (const term of terms) if (matchesWord(word, term)) n++;
  return n;
}

/**
 * Memories written one after another in a store, within this long of each other, are one
 * sitting: a conversation kept turn by turn, notes taken together.
 */
export const SITTING_MS = 30 * 60_000;
/** How far a memory's sitting reaches: two changes of the store each way. */
const CONTEXT_REACH = 2;
/**
 * The share of a memory's score lent to the memory written `d` changes after it (an answer
 * follows its question; a detail, what it details) and to the one `d` changes before it (what it
 * continues): ½ and ¼ next to it, halved at each step further.
 */
const lentAfter = (d: number) => 2 ** -d;
const lentBefore = (d: number) => 2 ** -(d + 1);

/**
 * The final order, at most `limit`: each memory's own score and what its sitting lends it — the
 * own scores of the matching memories written just before and after it (by the store's change
 * counter, within `CONTEXT_REACH` changes and `SITTING_MS`), in the shares above. What a
 * question asks of a conversation is often said in the turn after the one that repeats its
 * words; this brings it up beside that turn. Only memories that match lend or gain: a search
 * answers what holds some word of the query, never a memory for its neighbour's sake.
 */
export function rankWithContext(scored: readonly Scored[], limit: number): Ranked[] {
  const byVersion = new Map(scored.map((memory) => [memory.version, memory]));
  const total = scored.map((memory) => {
    let score = memory.score;
    for (let d = 1; d <= CONTEXT_REACH; d++) {
      score += lent(memory, byVersion.get(memory.version - d), lentAfter(d));
      score += lent(memory, byVersion.get(memory.version + d), lentBefore(d));
    }
    return { ...memory, score };
  });
  return total
    .sort(byScore)
    .slice(0, limit)
    .map(({ version: _, ...memory }) => memory);
}

function lent(to: Scored, from: Scored | undefined, share: number): number {
  if (!from || Math.abs(from.updated_at - to.updated_at) > SITTING_MS) return 0;
  return from.score * share;
}

/** Best first; between equals, the memory changed last, then by id: one order everywhere. */
function byScore(a: Scored, b: Scored): number {
  return (
    b.score - a.score || b.updated_at - a.updated_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}
