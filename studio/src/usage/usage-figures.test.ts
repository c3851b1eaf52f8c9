import { expect, test } from 'vitest';
import { everyDay, formatCost, unpricedNote } from './usage-figures.ts';

test('days without calls are zero; an unknown cost is a dash, never $0', () => {
  const days = everyDay({ first: '2026-03-01', last: '2026-03-03' }, [
    {
      key: '2026-03-02',
      requests: 2,
      promptTokens: 5,
      completionTokens: 1,
      totalTokens: 6,
      costUsd: null,
    },
  ]);
  expect(days.map((d) => [d.day, d.requests, d.costUsd])).toEqual([
    ['2026-03-01', 0, 0],
    ['2026-03-02', 2, null],
    ['2026-03-03', 0, 0],
  ]);
  expect(formatCost(null)).toBe('—');
  expect(formatCost(undefined)).toBe('—');
  expect(formatCost(0)).toBe('$0.00');
  expect(formatCost(0.000012)).toBe('< $0.0001');
  expect(formatCost(0.0048)).toBe('$0.0048');
});

test('a cost that leaves out calls without a price says how many', () => {
  expect(unpricedNote(undefined)).toBeUndefined();
  expect(unpricedNote(0)).toBeUndefined();
  expect(unpricedNote(1)).toBe('1 call without a price is not counted');
  expect(unpricedNote(1200)).toBe(
    `${(1200).toLocaleString()} calls without a price are not counted`,
  );
});
