import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.ts';

describe('isoTime', () => {
  it('writes what toISOString writes, across the years it covers and their edges', () => {
    const edges = [
      0, -1, 1, 951_782_400_000 /* 2000-02-29 */, 4_107_542_399_999, -62_167_219_200_000,
      253_402_300_799_999, -62_135_596_800_001,
    ];
    for (const ms of edges) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('keeps the day it formatted last, and is right when the day changes', () => {
    const day = 1_795_000_000_000;
    for (const ms of [day, day + 1, day + 86_400_000, day - 86_400_000, day]) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('falls back to toISOString beyond year 9999 and before year 0', () => {
    for (const ms of [253_402_300_800_000, -62_167_219_200_001, 8.64e15]) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
