/**
 * Which CPUs the bench's processes run on. On a machine with N ≥ 2 CPUs the load generator has
 * the last one to itself and every server and floor process runs on the others (taskset, from
 * util-linux): run unpinned, the load generator's 100 connections took the servers' CPU time
 * and made the floor look about twice as slow as it is. PostgreSQL is not the bench's to pin: it
 * runs where the kernel puts it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Who runs where: the load generator, or a server or floor process. */
export type Role = 'load' | 'server';

export type CpuPlacement =
  | {
      readonly pinned: true;
      /** CPU lists as `taskset -c` takes them: `1`, `0-2`. */
      readonly load: string;
      readonly servers: string;
    }
  | { readonly pinned: false; readonly reason: string };

/** The CPU ids of a list as proc(5) and taskset write it: `0-2,5` → 0, 1, 2, 5. */
export function parseCpuList(text: string): number[] {
  const ids: number[] = [];
  for (const part of text.trim().split(',')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!match) throw new Error(`not a CPU list: ${JSON.stringify(text)}`);
    const first = Number(match[1]);
    const last = Number(match[2] ?? match[1]);
    for (let id = first; id <= last; id++) ids.push(id);
  }
  return ids;
}

/** The inverse of parseCpuList, runs of consecutive ids as ranges: 0, 1, 2, 5 → `0-2,5`. */
export function formatCpuList(ids: readonly number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < ids.length; ) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === (ids[j] ?? 0) + 1) j++;
    runs.push(i === j ? `${ids[i]}` : `${ids[i]}-${ids[j]}`);
    i = j + 1;
  }
  return runs.join(',');
}

/** The load generator on the last of `allowed`, the servers on the rest; none below two CPUs. */
export function placeOn(allowed: readonly number[]): CpuPlacement {
  const sorted = [...allowed].sort((a, b) => a - b);
  const load = sorted.at(-1);
  if (load === undefined || sorted.length < 2) {
    return { pinned: false, reason: 'one CPU, none to spare for the load generator' };
  }
  return { pinned: true, load: String(load), servers: formatCpuList(sorted.slice(0, -1)) };
}

/** The CPUs this process may run on (its cpuset or affinity, not every CPU of the machine). */
function allowedCpus(): number[] | undefined {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const list = /^Cpus_allowed_list:\s*(.+)$/m.exec(status)?.[1];
    return list === undefined ? undefined : parseCpuList(list);
  } catch {
    return undefined;
  }
}

function findPlacement(): CpuPlacement {
  const taskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' });
  if (taskset.error || taskset.status !== 0) return { pinned: false, reason: 'taskset not found' };
  const allowed = allowedCpus();
  if (!allowed) return { pinned: false, reason: 'no /proc/self/status to read the CPUs from' };
  return placeOn(allowed);
}

let found: CpuPlacement | undefined;

/** Where the bench's processes run on this machine, found once. */
export function cpuPlacement(): CpuPlacement {
  found ??= findPlacement();
  return found;
}

/** `command`, run on the CPUs of `role`: prefixed with `taskset -c <cpus>` when pinned. */
export function placed(role: Role, command: readonly string[]): string[] {
  const placement = cpuPlacement();
  if (!placement.pinned) return [...command];
  return ['taskset', '-c', role === 'load' ? placement.load : placement.servers, ...command];
}

/** How `role` was placed, for the report's header: `on CPU 1 (taskset)`. */
export function describePlacement(role: Role): string {
  const placement = cpuPlacement();
  if (!placement.pinned) return `not pinned (${placement.reason})`;
  const cpus = role === 'load' ? placement.load : placement.servers;
  return `on CPU${/^\d+$/.test(cpus) ? '' : 's'} ${cpus} (taskset)`;
}
