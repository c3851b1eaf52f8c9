import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/testing/server-process.ts';
import { expectCall, type MnemoServer, storeOf } from '../api-client.ts';
import { processCpuSeconds } from '../cpu.ts';
import { benchEnv } from '../processes.ts';
import { type BenchSeed, SEEDED_PREFIX, SERVING_PREFIX, type SeedOptions } from '../server.ts';
import { assertLoopbackOnly, LOOPBACK } from './loopback.ts';
import { RECALL_MEMORIES } from './results.ts';
import { SIMULATOR_PREFIX } from './simulator.ts';

/**
 * The processes of the gateway bench: the OpenAI simulator, mnemo (bench/server.ts) with a
 * catalog that routes to it, and Portkey's gateway. bench/processes.ts waits for `/healthz`,
 * which neither the simulator nor Portkey serve: these are started by the line each prints
 * once it listens.
 */

const SERVER_SCRIPT = fileURLToPath(new URL('../server.ts', import.meta.url));
const SIMULATOR_SCRIPT = fileURLToPath(new URL('./simulator.ts', import.meta.url));
/** `--import` takes a URL. */
const PORTKEY_PRELOAD = new URL('./portkey-preload.ts', import.meta.url).href;
const PORTKEY_SCRIPT = fileURLToPath(
  new URL('../../node_modules/@portkey-ai/gateway/build/start-server.js', import.meta.url),
);

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 60_000;
const BASE_ENV_KEYS = ['PATH', 'HOME', 'TMPDIR', 'LANG'];
/** What is kept of a process's stderr, for the message when it fails. */
const STDERR_KEPT = 10_000;

/** The variable every upstream key is read from, in mnemo's catalog and the simulator. */
export const KEY_VARIABLE = 'BENCH_OPENAI_KEY';
/** mnemo's catalog: a provider on the simulator without pauses, and one on the paced simulator. */
const FAST_PROVIDER = 'sim';
const PACED_PROVIDER = 'paced';
export const UPSTREAM_MODEL = 'gpt-4o-mini';
export const MNEMO_MODEL = `${FAST_PROVIDER}/${UPSTREAM_MODEL}`;
export const MNEMO_PACED_MODEL = `${PACED_PROVIDER}/${UPSTREAM_MODEL}`;
/** The member whose store memory read recalls from; the gateway store's member has none. */
const RECALL_STORE = 'recall';
/** Sentences about a person at work, varied (bench/search/corpus.ts), for search to rank. */
const SEED_OPTIONS: SeedOptions = { texts: 'search-corpus' };

export interface GatewayProcess {
  readonly label: string;
  readonly pid: number;
  /** CPU seconds it has used so far, all threads; undefined where /proc is not there to read. */
  cpuSeconds(): number | undefined;
  /** SIGTERM, then throws unless it ended with code 0 within the time allowed. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** When set, the process writes a V8 CPU profile (`<label>.cpuprofile`) here as it exits. */
  readonly profileDir: string | undefined;
}

interface Started {
  readonly process: GatewayProcess;
  /** The match of the line that said it is ready. */
  readonly ready: RegExpMatchArray;
  readonly exited: Promise<number | null>;
}

/** Spawns node with `args` and waits until its stdout matches `ready`; killed if the bench exits. */
async function startNode(
  label: string,
  args: readonly string[],
  env: Record<string, string>,
  ready: RegExp,
  options: StartOptions,
): Promise<Started> {
  const base: Record<string, string> = {};
  for (const key of BASE_ENV_KEYS) {
    const value = process.env[key];
    if (value !== undefined) base[key] = value;
  }
  const profile = options.profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`, `--cpu-prof-name=${label}.cpuprofile`]
    : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, ...args], {
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  // Both pipes are read to the end, so that a process that writes a line a request never
  // blocks on a full pipe; stdout only until it said it is ready.
  let out: string | undefined = '';
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    err = (err + text).slice(-STDERR_KEPT);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      process.removeListener('exit', kill);
      resolve(code);
    });
  });
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => {
      kill();
      reject(new Error(`${label}: not ready within ${READY_TIMEOUT_MS / 1000} s\n${err}`));
    }, READY_TIMEOUT_MS);
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      if (out === undefined) return;
      out += text;
      const found = out.match(ready);
      if (found) {
        out = undefined;
        clearTimeout(timer);
        resolve(found);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        new Error(`${label} ended with code ${code} before it was ready\n${err.slice(-2000)}`),
      );
    });
  });
  const pid = child.pid ?? -1;
  return {
    ready: match,
    exited,
    process: {
      label,
      pid,
      cpuSeconds: () => processCpuSeconds(pid),
      async stop() {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), STOP_TIMEOUT_MS);
        });
        const code = await Promise.race([exited, late]);
        clearTimeout(timer);
        if (code === 'late') kill();
        if (code !== 0) {
          throw new Error(`${label} did not stop cleanly (${code})\n${err.slice(-2000)}`);
        }
      },
    },
  };
}

/** The OpenAI simulator with `chunkDelayMs` between streamed chunks, in a process of its own. */
export async function startSimulator(
  label: string,
  key: string,
  chunkDelayMs: number,
  options: StartOptions,
): Promise<{ baseUrl: string; process: GatewayProcess }> {
  const started = await startNode(
    label,
    [SIMULATOR_SCRIPT, String(chunkDelayMs)],
    { [KEY_VARIABLE]: key },
    new RegExp(`^${SIMULATOR_PREFIX}(.+)$`, 'm'),
    options,
  );
  const { baseUrl } = JSON.parse(started.ready[1] ?? '{}') as { baseUrl: string };
  return { baseUrl, process: started.process };
}

/** mnemo's catalog file (docs/gateway.md): one model on each simulator. */
function catalogFile(fast: string, paced: string) {
  const provider = (baseUrl: string) => ({ kind: 'openai', baseUrl, apiKeyEnv: KEY_VARIABLE });
  const model = (id: string, provider: string) => ({
    id,
    provider,
    upstream: UPSTREAM_MODEL,
    contextWindow: 128_000,
    price: { input: 0.15, output: 0.6 },
  });
  return {
    providers: { [FAST_PROVIDER]: provider(fast), [PACED_PROVIDER]: provider(paced) },
    models: [model(MNEMO_MODEL, FAST_PROVIDER), model(MNEMO_PACED_MODEL, PACED_PROVIDER)],
  };
}

/**
 * mnemo on a fresh SQLite store under `dir`: bench/server.ts seeds an organization and two
 * members with a platform credential each, the second with `RECALL_MEMORIES` memories, then
 * serves with MNEMO_CONFIG naming a catalog of the two simulators; each member creates an API
 * key through the platform API (memory off unless a call asks), and GET /v1/models with the
 * first must list the bench's model.
 */
export async function startMnemo(
  simulators: { fast: string; paced: string },
  key: string,
  dir: string,
  options: StartOptions,
): Promise<{ origin: string; apiKey: string; recallKey: string; process: GatewayProcess }> {
  const port = await freePort(LOOPBACK);
  const config = join(dir, 'mnemo.config.json');
  writeFileSync(config, JSON.stringify(catalogFile(simulators.fast, simulators.paced), null, 2));
  // The credential names the service's URL: seeded with the port it will serve on.
  const env = benchEnv({
    MNEMO_DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`,
    PORT: String(port),
    MNEMO_CONFIG: config,
    [KEY_VARIABLE]: key,
  });
  const seeding = await startNode(
    'mnemo-gateway-seed',
    [
      SERVER_SCRIPT,
      'seed',
      JSON.stringify({ gateway: 0, [RECALL_STORE]: RECALL_MEMORIES }),
      JSON.stringify(SEED_OPTIONS),
    ],
    env,
    new RegExp(`^${SEEDED_PREFIX}(.+)$`, 'm'),
    { profileDir: undefined },
  );
  const seedExit = await seeding.exited;
  if (seedExit !== 0) throw new Error(`mnemo-gateway-seed ended with code ${seedExit}`);
  const seed = JSON.parse(seeding.ready[1] ?? '{}') as BenchSeed;

  const serving = await startNode(
    'mnemo-gateway',
    [SERVER_SCRIPT, 'serve'],
    env,
    new RegExp(`^${SERVING_PREFIX}`, 'm'),
    options,
  );
  try {
    const server: MnemoServer = { origin: `http://${LOOPBACK}:${port}`, info: seed };
    const createKey = async (store: string) => {
      const created = await expectCall(
        201,
        server,
        storeOf(server, store),
        'POST',
        '/api/v1/api-keys',
        { name: 'bench' },
      );
      return (created.json() as { secret: string }).secret;
    };
    const secret = await createKey('gateway');
    const recallKey = await createKey(RECALL_STORE);
    const models = await fetch(`${server.origin}/v1/models`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    const listed = (await models.json()) as { data?: Array<{ id: string }> };
    if (models.status !== 200 || !listed.data?.some((m) => m.id === MNEMO_MODEL)) {
      throw new Error(`GET /v1/models with the bench's key does not list ${MNEMO_MODEL}`);
    }
    return { origin: server.origin, apiKey: secret, recallKey, process: serving.process };
  } catch (error) {
    await serving.process.stop().catch(() => {});
    throw error;
  }
}

/**
 * Portkey's gateway (`start-server.js --headless`), kept to loopback by bench/gateway/
 * portkey-preload.ts; checked in /proc/net/tcp before it is used.
 */
export async function startPortkey(
  options: StartOptions,
  log: (line: string) => void,
): Promise<{ origin: string; process: GatewayProcess }> {
  const port = await freePort(LOOPBACK);
  const started = await startNode(
    'portkey',
    ['--import', PORTKEY_PRELOAD, PORTKEY_SCRIPT, '--headless', `--port=${port}`],
    {},
    /Ready for connections/,
    options,
  );
  try {
    assertLoopbackOnly(port, 'portkey', log);
  } catch (error) {
    await started.process.stop().catch(() => {});
    throw error;
  }
  return { origin: `http://${LOOPBACK}:${port}`, process: started.process };
}
