import type { MnemoServer } from './api-client.ts';
import { cpuSecondsBetween, machineCpuSeconds } from './cpu.ts';
import { combine, type Load, type Measurement, measureTogether, type Sampled } from './load.ts';
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
  /** Seconds of the measured run of each scenario on each setup, all its slices together. */
  readonly seconds: number;
  /** Seconds of the run before it, whose figures are not reported; 0 for none. */
  readonly warmup: number;
  readonly connections: number;
  /**
   * Seconds of one slice, at most: the measured run of a scenario is cut into slices, and the
   * setups take turns slice by slice (see runSetups).
   */
  readonly slice: number;
}

export type Stage = 'prepare' | 'load' | 'check';

/**
 * CPU used during the measured run, in cores: 1 is one core busy all the time, over the
 * seconds the load ran (the measured slices together), so that a share over the run's req/s is
 * exactly the CPU seconds per response.
 */
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
      /** The loads run beside it (Plan's `beside`), in order, over its measured slices. */
      readonly beside?: readonly Measurement[];
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

/** No run: nothing was sent, and a check that counts responses counts none. */
const NO_RUN: Sampled = {
  measurement: {
    responses: 0,
    seconds: 0,
    requestsPerSecond: 0,
    p50: Number.NaN,
    p99: Number.NaN,
    statusCounts: {},
    unanswered: 0,
    loadCpuSeconds: 0,
  },
  latencies: new Float64Array(0),
};

interface RunningServer {
  readonly server: MnemoServer;
  readonly group: BenchGroup;
  readonly store: BenchStoreLocation;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The slices a measured run of `seconds` is cut into, each at most `slice` seconds long. */
export function sliceSeconds(seconds: number, slice: number): number[] {
  const count = Math.max(1, Math.ceil(seconds / slice));
  return Array.from({ length: count }, () => seconds / count);
}

/**
 * CPU seconds and requests counted over measured slices, added up slice by slice: turned into
 * a CpuShare once the run is over.
 */
interface CpuTally {
  servers: (number | undefined)[];
  served: (number | undefined)[];
  engine: number | undefined;
  machine: number | undefined;
  steal: number | undefined;
}

const add = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? undefined : a + b;

/**
 * A scenario prepared on one setup: every copy of its servers up, checked, and ready for the
 * load. Its warm-up and measured slices are sent to every copy at once.
 */
interface PreparedRun {
  warmup(seconds: number): Promise<void>;
  /** One measured slice, its CPU counted into the run's. */
  slice(seconds: number): Promise<void>;
  /** The checks of every copy, then the outcome. */
  finish(): Promise<Outcome>;
  /** Stops what the scenario alone started (its floors). */
  close(): Promise<void>;
}

/** One setup's servers, run a scenario at a time. */
interface Session {
  readonly setup: Setup;
  /**
   * Starts what `scenario` needs and checks it answers as the load expects; an Outcome when it
   * did not.
   */
  prepare(scenario: Scenario): Promise<PreparedRun | Outcome>;
  /** Stops the servers of every kind not in `needed`. */
  release(needed: ReadonlySet<ServerKind>): Promise<void>;
  /** Stops every server; returns the processes that did not stop cleanly. */
  close(): Promise<string[]>;
}

/**
 * A bench server starts when a scenario first asks for it and stops once no later scenario
 * needs it (`release`), so an idle server holds no memory or cache while another is measured;
 * the floor stops after its scenario. A setup of several copies has a server of each kind per
 * copy, each with its own store and port. A failed scenario is a result.
 */
function openSession(setup: Setup, options: SessionOptions): Session {
  const slug = setup.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  const copies = Array.from({ length: setup.copies }, (_, i) => ({
    suffix: setup.copies === 1 ? '' : `-${String.fromCharCode(97 + i)}`,
    servers: new Map<ServerKind, Promise<RunningServer>>(),
  }));
  /** By origin: which processes answer a plan's load. */
  const listening = new Map<string, BenchGroup>();
  const problems: string[] = [];
  const processOptions = (label: string) => ({
    label,
    profileDir: options.profileDir,
    processes: setup.processes,
  });

  async function startServer(kind: ServerKind, suffix: string): Promise<RunningServer> {
    const label = `${slug}-${kind}${suffix}`;
    const store = await setup.createStore(options.dir, label);
    options.log(
      `${setup.name}: seeding and starting the ${kind}${suffix} server (${JSON.stringify(SERVER_STORES[kind])})`,
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

  async function stopServer(servers: Map<ServerKind, Promise<RunningServer>>, kind: ServerKind) {
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

  async function stopScoped(scoped: readonly BenchGroup[]) {
    for (const group of scoped) {
      listening.delete(group.origin);
      await group.stop().catch((error) => problems.push(message(error)));
    }
  }

  async function prepare(scenario: Scenario): Promise<PreparedRun | Outcome> {
    const scoped: BenchGroup[] = [];
    const accessOf = ({ suffix, servers }: (typeof copies)[number]): Servers => ({
      mnemo(kind) {
        let running = servers.get(kind);
        if (!running) {
          running = startServer(kind, suffix);
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
          processOptions(`${slug}-floor-${kind}${suffix}`),
        );
        scoped.push(group);
        listening.set(group.origin, group);
        return { origin: group.origin };
      },
    });
    let plans: Plan[];
    try {
      plans = [];
      for (const copy of copies) plans.push(await scenario.prepare(accessOf(copy)));
    } catch (error) {
      await stopScoped(scoped);
      return { ok: false, stage: 'prepare', message: message(error) };
    }
    const groups = plans.map((plan) => listening.get(plan.origin));
    return preparedRun(setup, plans, groups, options, () => stopScoped(scoped));
  }

  return {
    setup,
    prepare,
    async release(needed) {
      for (const { servers } of copies) {
        for (const kind of [...servers.keys()]) {
          if (!needed.has(kind)) await stopServer(servers, kind);
        }
      }
    },
    async close() {
      for (const { servers } of copies) {
        for (const kind of [...servers.keys()]) await stopServer(servers, kind);
      }
      return problems;
    },
  };
}

/** The connections of one load over `copies` loads at once: as evenly as they divide. */
export function splitConnections(connections: number, copies: number): number[] {
  return Array.from(
    { length: copies },
    (_, i) => Math.floor(connections / copies) + (i < connections % copies ? 1 : 0),
  );
}

function preparedRun(
  setup: Setup,
  plans: readonly Plan[],
  groups: readonly (BenchGroup | undefined)[],
  options: SessionOptions,
  close: () => Promise<void>,
): PreparedRun {
  const connections = splitConnections(options.load.connections, plans.length);
  // Each copy's load, then the loads beside them, copy by copy: all sent at once.
  const loads = (seconds: number): Load[] => [
    ...plans.map((plan, i) => ({
      origin: plan.origin,
      requests: plan.requests,
      expectStatus: plan.expectStatus,
      connections: connections[i] ?? 1,
      seconds,
    })),
    ...plans.flatMap((plan) =>
      (plan.beside ?? []).map((beside) => ({ origin: plan.origin, ...beside, seconds })),
    ),
  ];
  const besideCount = plans[0]?.beside?.length ?? 0;
  if (plans.some((plan) => (plan.beside?.length ?? 0) !== besideCount)) {
    throw new Error('every copy of a scenario runs the same loads beside it');
  }
  const processes = groups.flatMap((group) => group?.processes ?? []);
  // Per copy: its warm-up, and its measured slices, for its own check.
  let warmups: Sampled[] = plans.map(() => NO_RUN);
  const slices: Sampled[][] = plans.map(() => []);
  /** By beside load, then copy: its measured slices. */
  const besideSlices: Sampled[][][] = Array.from({ length: besideCount }, () =>
    plans.map(() => []),
  );
  const tally: CpuTally = {
    servers: processes.map(() => 0),
    served: processes.map(() => 0),
    engine: 0,
    machine: 0,
    steal: 0,
  };
  let failure: Outcome | undefined;

  /** Runs `body`, or does nothing once a run of this scenario failed. */
  async function guarded(stage: 'load' | 'check', body: () => Promise<void>) {
    if (failure) return;
    try {
      await body();
    } catch (error) {
      failure = { ok: false, stage, message: message(error) };
    }
  }

  return {
    warmup: (seconds) =>
      guarded('load', async () => {
        warmups = (await measureTogether(loads(seconds))).slice(0, plans.length);
      }),
    slice: (seconds) =>
      guarded('load', async () => {
        const servedBefore = await Promise.all(processes.map((p) => p.requestsServed()));
        const serversBefore = processes.map((p) => p.cpuSeconds());
        const engineBefore = setup.engineCpu();
        const machineBefore = machineCpuSeconds();
        const runs = await measureTogether(loads(seconds));
        const machineAfter = machineCpuSeconds();
        const engineAfter = setup.engineCpu();
        const serversAfter = processes.map((p) => p.cpuSeconds());
        const servedAfter = await Promise.all(processes.map((p) => p.requestsServed()));
        const between = (before: number | undefined, after: number | undefined) =>
          before === undefined || after === undefined ? undefined : after - before;
        for (const [i, run] of runs.slice(0, plans.length).entries()) slices[i]?.push(run);
        for (const [k, run] of runs.slice(plans.length).entries()) {
          besideSlices[k % besideCount]?.[Math.floor(k / besideCount)]?.push(run);
        }
        tally.servers = tally.servers.map((sum, i) =>
          add(sum, between(serversBefore[i], serversAfter[i])),
        );
        tally.served = tally.served.map((sum, i) =>
          add(sum, between(servedBefore[i], servedAfter[i])),
        );
        tally.engine = add(
          tally.engine,
          engineBefore && engineAfter ? cpuSecondsBetween(engineBefore, engineAfter) : undefined,
        );
        tally.machine = add(tally.machine, between(machineBefore?.busy, machineAfter?.busy));
        tally.steal = add(tally.steal, between(machineBefore?.steal, machineAfter?.steal));
      }),
    async finish() {
      // Each copy's runs in turn, then the copies together: what the setup answered.
      const measuredOfCopy = slices.map((runs) => combine(runs, 'in turn'));
      await guarded('check', async () => {
        for (const [i, plan] of plans.entries()) {
          await plan.check?.({
            warmup: (warmups[i] ?? NO_RUN).measurement,
            measured: (measuredOfCopy[i] ?? NO_RUN).measurement,
          });
        }
      });
      if (failure) return failure;
      const warmup = combine(warmups, 'together').measurement;
      const measured = combine(measuredOfCopy, 'together').measurement;
      const cpu = shareOf(setup, tally, measured);
      if (besideCount === 0) return { ok: true, warmup, measured, cpu };
      const beside = besideSlices.map(
        (copies) =>
          combine(
            copies.map((runs) => combine(runs, 'in turn')),
            'together',
          ).measurement,
      );
      return { ok: true, warmup, measured, cpu, beside };
    },
    close,
  };
}

/** The tally of a run as cores over its measured seconds. */
function shareOf(setup: Setup, tally: CpuTally, measured: Measurement): CpuShare {
  const { seconds } = measured;
  const per = (value: number | undefined) =>
    value === undefined || seconds <= 0 ? undefined : value / seconds;
  const servers = tally.servers.map(per);
  const engine = per(tally.engine);
  return {
    servers,
    served: tally.served,
    engine,
    total: totalOf(setup, servers, engine),
    loadGenerator: per(measured.loadCpuSeconds) ?? 0,
    machine: per(tally.machine),
    steal: per(tally.steal),
  };
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

/** One setup's results. */
export interface SetupRun {
  readonly setup: Setup;
  readonly results: ScenarioResult[];
  /** Processes that did not stop cleanly: their profile or last writes may be missing. */
  readonly problems: string[];
}

/** Whether `setup` runs `scenario`. */
export type Runs = (setup: Setup, scenario: Scenario) => boolean;

/**
 * Runs each group of `groups` in order, each scenario of it on every setup that runs it, before
 * the next group. The runs of a group (its scenarios on its setups) are prepared and warmed up
 * one after another, then measured in turns: a slice of each (`LoadOptions.slice` seconds at
 * most), again and again until each has had its seconds, the order turning around at each turn
 * (A B C, C B A, …). On a machine shared with other work, whose speed moves within seconds, a
 * ratio between two runs of a group (two setups, or a scenario and its floor) then divides
 * figures taken over the same stretch of time, not two moments apart. Each setup's results are
 * in the order of the scenarios. Every process is stopped before this returns or throws.
 */
export async function runSetups(
  setups: readonly Setup[],
  groups: readonly (readonly Scenario[])[],
  options: SessionOptions,
  runs: Runs = () => true,
): Promise<SetupRun[]> {
  const sessions = setups.map((setup) => openSession(setup, options));
  const outcomes = new Map<Session, Map<Scenario, Outcome>>(sessions.map((s) => [s, new Map()]));
  const problems = new Map<Session, string[]>();
  const { load } = options;
  const scenarios = groups.flat();
  try {
    for (const [index, group] of groups.entries()) {
      const needed = new Set(
        scenarios.slice(scenarios.indexOf(group[0] as Scenario)).flatMap((s) => s.servers),
      );
      for (const session of sessions) await session.release(needed);
      const order = index % 2 === 0 ? sessions : [...sessions].reverse();
      const prepared: Array<{ session: Session; scenario: Scenario; run: PreparedRun }> = [];
      const say = (session: Session, scenario: Scenario, line: string) =>
        options.log(`${session.setup.name}: ${scenario.name}: ${line}`);
      try {
        for (const scenario of group) {
          for (const session of order.filter((s) => runs(s.setup, scenario))) {
            say(session, scenario, 'preparing');
            const run = await session.prepare(scenario);
            if ('finish' in run) prepared.push({ session, scenario, run });
            else outcomes.get(session)?.set(scenario, run);
          }
        }
        if (load.warmup > 0) {
          for (const { session, scenario, run } of prepared) {
            say(session, scenario, `warm-up ${load.warmup} s`);
            await run.warmup(load.warmup);
          }
        }
        const slices = sliceSeconds(load.seconds, load.slice);
        options.log(
          `${group.map((s) => s.name).join(', ')}: measuring ${load.seconds} s of each, ${prepared.length} runs taking ${slices.length} turns`,
        );
        for (const [turn, seconds] of slices.entries()) {
          const inTurn = turn % 2 === 0 ? prepared : [...prepared].reverse();
          for (const { run } of inTurn) await run.slice(seconds);
        }
        for (const { session, scenario, run } of prepared) {
          outcomes.get(session)?.set(scenario, await run.finish());
        }
      } finally {
        for (const { run } of prepared) await run.close();
      }
    }
  } finally {
    for (const session of sessions) problems.set(session, await session.close());
  }
  return sessions.map((session) => {
    const of = outcomes.get(session) ?? new Map<Scenario, Outcome>();
    return {
      setup: session.setup,
      results: scenarios.flatMap((scenario) => {
        const outcome = of.get(scenario);
        return outcome ? [{ scenario, outcome }] : [];
      }),
      problems: problems.get(session) ?? [],
    };
  });
}
