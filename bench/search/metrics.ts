import type { LabelledQuery, QueryKind } from './labelled-set.ts';

/** How deep recall is read: the memories a client shows or puts in a prompt first. */
export const RECALL_DEPTH = 5;

/** One query as searched: the keys of the memories answered, best first. */
export interface Searched {
  readonly query: LabelledQuery;
  readonly ranked: readonly string[];
}

/** The share of the query's answers found in the first `RECALL_DEPTH` memories answered. */
export function recallAtDepth({ query, ranked }: Searched): number {
  const top = new Set(ranked.slice(0, RECALL_DEPTH));
  const found = query.answers.filter((key) => top.has(key)).length;
  return found / Math.min(query.answers.length, RECALL_DEPTH);
}

/** 1 / the rank of the first of `answers` in `ranked`; 0 when none is there. */
export function reciprocalRankOf(answers: readonly string[], ranked: readonly string[]): number {
  const wanted = new Set(answers);
  const first = ranked.findIndex((key) => wanted.has(key));
  return first === -1 ? 0 : 1 / (first + 1);
}

/** 1 / the rank of the first answer among the memories answered; 0 when none is there. */
export function reciprocalRank({ query, ranked }: Searched): number {
  return reciprocalRankOf(query.answers, ranked);
}

/** The mean of `values`; NaN when there are none. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

export interface Figures {
  readonly queries: number;
  /** Mean of `recallAtDepth` over the queries. */
  readonly recall: number;
  /** Mean reciprocal rank. */
  readonly mrr: number;
}

export function figuresOf(searched: readonly Searched[]): Figures {
  return {
    queries: searched.length,
    recall: mean(searched.map(recallAtDepth)),
    mrr: mean(searched.map(reciprocalRank)),
  };
}

/** The kinds whose recall the requirement aims at: every one that words can find. */
export const AIMED_KINDS: readonly QueryKind[] = [
  'keyword',
  'identifier',
  'multilingual',
  'prefix',
  'question',
];
/** Least recall@5 aimed at on each of those kinds. */
export const RECALL_AIM = 0.9;
