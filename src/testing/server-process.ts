import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** How a server process ended: an exit code, or the signal that ended it. */
export interface ServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  /** `http://127.0.0.1:{port}`: where the process listens. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Everything the process wrote so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout (waiting for it), or rejects. */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The same in stderr, where the start banner goes. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Settles when the process has ended, however. */
  readonly exited: Promise<ServerExit>;
  /** Whether the process has ended. */
  hasExited(): boolean;
  /**
   * Sends `signal` (SIGTERM by default) and waits for the process to end. When it has not ended
   * after `timeoutMs`, it is killed with SIGKILL and the promise rejects: a stop that needs a
   * SIGKILL is a failed stop.
   */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<ServerExit>;
  /**
   * SIGKILL, sent synchronously at the call (no graceful close, nothing more runs in the process);
   * the promise settles once the process is gone.
   */
  kill(): Promise<ServerExit>;
}

export interface StartServerOptions {
  /**
   * The server's environment, over a minimal base (PATH, HOME, TMPDIR, LANG): nothing else of
   * the test process's environment leaks in, so a stray `MNEMO_*` cannot change the server.
   * `PORT` is set from `port`.
   */
  readonly env?: Record<string, string>;
  /** The port to listen on; a free one by default. */
  readonly port?: number;
  /** The command to run; default `[process.execPath, 'src/main.ts']` in the repository. */
  readonly command?: readonly string[];
  readonly cwd?: string;
  /** How long `/healthz` may take to answer 200; default 20 s. */
  readonly readyTimeoutMs?: number;
}

const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BASE_ENV_KEYS = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'SYSTEMROOT'];

/** Processes started here and not yet ended: killed when the test process exits. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/** A TCP port that was free a moment ago (the kernel picks it; a short race remains). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (port === 0) throw new Error('no free port');
  return port;
}

/**
 * Starts a real mnemo server process and waits until `GET /healthz` answers 200.
 *
 * @example
 * const server = await startServerProcess({ env: { MNEMO_DATABASE_URL: 'sqlite:/tmp/x.db' } });
 * await fetch(`${server.url}/healthz`);
 * await server.stop(); // SIGTERM, graceful
 */
export async function startServerProcess(options: StartServerOptions = {}): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const [command, ...args] = options.command ?? [process.execPath, 'src/main.ts'];
  if (command === undefined) throw new Error('empty command');
  const env: Record<string, string> = {};
  for (const key of BASE_ENV_KEYS) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, options.env ?? {}, { PORT: String(port) });

  installExitHook();
  const child = spawn(command, args, {
    cwd: options.cwd ?? REPOSITORY_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  /** Woken by anything printed, and by the end. */
  const outWaiters = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const wake of outWaiters) wake();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    for (const wake of outWaiters) wake();
  });

  let ended: ServerExit | undefined;
  const exited = new Promise<ServerExit>((resolve) => {
    child.once('exit', (code, signal) => {
      ended = { code, signal };
      running.delete(child);
      for (const wake of outWaiters) wake();
      resolve(ended);
    });
    child.once('error', (error) => {
      err += `\nspawn error: ${error.message}`;
      ended = { code: null, signal: null };
      running.delete(child);
      resolve(ended);
    });
  });

  const url = `http://127.0.0.1:${port}`;
  const describe = () =>
    `server pid ${child.pid ?? '?'} on ${url}\n--- stdout ---\n${out}\n--- stderr ---\n${err}`;

  async function waitFor(
    name: string,
    text: () => string,
    pattern: RegExp,
    timeoutMs = 10_000,
  ): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = text().match(pattern);
      if (match) return match;
      if (ended) throw new Error(`process ended before ${name} matched ${pattern}\n${describe()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${name} did not match ${pattern}\n${describe()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done() {
          clearTimeout(timer);
          outWaiters.delete(done);
          resolve();
        }
        outWaiters.add(done);
      });
    }
  }

  const kill = async (): Promise<ServerExit> => {
    if (!ended) child.kill('SIGKILL');
    return exited;
  };

  const server: ServerProcess = {
    url,
    port,
    pid: child.pid ?? -1,
    stdout: () => out,
    stderr: () => err,
    exited,
    hasExited: () => ended !== undefined,
    waitForStdout: (pattern, timeoutMs) => waitFor('stdout', () => out, pattern, timeoutMs),
    waitForStderr: (pattern, timeoutMs) => waitFor('stderr', () => err, pattern, timeoutMs),
    async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
      if (ended) return ended;
      child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      const outcome = await Promise.race([exited, timedOut]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        await kill();
        throw new Error(`no exit within ${timeoutMs} ms of ${signal}; killed\n${describe()}`);
      }
      return outcome;
    },
    kill,
  };

  try {
    await waitForHealth(url, options.readyTimeoutMs ?? 20_000, () => ended !== undefined);
  } catch (error) {
    await kill();
    throw new Error(`${(error as Error).message}\n${describe()}`);
  }
  return server;
}

async function waitForHealth(
  url: string,
  timeoutMs: number,
  hasEnded: () => boolean,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasEnded()) throw new Error('server process ended before it was ready');
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`GET /healthz did not answer 200 within ${timeoutMs} ms`);
}
