/**
 * The package as an app gets it: `npm pack` builds it, the tarball installs into an empty
 * project, and the system's Node 20 (not the repository's 24, and with no TypeScript) runs it
 * against the real server; its declarations type-check a consumer under `nodenext`, strict.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type OAuthServer, startOAuthServer } from '../../../src/testing/oauth-server.ts';

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));
/** The machine's own Node: the oldest the package promises to run on. */
const SYSTEM_NODE = '/usr/bin/node';

let server: OAuthServer;
let work: string;
let app: string;
let packed: { filename: string; files: { path: string }[] };

beforeAll(async () => {
  server = await startOAuthServer();
  work = await mkdtemp(join(tmpdir(), 'mnemo-client-pack-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: PACKAGE,
  });
  // npm prints the build's output first (coloured when the test runner forces colour, so it
  // holds `[` too), then the JSON array of what it packed, opened on a line of its own.
  const start = stdout.search(/^\[$/m);
  if (start < 0) throw new Error(`npm pack printed no JSON: ${stdout}`);
  const [first] = JSON.parse(stdout.slice(start)) as (typeof packed)[];
  if (first === undefined) throw new Error(`npm pack printed no package: ${stdout}`);
  packed = first;
  app = join(work, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  await run(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', join(work, packed.filename)],
    { cwd: app },
  );
}, 120_000);
afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

test('the tarball holds the built package, its declarations and sources, and no test', () => {
  const paths = packed.files.map((file) => file.path);
  expect(paths).toEqual(
    expect.arrayContaining([
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/openapi.d.ts',
      'dist/mirror.d.ts',
      'dist/events.d.ts',
      'dist/ai-sdk/index.js',
      'dist/ai-sdk/index.d.ts',
      'src/index.ts',
    ]),
  );
  expect(paths.filter((path) => path.endsWith('.test.ts'))).toEqual([]);
});

test('installing it installs nothing else: the library it uses is inside its bundle', async () => {
  const manifest = JSON.parse(
    await readFile(join(app, 'node_modules/@mnemo/client/package.json'), 'utf8'),
  ) as { dependencies?: unknown };
  expect(manifest.dependencies).toBeUndefined();
  expect((await readdir(join(app, 'node_modules'))).sort()).toEqual([
    '.package-lock.json',
    '@mnemo',
  ]);
});

test("Node 20 runs the installed package against the server: an add, a list, a mirror's sync, the change stream", async () => {
  const orgId = await server.t.fixtures.org();
  const { token } = await server.t.fixtures.user(orgId);
  await writeFile(
    join(app, 'main.js'),
    `import { Mnemo } from '@mnemo/client';
const mnemo = new Mnemo({ baseUrl: process.env.URL, organizationId: process.env.ORG, auth: process.env.TOKEN });
const added = await mnemo.memories.add({ content: 'Prefers tea', category: 'preference' });
const mirror = mnemo.memories.mirror();
const change = await mirror.sync();
const streamed = [];
for await (const event of await mnemo.memories.events()) {
  streamed.push(event.type);
  if (event.type === 'sync') break;
}
console.log(JSON.stringify({ version: process.version, added, listed: (await mnemo.memories.list()).memories, change, streamed }));
`,
  );
  const { stdout } = await run(SYSTEM_NODE, ['main.js'], {
    cwd: app,
    env: { URL: server.url, ORG: orgId, TOKEN: token },
  });
  const { version, added, listed, change, streamed } = JSON.parse(stdout);
  expect(version).toMatch(/^v20\./);
  expect(added).toMatchObject({ created: true, memory: { content: 'Prefers tea' } });
  expect(listed).toEqual([added.memory]);
  expect(change).toEqual({
    full: true,
    upserted: [added.memory],
    removed: [],
    cursor: expect.any(String),
  });
  expect(streamed).toEqual(['change', 'sync']);
});

test('its declarations type a consumer: right calls compile, a wrong category does not', async () => {
  await writeFile(
    join(app, 'consumer.ts'),
    `import { type MemoryItem, Mnemo, MnemoError } from '@mnemo/client';
const mnemo = new Mnemo({ baseUrl: 'http://127.0.0.1', organizationId: 'org', auth: () => 'token' });
export async function recent(): Promise<MemoryItem[]> {
  const added = await mnemo.memories.add({ content: 'x', category: 'goal' });
  if (added.created) added.memory.createdAt.toUpperCase();
  const mirror = mnemo.memories.mirror({ user: 'u' });
  return [...(await mirror.memories())];
}
export const isMissing = (error: unknown) => error instanceof MnemoError && error.status === 404;
// @ts-expect-error: not one of the six categories
void mnemo.memories.add({ content: 'x', category: 'hobby' });
`,
  );
  await writeFile(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2022', 'dom'],
        types: [],
        noEmit: true,
      },
      files: ['consumer.ts'],
    }),
  );
  await expect(run(process.execPath, [TSC, '-p', app])).resolves.toMatchObject({ stdout: '' });
}, 60_000);
