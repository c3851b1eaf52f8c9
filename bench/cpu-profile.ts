/**
 * Summarizes a V8 CPU profile written by a bench process (BENCH_CPU_PROF, see bench/run.ts):
 * where the busy time went, by function (self and inclusive) and by package or source folder.
 *
 *   npx node bench/cpu-profile.ts <file.cpuprofile> [--top 25]
 *
 * Shares are of busy time: samples outside "(idle)" and "(program)".
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const IDLE = new Set(['(idle)', '(program)']);

function functionKey(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  return `${name} ${place(frame.url)}:${frame.lineNumber + 1}`;
}

function place(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) return path.slice(modules + '/node_modules/'.length);
  const repo = path.search(/\/(src|bench)\//);
  return repo >= 0 ? path.slice(repo + 1) : path;
}

/** `fastify`, `@fastify/x`, `src/memory`, `node:internal`… */
function packageOf(frame: CallFrame): string {
  if (frame.functionName === '(garbage collector)') return '(garbage collector)';
  if (!frame.url) return '(native)';
  if (frame.url.startsWith('node:')) return 'node: internals';
  const where = place(frame.url);
  const parts = where.split('/');
  if (frame.url.includes('/node_modules/')) {
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? where);
  }
  return parts.length > 1 ? parts.slice(0, -1).join('/') : where;
}

function summarize(profile: Profile, top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const packages = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  const add = (map: Map<string, number>, key: string, us: number) =>
    map.set(key, (map.get(key) ?? 0) + us);

  profile.samples.forEach((id, index) => {
    const us = profile.timeDeltas[index] ?? 0;
    const node = byId.get(id);
    if (!node) return;
    if (IDLE.has(node.callFrame.functionName)) {
      idle += us;
      return;
    }
    busy += us;
    add(self, functionKey(node.callFrame), us);
    add(packages, packageOf(node.callFrame), us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (!frame || frame.functionName === '(root)') continue;
      const key = functionKey(frame);
      if (!seen.has(key)) add(inclusive, key, us);
      seen.add(key);
    }
  });

  const table = (title: string, map: Map<string, number>) => {
    const rows = [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
    return [
      title,
      ...rows.map(
        ([key, us]) =>
          `${((100 * us) / busy).toFixed(1).padStart(6)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`,
      ),
    ].join('\n');
  };
  return [
    `busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`,
    table('\nself time by package or folder', packages),
    table('\nself time by function', self),
    table('\ninclusive time by function', inclusive),
  ].join('\n');
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' } },
});
const [file] = positionals;
if (!file) {
  process.stderr.write('usage: cpu-profile.ts <file.cpuprofile> [--top 25]\n');
  process.exitCode = 2;
} else {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  process.stdout.write(`${summarize(profile, Number(values.top))}\n`);
}
