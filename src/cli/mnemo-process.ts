import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** How one run of `mnemo` ended and what it printed. */
export interface MnemoRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BASE_ENV_KEYS = ['PATH', 'HOME', 'TMPDIR', 'LANG'];

/**
 * Runs the real `bin/mnemo.js` in a child process, as `npx mnemo` would, with a minimal
 * environment (nothing of the test process's `MNEMO_*` leaks in) plus `env`.
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
  return (...args: string[]): Promise<MnemoRun> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['bin/mnemo.js', ...args], {
        cwd: REPOSITORY_ROOT,
        env: base,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
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
