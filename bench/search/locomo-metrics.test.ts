import { expect, test } from 'vitest';
import {
  evidenceReciprocalRank,
  hitAt,
  LOCOMO_AIMS,
  locomoFigures,
  missedLocomoAims,
  recallAt,
} from './locomo-metrics.ts';

const ranked = ['D1:1', 'D1:2', 'D1:3', 'D1:4', 'D1:5', 'D2:1', 'D2:2', 'D2:3', 'D2:4', 'D2:5'];

test('recall@k is the share of all the evidence among the first k, however much there is', () => {
  expect(recallAt(5, { evidence: ['D1:2', 'D2:2'], ranked })).toBe(0.5);
  expect(recallAt(10, { evidence: ['D1:2', 'D2:2'], ranked })).toBe(1);
  // Six evidence turns: five at most fit in the first five, and the share is of all six.
  const six = ['D1:1', 'D1:2', 'D1:3', 'D1:4', 'D1:5', 'D2:1'];
  expect(recallAt(5, { evidence: six, ranked })).toBeCloseTo(5 / 6);
  expect(recallAt(5, { evidence: ['D9:9'], ranked })).toBe(0);
  expect(recallAt(5, { evidence: ['D1:1'], ranked: [] })).toBe(0);
});

test('hit@5 is whether any evidence turn is in the first five', () => {
  expect(hitAt(5, { evidence: ['D9:9', 'D1:5'], ranked })).toBe(1);
  expect(hitAt(5, { evidence: ['D2:1'], ranked })).toBe(0);
});

test('the reciprocal rank is of the first evidence turn anywhere among those answered', () => {
  expect(evidenceReciprocalRank({ evidence: ['D2:4', 'D1:3'], ranked })).toBeCloseTo(1 / 3);
  expect(evidenceReciprocalRank({ evidence: ['D2:5'], ranked })).toBeCloseTo(1 / 10);
  expect(evidenceReciprocalRank({ evidence: ['D9:9'], ranked })).toBe(0);
});

test('figures are means over the questions', () => {
  const figures = locomoFigures([
    { evidence: ['D1:1'], ranked },
    { evidence: ['D2:1', 'D9:9'], ranked },
  ]);
  expect(figures).toEqual({
    questions: 2,
    recall5: 0.5,
    recall10: 0.75,
    mrr: 0.5 + 1 / 12,
    hit5: 0.5,
  });
  expect(locomoFigures([]).questions).toBe(0);
  expect(locomoFigures([]).recall5).toBeNaN();
});

test('the aims name each figure that falls short, and no questions meets none', () => {
  const figures = { questions: 1, mrr: 0, hit5: 0 };
  expect(missedLocomoAims({ ...figures, ...LOCOMO_AIMS })).toEqual([]);
  expect(missedLocomoAims({ ...figures, recall5: 0.6, recall10: 0.8 })).toEqual(['recall@5 0.60']);
  expect(missedLocomoAims(locomoFigures([]))).toHaveLength(2);
});
