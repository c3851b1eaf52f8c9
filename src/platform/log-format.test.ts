/**
 * The process's log as a person and a collector see it: on a terminal (a pty from `script`),
 * readable lines and the start banner whole; on a pipe, pino's JSON a line and nothing else.
 */
import { stripVTControlCharacters } from 'node:util';
import { afterEach, expect, test } from 'vitest';
import { storesOfThisFile } from '../testing/file-stores.ts';
import { type ServerProcess, startServerProcess } from '../testing/server-process.ts';
import { processLogger } from './log-format.ts';

const newStore = storesOfThisFile();
const servers: ServerProcess[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

const BANNER = [
  /^mnemo is serving on http:\/\/127\.0\.0\.1:\d+$/,
  /^studio: +http:\/\/127\.0\.0\.1:\d+\/studio\/ +\(sign in with the demo sign-in below\)$/,
  /^gateway: +/,
  /^demo organization: [0-9a-f-]{36}$/,
  /^demo user: +[0-9a-f-]{36}$/,
  /^demo sign-in: +demo@mnemo\.local \/ \S+ \(shown this once\)$/,
];

/** Drops the terminal's colours and carriage returns. */
const plain = (text: string) => stripVTControlCharacters(text).replaceAll('\r', '');

async function start(command?: readonly string[]) {
  const server = await startServerProcess({
    env: { MNEMO_DATABASE_URL: (await newStore()).url, MNEMO_LOG_LEVEL: 'info' },
    ...(command && { command }),
  });
  servers.push(server);
  return server;
}

test('on a terminal: readable lines, a request in a few words, and the banner whole', async () => {
  // `script` runs the server on a pty and copies what it shows to its own stdout.
  const server = await start(['script', '-qfec', `${process.execPath} src/main.ts`, '/dev/null']);
  await server.waitForStdout(/try it:/);
  await fetch(`${server.url}/api/v1/memory`);
  await server.waitForStdout(/request completed 401/);
  const lines = plain(server.stdout()).split('\n');
  expect(lines.some((line) => line.includes('{"level"'))).toBe(false);
  expect(lines).toContainEqual(
    expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Server listening at http:\/\//),
  );
  expect(lines).toContainEqual(
    expect.stringMatching(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: req-\d+ incoming request GET \/api\/v1\/memory$/,
    ),
  );
  expect(lines).toContainEqual(
    expect.stringMatching(
      /^\[[\d:.]+\] INFO: req-\d+ request completed 401 \{"responseTime":[\d.]+\}$/,
    ),
  );
  // The banner's lines one after the other, nothing of the log between them.
  const first = lines.findIndex((line) => BANNER[0]?.test(line));
  expect(first).toBeGreaterThanOrEqual(0);
  for (const [i, pattern] of BANNER.entries()) expect(lines[first + i]).toMatch(pattern);
});

test('on a pipe: every line of stdout is a JSON object of pino, and the banner is on stderr alone', async () => {
  const server = await start();
  await server.waitForStderr(/try it:/);
  await fetch(`${server.url}/api/v1/memory`);
  await server.waitForStdout(/"statusCode":401/);
  const lines = server.stdout().trimEnd().split('\n');
  for (const line of lines) {
    expect(JSON.parse(line)).toMatchObject({ level: expect.any(Number), time: expect.any(Number) });
  }
  expect(server.stdout()).not.toContain('mnemo is serving');
  expect(server.stderr()).toContain('mnemo is serving');
});

test('the logger chosen by what stdout is', () => {
  expect(processLogger('warn', { isTTY: false })).toEqual({ level: 'warn' });
  expect(processLogger('warn', {})).toEqual({ level: 'warn' });
  expect(processLogger('info', { isTTY: true })).toMatchObject({
    level: 'info',
    transport: { target: 'pino-pretty' },
  });
});
