import { expect, test } from 'vitest';
import type { LabelledQuery } from './labelled-set.ts';
import { figuresOf, recallAtDepth, reciprocalRank } from './metrics.ts';

const asked = (answers: string[]): LabelledQuery => ({
  user: 'amira',
  kind: 'keyword',
  q: 'q',
  answers,
});

test('recall@5 is the share of the answers in the first five', () => {
  const query = asked(['a', 'b']);
  expect(recallAtDepth({ query, ranked: ['x', 'a', 'y', 'z', 'w', 'b'] })).toBe(0.5);
  expect(recallAtDepth({ query, ranked: ['b', 'a'] })).toBe(1);
  expect(recallAtDepth({ query, ranked: [] })).toBe(0);
});

test('the reciprocal rank is of the first answer, anywhere in the answer', () => {
  const query = asked(['a', 'b']);
  expect(reciprocalRank({ query, ranked: ['x', 'b', 'a'] })).toBe(0.5);
  expect(reciprocalRank({ query, ranked: ['x', 'y', 'z', 'w', 'v', 'u', 'a'] })).toBeCloseTo(1 / 7);
  expect(reciprocalRank({ query, ranked: ['x'] })).toBe(0);
});

test('figures are means over the queries', () => {
  const figures = figuresOf([
    { query: asked(['a']), ranked: ['a'] },
    { query: asked(['a', 'b']), ranked: ['x', 'x2', 'x3', 'a', 'x4', 'b'] },
  ]);
  expect(figures).toEqual({ queries: 2, recall: 0.75, mrr: 0.625 });
});
