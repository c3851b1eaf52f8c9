import { describe, expect, test } from 'vitest';
import { ApiError } from '../platform/errors.ts';
import { DAY_MS, parseInstant, parseUsageRange, utcDay } from './usage.range.ts';

const at = (iso: string) => Date.parse(iso);

describe('parseInstant', () => {
  test('a date is 00:00 UTC of that day', () => {
    expect(parseInstant('2026-11-01')).toBe(at('2026-11-01T00:00:00.000Z'));
    expect(parseInstant('2028-02-29')).toBe(at('2028-02-29T00:00:00.000Z'));
  });

  test('a date-time carries its zone; digits past milliseconds are dropped', () => {
    expect(parseInstant('2026-11-01T09:30:00Z')).toBe(at('2026-11-01T09:30:00.000Z'));
    expect(parseInstant('2026-11-01T09:30Z')).toBe(at('2026-11-01T09:30:00.000Z'));
    expect(parseInstant('2026-11-01T09:30:00.5Z')).toBe(at('2026-11-01T09:30:00.500Z'));
    expect(parseInstant('2026-11-01T09:30:00.123987654Z')).toBe(at('2026-11-01T09:30:00.123Z'));
    expect(parseInstant('2026-11-01T01:00:00+01:00')).toBe(at('2026-11-01T00:00:00.000Z'));
    expect(parseInstant('2026-10-31T19:30:00-04:30')).toBe(at('2026-11-01T00:00:00.000Z'));
  });

  test.each([
    '2026-02-29',
    '2026-02-30T00:00:00Z',
    '2026-13-01',
    '2026-11-01T24:00:00Z',
    '2026-11-01T10:60:00Z',
    '2026-11-01T10:00:60Z',
    '2026-11-01T10:00:00', // no zone: local time of whom?
    '2026-11-01T10:00:00+24:00',
    '2026-11-1',
    '20261101',
    'yesterday',
    '',
    ' 2026-11-01',
  ])('%j is not an instant', (text) => {
    expect(parseInstant(text)).toBeUndefined();
  });
});

describe('parseUsageRange', () => {
  const now = at('2026-11-24T12:00:00.000Z');

  test('by default the 30 days up to now', () => {
    expect(parseUsageRange({}, now)).toEqual({ from: now - 30 * DAY_MS, to: now });
    expect(parseUsageRange({ to: '2026-11-01' }, now)).toEqual({
      from: at('2026-10-02T00:00:00Z'),
      to: at('2026-11-01T00:00:00Z'),
    });
    expect(parseUsageRange({ from: '2026-11-20' }, now)).toEqual({
      from: at('2026-11-20T00:00:00Z'),
      to: now,
    });
  });

  test('dates name whole days as a half-open range; an empty range is allowed', () => {
    expect(parseUsageRange({ from: '2026-11-01', to: '2026-12-01' }, now)).toEqual({
      from: at('2026-11-01T00:00:00Z'),
      to: at('2026-12-01T00:00:00Z'),
    });
    expect(parseUsageRange({ from: '2026-11-01', to: '2026-11-01' }, now)).toEqual({
      from: at('2026-11-01T00:00:00Z'),
      to: at('2026-11-01T00:00:00Z'),
    });
  });

  test('at most 366 days', () => {
    expect(parseUsageRange({ from: '2027-01-01', to: '2028-01-02' }, now).to).toBe(
      at('2028-01-02T00:00:00Z'),
    );
    expect(() => parseUsageRange({ from: '2027-01-01', to: '2028-01-02T00:00:00.001Z' })).toThrow(
      'the range must not be longer than 366 days',
    );
    expect(() => parseUsageRange({ from: '2026-11-24' }, at('2027-11-26T00:00:00Z'))).toThrow(
      'the range must not be longer than 366 days',
    );
  });

  test('bad bounds and from after to are 400 with a message', () => {
    const error = (query: { from?: string; to?: string }) => {
      try {
        parseUsageRange(query, now);
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError);
        return `${(e as ApiError).status} ${(e as ApiError).message}`;
      }
      return 'no error';
    };
    expect(error({ from: '2026-02-30' })).toBe(
      '400 from must be a date (YYYY-MM-DD) or a date-time with a time zone (YYYY-MM-DDTHH:mm:ssZ)',
    );
    expect(error({ to: 'tomorrow' })).toMatch(/^400 to must be a date/);
    expect(error({ from: '2026-11-02', to: '2026-11-01' })).toBe('400 from must not be after to');
    expect(error({ from: '2026-11-25' })).toBe('400 from must not be after to');
  });
});

test('utcDay names the UTC day of a day number', () => {
  expect(utcDay(0)).toBe('1970-01-01');
  expect(utcDay(Math.floor(at('2026-11-24T23:59:59.999Z') / DAY_MS))).toBe('2026-11-24');
});
