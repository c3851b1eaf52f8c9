/**
 * The bulk part of `npm run bench` (`--only bulk`): moving memories in bulk, on one server
 * process of each engine asked for (`--setups`), every figure of one run:
 *
 * - Import: 100,000 memories into one empty store, 1,000 a request, one request after the other,
 *   against single adds of distinct memories sent by the load generator at `--connections`.
 * - Export: those 100,000 streamed to the end, and the server's resident memory, idle before and
 *   at its peak while exporting.
 * - Erase: the store in one request; then the pull from the cursor read just before it must
 *   answer every imported id deleted and no memory, and the full list none (else the run fails).
 *
 * The server runs with its rate limits off (MNEMO_RATE_LIMIT_PER_MINUTE=0, which turns the
 * import budget off too): 100,000 memories are ten minutes of the default import budget.
 */
import {
  expectCall,
  type ListBody,
  listMemories,
  type MnemoServer,
  storeHeaders,
  storeOf,
} from '../api-client.ts';
import { measure } from '../load.ts';
import { memoryText } from '../memory-text.ts';
import { startMnemoServer } from '../processes.ts';
import type { BenchStore } from '../server.ts';
import type { LoadOptions } from '../session.ts';
import type { Setup } from '../setups.ts';
import { type BulkFigures, type BulkRun, formatBulk, missesBulkTargets } from './report.ts';
import { quietResidentMb, samplePeak } from './resident-memory.ts';

const MEMORIES = 100_000;
/** The most one import takes (MAX_IMPORT_ITEMS). */
const PER_IMPORT = 1000;
/** How often the server's resident memory is read while it exports. */
const RSS_EVERY_MS = 20;
const NDJSON = 'application/x-ndjson';

export interface BulkOptions {
  /** One setup per engine (`sqlite-1`, `postgres-1`). */
  readonly setups: readonly Setup[];
  /** The single adds' run: its warm-up, seconds and connections. */
  readonly load: Pick<LoadOptions, 'seconds' | 'warmup' | 'connections'>;
  readonly dir: string;
  readonly profileDir: string | undefined;
  readonly log: (line: string) => void;
}

export interface BulkOutcome {
  readonly broken: boolean;
  readonly missed: boolean;
  readonly json: unknown;
}

/** Runs the bulk part on each setup in turn and prints its table on `out`. */
export async function benchBulk(
  options: BulkOptions,
  out: (text: string) => void,
): Promise<BulkOutcome> {
  out('## Bulk: import, export, erase');
  out('');
  const runs: BulkRun[] = [];
  for (const setup of options.setups) runs.push(await runOn(setup, options));
  const { connections, seconds } = options.load;
  const setting = { memories: MEMORIES, perImport: PER_IMPORT, connections, seconds };
  out(formatBulk(runs, setting));
  out('');
  return {
    broken: runs.some((run) => run.failure !== undefined),
    missed: missesBulkTargets(runs),
    json: { setting, runs },
  };
}

/** A fresh store and server for `setup`, and the steps on it; figures so far when one fails. */
async function runOn(setup: Setup, options: BulkOptions): Promise<BulkRun> {
  const figures: BulkFigures = {};
  const label = `bulk-${setup.engine}`;
  try {
    const location = await setup.createStore(options.dir, label);
    try {
      const { server, group } = await startMnemoServer(
        { singles: 0, bulk: 0 },
        location.url,
        { label, profileDir: options.profileDir, processes: 1 },
        undefined,
        { MNEMO_RATE_LIMIT_PER_MINUTE: '0' },
      );
      try {
        const pid = group.processes[0]?.pid;
        if (pid === undefined) throw new Error('no server process');
        await steps(server, pid, figures, (line) => options.log(`${label}: ${line}`), options);
      } finally {
        await group.stop();
      }
    } finally {
      await location.dispose();
    }
    return { engine: setup.engine, figures };
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error);
    return { engine: setup.engine, figures, failure };
  }
}

async function steps(
  server: MnemoServer,
  pid: number,
  figures: BulkFigures,
  log: (line: string) => void,
  options: BulkOptions,
): Promise<void> {
  figures.rssStartMb = await quietResidentMb(pid);
  log(`single adds, ${options.load.connections} connections`);
  figures.singlePerSecond = await singleAdds(server, storeOf(server, 'singles'), options.load);
  const store = storeOf(server, 'bulk');
  log(`importing ${MEMORIES} memories`);
  const imported = await importAll(server, store);
  figures.importPerSecond = imported.perSecond;
  log('exporting, once the server holds still');
  figures.rssIdleMb = await quietResidentMb(pid);
  const exported = await exportAll(server, store, pid);
  figures.exportPerSecond = exported.perSecond;
  figures.rssPeakMb = exported.rssPeakMb;
  log('erasing');
  const before = await listMemories(server, store, exported.cursor);
  if (before.memories.length > 0 || (before.deleted?.length ?? 0) > 0) {
    throw new Error('the store changed between the export and the erase');
  }
  figures.eraseSeconds = await erase(server, store);
  await checkErased(server, store, before.cursor, imported.ids);
  figures.erasedExactly = true;
}

/**
 * Single adds of distinct memories from the load generator (autocannon, a process of its own),
 * as the `post` scenario sends them, after a warm-up: memories a second.
 */
async function singleAdds(
  server: MnemoServer,
  store: BenchStore,
  load: BulkOptions['load'],
): Promise<number> {
  const run = (seconds: number) =>
    measure({
      origin: server.origin,
      requests: [
        {
          method: 'POST',
          path: '/api/v1/memory',
          headers: { ...storeHeaders(server, store), 'content-type': 'application/json' },
          sequence: { generator: 'new-memory', name: 'bulk-singles' },
        },
      ],
      expectStatus: 201,
      connections: load.connections,
      seconds,
    });
  if (load.warmup > 0) await run(load.warmup);
  return (await run(load.seconds)).requestsPerSecond;
}

interface ImportAnswer {
  readonly results: ReadonlyArray<{
    readonly status: string;
    readonly memory?: { readonly id: string };
  }>;
  readonly created: number;
  readonly folded: number;
  readonly invalid: number;
}

/**
 * `MEMORIES` distinct memories, `PER_IMPORT` a request, one request after the other: memories a
 * second, from the first request sent to the last answer read, and the ids created.
 */
async function importAll(server: MnemoServer, store: BenchStore) {
  const batches = Array.from({ length: MEMORIES / PER_IMPORT }, (_, batch) =>
    Array.from({ length: PER_IMPORT }, (_, i) => ({
      content: memoryText('bulk', batch * PER_IMPORT + i),
    })),
  );
  const ids = new Set<string>();
  const started = performance.now();
  for (const memories of batches) {
    const response = await expectCall(200, server, store, 'POST', '/api/v1/memory/import', {
      memories,
    });
    const answer = response.json() as ImportAnswer;
    if (answer.created !== PER_IMPORT) {
      throw new Error(
        `import: ${answer.created} created, ${answer.folded} folded, ${answer.invalid} invalid of ${PER_IMPORT}`,
      );
    }
    for (const result of answer.results) if (result.memory) ids.add(result.memory.id);
  }
  const seconds = (performance.now() - started) / 1000;
  if (ids.size !== MEMORIES) throw new Error(`import: ${ids.size} distinct ids, not ${MEMORIES}`);
  return { perSecond: MEMORIES / seconds, ids };
}

/** The store's export read to its end: its lines counted, and its headers. */
async function streamExport(server: MnemoServer, store: BenchStore) {
  const response = await fetch(`${server.origin}/api/v1/memory/export`, {
    headers: storeHeaders(server, store),
  });
  if (response.status !== 200 || !response.body) {
    throw new Error(`export: ${response.status} ${(await response.text()).slice(0, 300)}`);
  }
  let lines = 0;
  for await (const chunk of response.body) {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
  }
  const type = response.headers.get('content-type') ?? '';
  const cursor = response.headers.get('mnemo-cursor');
  if (!type.startsWith(NDJSON) || cursor === null) {
    throw new Error(`export: answered ${type} with ${cursor === null ? 'no' : 'a'} Mnemo-Cursor`);
  }
  if (lines !== MEMORIES) throw new Error(`export: ${lines} lines, not ${MEMORIES}`);
  return { lines, cursor };
}

/**
 * The store exported, the server's resident memory sampled meanwhile: memories a second, from
 * the request sent to the last byte read, and the most memory the server held.
 */
async function exportAll(server: MnemoServer, store: BenchStore, pid: number) {
  const sampler = samplePeak(pid, RSS_EVERY_MS);
  const started = performance.now();
  let streamed: Awaited<ReturnType<typeof streamExport>>;
  try {
    streamed = await streamExport(server, store);
  } catch (error) {
    sampler.stop();
    throw error;
  }
  const seconds = (performance.now() - started) / 1000;
  const rssPeakMb = sampler.stop();
  return { perSecond: streamed.lines / seconds, rssPeakMb, cursor: streamed.cursor };
}

/** The store erased in one request: its time, in seconds. */
async function erase(server: MnemoServer, store: BenchStore): Promise<number> {
  const started = performance.now();
  const response = await expectCall(200, server, store, 'DELETE', '/api/v1/memory');
  const seconds = (performance.now() - started) / 1000;
  const answer = response.json() as { ok?: boolean; deleted?: number };
  if (answer.ok !== true || answer.deleted !== MEMORIES) {
    throw new Error(`erase: answered ${JSON.stringify(answer)}, not ${MEMORIES} deleted`);
  }
  return seconds;
}

/** The pull from `cursor` answers exactly `ids` deleted and no memory; the full list is empty. */
async function checkErased(
  server: MnemoServer,
  store: BenchStore,
  cursor: string,
  ids: ReadonlySet<string>,
): Promise<void> {
  const pull: ListBody = await listMemories(server, store, cursor);
  const deleted = new Set(pull.deleted ?? []);
  const exact =
    pull.memories.length === 0 &&
    pull.deleted?.length === ids.size &&
    deleted.size === ids.size &&
    [...ids].every((id) => deleted.has(id));
  if (!exact) {
    throw new Error(
      `the pull after the erase answered ${pull.memories.length} memories and ${pull.deleted?.length ?? 0} ids deleted (${deleted.size} distinct), not the ${ids.size} imported`,
    );
  }
  const list = await listMemories(server, store);
  if (list.memories.length > 0) {
    throw new Error(`the list after the erase still holds ${list.memories.length} memories`);
  }
}
