/**
 * `npm run bench`: runs every scenario of bench/scenarios.ts on every setup of bench/setups.ts
 * and prints a table of req/s, p50, p99 and the ratio to the floor measured in the same run.
 *
 *   npm run bench -- [--seconds 10] [--warmup 3] [--connections 100] [--only get-one,post]
 *                    [--json] [--strict]
 *   BENCH_CPU_PROF=<dir> npm run bench -- --only get-one    # a V8 CPU profile per process
 *
 * Exits 1 when a load or a check failed or a process did not stop cleanly; a missed target
 * does so only with --strict. Progress goes to stderr, the report to stdout.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  describeMachine,
  formatFindings,
  formatHeader,
  formatTable,
  loadAverage,
  type SetupReport,
  toJson,
} from './report.ts';
import { SCENARIOS, type Scenario } from './scenarios.ts';
import { type LoadOptions, runSession } from './session.ts';
import { SETUPS } from './setups.ts';
import { COST_TARGETS, FLOOR, judge } from './targets.ts';

class UsageError extends Error {
  override readonly name = 'UsageError';
}

interface Options {
  readonly load: LoadOptions;
  readonly scenarios: readonly Scenario[];
  readonly json: boolean;
  readonly strict: boolean;
}

function count(name: string, text: string, least: number): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < least) {
    throw new UsageError(`--${name} needs a whole number ≥ ${least}, got ${text}`);
  }
  return value;
}

/** What a scenario's targets are measured against: run along, or its verdict could not be given. */
function baselinesOf(scenario: Scenario): string[] {
  return [
    ...(scenario.floorTarget === undefined ? [] : [FLOOR]),
    ...COST_TARGETS.filter((t) => t.subject === scenario.name).map((t) => t.base),
  ];
}

function selectScenarios(only: string | undefined, log: (line: string) => void): Scenario[] {
  if (only === undefined) return [...SCENARIOS];
  const asked = new Set(
    only
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
  const known = new Set(SCENARIOS.map((s) => s.name));
  const unknown = [...asked].filter((name) => !known.has(name));
  if (unknown.length > 0 || asked.size === 0) {
    throw new UsageError(
      `--only: unknown scenario ${unknown.join(', ') || '(none)'}; known: ${[...known].join(', ')}`,
    );
  }
  for (const scenario of SCENARIOS.filter((s) => asked.has(s.name))) {
    for (const baseline of baselinesOf(scenario)) {
      if (!asked.has(baseline))
        log(`also running ${baseline}: ${scenario.name}'s target is relative to it`);
      asked.add(baseline);
    }
  }
  return SCENARIOS.filter((s) => asked.has(s.name));
}

function parseOptions(args: string[], log: (line: string) => void): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      seconds: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      // 100, as Fastify's own benchmarks use: a group commit is built for many writers at once.
      // With 10 closed-loop clients and a 2 ms fsync, adds could not pass 10 / 2 ms = 5,000/s
      // whatever the server did (Little's law).
      connections: { type: 'string', default: '100' },
      only: { type: 'string' },
      json: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
    },
  });
  return {
    load: {
      seconds: count('seconds', values.seconds, 1),
      warmup: count('warmup', values.warmup, 0),
      connections: count('connections', values.connections, 1),
    },
    scenarios: selectScenarios(values.only, log),
    json: values.json,
    strict: values.strict,
  };
}

async function main(): Promise<number> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const out = (text: string) => process.stdout.write(`${text}\n`);
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2), log);
  } catch (error) {
    log(`bench: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });

  const dir = mkdtempSync(join(tmpdir(), 'mnemo-bench-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  // On an interrupt, exit through process.exit so the exit hooks run: the temp folder goes,
  // and the server processes still running are killed.
  process.once('exit', removeDir);
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));

  const machine = describeMachine();
  out(formatHeader(machine, options.load, SETUPS));
  out('');
  const reports: SetupReport[] = [];
  try {
    for (const setup of SETUPS) {
      const { results, problems } = await runSession(setup, options.scenarios, {
        load: options.load,
        dir,
        profileDir,
        log,
      });
      reports.push({ setup, judgement: judge(results), problems });
    }
  } finally {
    removeDir();
  }

  const after = loadAverage();
  out(formatTable(reports));
  out('');
  out(formatFindings(reports));
  out(`load average after the run: ${after.join(' ')}`);
  if (options.json) out(JSON.stringify(toJson(machine, options.load, reports, after), null, 2));
  if (profileDir) log(`CPU profiles: ${profileDir}`);

  const verdicts = reports.flatMap((r) => r.judgement.scenarios.map((s) => s.verdict));
  const broken = verdicts.includes('failed') || reports.some((r) => r.problems.length > 0);
  const missed = verdicts.includes('miss');
  if (missed && !options.strict) log('missed targets change the exit code only with --strict');
  return broken || (missed && options.strict) ? 1 : 0;
}

process.exitCode = await main();
