import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** How one run of `mnemo` ended and what it printed. */
export interface MnemoRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BASE_ENV_KEYS = ['PATH', 'HOME', 'TMPDIR', 'LANG'];

/** A `mnemo` still running, for a test that acts while it waits (a browser signing in). */
export interface RunningMnemo {
  readonly child: ChildProcess;
  /** The first match of `pattern` in what it printed on stderr; rejects if it ends first. */
  stderrMatch(pattern: RegExp): Promise<RegExpExecArray>;
  /** How it ended and everything it printed. */
  readonly done: Promise<MnemoRun>;
}

/**
 * Runs the real `bin/mnemo.js` in a child process, as `npx mnemo` would, with a minimal
 * environment (nothing of the test process's `MNEMO_*` leaks in) plus `env`. `.start` gives the
 * process while it runs; `.withStdin(text, ...args)` pipes `text` to it.
 *
 * @example
 * const mnemo = createMnemo({ MNEMO_DATABASE_URL: 'sqlite:/tmp/x/mnemo.db' });
 * const { code, stdout } = await mnemo('admin', 'org', 'create', '--name', 'Acme', '--json');
 */
export function createMnemo(env: Record<string, string>) {
  const base: Record<string, string> = { MNEMO_LOG_LEVEL: 'silent' };
  for (const key of BASE_ENV_KEYS) {
    const value = process.env[key];
    if (value !== undefined) base[key] = value;
  }
  Object.assign(base, env);
  const spawnMnemo = (stdin: string | undefined, args: readonly string[]): RunningMnemo => {
    const child = spawn(process.execPath, ['bin/mnemo.js', ...args], {
      cwd: REPOSITORY_ROOT,
      env: base,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Without input, standard input is at its end at once, as /dev/null is.
    child.stdin.end(stdin ?? '');
    let stdout = '';
    let stderr = '';
    const watchers = new Set<() => void>();
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      for (const watch of watchers) watch();
    });
    const done = new Promise<MnemoRun>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
    const stderrMatch = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const watch = () => {
          const match = pattern.exec(stderr);
          if (!match) return;
          watchers.delete(watch);
          resolve(match);
        };
        watchers.add(watch);
        watch();
        done.then(
          (run) => reject(new Error(`mnemo ended (${run.code}) before ${pattern}:\n${run.stderr}`)),
          reject,
        );
      });
    return { child, stderrMatch, done };
  };
  const start = (...args: string[]) => spawnMnemo(undefined, args);
  /** Runs with `stdin` as its standard input (a pipe that ends after it). */
  const withStdin = (stdin: string, ...args: string[]) => spawnMnemo(stdin, args).done;
  return Object.assign((...args: string[]): Promise<MnemoRun> => start(...args).done, {
    start,
    withStdin,
  });
}

/** The one JSON object a `--json` run printed; fails unless stdout is exactly that line. */
export function onlyJson(run: MnemoRun): unknown {
  const lines = run.stdout.split('\n');
  if (lines.length !== 2 || lines[1] !== '') {
    throw new Error(`expected one line of JSON on stdout, got:\n${run.stdout}\n${run.stderr}`);
  }
  return JSON.parse(lines[0] ?? '');
}
