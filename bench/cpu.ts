import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time from Linux's /proc, for the processes the bench did not start itself (PostgreSQL's)
 * and for the machine as a whole. Every reader returns undefined where /proc is not there to
 * read (another OS, a container that hides it).
 */

/** Linux reports utime and stime in clock ticks, which are 1/100 s on every common build. */
const TICKS_PER_SECOND = 100;

/** proc(5) stat: the command name, then the fields after it (field 3 onwards). */
function parseStat(stat: string): { name: string; fields: string[] } {
  // The command name is in parentheses and may itself hold spaces or parentheses.
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  return { name: stat.slice(open + 1, close), fields: stat.slice(close + 2).split(' ') };
}

/** utime + stime of a parsed stat line, in seconds: fields 14 and 15 of proc(5). */
function cpuOf(fields: readonly string[]): number {
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds `pid` has used so far, all threads. */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    return cpuOf(parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).fields);
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds used so far by every process named `name`, by pid, in the group `classify` puts
 * it in from its command line (a process title, for PostgreSQL's backends); undefined leaves it
 * out. A process that ends between two readings takes its seconds with it, one that starts
 * counts from zero.
 */
export function namedCpuSeconds(
  name: string,
  classify: (commandLine: string) => string | undefined,
): Map<string, Map<number, number>> | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const groups = new Map<string, Map<number, number>>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = parseStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (stat.name !== name) continue;
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const group = classify(commandLine);
      if (group === undefined) continue;
      let seconds = groups.get(group);
      if (!seconds) {
        seconds = new Map();
        groups.set(group, seconds);
      }
      seconds.set(Number(entry), cpuOf(stat.fields));
    } catch {
      // Ended while the folder was read.
    }
  }
  return groups;
}

/** The seconds the processes of `after` used since `before`; new ones count from zero. */
export function cpuSecondsBetween(
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
): number {
  let sum = 0;
  for (const [pid, seconds] of after) sum += Math.max(0, seconds - (before.get(pid) ?? 0));
  return sum;
}

/** The machine's CPU time so far, all cores, in seconds (/proc/stat). */
export interface MachineCpu {
  /** Used by any process or interrupt of this machine: user, nice, system, irq, softirq. */
  readonly busy: number;
  /** Taken by the hypervisor for other guests while this one wanted to run. */
  readonly steal: number;
}

export function machineCpuSeconds(): MachineCpu | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const [label, ...ticks] = line.trim().split(/\s+/);
    if (label !== 'cpu') return undefined;
    // user nice system idle iowait irq softirq steal (guest time is counted in user already).
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks.map(Number);
    return {
      busy: (user + nice + system + irq + softirq) / TICKS_PER_SECOND,
      steal: steal / TICKS_PER_SECOND,
    };
  } catch {
    return undefined;
  }
}
