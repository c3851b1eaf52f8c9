import { expect, test } from 'vitest';
import { fuseRankings, RRF_K } from './rank-fusion.ts';

test('k is 60, the value of Cormack, Clarke and Büttcher', () => {
  expect(RRF_K).toBe(60);
});

test('a hand-worked case: agreement outranks one first place', () => {
  // Lexical: a, b, c. Vector: c, d, b.
  //   a: 1/61                = 0.016393…
  //   b: 1/62 + 1/63         = 0.032002…
  //   c: 1/63 + 1/61         = 0.032266…
  //   d: 1/62                = 0.016129…
  expect(
    fuseRankings([
      ['a', 'b', 'c'],
      ['c', 'd', 'b'],
    ]),
  ).toEqual([
    { id: 'c', score: 1 / 63 + 1 / 61 },
    { id: 'b', score: 1 / 62 + 1 / 63 },
    { id: 'a', score: 1 / 61 },
    { id: 'd', score: 1 / 62 },
  ]);
});

test('a memory in one ranking only keeps its place among the others', () => {
  expect(fuseRankings([['a', 'b'], []])).toEqual([
    { id: 'a', score: 1 / 61 },
    { id: 'b', score: 1 / 62 },
  ]);
  expect(fuseRankings([[], ['x']])).toEqual([{ id: 'x', score: 1 / 61 }]);
  expect(fuseRankings([[], []])).toEqual([]);
});

test('equal scores keep the first ranking’s order, then the next one’s', () => {
  // a and x are both first of one ranking, b and y both second.
  expect(
    fuseRankings([
      ['a', 'b'],
      ['x', 'y'],
    ]).map((hit) => hit.id),
  ).toEqual(['a', 'x', 'b', 'y']);
});
