import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type ServerProcess, startServerProcess } from '../src/testing/server-process.ts';
import type { MnemoServer } from './api-client.ts';
import { processCpuSeconds } from './cpu.ts';
import { placed } from './cpu-placement.ts';
import { FLOOR_PREFIX, type FloorKind } from './floor.ts';
import { type BenchSeed, SEEDED_PREFIX, SERVING_PREFIX, type SeedOptions } from './server.ts';
import { SERVED_PREFIX } from './serving.ts';

const SERVER_SCRIPT = fileURLToPath(new URL('./server.ts', import.meta.url));
const FLOOR_SCRIPT = fileURLToPath(new URL('./floor.ts', import.meta.url));
const HOST = '127.0.0.1';

/** Seeding 100,000 memories takes seconds on an idle machine, far longer on a busy one. */
const SEED_TIMEOUT_MS = 5 * 60_000;
/** Building the app and listening, on a machine busy with another setup's servers. */
const READY_TIMEOUT_MS = 60_000;
/** A process writing a CPU profile on exit needs a moment past its close. */
const STOP_TIMEOUT_MS = 60_000;
/** How long a process may take to print its request count once asked. */
const COUNT_TIMEOUT_MS = 5_000;

/** A process the bench started, stopped with SIGTERM so it can close cleanly. */
export interface BenchProcess {
  readonly label: string;
  readonly pid: number;
  /** CPU seconds it has used so far, all threads; undefined where /proc is not there to read. */
  cpuSeconds(): number | undefined;
  /** Requests it has received so far (asked with SIGUSR2); undefined when it did not say. */
  requestsServed(): Promise<number | undefined>;
  stop(): Promise<void>;
}

/**
 * The processes that listen on one origin: one, or several on the same port, each with
 * SO_REUSEPORT, among which the kernel spreads the connections (serving.ts).
 */
export interface BenchGroup {
  /** Where it listens: `http://127.0.0.1:{port}`. */
  readonly origin: string;
  readonly processes: readonly BenchProcess[];
  /** Stops every process, then throws what went wrong with any of them. */
  stop(): Promise<void>;
}

export interface ProcessOptions {
  /** Names the processes in errors and their profile files (`<label>-<n>` past one process). */
  readonly label: string;
  /** When set, each process writes a V8 CPU profile (`<label>.cpuprofile`) here as it exits. */
  readonly profileDir: string | undefined;
  /** How many processes listen on the origin. */
  readonly processes: number;
}

/** A server's or floor's command, on the CPUs the servers run on (cpu-placement.ts). */
function nodeCommand(
  script: string,
  args: readonly string[],
  label: string,
  profileDir: string | undefined,
): string[] {
  const profile = profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${label}.cpuprofile`]
    : [];
  return placed('server', [process.execPath, ...profile, script, ...args]);
}

/** Requests a minute per subject: about 16 million a second, far past any load here. */
export const UNREACHED_RATE_LIMIT = 1_000_000_000;

/**
 * The environment of every bench process: quiet logs, and the rate limit on, as in service, at
 * a limit the load never reaches: every request pays for its count, none is refused.
 */
export function benchEnv(extra: Record<string, string>): Record<string, string> {
  return {
    HOST,
    // warn, not info: a log line per request would cost the server more than some routes do.
    MNEMO_LOG_LEVEL: 'warn',
    MNEMO_RATE_LIMIT_PER_MINUTE: String(UNREACHED_RATE_LIMIT),
    MNEMO_SEED_DEMO: 'off',
    ...extra,
  };
}

const servedLines = (out: string) => [
  ...out.matchAll(new RegExp(`^${SERVED_PREFIX}(\\d+)$`, 'gm')),
];

function asBenchProcess(label: string, child: ServerProcess): BenchProcess {
  return {
    label,
    pid: child.pid,
    cpuSeconds: () => processCpuSeconds(child.pid),
    async requestsServed() {
      if (child.hasExited()) return undefined;
      const before = servedLines(child.stdout()).length;
      try {
        process.kill(child.pid, 'SIGUSR2');
      } catch {
        return undefined;
      }
      const deadline = Date.now() + COUNT_TIMEOUT_MS;
      while (Date.now() < deadline && !child.hasExited()) {
        const lines = servedLines(child.stdout());
        if (lines.length > before) return Number(lines.at(-1)?.[1]);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return undefined;
    },
    async stop() {
      const exit = await child.stop('SIGTERM', STOP_TIMEOUT_MS);
      if (exit.code !== 0) {
        throw new Error(
          `${label} ended with ${exit.signal ?? `code ${exit.code}`}\n${child.stderr().slice(-2000)}`,
        );
      }
    },
  };
}

async function stopAll(processes: readonly BenchProcess[]): Promise<void> {
  const stopped = await Promise.allSettled(processes.map((p) => p.stop()));
  const errors = stopped.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, errors.map(String).join('\n'));
}

/**
 * Starts `options.processes` processes of `command(label)` on `port`, all at once, and waits
 * until each has printed `ready` (its own line: with several on one port, /healthz may be
 * answered by another one). On a failure, the ones started are stopped.
 */
async function startGroup(
  port: number,
  command: (label: string) => string[],
  env: Record<string, string>,
  ready: RegExp,
  options: ProcessOptions,
): Promise<BenchGroup> {
  const labels = Array.from({ length: options.processes }, (_, i) =>
    options.processes === 1 ? options.label : `${options.label}-${i + 1}`,
  );
  const started = await Promise.allSettled(
    labels.map(async (label) => {
      const child = await startServerProcess({
        command: command(label),
        env,
        port,
        readyTimeoutMs: READY_TIMEOUT_MS,
      });
      const started = asBenchProcess(label, child);
      try {
        await child.waitForStdout(ready, READY_TIMEOUT_MS);
      } catch (error) {
        await started.stop().catch(() => {});
        throw error;
      }
      return started;
    }),
  );
  const processes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await stopAll(processes).catch(() => {});
    throw failed.reason;
  }
  return { origin: `http://${HOST}:${port}`, processes, stop: () => stopAll(processes) };
}

/**
 * Runs `bench/server.ts seed` to its end: provisions `stores` on the store at `databaseUrl` for
 * servers that will listen on `port`, and returns what it provisioned.
 */
function seedStore(
  stores: Readonly<Record<string, number>>,
  seedOptions: SeedOptions | undefined,
  env: Record<string, string>,
  label: string,
): Promise<BenchSeed> {
  const baseEnv: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const value = process.env[key];
    if (value !== undefined) baseEnv[key] = value;
  }
  const args = [SERVER_SCRIPT, 'seed', JSON.stringify(stores)];
  if (seedOptions) args.push(JSON.stringify(seedOptions));
  const child = spawn(process.execPath, args, {
    env: { ...baseEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const kill = () => child.kill('SIGKILL');
  // An interrupted bench leaves no seeding behind.
  process.once('exit', kill);
  return new Promise<BenchSeed>((resolve, reject) => {
    const timer = setTimeout(kill, SEED_TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      process.removeListener('exit', kill);
      const line = out.match(new RegExp(`^${SEEDED_PREFIX}(.+)$`, 'm'));
      if (code === 0 && line?.[1]) {
        resolve(JSON.parse(line[1]) as BenchSeed);
        return;
      }
      const how = signal
        ? `was killed (${signal}, limit ${SEED_TIMEOUT_MS / 1000} s)`
        : `ended with code ${code}`;
      reject(new Error(`${label}: seeding ${how}\n${err.slice(-2000)}`));
    });
  });
}

/**
 * Seeds `stores` on the store at `databaseUrl` once (as `seedOptions` say), then starts
 * `options.processes` `bench/server.ts serve` processes on it, all on one port, and waits until
 * each serves. `env` adds to, or overrides, benchEnv's variables.
 */
export async function startMnemoServer(
  stores: Readonly<Record<string, number>>,
  databaseUrl: string,
  options: ProcessOptions,
  seedOptions?: SeedOptions,
  env: Readonly<Record<string, string>> = {},
): Promise<{ server: MnemoServer; group: BenchGroup }> {
  // The credentials name the service's URL, port included: seeded for the port served on.
  const port = await freePort(HOST);
  const processEnv = benchEnv({ MNEMO_DATABASE_URL: databaseUrl, PORT: String(port), ...env });
  const seed = await seedStore(stores, seedOptions, processEnv, options.label);
  const args = ['serve', ...(options.processes > 1 ? ['--reuse-port'] : [])];
  const group = await startGroup(
    port,
    (label) => nodeCommand(SERVER_SCRIPT, args, label, options.profileDir),
    processEnv,
    new RegExp(`^${SERVING_PREFIX}`, 'm'),
    options,
  );
  return { server: { origin: group.origin, info: seed }, group };
}

/**
 * Starts `options.processes` bench/floor.ts processes of `kind` answering `body` as
 * `contentType`, on one port; the body is written under `dir`.
 */
export async function startFloor(
  kind: FloorKind,
  body: Buffer,
  contentType: string,
  dir: string,
  options: ProcessOptions,
): Promise<BenchGroup> {
  const bodyFile = join(dir, `${options.label}.body`);
  writeFileSync(bodyFile, body);
  const args = [kind, bodyFile, contentType, ...(options.processes > 1 ? ['--reuse-port'] : [])];
  return startGroup(
    await freePort(HOST),
    (label) => nodeCommand(FLOOR_SCRIPT, args, label, options.profileDir),
    benchEnv({}),
    new RegExp(`^${FLOOR_PREFIX}`, 'm'),
    options,
  );
}
