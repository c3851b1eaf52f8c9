/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): each ranking gives a
 * memory `1 / (k + rank)`, rank counted from 1, and a memory's fused score is the sum over the
 * rankings it is in. Only ranks count, so a BM25 score and a cosine need no common scale; `k`
 * keeps the first few ranks of one ranking from outweighing agreement between several. k = 60 is
 * the paper's value, which later work has kept as the default.
 *
 * @example
 * fuseRankings([['a', 'b'], ['b', 'c']]);
 * // [{ id: 'b', score: 1/62 + 1/61 }, { id: 'a', score: 1/61 }, { id: 'c', score: 1/62 }]
 */
export const RRF_K = 60;

export interface Fused {
  readonly id: string;
  readonly score: number;
}

/** The ids of every ranking, by fused score, best first; ties keep the first ranking's order. */
export function fuseRankings(rankings: readonly (readonly string[])[], k = RRF_K): Fused[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, index) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1));
    });
  }
  // Map order is first appearance: the first ranking's order, then the next one's newcomers.
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
