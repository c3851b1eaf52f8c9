/** The instants an import's `createdAt` may name, and what it refuses. */
import { expect, test } from 'vitest';
import { parseDateTime } from './import-items.ts';

test.each([
  ['2024-07-20T08:34:56.789Z', '2024-07-20T08:34:56.789Z'],
  ['2024-07-20T01:34:56.789123-07:00', '2024-07-20T08:34:56.789Z'],
  ['2024-07-20t08:34:56z', '2024-07-20T08:34:56.000Z'],
  ['2024-07-20T10:34:56.7+02:00', '2024-07-20T08:34:56.700Z'],
  ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
])('%s is %s', (value, instant) => {
  expect(new Date(parseDateTime(value) as number).toISOString()).toBe(instant);
});

test.each([
  '2024-02-30T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '2024-07-20T24:00:00Z',
  '2024-07-20T08:60:00Z',
  '2024-07-20T08:34:56',
  '2024-07-20 08:34:56Z',
  '2024-07-20',
  '2024-07-20T08:34:56+2:00',
  '2024-07-20T08:34:56+25:00',
  '1721464496789',
  '',
])('%s names no instant', (value) => {
  expect(parseDateTime(value)).toBeUndefined();
});
