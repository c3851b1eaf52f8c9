import { describe, expect, it } from 'vitest';
import { heldStill, readResidentMb, residentMb } from './resident-memory.ts';

describe('residentMb', () => {
  it('reads VmRSS from a process status, in MB of 1,024 kB', () => {
    const status =
      'Name:\tnode\nVmPeak:\t  812340 kB\nVmHWM:\t  420000 kB\nVmRSS:\t  409600 kB\nThreads:\t11\n';
    expect(residentMb(status)).toBe(400);
  });

  it('refuses a status without VmRSS (a kernel thread, or not a status)', () => {
    expect(() => residentMb('Name:\tkthreadd\nState:\tS (sleeping)\n')).toThrow('no VmRSS');
  });
});

describe('readResidentMb', () => {
  it("reads this process's own, where /proc is there", () => {
    const mb = readResidentMb(process.pid);
    if (mb === undefined) return;
    expect(mb).toBeGreaterThan(1);
    expect(mb).toBeLessThan(64 * 1024);
  });

  it('answers undefined for a process that is not there', () => {
    expect(readResidentMb(2 ** 31 - 1)).toBeUndefined();
  });
});

describe('heldStill', () => {
  it('holds samples within the tolerance, bounds included', () => {
    expect(heldStill([400, 400.5, 401], 1)).toBe(true);
    expect(heldStill([400, 401.1, 400.2], 1)).toBe(false);
    expect(heldStill([412], 1)).toBe(true);
  });
});
