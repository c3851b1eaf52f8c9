import { describe, expect, test } from 'vitest';
import { costMicroUsd } from './usage.cost.ts';

describe('costMicroUsd', () => {
  test('a price per million tokens is the price of one token in micro-dollars', () => {
    expect(costMicroUsd({ input: 2, output: 8 }, 1200, 300)).toBe(4800);
    expect(costMicroUsd({ input: 2.5, output: 10 }, 1_000_000, 1_000_000)).toBe(12_500_000);
    expect(costMicroUsd({ input: 0, output: 0 }, 5000, 5000)).toBe(0);
    expect(costMicroUsd({ input: 3, output: 15 }, 0, 0)).toBe(0);
  });

  test('rounds to the nearest micro-dollar, halves up, on the prices as written', () => {
    expect(costMicroUsd({ input: 0.15, output: 0.6 }, 3, 0)).toBe(0); // 0.45
    expect(costMicroUsd({ input: 0.5, output: 0 }, 1, 0)).toBe(1); // 0.5
    // 1.15 × 10 is 11.499999999999998 in floating point; exactly 11.5.
    expect(costMicroUsd({ input: 1.15, output: 0 }, 10, 0)).toBe(12);
    expect(costMicroUsd({ input: 0.075, output: 0.3 }, 7, 3)).toBe(1); // 0.525 + 0.9
    expect(costMicroUsd({ input: 1e-7, output: 2e21 }, 5_000_000, 0)).toBe(1); // 0.5
  });

  test('refuses negative, fractional or non-finite inputs', () => {
    expect(() => costMicroUsd({ input: -1, output: 1 }, 1, 1)).toThrow(RangeError);
    expect(() => costMicroUsd({ input: Number.NaN, output: 1 }, 1, 1)).toThrow(RangeError);
    expect(() => costMicroUsd({ input: 1, output: Infinity }, 1, 1)).toThrow(RangeError);
    expect(() => costMicroUsd({ input: 1, output: 1 }, 1.5, 1)).toThrow(RangeError);
    expect(() => costMicroUsd({ input: 1, output: 1 }, 1, -1)).toThrow(RangeError);
    expect(() => costMicroUsd({ input: 0, output: 1e10 }, 0, 1e7)).toThrow('cost is out of range');
  });
});
