import { expect, test } from 'vitest';
import {
  apiBounds,
  customRangeProblem,
  dayCount,
  daysOf,
  isDay,
  rangeOfSearch,
  searchOfChoice,
} from './usage-range.ts';

const TODAY = '2026-03-02';
const range = (query: string) => rangeOfSearch(new URLSearchParams(query), TODAY);

test('a preset is the last N UTC days, today included; the API gets the day after as its end', () => {
  expect(range('range=7')).toEqual({ preset: 7, first: '2026-02-24', last: '2026-03-02' });
  expect(dayCount(range('range=7'))).toBe(7);
  expect(apiBounds(range('range=7'))).toEqual({ from: '2026-02-24', to: '2026-03-03' });
  expect(dayCount(range('range=90'))).toBe(90);
});

test('no query, or one that cannot be read, is the last 30 days', () => {
  const thirty = { preset: 30, first: '2026-02-01', last: '2026-03-02' };
  expect(range('')).toEqual(thirty);
  expect(range('range=12')).toEqual(thirty);
  expect(range('from=2026-02-30&to=2026-03-01')).toEqual(thirty);
  expect(range('from=2026-03-05&to=2026-03-01')).toEqual(thirty);
  expect(range('from=2025-01-01&to=2026-03-01')).toEqual(thirty);
});

test('a custom range holds both its days, up to 366', () => {
  expect(range('from=2024-02-28&to=2024-03-01')).toEqual({
    preset: undefined,
    first: '2024-02-28',
    last: '2024-03-01',
  });
  expect(daysOf(range('from=2024-02-28&to=2024-03-01'))).toEqual([
    '2024-02-28',
    '2024-02-29',
    '2024-03-01',
  ]);
  expect(customRangeProblem('2025-01-01', '2026-01-01')).toBeUndefined();
  expect(customRangeProblem('2025-01-01', '2026-01-02')).toBe('A range can hold at most 366 days.');
  expect(customRangeProblem('', '2026-01-02')).toBe('Enter the first day of the range.');
  expect(customRangeProblem('2026-01-03', '2026-01-02')).toBe(
    'The last day cannot be before the first day.',
  );
  expect(isDay('2026-02-29')).toBe(false);
  expect(searchOfChoice({ preset: 90 })).toEqual({ range: '90' });
  expect(searchOfChoice({ first: '2026-01-01', last: '2026-01-31' })).toEqual({
    from: '2026-01-01',
    to: '2026-01-31',
  });
});
