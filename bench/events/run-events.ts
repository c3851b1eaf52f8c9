/**
 * The change streams' part of `npm run bench` (`--only events`), on each engine asked for
 * (`--setups`), every figure of one run:
 *
 * - Latency: a stream of an empty store opened from the bench's process, then writes to that
 *   store at a steady pace (50 a second for `--seconds` after `--warmup`, sent on time whether
 *   or not the one before was answered): adds, and updates and deletes of memories whose add the
 *   stream has shown. Each write is timed from its answer to its event on the stream, matched by
 *   memory and kind. On PostgreSQL two server processes serve the store, each on a port of its
 *   own (as `postgres-2`, without SO_REUSEPORT, so that which one gets what is chosen): the
 *   stream is held on one, the writes go to the other, which wakes it through LISTEN/NOTIFY. On
 *   SQLite, one process: the baseline, measured in the same run. An event lost, out of order or
 *   of no write fails the run. The servers run with their rate limits off.
 * - 1,000 open streams on one server process: 20 on each of 50 accounts (the most an account may
 *   hold on a process), held by a process of their own on the servers' CPUs (hold-streams.ts).
 *   The server's resident memory once it holds still, with none open and with all open; its CPU
 *   while idle, with none open and over the first round of the streams' pings; GET one (the
 *   load generator, as the `get-one` scenario) after a warm-up, in turns of three runs of
 *   `--slice` seconds: none open, all open, none open again, the order turning around at every
 *   turn (session.ts), the streams opened and closed between; each ratio (all open ÷ none, and
 *   none ÷ none, the noise) the median of the turns' own, runs seconds apart, robust to a burst
 *   of other work on a shared machine; the server's resident memory after the turns, and after
 *   opening and closing every stream three more times (what it keeps of them).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type MnemoServer, storeHeaders, storeOf } from '../api-client.ts';
import { quietResidentMb } from '../bulk/resident-memory.ts';
import { processCpuSeconds } from '../cpu.ts';
import { combine, type Load, measureTogether, type Sampled } from '../load.ts';
import { memoryText } from '../memory-text.ts';
import { type BenchGroup, startMnemoServer } from '../processes.ts';
import { type LoadOptions, sliceSeconds } from '../session.ts';
import type { Setup } from '../setups.ts';
import { type HolderAccount, type StreamHolder, startStreamHolder } from './hold-streams.ts';
import { latencyFigures, matchEvents, type SentWrite } from './latency.ts';
import {
  type EventsFigures,
  type EventsRun,
  type EventsSetting,
  formatEvents,
  missesEventsTargets,
  turnRatio,
} from './report.ts';
import { openStreamReader } from './stream-reader.ts';

const WRITES_PER_SECOND = 50;
/** Of every ten writes: seven adds, two updates, one delete (an add when none can be made). */
const KINDS = ['add', 'add', 'add', 'add', 'add', 'add', 'add', 'update', 'update', 'delete'];
/** Past the server's 20 s ping, which looks at the store even if a wake-up was lost. */
const LOST_AFTER_MS = 25_000;
const OPEN_TIMEOUT_MS = 30_000;

const ACCOUNTS = 50;
/** OPEN_STREAMS_PER_ACCOUNT (src/app.ts): the most one account may hold on a process. */
const PER_ACCOUNT = 20;
/** The store GET one reads: as the `get-one` scenario's, 100 memories. */
const GET_STORE = 'get';
const GET_STORE_SIZE = 100;
/** After the streams were opened or closed, before a measured slice. */
const SETTLE_MS = 1_000;
/** The server's first ping of a stream, after it opened (memory-events.ts). */
const FIRST_PING_MS = 20_000;
/** From the streams' opening: past their first ping, with time for every look it makes. */
const PING_ROUND_MS = FIRST_PING_MS + 3_000;
/** The first seconds after the opening, left out of the idle CPU (the opening's collections). */
const AFTER_OPENING_MS = 2_000;
/** Openings and closings of every stream after the turns, for what the server keeps of them. */
const CYCLES = 3;

export interface EventsOptions {
  /** One setup per engine (`sqlite-1`, `postgres-1`); PostgreSQL's latency takes two processes. */
  readonly setups: readonly Setup[];
  /** The latency's seconds and warm-up; GET one's seconds, warm-up, connections and slices. */
  readonly load: Pick<LoadOptions, 'seconds' | 'warmup' | 'connections' | 'slice'>;
  readonly dir: string;
  readonly profileDir: string | undefined;
  readonly log: (line: string) => void;
}

export interface EventsOutcome {
  readonly broken: boolean;
  readonly missed: boolean;
  readonly json: unknown;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Runs the part on each setup in turn and prints its tables on `out`. */
export async function benchEvents(
  options: EventsOptions,
  out: (text: string) => void,
): Promise<EventsOutcome> {
  out('## Change streams: latency across processes, 1,000 open streams');
  out('');
  const runs: EventsRun[] = [];
  for (const setup of options.setups) runs.push(await runOn(setup, options));
  const { seconds, warmup, connections, slice } = options.load;
  const setting: EventsSetting = {
    writesPerSecond: WRITES_PER_SECOND,
    seconds,
    warmup,
    connections,
    slice,
    idleSeconds: (PING_ROUND_MS - AFTER_OPENING_MS) / 1000,
  };
  out(formatEvents(runs, setting));
  out('');
  return {
    broken: runs.some((run) => run.failures.length > 0),
    missed: missesEventsTargets(runs),
    json: { setting: { ...setting, accounts: ACCOUNTS, perAccount: PER_ACCOUNT }, runs },
  };
}

/** Both steps on `setup`, each on a fresh store and servers; a failed step is noted, the other runs. */
async function runOn(setup: Setup, options: EventsOptions): Promise<EventsRun> {
  const figures: EventsFigures = {};
  const failures: string[] = [];
  try {
    await latencyOn(setup, options, figures);
  } catch (error) {
    failures.push(`latency: ${message(error)}`);
  }
  try {
    await openStreamsOn(setup, options, figures);
  } catch (error) {
    failures.push(`open streams: ${message(error)}`);
  }
  return { engine: setup.engine, figures, failures };
}

/** Stops every group, then throws what went wrong with any of them. */
async function stopAll(groups: readonly BenchGroup[]): Promise<void> {
  const stopped = await Promise.allSettled(groups.map((group) => group.stop()));
  const failed = stopped.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
}

async function latencyOn(setup: Setup, options: EventsOptions, figures: EventsFigures) {
  const processes = setup.engine === 'postgres' ? 2 : 1;
  const label = `events-latency-${setup.engine}`;
  const log = (line: string) => options.log(`${label}: ${line}`);
  const location = await setup.createStore(options.dir, label);
  try {
    const env = { MNEMO_RATE_LIMIT_PER_MINUTE: '0' };
    const processOptions = (name: string) => ({
      label: name,
      profileDir: options.profileDir,
      processes: 1,
    });
    log(`starting ${processes} server process${processes === 1 ? '' : 'es'}`);
    const writer = await startMnemoServer(
      { events: 0 },
      location.url,
      processOptions(processes === 1 ? label : `${label}-writes`),
      undefined,
      env,
    );
    const groups = [writer.group];
    try {
      let streamOrigin = writer.server.origin;
      if (processes === 2) {
        // The same store, and the same public URL: the writer's credentials hold on it too.
        const other = await startMnemoServer(
          {},
          location.url,
          processOptions(`${label}-stream`),
          undefined,
          { ...env, MNEMO_PUBLIC_URL: writer.server.origin },
        );
        groups.push(other.group);
        streamOrigin = other.server.origin;
      }
      figures.latencyProcesses = processes;
      await measureLatency(writer.server, streamOrigin, figures, options.load, log);
    } finally {
      await stopAll(groups);
    }
  } finally {
    await location.dispose();
  }
}

/** A memory added and answered, not yet updated or deleted. */
interface Added {
  readonly id: string;
}

async function measureLatency(
  server: MnemoServer,
  streamOrigin: string,
  figures: EventsFigures,
  load: EventsOptions['load'],
  log: (line: string) => void,
): Promise<void> {
  const headers = storeHeaders(server, storeOf(server, 'events'));
  const reader = await openStreamReader(streamOrigin, headers, OPEN_TIMEOUT_MS);
  try {
    const warmups = load.warmup * WRITES_PER_SECOND;
    const total = warmups + load.seconds * WRITES_PER_SECOND;
    log(`${total} writes, ${WRITES_PER_SECOND} a second (the first ${warmups} a warm-up)`);
    const writes: (SentWrite | undefined)[] = [];
    const added: Added[] = [];
    const sent: Promise<void>[] = [];
    /** The first write that failed: the run stops at the next one. */
    let failed: unknown;
    const start = performance.now() + 100;
    for (let i = 0; i < total; i++) {
      const wait = start + (i * 1000) / WRITES_PER_SECOND - performance.now();
      if (wait > 0) await sleep(wait);
      const failure = reader.failure();
      if (failure !== undefined) throw new Error(failure);
      if (failed !== undefined) break;
      let kind = KINDS[i % KINDS.length] as SentWrite['kind'];
      let target: Added | undefined;
      if (kind !== 'add') {
        // Only a memory whose add the stream has shown: its add and this are two events.
        const at = added.findIndex((memory) => reader.changed.has(memory.id));
        if (at === -1) kind = 'add';
        else target = added.splice(at, 1)[0];
      }
      const measured = i >= warmups;
      sent.push(
        write(server, headers, kind, i, target, measured).then(
          (done) => {
            writes[i] = done;
            if (done.kind === 'add') added.push({ id: done.id });
          },
          (error: unknown) => {
            failed ??= error;
          },
        ),
      );
    }
    await Promise.all(sent);
    if (failed !== undefined) throw failed;
    const made = writes.filter((w): w is SentWrite => w !== undefined);
    const expected = new Map<string, number>();
    for (const w of made) expected.set(w.id, (expected.get(w.id) ?? 0) + 1);
    const received = new Map<string, number>();
    let seen = 0;
    const allCame = () => {
      for (; seen < reader.events.length; seen++) {
        const id = reader.events[seen]?.id ?? '';
        received.set(id, (received.get(id) ?? 0) + 1);
      }
      for (const [id, count] of expected) if ((received.get(id) ?? 0) < count) return false;
      return true;
    };
    await reader.until(allCame, LOST_AFTER_MS).catch((error: unknown) => {
      // Counted below as lost, unless the stream itself failed.
      if (reader.failure() !== undefined) throw error;
    });
    const matched = matchEvents(made, reader.events);
    const timed = made.filter((w) => w.measured);
    figures.adds = timed.filter((w) => w.kind === 'add').length;
    figures.updates = timed.filter((w) => w.kind === 'update').length;
    figures.deletes = timed.filter((w) => w.kind === 'delete').length;
    const { count, p50, p90, p99, max } = latencyFigures(matched.latencies);
    figures.latencyCount = count;
    figures.latencyP50Ms = p50;
    figures.latencyP90Ms = p90;
    figures.latencyP99Ms = p99;
    figures.latencyMaxMs = max;
    figures.beforeAnswer = matched.beforeAnswer;
    figures.lost = matched.lost;
    figures.outOfOrder = matched.outOfOrder;
    figures.unexpected = matched.unexpected;
    if (matched.lost + matched.outOfOrder + matched.unexpected > 0) {
      throw new Error(
        `${matched.lost} lost, ${matched.outOfOrder} out of order, ${matched.unexpected} of no write: ${matched.problems.join('; ')}`,
      );
    }
  } finally {
    await reader.close();
  }
}

const BASE = '/api/v1/memory';

/** One write, timed from its sending to its answer's head (its status and headers). */
async function write(
  server: MnemoServer,
  headers: Record<string, string>,
  kind: SentWrite['kind'],
  index: number,
  target: Added | undefined,
  measured: boolean,
): Promise<SentWrite> {
  const content =
    kind === 'add'
      ? memoryText('events', index)
      : kind === 'update'
        ? `${memoryText('events', index)} Revised.`
        : undefined;
  const [method, path, status] =
    kind === 'add'
      ? ['POST', BASE, 201]
      : [kind === 'update' ? 'PATCH' : 'DELETE', `${BASE}/${target?.id}`, 200];
  const sentAt = performance.now();
  const response = await fetch(`${server.origin}${path}`, {
    method,
    headers: {
      ...headers,
      ...(content === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(content === undefined ? {} : { body: JSON.stringify({ content }) }),
  });
  const answeredAt = performance.now();
  const text = await response.text();
  if (response.status !== status) {
    throw new Error(`${method} ${path}: expected ${status}, got ${response.status} ${text}`);
  }
  const id =
    kind === 'add' ? (JSON.parse(text) as { memory: { id: string } }).memory.id : target?.id;
  if (id === undefined) throw new Error(`${method} ${path}: no memory id`);
  return {
    kind,
    id,
    sentAt,
    answeredAt,
    measured,
    ...(content !== undefined && { content }),
  };
}

/** The accounts' stores: `s01` to `s50`, one member each, empty. */
const accountStores = () =>
  Array.from({ length: ACCOUNTS }, (_, i) => `s${String(i + 1).padStart(2, '0')}`);

async function openStreamsOn(setup: Setup, options: EventsOptions, figures: EventsFigures) {
  const label = `events-streams-${setup.engine}`;
  const log = (line: string) => options.log(`${label}: ${line}`);
  const location = await setup.createStore(options.dir, label);
  try {
    const names = accountStores();
    const stores = { [GET_STORE]: GET_STORE_SIZE, ...Object.fromEntries(names.map((n) => [n, 0])) };
    log('starting the server');
    const { server, group } = await startMnemoServer(stores, location.url, {
      label,
      profileDir: options.profileDir,
      processes: 1,
    });
    try {
      const pid = group.processes[0]?.pid;
      if (pid === undefined) throw new Error('no server process');
      const holder = await startStreamHolder();
      try {
        const accounts = names.map((name) => ({
          token: storeOf(server, name).token,
          orgId: server.info.orgId,
        }));
        await openStreams(server, pid, holder, accounts, figures, options.load, log);
      } finally {
        holder.stop();
      }
    } finally {
      await group.stop();
    }
  } finally {
    await location.dispose();
  }
}

/** GET one of the store `get`'s first memory, as the `get-one` scenario sends it. */
function getOneLoad(server: MnemoServer, connections: number): Omit<Load, 'seconds'> {
  const store = storeOf(server, GET_STORE);
  const id = store.ids[0];
  if (!id) throw new Error('the get store has no memories');
  return {
    origin: server.origin,
    requests: [{ method: 'GET', path: `${BASE}/${id}`, headers: storeHeaders(server, store) }],
    expectStatus: 200,
    connections,
  };
}

/** One measured run of GET one: its figures, and the server's CPU seconds over it. */
interface Run {
  readonly sampled: Sampled;
  readonly cpuSeconds: number | undefined;
}

/** A turn's runs: with none open, with all open, with none open again (in the turn's order). */
interface Turn {
  readonly first: Run;
  readonly open: Run;
  readonly second: Run;
}

/** Req/s, p99 and the server's CPU per request (µs) of `runs` together. */
function together(runs: readonly Run[]) {
  const { measurement } = combine(
    runs.map((run) => run.sampled),
    'in turn',
  );
  const cpu = runs.some((run) => run.cpuSeconds === undefined)
    ? undefined
    : runs.reduce((sum, run) => sum + (run.cpuSeconds ?? 0), 0);
  return {
    perSecond: measurement.requestsPerSecond,
    p99: measurement.p99,
    cpuUs: cpu === undefined ? undefined : (cpu / measurement.responses) * 1e6,
  };
}

/** GET one's figures of the turns: each state's runs together, and the turns' ratios. */
function turnFigures(turns: readonly Turn[]): EventsFigures {
  const none = together(turns.flatMap((turn) => [turn.first, turn.second]));
  const all = together(turns.map((turn) => turn.open));
  const each = turns.map((turn) => ({
    first: together([turn.first]),
    open: together([turn.open]),
    second: together([turn.second]),
  }));
  const cpuRatios = (of: (t: (typeof each)[number]) => number | undefined) => {
    const ratios = each.map(of);
    return ratios.every((r) => r !== undefined) ? turnRatio(ratios) : undefined;
  };
  const divide = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : a / b;
  const mean = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : (a + b) / 2;
  return {
    getNonePerSecond: none.perSecond,
    getOpenPerSecond: all.perSecond,
    getNoneP99Ms: none.p99,
    getOpenP99Ms: all.p99,
    getNoneCpuUs: none.cpuUs,
    getOpenCpuUs: all.cpuUs,
    ...optional(
      'getRatio',
      turnRatio(each.map((t) => t.open.perSecond / ((t.first.perSecond + t.second.perSecond) / 2))),
    ),
    ...optional('getNoise', turnRatio(each.map((t) => t.second.perSecond / t.first.perSecond))),
    getCpuRatio: cpuRatios((t) => divide(t.open.cpuUs, mean(t.first.cpuUs, t.second.cpuUs))),
    getCpuNoise: cpuRatios((t) => divide(t.second.cpuUs, t.first.cpuUs)),
  };
}

/** `{ [key]: value }`, or nothing when `value` is undefined (an optional figure left out). */
const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

const cpuBetween = (pid: number, before: number | undefined) => {
  const after = processCpuSeconds(pid);
  return before === undefined || after === undefined ? undefined : after - before;
};

/** The server's CPU in cores while `body` runs, and what it gave. */
async function cpuOver<T>(pid: number, body: () => Promise<T>) {
  const before = processCpuSeconds(pid);
  const started = performance.now();
  const value = await body();
  const seconds = (performance.now() - started) / 1000;
  const used = cpuBetween(pid, before);
  return { value, cores: used === undefined ? undefined : used / seconds };
}

async function openStreams(
  server: MnemoServer,
  pid: number,
  holder: StreamHolder,
  accounts: readonly HolderAccount[],
  figures: EventsFigures,
  load: EventsOptions['load'],
  log: (line: string) => void,
): Promise<void> {
  const get = getOneLoad(server, load.connections);
  const measureGet = async (seconds: number) => {
    const [run] = await measureTogether([{ ...get, seconds }]);
    if (!run) throw new Error('load generator: no answer for the load');
    return run;
  };
  let open = false;
  const openAll = async () => {
    const opened = await holder.open(server.origin, accounts, PER_ACCOUNT);
    open = true;
    return opened;
  };
  const closeAll = async () => {
    const closed = await holder.close();
    open = false;
    if (closed.ended > 0) throw new Error(`${closed.ended} streams ended before they were closed`);
  };

  try {
    if (load.warmup > 0) {
      log(`GET one, warm-up ${load.warmup} s`);
      await measureGet(load.warmup);
    }
    log('server memory and CPU, none open');
    figures.rssIdleMb = await quietResidentMb(pid);
    // As long as the stretch measured with all open, below.
    const idle = await cpuOver(pid, () => sleep(PING_ROUND_MS - AFTER_OPENING_MS));
    figures.idleCpuNone = idle.cores;

    log(`opening ${accounts.length * PER_ACCOUNT} streams`);
    const opened = await openAll();
    const openedAt = performance.now();
    figures.streams = opened.streams;
    figures.accounts = accounts.length;
    figures.openSeconds = opened.seconds;
    figures.rssOpenMb = await quietResidentMb(pid);
    // The first stream opened pings 20 s after it opened: the stretch measured must hold it.
    const from = Math.max(performance.now(), openedAt + AFTER_OPENING_MS);
    const firstPing = openedAt - opened.seconds * 1000 + FIRST_PING_MS;
    if (from < firstPing) {
      log("server CPU over the streams' first round of pings");
      if (performance.now() < from) await sleep(from - performance.now());
      const round = await cpuOver(pid, () => sleep(openedAt + PING_ROUND_MS - performance.now()));
      figures.idleCpuOpen = round.cores;
    } else {
      log('the streams pinged before their memory held still: their CPU is not measured');
    }

    // The turns start with none open; after the idle stretch the server's code is cold again,
    // so it is warmed up first.
    await closeAll();
    await sleep(SETTLE_MS);
    if (load.warmup > 0) {
      log(`GET one, warm-up ${load.warmup} s`);
      await measureGet(load.warmup);
    }
    const slices = sliceSeconds(load.seconds, load.slice);
    log(
      `GET one, none open, all open, none open again: ${load.seconds} s of each in ${slices.length} turns`,
    );
    const turns: Turn[] = [];
    for (const [index, seconds] of slices.entries()) {
      // none, all, none; then none, all, none again, the two runs with none open swapped.
      const runs: Partial<Record<'first' | 'open' | 'second', Run>> = {};
      const order =
        index % 2 === 0
          ? (['first', 'open', 'second'] as const)
          : (['second', 'open', 'first'] as const);
      for (const which of order) {
        const streams = which === 'open';
        if (streams !== open) {
          if (streams) await openAll();
          else await closeAll();
          await sleep(SETTLE_MS);
        }
        const before = processCpuSeconds(pid);
        const sampled = await measureGet(seconds);
        runs[which] = { sampled, cpuSeconds: cpuBetween(pid, before) };
      }
      const { first, open: all, second } = runs;
      if (!first || !all || !second) throw new Error('a turn without its three runs');
      turns.push({ first, open: all, second });
    }
    if (open) await closeAll();
    Object.assign(figures, turnFigures(turns));

    log('server memory after the turns');
    figures.rssAfterMb = await quietResidentMb(pid);
    log(`opening and closing every stream ${CYCLES} times`);
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      await openAll();
      await closeAll();
      await sleep(SETTLE_MS);
    }
    figures.cycles = CYCLES;
    figures.rssCycledMb = await quietResidentMb(pid);
  } finally {
    if (open) await holder.close().catch(() => undefined);
  }
}
