import { describe, expect, it } from 'vitest';
import { sliceSeconds, splitConnections } from './session.ts';

describe('turns between setups', () => {
  it('cuts a measured run into slices of at most the slice, all alike', () => {
    expect(sliceSeconds(10, 2)).toEqual([2, 2, 2, 2, 2]);
    expect(sliceSeconds(10, 3)).toEqual([2.5, 2.5, 2.5, 2.5]);
    expect(sliceSeconds(1, 2)).toEqual([1]);
    expect(sliceSeconds(5, Number.MAX_SAFE_INTEGER)).toEqual([5]);
  });

  it('splits the connections of a load among copies as evenly as they divide', () => {
    expect(splitConnections(100, 1)).toEqual([100]);
    expect(splitConnections(100, 2)).toEqual([50, 50]);
    expect(splitConnections(101, 2)).toEqual([51, 50]);
    expect(splitConnections(10, 3)).toEqual([4, 3, 3]);
  });
});
