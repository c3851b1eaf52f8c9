import { describe, expect, it } from 'vitest';
import { formatCpuList, parseCpuList, placeOn } from './cpu-placement.ts';

describe('CPU placement', () => {
  it('reads and writes CPU lists as proc(5) and taskset do', () => {
    expect(parseCpuList('0-2,5\n')).toEqual([0, 1, 2, 5]);
    expect(parseCpuList('3')).toEqual([3]);
    expect(() => parseCpuList('0-')).toThrow('not a CPU list');
    expect(formatCpuList([0, 1, 2, 5, 7, 8])).toBe('0-2,5,7-8');
    expect(formatCpuList([4])).toBe('4');
  });

  it('gives the load generator the last CPU allowed and the servers the others', () => {
    expect(placeOn([0, 1])).toEqual({ pinned: true, load: '1', servers: '0' });
    expect(placeOn([2, 3, 6, 7])).toEqual({ pinned: true, load: '7', servers: '2-3,6' });
  });

  it('pins nothing on one CPU', () => {
    expect(placeOn([0]).pinned).toBe(false);
  });
});
