import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ServerProcess, startServerProcess } from '../src/testing/server-process.ts';
import type { MnemoServer } from './api-client.ts';
import { type BenchServerInfo, READY_PREFIX } from './server.ts';

const SERVER_SCRIPT = fileURLToPath(new URL('./server.ts', import.meta.url));
const FLOOR_SCRIPT = fileURLToPath(new URL('./floor.ts', import.meta.url));
const HOST = '127.0.0.1';

/** Seeding 100,000 memories takes seconds on an idle machine, far longer on a busy one. */
const READY_TIMEOUT_MS = 5 * 60_000;
/** A process writing a CPU profile on exit needs a moment past its close. */
const STOP_TIMEOUT_MS = 60_000;

/** A process the bench started, stopped with SIGTERM so it can close cleanly. */
export interface BenchProcess {
  readonly label: string;
  /** Where it listens: `http://127.0.0.1:{port}`. */
  readonly origin: string;
  /** CPU seconds it has used so far, all threads; undefined where /proc is not there to read. */
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

/** Linux reports utime and stime in clock ticks, which are 1/100 s on every common build. */
const TICKS_PER_SECOND = 100;

function procCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // proc(5): fields 14 and 15 are utime and stime; the command name before them may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export interface ProcessOptions {
  /** Names the process in errors and its profile file. */
  readonly label: string;
  /** When set, the process writes a V8 CPU profile (`<label>.cpuprofile`) here as it exits. */
  readonly profileDir: string | undefined;
}

function nodeCommand(script: string, args: readonly string[], options: ProcessOptions): string[] {
  const profile = options.profileDir
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${options.profileDir}`,
        `--cpu-prof-name=${options.label}.cpuprofile`,
      ]
    : [];
  return [process.execPath, ...profile, script, ...args];
}

/** The environment of every bench process: quiet logs and no rate limit. */
function benchEnv(extra: Record<string, string>): Record<string, string> {
  return {
    HOST,
    // warn, not info: a log line per request would cost the server more than some routes do.
    MNEMO_LOG_LEVEL: 'warn',
    MNEMO_RATE_LIMIT_PER_MINUTE: '0',
    MNEMO_SEED_DEMO: 'off',
    ...extra,
  };
}

function asBenchProcess(label: string, child: ServerProcess): BenchProcess {
  return {
    label,
    origin: child.url,
    cpuSeconds: () => procCpuSeconds(child.pid),
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

/** Starts bench/server.ts with `stores` on the store at `databaseUrl`, and waits until it serves. */
export async function startMnemoServer(
  stores: Readonly<Record<string, number>>,
  databaseUrl: string,
  options: ProcessOptions,
): Promise<{ server: MnemoServer; process: BenchProcess }> {
  const child = await startServerProcess({
    command: nodeCommand(SERVER_SCRIPT, [JSON.stringify(stores)], options),
    env: benchEnv({ MNEMO_DATABASE_URL: databaseUrl }),
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
  const started = asBenchProcess(options.label, child);
  try {
    const [, json = ''] = await child.waitForStdout(new RegExp(`^${READY_PREFIX}(.+)$`, 'm'));
    const info = JSON.parse(json) as BenchServerInfo;
    return { server: { origin: started.origin, info }, process: started };
  } catch (error) {
    await started.stop().catch(() => {});
    throw error;
  }
}

/** Starts bench/floor.ts answering `body` as `contentType`; the body is written under `dir`. */
export async function startFloor(
  body: Buffer,
  contentType: string,
  dir: string,
  options: ProcessOptions,
): Promise<{ origin: string; process: BenchProcess }> {
  const bodyFile = join(dir, `${options.label}.body`);
  writeFileSync(bodyFile, body);
  const child = await startServerProcess({
    command: nodeCommand(FLOOR_SCRIPT, [bodyFile, contentType], options),
    env: benchEnv({}),
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
  const started = asBenchProcess(options.label, child);
  return { origin: started.origin, process: started };
}
