import type { MnemoServer } from './api-client.ts';
import { cpuSecondsBetween, machineCpuSeconds } from './cpu.ts';
import { type Measurement, measure } from './load.ts';
import { type BenchGroup, startFloor, startMnemoServer } from './processes.ts';
import {
  type Plan,
  type Scenario,
  SERVER_SEEDS,
  SERVER_STORES,
  type ServerKind,
  type Servers,
} from './scenarios.ts';
import type { BenchStoreLocation, Setup } from './setups.ts';

export interface LoadOptions {
  /** Seconds of the measured run. */
  readonly seconds: number;
  /** Seconds of the run before it, whose figures are not reported; 0 for none. */
  readonly warmup: number;
  readonly connections: number;
}

export type Stage = 'prepare' | 'load' | 'check';

/** CPU used during the measured run, in cores: 1 is one core busy all the time. */
export interface CpuShare {
  /** Each process that answered the load; undefined where it cannot be read. */
  readonly servers: readonly (number | undefined)[];
  /** The requests each of those processes received during the measured run. */
  readonly served: readonly (number | undefined)[];
  /** The engine's processes that work for the bench (Setup.engineCpu); undefined for SQLite. */
  readonly engine: number | undefined;
  /**
   * What the setup used to answer: its server processes and the engine's (SQLite's work is in
   * the servers); undefined where any of them could not be read.
   */
  readonly total: number | undefined;
  /** The load generator's process (load-process.ts), as it measured itself. */
  readonly loadGenerator: number;
  /** Every process of the machine, this one included; undefined without /proc/stat. */
  readonly machine: number | undefined;
  /** Taken by the hypervisor for other guests while this machine wanted to run. */
  readonly steal: number | undefined;
}

export type Outcome =
  | {
      readonly ok: true;
      readonly warmup: Measurement;
      readonly measured: Measurement;
      readonly cpu: CpuShare;
    }
  | { readonly ok: false; readonly stage: Stage; readonly message: string };

export interface ScenarioResult {
  readonly scenario: Scenario;
  readonly outcome: Outcome;
}

export interface SessionOptions {
  readonly load: LoadOptions;
  /** Temp folder for stores and floor bodies; removed by the caller. */
  readonly dir: string;
  readonly profileDir: string | undefined;
  /** Progress lines, apart from the report. */
  readonly log: (line: string) => void;
}

/** No warm-up run: nothing was sent, and a check that counts responses counts none. */
const NO_RUN: Measurement = {
  responses: 0,
  seconds: 0,
  requestsPerSecond: 0,
  p50: Number.NaN,
  p99: Number.NaN,
  statusCounts: {},
  unanswered: 0,
  loadCpuSeconds: 0,
};

interface RunningServer {
  readonly server: MnemoServer;
  readonly group: BenchGroup;
  readonly store: BenchStoreLocation;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** One setup's servers, run a scenario at a time. */
interface Session {
  readonly setup: Setup;
  run(scenario: Scenario): Promise<ScenarioResult>;
  /** Stops the servers of every kind not in `needed`. */
  release(needed: ReadonlySet<ServerKind>): Promise<void>;
  /** Stops every server; returns the processes that did not stop cleanly. */
  close(): Promise<string[]>;
}

/**
 * A bench server starts when a scenario first asks for it and stops once no later scenario
 * needs it (`release`), so an idle server holds no memory or cache while another is measured;
 * the floor stops after its scenario. A failed scenario is a result.
 */
function openSession(setup: Setup, options: SessionOptions): Session {
  const slug = setup.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  const servers = new Map<ServerKind, Promise<RunningServer>>();
  /** By origin: which processes answer a plan's load. */
  const listening = new Map<string, BenchGroup>();
  const problems: string[] = [];
  const processOptions = (label: string) => ({
    label,
    profileDir: options.profileDir,
    processes: setup.processes,
  });

  async function startServer(kind: ServerKind): Promise<RunningServer> {
    const label = `${slug}-${kind}`;
    const store = await setup.createStore(options.dir, label);
    options.log(
      `${setup.name}: seeding and starting the ${kind} server (${JSON.stringify(SERVER_STORES[kind])})`,
    );
    try {
      const started = await startMnemoServer(
        SERVER_STORES[kind],
        store.url,
        processOptions(label),
        SERVER_SEEDS[kind],
      );
      listening.set(started.group.origin, started.group);
      return { ...started, store };
    } catch (error) {
      await store.dispose();
      throw error;
    }
  }

  async function stopServer(kind: ServerKind): Promise<void> {
    const running = servers.get(kind);
    servers.delete(kind);
    const started = await running?.catch(() => undefined);
    if (!started) return;
    listening.delete(started.group.origin);
    try {
      await started.group.stop();
    } catch (error) {
      problems.push(message(error));
    }
    await started.store.dispose();
  }

  async function run(scenario: Scenario): Promise<ScenarioResult> {
    const scoped: BenchGroup[] = [];
    const access: Servers = {
      mnemo(kind) {
        let running = servers.get(kind);
        if (!running) {
          running = startServer(kind);
          servers.set(kind, running);
        }
        return running.then((r) => r.server);
      },
      async floor(kind, body, contentType) {
        const group = await startFloor(
          kind,
          body,
          contentType,
          options.dir,
          processOptions(`${slug}-floor-${kind}`),
        );
        scoped.push(group);
        listening.set(group.origin, group);
        return { origin: group.origin };
      },
    };
    try {
      const outcome = await measureScenario(
        setup,
        scenario,
        access,
        (o) => listening.get(o),
        options,
      );
      return { scenario, outcome };
    } finally {
      for (const group of scoped) {
        listening.delete(group.origin);
        await group.stop().catch((error) => problems.push(message(error)));
      }
    }
  }

  return {
    setup,
    run,
    async release(needed) {
      for (const kind of [...servers.keys()]) if (!needed.has(kind)) await stopServer(kind);
    },
    async close() {
      for (const kind of [...servers.keys()]) await stopServer(kind);
      return problems;
    },
  };
}

/** One setup's results. */
export interface SetupRun {
  readonly setup: Setup;
  readonly results: ScenarioResult[];
  /** Processes that did not stop cleanly: their profile or last writes may be missing. */
  readonly problems: string[];
}

/**
 * Runs `scenarios` in order, each on every setup back to back before the next scenario, so the
 * figures a ratio between setups divides were measured seconds apart, not minutes: on a shared
 * machine the load of other work moves within minutes. The setups' order turns around at each
 * scenario (A B C, then C B A), so no setup is always the first after a change of scenario.
 * Every process is stopped before this returns or throws.
 */
export async function runSetups(
  setups: readonly Setup[],
  scenarios: readonly Scenario[],
  options: SessionOptions,
): Promise<SetupRun[]> {
  const sessions = setups.map((setup) => openSession(setup, options));
  const results = new Map<Session, ScenarioResult[]>(sessions.map((s) => [s, []]));
  const problems = new Map<Session, string[]>();
  try {
    for (const [index, scenario] of scenarios.entries()) {
      const needed = new Set(scenarios.slice(index).flatMap((s) => s.servers));
      for (const session of sessions) await session.release(needed);
      const order = index % 2 === 0 ? sessions : [...sessions].reverse();
      for (const session of order) results.get(session)?.push(await session.run(scenario));
    }
  } finally {
    for (const session of sessions) problems.set(session, await session.close());
  }
  return sessions.map((session) => ({
    setup: session.setup,
    results: results.get(session) ?? [],
    problems: problems.get(session) ?? [],
  }));
}

/** The setup's servers and engine together; SQLite works inside the servers, theirs is all. */
function totalOf(
  setup: Setup,
  servers: readonly (number | undefined)[],
  engine: number | undefined,
): number | undefined {
  if (servers.length === 0 || servers.some((s) => s === undefined)) return undefined;
  const sum = servers.reduce<number>((total, s) => total + (s ?? 0), 0);
  if (setup.engine === 'sqlite') return sum;
  return engine === undefined ? undefined : sum + engine;
}

/**
 * Runs the measured load and returns its Measurement with the CPU used meanwhile, in cores; the
 * load generator's from its own process, which it reports with the Measurement.
 */
async function withCpu(
  group: BenchGroup | undefined,
  setup: Setup,
  run: () => Promise<Measurement>,
): Promise<{ value: Measurement; cpu: CpuShare }> {
  const processes = group?.processes ?? [];
  const servedBefore = await Promise.all(processes.map((p) => p.requestsServed()));
  const serversBefore = processes.map((p) => p.cpuSeconds());
  const engineBefore = setup.engineCpu();
  const machineBefore = machineCpuSeconds();
  const startedAt = performance.now();
  const value = await run();
  const seconds = (performance.now() - startedAt) / 1000;
  const machineAfter = machineCpuSeconds();
  const engineAfter = setup.engineCpu();
  const serversAfter = processes.map((p) => p.cpuSeconds());
  const servedAfter = await Promise.all(processes.map((p) => p.requestsServed()));
  const share = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined ? undefined : (after - before) / seconds;
  const servers = serversAfter.map((after, i) => share(serversBefore[i], after));
  const engine =
    engineBefore && engineAfter
      ? cpuSecondsBetween(engineBefore, engineAfter) / seconds
      : undefined;
  return {
    value,
    cpu: {
      servers,
      served: servedAfter.map((after, i) => {
        const before = servedBefore[i];
        return before === undefined || after === undefined ? undefined : after - before;
      }),
      engine,
      total: totalOf(setup, servers, engine),
      loadGenerator: value.loadCpuSeconds / seconds,
      machine: share(machineBefore?.busy, machineAfter?.busy),
      steal: share(machineBefore?.steal, machineAfter?.steal),
    },
  };
}

async function measureScenario(
  setup: Setup,
  scenario: Scenario,
  servers: Servers,
  groupAt: (origin: string) => BenchGroup | undefined,
  options: SessionOptions,
): Promise<Outcome> {
  const { load } = options;
  const log = (line: string) => options.log(`${setup.name}: ${line}`);
  let plan: Plan;
  try {
    plan = await scenario.prepare(servers);
  } catch (error) {
    return { ok: false, stage: 'prepare', message: message(error) };
  }
  const run = (seconds: number) =>
    measure({
      origin: plan.origin,
      requests: plan.requests,
      expectStatus: plan.expectStatus,
      connections: load.connections,
      seconds,
    });
  let warmup = NO_RUN;
  let measured: Measurement;
  let cpu: CpuShare;
  try {
    if (load.warmup > 0) {
      log(`${scenario.name}: warm-up ${load.warmup} s`);
      warmup = await run(load.warmup);
    }
    log(`${scenario.name}: measuring ${load.seconds} s`);
    ({ value: measured, cpu } = await withCpu(groupAt(plan.origin), setup, () =>
      run(load.seconds),
    ));
  } catch (error) {
    return { ok: false, stage: 'load', message: message(error) };
  }
  try {
    await plan.check?.({ warmup, measured });
  } catch (error) {
    return { ok: false, stage: 'check', message: message(error) };
  }
  return { ok: true, warmup, measured, cpu };
}
