import type { MnemoServer } from './api-client.ts';
import { LoadFailed, type Measurement, measure } from './load.ts';
import { type BenchProcess, startFloor, startMnemoServer } from './processes.ts';
import {
  type Plan,
  type Scenario,
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
  /** The process that answered the load; undefined where it cannot be read. */
  readonly server: number | undefined;
  /** This process: the load generator. */
  readonly loadGenerator: number;
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

export interface SessionResult {
  readonly results: ScenarioResult[];
  /** Processes that did not stop cleanly: their profile or last writes may be missing. */
  readonly problems: string[];
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
};

interface RunningServer {
  readonly server: MnemoServer;
  readonly process: BenchProcess;
  readonly store: BenchStoreLocation;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Runs `scenarios` in order on `setup`. A bench server starts when a scenario first asks for it
 * and stops once no later scenario needs it, so an idle server holds no memory or cache while
 * another is measured; the floor stops after its scenario. Every process is stopped before this
 * returns or throws. A failed scenario is a result, and the next one runs.
 */
export async function runSession(
  setup: Setup,
  scenarios: readonly Scenario[],
  options: SessionOptions,
): Promise<SessionResult> {
  const slug = setup.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  const servers = new Map<ServerKind, Promise<RunningServer>>();
  /** By origin: which process answers a plan's load. */
  const listening = new Map<string, BenchProcess>();
  const problems: string[] = [];

  async function startServer(kind: ServerKind): Promise<RunningServer> {
    const label = `${slug}-${kind}`;
    const store = await setup.createStore(options.dir, label);
    options.log(
      `${setup.name}: starting the ${kind} server (${JSON.stringify(SERVER_STORES[kind])})`,
    );
    try {
      const started = await startMnemoServer(SERVER_STORES[kind], store.url, {
        label,
        profileDir: options.profileDir,
      });
      listening.set(started.process.origin, started.process);
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
    listening.delete(started.process.origin);
    try {
      await started.process.stop();
    } catch (error) {
      problems.push(message(error));
    }
    await started.store.dispose();
  }

  async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
    const scoped: BenchProcess[] = [];
    const access: Servers = {
      mnemo(kind) {
        let running = servers.get(kind);
        if (!running) {
          running = startServer(kind);
          servers.set(kind, running);
        }
        return running.then((r) => r.server);
      },
      async floor(body, contentType) {
        const started = await startFloor(body, contentType, options.dir, {
          label: `${slug}-floor`,
          profileDir: options.profileDir,
        });
        scoped.push(started.process);
        listening.set(started.origin, started.process);
        return { origin: started.origin };
      },
    };
    try {
      const outcome = await measureScenario(scenario, access, (o) => listening.get(o), options);
      return { scenario, outcome };
    } finally {
      for (const child of scoped) {
        listening.delete(child.origin);
        await child.stop().catch((error) => problems.push(message(error)));
      }
    }
  }

  const results: ScenarioResult[] = [];
  try {
    for (const [index, scenario] of scenarios.entries()) {
      const needed = new Set(scenarios.slice(index).flatMap((s) => s.servers));
      for (const kind of [...servers.keys()]) if (!needed.has(kind)) await stopServer(kind);
      results.push(await runScenario(scenario));
    }
  } finally {
    for (const kind of [...servers.keys()]) await stopServer(kind);
  }
  return { results, problems };
}

/** Runs `work` and returns what it resolved to with the CPU used meanwhile, in cores. */
async function withCpu<T>(
  server: BenchProcess | undefined,
  work: () => Promise<T>,
): Promise<{ value: T; cpu: CpuShare }> {
  const serverBefore = server?.cpuSeconds();
  const loadBefore = process.cpuUsage();
  const startedAt = performance.now();
  const value = await work();
  const seconds = (performance.now() - startedAt) / 1000;
  const serverAfter = server?.cpuSeconds();
  const load = process.cpuUsage(loadBefore);
  return {
    value,
    cpu: {
      server:
        serverBefore === undefined || serverAfter === undefined
          ? undefined
          : (serverAfter - serverBefore) / seconds,
      loadGenerator: (load.user + load.system) / 1e6 / seconds,
    },
  };
}

async function measureScenario(
  scenario: Scenario,
  servers: Servers,
  processAt: (origin: string) => BenchProcess | undefined,
  options: SessionOptions,
): Promise<Outcome> {
  const { log, load } = options;
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
    ({ value: measured, cpu } = await withCpu(processAt(plan.origin), () => run(load.seconds)));
  } catch (error) {
    const text = error instanceof LoadFailed ? error.message : `load generator: ${message(error)}`;
    return { ok: false, stage: 'load', message: text };
  }
  try {
    await plan.check?.({ warmup, measured });
  } catch (error) {
    return { ok: false, stage: 'check', message: message(error) };
  }
  return { ok: true, warmup, measured, cpu };
}
