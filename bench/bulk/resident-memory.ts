import { readFileSync } from 'node:fs';

/**
 * A process's resident memory (VmRSS) from Linux's /proc. The readers return undefined where
 * /proc is not there to read, as bench/cpu.ts's do.
 */

/** VmRSS of a /proc/<pid>/status text, in MB: proc(5) gives it in kB of 1,024 bytes. */
export function residentMb(status: string): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error('no VmRSS line in the process status');
  return Number(kb) / 1024;
}

/** What `pid` holds in memory now, MB. */
export function readResidentMb(pid: number): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  return residentMb(status);
}

/** Whether `samples` (MB) lie within `toleranceMb` of one another. */
export function heldStill(samples: readonly number[], toleranceMb: number): boolean {
  return Math.max(...samples) - Math.min(...samples) <= toleranceMb;
}

const QUIET_EVERY_MS = 250;
/** Two seconds of samples within 1 MB: no collection and no allocation of note going on. */
const QUIET_SAMPLES = 8;
const QUIET_TOLERANCE_MB = 1;
const QUIET_LIMIT_MS = 20_000;

/**
 * `pid`'s resident memory once it has held still for a moment (the last samples within 1 MB),
 * or as it is after 20 s when it never does.
 */
export async function quietResidentMb(pid: number): Promise<number | undefined> {
  const samples: number[] = [];
  const deadline = Date.now() + QUIET_LIMIT_MS;
  for (;;) {
    const now = readResidentMb(pid);
    if (now === undefined) return undefined;
    samples.push(now);
    const last = samples.slice(-QUIET_SAMPLES);
    if (
      (last.length === QUIET_SAMPLES && heldStill(last, QUIET_TOLERANCE_MB)) ||
      Date.now() > deadline
    ) {
      return now;
    }
    await new Promise((resolve) => setTimeout(resolve, QUIET_EVERY_MS));
  }
}

/** Samples `pid`'s resident memory every `everyMs` until `stop`, which answers the most seen. */
export function samplePeak(pid: number, everyMs: number): { stop(): number | undefined } {
  let peak: number | undefined;
  const sample = () => {
    const now = readResidentMb(pid);
    if (now !== undefined) peak = Math.max(peak ?? now, now);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
