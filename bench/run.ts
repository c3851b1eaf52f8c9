/**
 * `npm run bench`: runs every scenario of bench/scenarios.ts on every setup of bench/setups.ts
 * (the runs a target compares taking turns, `--slice` seconds each: session.ts) and prints a
 * table of req/s, p50, p99, the ratios to the setup's two floors (bare Fastify, bare node:http)
 * and the ratios between setups (req/s, and CPU per request), all measured in the same run, then
 * where the CPU went, per process and per request. The load generator (autocannon) is a
 * process of its own; on a machine of N ≥ 2 CPUs it runs alone on the last one and every server
 * and floor process on the others (taskset; unpinned without it, as the header then says). Then
 * the chat gateway (bench/gateway/): mnemo's /v1/chat/completions against the upstream
 * simulator it fronts and against Portkey's gateway, in the same run. Search (bench/search/)
 * only when asked for: its quality on a labelled set and on five conversations of LoCoMo, its
 * latency at 100,000 memories and what its index costs an add, on SQLite and PostgreSQL. Bulk
 * (bench/bulk/) only when asked for too: 100,000 memories imported against single adds,
 * exported, and erased in one request, on SQLite and PostgreSQL. Webhooks (bench/webhooks/) only
 * when asked for: a burst of 10,000 changes delivered to a receiver on loopback, deliveries a
 * second, on SQLite and PostgreSQL.
 * Change streams (bench/events/) only when asked for: a write's answer to its event on a stream
 * held on another process (PostgreSQL, two processes; SQLite, one), and what 1,000 open streams
 * cost one process in memory and in GET one's req/s.
 *
 *   npm run bench -- [--seconds 10] [--warmup 3] [--connections 100] [--slice 2]
 *                    [--only get-one,post] [--setups sqlite,postgres-2] [--json] [--strict]
 *   npm run bench -- --only gateway                         # the chat gateway alone
 *   npm run bench -- --only studio                          # the studio: first load, 5,000 memories
 *   npm run bench -- --only search                          # search: quality, LoCoMo, latency, adds
 *   npm run bench -- --only search --parts quality,locomo --setups sqlite   # search's quality alone
 *   npm run bench -- --only bulk                            # import, export, erase of 100,000
 *   npm run bench -- --only webhooks                        # deliveries a second of a burst
 *   npm run bench -- --only events                          # change streams: latency, 1,000 open
 *   BENCH_CPU_PROF=<dir> npm run bench -- --only get-one    # a V8 CPU profile per process
 *
 * `--only` takes scenario names, `gateway`, `studio`, `search`, `bulk`, `webhooks` and `events`;
 * `--connections` and `--setups` are the memory scenarios' (the gateway runs at 1 and 16
 * connections, on SQLite).
 * `--setups` takes setup ids (sqlite-1, postgres-1, postgres-2) or engines (sqlite, postgres);
 * search runs on one process of each engine named, searches with one connection and adds with
 * `--connections`, 5 s measured after 1 s of warm-up unless `--seconds` or `--warmup` say;
 * bulk likewise, its single adds as search's adds. Events (`--only events`) on each engine named:
 * 50 writes a second for `--seconds` (10) after `--warmup` (3), then 1,000 streams on one process
 * and GET one at `--connections` with none and all open, in turns of `--slice` seconds.
 * `--parts` (with `--only search`) runs some of search's parts only: `quality` (the labelled
 * set), `locomo`, `latency`, `adds`; all four by default.
 * PostgreSQL setups create their databases on MNEMO_BENCH_POSTGRES_URL
 * (default postgres://postgres@127.0.0.1:5432/postgres); when it cannot be reached the bench
 * stops before any load, unless only SQLite was chosen.
 *
 * Exits 1 when a load or a check failed, a process did not stop cleanly, or PostgreSQL cannot
 * be used; a missed target does so only with --strict; 2 on bad options. Progress goes to
 * stderr, the report to stdout.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type BulkOutcome, benchBulk } from './bulk/run-bulk.ts';
import { benchEvents, type EventsOutcome } from './events/run-events.ts';
import { benchGateway, type GatewayOutcome } from './gateway/run-gateway.ts';
import {
  describeMachine,
  formatCpuTable,
  formatFindings,
  formatHeader,
  formatMachineHeader,
  formatTable,
  loadAverage,
  type Machine,
  type SetupReport,
  toJson,
} from './report.ts';
import { FLOOR_SCENARIOS, SCENARIOS, type Scenario } from './scenarios.ts';
import {
  benchSearch,
  SEARCH_PARTS,
  type SearchOutcome,
  type SearchPart,
} from './search/run-search.ts';
import { type LoadOptions, runSetups } from './session.ts';
import { dropLeftoverStores, SETUPS, type Setup } from './setups.ts';
import { benchStudio, type StudioOutcome } from './studio/run-studio.ts';
import {
  COST_TARGETS,
  comparedOn,
  judge,
  judgeAcross,
  measuredTogether,
  SETUP_TARGETS,
} from './targets.ts';
import { benchWebhooks, type WebhooksOutcome } from './webhooks/run-webhooks.ts';

class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The name `--only` takes for the chat gateway's part. */
const GATEWAY = 'gateway';
/** The name `--only` takes for the studio's part. */
const STUDIO = 'studio';
/** The name `--only` takes for search's part; it runs only when named. */
const SEARCH = 'search';
/** The name `--only` takes for bulk import, export and erase; it runs only when named. */
const BULK = 'bulk';
/** The name `--only` takes for webhook deliveries; it runs only when named. */
const WEBHOOKS = 'webhooks';
/** The name `--only` takes for change streams; it runs only when named. */
const EVENTS = 'events';
const PARTS = [GATEWAY, STUDIO, SEARCH, BULK, WEBHOOKS, EVENTS];
/** The search part's runs, shorter than the memory scenarios' (it has 28 of them); bulk's too. */
const SEARCH_SECONDS = '5';
const SEARCH_WARMUP = '1';

interface Options {
  readonly load: LoadOptions;
  /** Memory scenarios; none when `--only` named the gateway alone. */
  readonly scenarios: readonly Scenario[];
  readonly setups: readonly Setup[];
  readonly gateway: boolean;
  readonly studio: boolean;
  /** The search part: its parts, load and setups (one process per engine); none when not asked. */
  readonly search:
    | {
        readonly parts: ReadonlySet<SearchPart>;
        readonly load: LoadOptions;
        readonly setups: readonly Setup[];
      }
    | undefined;
  /** The bulk part: its single adds' load, one process per engine chosen; none when not asked. */
  readonly bulk: { readonly load: LoadOptions; readonly setups: readonly Setup[] } | undefined;
  /** The webhooks part: one process per engine chosen; none when not asked. */
  readonly webhooks: { readonly setups: readonly Setup[] } | undefined;
  /** The change streams' part: its load, one process per engine chosen; none when not asked. */
  readonly events: { readonly load: LoadOptions; readonly setups: readonly Setup[] } | undefined;
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
    ...(scenario.floorTarget === undefined ? [] : [FLOOR_SCENARIOS[scenario.floorTarget.floor]]),
    ...COST_TARGETS.filter((t) => t.subject === scenario.name).map((t) => t.base),
  ];
}

function selectScenarios(asked: Set<string> | undefined, log: (line: string) => void): Scenario[] {
  if (asked === undefined) return [...SCENARIOS];
  const known = new Set(SCENARIOS.map((s) => s.name));
  const unknown = [...asked].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `--only: unknown scenario ${unknown.join(', ')}; known: ${[...known, ...PARTS].join(', ')}`,
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

/**
 * The setups named (ids or engines), in SETUPS' order, with the setups their targets are
 * relative to.
 */
function selectSetups(
  chosen: string | undefined,
  scenarios: readonly Scenario[],
  log: (line: string) => void,
): Setup[] {
  if (chosen === undefined) return [...SETUPS];
  const names = chosen
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const known = [...new Set([...SETUPS.map((s) => s.id), ...SETUPS.map((s) => s.engine)])];
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new UsageError(
      `--setups: unknown setup ${unknown.join(', ') || '(none)'}; known: ${known.join(', ')}`,
    );
  }
  const asked = new Set(
    SETUPS.filter((s) => names.includes(s.id) || names.includes(s.engine)).map((s) => s.id),
  );
  const scenarioNames = new Set(scenarios.map((s) => s.name));
  for (const target of SETUP_TARGETS) {
    if (!scenarioNames.has(target.scenario) || !asked.has(target.subject)) continue;
    if (!asked.has(target.base))
      log(`also running ${target.base}: ${target.subject}'s target is relative to it`);
    asked.add(target.base);
  }
  return SETUPS.filter((s) => asked.has(s.id));
}

/** The parts of search `--parts` names; every one when it names none. */
function selectSearchParts(chosen: string | undefined, search: boolean): Set<SearchPart> {
  if (chosen === undefined) return new Set(SEARCH_PARTS);
  if (!search) throw new UsageError("--parts: the parts are search's: add --only search");
  const names = chosen
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const known: readonly string[] = SEARCH_PARTS;
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new UsageError(
      `--parts: unknown part ${unknown.join(', ') || '(none)'}; known: ${SEARCH_PARTS.join(', ')}`,
    );
  }
  return new Set(SEARCH_PARTS.filter((part) => names.includes(part)));
}

function parseOptions(args: string[], log: (line: string) => void): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      // Defaults below: the search part has its own.
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      // 100, as Fastify's own benchmarks use: a group commit is built for many writers at once.
      // With 10 closed-loop clients and a 2 ms fsync, adds could not pass 10 / 2 ms = 5,000/s
      // whatever the server did (Little's law).
      connections: { type: 'string', default: '100' },
      // Setups take turns measuring a scenario, a slice of this many seconds each (session.ts).
      slice: { type: 'string', default: '2' },
      only: { type: 'string' },
      setups: { type: 'string' },
      parts: { type: 'string' },
      json: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
    },
  });
  const only = values.only
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (only?.length === 0) throw new UsageError('--only: no scenario named');
  const gateway = only === undefined || only.includes(GATEWAY);
  const studio = only === undefined || only.includes(STUDIO);
  const memory = only?.filter((name) => !PARTS.includes(name));
  const scenarios = memory?.length === 0 ? [] : selectScenarios(memory && new Set(memory), log);
  const connections = count('connections', values.connections, 1);
  const searchSetups = selectSetups(values.setups, [], () => {});
  const searchParts = selectSearchParts(values.parts, only?.includes(SEARCH) ?? false);
  // One process of each engine chosen: search and bulk are measured per engine.
  const onePerEngine = SETUPS.filter(
    (s) =>
      s.processes === 1 && !s.control && searchSetups.some((chosen) => chosen.engine === s.engine),
  );
  return {
    load: {
      seconds: count('seconds', values.seconds ?? '10', 1),
      warmup: count('warmup', values.warmup ?? '3', 0),
      connections,
      slice: count('slice', values.slice, 1),
    },
    scenarios,
    setups: scenarios.length === 0 ? [] : selectSetups(values.setups, scenarios, log),
    gateway,
    studio,
    bulk: only?.includes(BULK)
      ? {
          load: {
            seconds: count('seconds', values.seconds ?? SEARCH_SECONDS, 1),
            warmup: count('warmup', values.warmup ?? SEARCH_WARMUP, 0),
            connections,
            slice: Number.MAX_SAFE_INTEGER,
          },
          setups: onePerEngine,
        }
      : undefined,
    webhooks: only?.includes(WEBHOOKS) ? { setups: onePerEngine } : undefined,
    events: only?.includes(EVENTS)
      ? {
          load: {
            seconds: count('seconds', values.seconds ?? '10', 1),
            warmup: count('warmup', values.warmup ?? '3', 0),
            connections,
            slice: count('slice', values.slice, 1),
          },
          setups: onePerEngine,
        }
      : undefined,
    search: only?.includes(SEARCH)
      ? {
          parts: searchParts,
          load: {
            seconds: count('seconds', values.seconds ?? SEARCH_SECONDS, 1),
            warmup: count('warmup', values.warmup ?? SEARCH_WARMUP, 0),
            connections,
            // One setup at a time, each run whole: search compares queries, not setups.
            slice: Number.MAX_SAFE_INTEGER,
          },
          setups: onePerEngine,
        }
      : undefined,
    json: values.json,
    strict: values.strict,
  };
}

interface MemoryOutcome {
  readonly broken: boolean;
  readonly missed: boolean;
  readonly json: ReturnType<typeof toJson>;
}

/** The memory scenarios on every setup: runs them and prints their tables on `out`. */
async function benchMemory(
  options: Options,
  machine: Machine,
  engines: readonly string[],
  dir: string,
  profileDir: string | undefined,
  out: (text: string) => void,
  log: (line: string) => void,
): Promise<MemoryOutcome> {
  out(formatHeader(machine, options.load, options.setups, engines));
  out('');
  const runs = await runSetups(
    options.setups,
    measuredTogether(options.scenarios),
    { load: options.load, dir, profileDir, log },
    (setup, scenario) => !setup.control || comparedOn(setup.id, scenario.name),
  );
  const reports: SetupReport[] = runs.map((run) => ({
    ...run,
    judgement: judge(run.results, !run.setup.control),
  }));
  const across = judgeAcross(reports);

  const after = loadAverage();
  out(formatTable(reports, across));
  out('');
  out(formatCpuTable(reports));
  out('');
  out(formatFindings(reports, across));
  out(`load average after the run: ${after.join(' ')}`);

  const verdicts = [
    ...reports.flatMap((r) => r.judgement.scenarios.map((s) => s.verdict)),
    ...across.map((c) => c.verdict),
  ];
  return {
    broken: verdicts.includes('failed') || reports.some((r) => r.problems.length > 0),
    missed: verdicts.includes('miss'),
    json: toJson(machine, options.load, reports, across, after),
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
  // Every engine is checked before any load: a run that stops after minutes helps no one.
  const engines: string[] = [];
  try {
    const setups = [
      ...options.setups,
      ...(options.search?.setups ?? []),
      ...(options.bulk?.setups ?? []),
      ...(options.webhooks?.setups ?? []),
      ...(options.events?.setups ?? []),
    ];
    for (const setup of setups) {
      const line = await setup.probe();
      if (line !== undefined && !engines.includes(line)) engines.push(line);
    }
  } catch (error) {
    log(`bench: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });

  const dir = mkdtempSync(join(tmpdir(), 'mnemo-bench-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  // On an interrupt, the PostgreSQL databases still there are dropped (for 5 s at most), then
  // the process exits through process.exit so the exit hooks run: the temp folder goes, and the
  // server processes still running are killed.
  process.once('exit', removeDir);
  const interrupted = (code: number) => () => {
    const deadline = new Promise((resolve) => setTimeout(resolve, 5000).unref());
    void Promise.race([dropLeftoverStores(), deadline]).finally(() => process.exit(code));
  };
  process.once('SIGINT', interrupted(130));
  process.once('SIGTERM', interrupted(143));

  const machine = describeMachine();
  let memory: MemoryOutcome | undefined;
  let gateway: GatewayOutcome | undefined;
  let studio: StudioOutcome | undefined;
  let search: SearchOutcome | undefined;
  let bulk: BulkOutcome | undefined;
  let webhooks: WebhooksOutcome | undefined;
  let events: EventsOutcome | undefined;
  try {
    if (options.scenarios.length > 0) {
      memory = await benchMemory(options, machine, engines, dir, profileDir, out, log);
    } else {
      out(formatMachineHeader(machine));
    }
    if (options.search) {
      out('');
      search = await benchSearch({ ...options.search, dir, profileDir, log }, out);
      out(`load average after the run: ${loadAverage().join(' ')}`);
    }
    if (options.bulk) {
      out('');
      bulk = await benchBulk({ ...options.bulk, dir, profileDir, log }, out);
      out(`load average after the run: ${loadAverage().join(' ')}`);
    }
    if (options.webhooks) {
      out('');
      webhooks = await benchWebhooks({ ...options.webhooks, dir, profileDir, log }, out);
      out(`load average after the run: ${loadAverage().join(' ')}`);
    }
    if (options.events) {
      out('');
      events = await benchEvents({ ...options.events, dir, profileDir, log }, out);
      out(`load average after the run: ${loadAverage().join(' ')}`);
    }
    if (options.gateway) {
      out('');
      const { seconds, warmup } = options.load;
      gateway = await benchGateway({ seconds, warmup, dir, profileDir, log }, out);
      out(`load average after the run: ${loadAverage().join(' ')}`);
    }
    if (options.studio) {
      out('');
      studio = await benchStudio({ log }, out);
    }
  } finally {
    removeDir();
  }
  if (options.json) {
    const json = {
      ...(memory?.json ?? { machine }),
      ...(gateway && { gateway: gateway.json }),
      ...(studio && { studio: studio.json }),
      ...(search && { search: search.json }),
      ...(bulk && { bulk: bulk.json }),
      ...(webhooks && { webhooks: webhooks.json }),
      ...(events && { events: events.json }),
    };
    out(JSON.stringify(json, null, 2));
  }
  if (profileDir) log(`CPU profiles: ${profileDir}`);

  const parts = [memory, gateway, studio, search, bulk, webhooks, events];
  const broken = parts.some((part) => part?.broken);
  const missed = parts.some((part) => part?.missed);
  if (missed && !options.strict) log('missed targets change the exit code only with --strict');
  return broken || (missed && options.strict) ? 1 : 0;
}

process.exitCode = await main();
