import { integer, markdown } from '../report.ts';

/** What one engine measured; a figure is missing when a step before it failed. */
export interface EventsFigures {
  /** Server processes of the latency run: 1 (stream and writes on it), or 2 (one each). */
  latencyProcesses?: number;
  /** The measured writes, by kind. */
  adds?: number;
  updates?: number;
  deletes?: number;
  /** A write's answer → its event on the stream, ms, of the measured writes. */
  latencyCount?: number;
  latencyP50Ms?: number;
  latencyP90Ms?: number;
  latencyP99Ms?: number;
  latencyMaxMs?: number;
  /** Measured writes whose event came before their answer (counted 0 ms above). */
  beforeAnswer?: number;
  /** Writes (warm-up's too) whose event never came; events out of order; events of no write. */
  lost?: number;
  outOfOrder?: number;
  unexpected?: number;

  /** The streams held open at once on one server process, and the accounts holding them. */
  streams?: number;
  accounts?: number;
  /** Opening all of them, 50 at a time. */
  openSeconds?: number;
  /**
   * The server process's resident memory, MB, once it held still: with none open (after GET
   * one's warm-up), with every stream open, after GET one's turns (none open), and after
   * `cycles` more openings and closings of every stream; undefined where /proc could not be read.
   */
  rssIdleMb?: number | undefined;
  rssOpenMb?: number | undefined;
  rssAfterMb?: number | undefined;
  rssCycledMb?: number | undefined;
  cycles?: number;
  /**
   * The server's CPU while nothing is sent, in cores, over as long: with none open, and with every
   * stream open, a stretch that holds each one's first ping (each a look at its store).
   */
  idleCpuNone?: number | undefined;
  idleCpuOpen?: number | undefined;
  /**
   * GET one, measured in turns: none open, all open, none open again (the order turning around
   * every turn). Req/s, p99 and the server's CPU per request (µs; undefined where /proc could
   * not be read) of the runs with none open together, and of those with all open.
   */
  getNonePerSecond?: number;
  getOpenPerSecond?: number;
  getNoneP99Ms?: number;
  getOpenP99Ms?: number;
  getNoneCpuUs?: number | undefined;
  getOpenCpuUs?: number | undefined;
  /** Each turn's req/s all open ÷ its two runs with none open (their mean), over the turns. */
  getRatio?: TurnRatio;
  /** Each turn's req/s of its second run with none open ÷ its first: the noise a ratio sees. */
  getNoise?: TurnRatio;
  /** The same two of the server's CPU per GET one. */
  getCpuRatio?: TurnRatio | undefined;
  getCpuNoise?: TurnRatio | undefined;
}

/**
 * A ratio taken in each turn, of runs seconds apart: its median over the turns, robust to a
 * burst of other work on a shared machine, and the least and the most.
 */
export interface TurnRatio {
  readonly median: number;
  readonly least: number;
  readonly most: number;
}

/** The TurnRatio of `ratios`, one per turn (the median of an even count: the two middle's mean). */
export function turnRatio(ratios: readonly number[]): TurnRatio | undefined {
  if (ratios.length === 0 || ratios.some((r) => !Number.isFinite(r))) return undefined;
  const sorted = [...ratios].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? (sorted[middle] ?? Number.NaN)
      : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
  return { median, least: sorted[0] ?? Number.NaN, most: sorted.at(-1) ?? Number.NaN };
}

export interface EventsRun {
  readonly engine: string;
  readonly figures: EventsFigures;
  /** What went wrong in each step that failed: the run is broken. */
  readonly failures: readonly string[];
}

/** A target on one figure of a run; `engines` it is judged on, every engine when unsaid. */
export interface EventsTarget {
  readonly name: string;
  readonly bound: string;
  readonly engines?: readonly string[];
  value(figures: EventsFigures): number | undefined;
  met(value: number): boolean;
  text(value: number): string;
}

const milliseconds = (value: number) => (value < 10 ? value.toFixed(1) : integer.format(value));

/** The targets of the issue, each on one engine's figures. */
export const EVENTS_TARGETS = {
  latencyP50: {
    name: 'answer → event, p50, ms',
    bound: '≤ 50 (postgres, 2 processes)',
    engines: ['postgres'],
    value: (f) => f.latencyP50Ms,
    met: (ms) => ms <= 50,
    text: milliseconds,
  },
  latencyP99: {
    name: 'answer → event, p99, ms',
    bound: '≤ 1,000 (postgres, 2 processes)',
    engines: ['postgres'],
    value: (f) => f.latencyP99Ms,
    met: (ms) => ms <= 1000,
    text: milliseconds,
  },
  streamsMemory: {
    name: 'server RSS, open − idle, MB',
    bound: '≤ 50',
    value: (f) =>
      f.rssOpenMb === undefined || f.rssIdleMb === undefined
        ? undefined
        : f.rssOpenMb - f.rssIdleMb,
    met: (mb) => mb <= 50,
    text: (mb) => `${mb < 0 ? '' : '+'}${mb.toFixed(1)}`,
  },
  streamsThroughput: {
    name: "GET one, req/s, all open ÷ none, the turns' median",
    bound: '≥ 0.95',
    value: (f) => f.getRatio?.median,
    met: (ratio) => ratio >= 0.95,
    text: (ratio) => ratio.toFixed(3),
  },
} as const satisfies Record<string, EventsTarget>;

export type EventsVerdict = 'met' | 'missed' | 'not measured' | 'not judged';

export function verdictOf(target: EventsTarget, run: Pick<EventsRun, 'engine' | 'figures'>) {
  const value = target.value(run.figures);
  if (value === undefined) return 'not measured';
  if (target.engines && !target.engines.includes(run.engine)) return 'not judged';
  return target.met(value) ? 'met' : 'missed';
}

const VERDICT_TEXT: Record<EventsVerdict, string> = {
  met: ' met',
  missed: ' MISSED',
  'not measured': '',
  'not judged': '',
};

/** How the figures were taken, for the tables' rows. */
export interface EventsSetting {
  /** Writes a second of the latency run, for `seconds` after `warmup`. */
  readonly writesPerSecond: number;
  readonly seconds: number;
  readonly warmup: number;
  /** GET one's connections, and its turns' slices (seconds each). */
  readonly connections: number;
  readonly slice: number;
  /** The stretches over which the idle server's CPU is read. */
  readonly idleSeconds: number;
}

interface Row {
  readonly label: string;
  cell(run: EventsRun): string;
  readonly bound: string;
}

const figure = (value: number | undefined, text: (value: number) => string) =>
  value === undefined || Number.isNaN(value) ? '–' : text(value);
const megabytes = (value: number) => value.toFixed(0);
const percent = (cores: number) => `${(cores * 100).toFixed(1)}%`;
const ratio = (value: number) => value.toFixed(3);
const spread = (turns: TurnRatio) => `${ratio(turns.least)}–${ratio(turns.most)}`;
const pair = (
  a: number | undefined,
  b: number | undefined,
  text: (value: number) => string,
): string => (a === undefined && b === undefined ? '–' : `${figure(a, text)} / ${figure(b, text)}`);

const measured = (label: string, cell: (f: EventsFigures) => string): Row => ({
  label,
  cell: (run) => cell(run.figures),
  bound: '',
});

const judged = (target: EventsTarget): Row => ({
  label: target.name,
  cell(run) {
    const value = target.value(run.figures);
    return value === undefined
      ? '–'
      : `${target.text(value)}${VERDICT_TEXT[verdictOf(target, run)]}`;
  },
  bound: target.bound,
});

function table(runs: readonly EventsRun[], rows: readonly Row[]): string {
  return markdown(
    ['measure', ...runs.map((run) => run.engine), 'target'],
    rows.map((row) => [row.label, ...runs.map((run) => row.cell(run)), row.bound]),
    1,
    runs.length,
  );
}

/**
 * The two tables, latency then open streams: a row per measure, a column per engine, each judged
 * figure beside its verdict; then what failed on an engine.
 */
export function formatEvents(runs: readonly EventsRun[], setting: EventsSetting): string {
  const { writesPerSecond, seconds, warmup, connections, slice, idleSeconds } = setting;
  const latency: Row[] = [
    measured('server processes (stream held on, writes sent to)', (f) =>
      figure(f.latencyProcesses, (n) => (n === 1 ? '1 (the same)' : `${n} (one each)`)),
    ),
    measured('writes measured (adds, updates, deletes)', (f) =>
      f.adds === undefined
        ? '–'
        : `${integer.format((f.adds ?? 0) + (f.updates ?? 0) + (f.deletes ?? 0))} (${f.adds}, ${f.updates ?? 0}, ${f.deletes ?? 0})`,
    ),
    measured('events received of them', (f) => figure(f.latencyCount, integer.format)),
    judged(EVENTS_TARGETS.latencyP50),
    measured('answer → event, p90, ms', (f) => figure(f.latencyP90Ms, milliseconds)),
    judged(EVENTS_TARGETS.latencyP99),
    measured('answer → event, max, ms', (f) => figure(f.latencyMaxMs, milliseconds)),
    measured('events before their answer (counted 0 ms)', (f) =>
      figure(f.beforeAnswer, integer.format),
    ),
    {
      label: 'events lost, out of order, of no write',
      cell: ({ figures: f }) =>
        f.lost === undefined ? '–' : `${f.lost}, ${f.outOfOrder ?? 0}, ${f.unexpected ?? 0}`,
      bound: 'all 0, or the run fails',
    },
  ];
  const streams: Row[] = [
    measured('streams open (accounts × streams each)', (f) =>
      f.streams === undefined
        ? '–'
        : `${integer.format(f.streams)} (${f.accounts ?? '?'} × ${f.accounts ? f.streams / f.accounts : '?'})`,
    ),
    measured('opening them, 50 at a time, s', (f) => figure(f.openSeconds, (s) => s.toFixed(2))),
    measured('server RSS, none open, MB', (f) => figure(f.rssIdleMb, megabytes)),
    measured('server RSS, all open, MB', (f) => figure(f.rssOpenMb, megabytes)),
    judged(EVENTS_TARGETS.streamsMemory),
    measured('per stream, kB', (f) =>
      f.rssOpenMb === undefined || f.rssIdleMb === undefined || !f.streams
        ? '–'
        : (((f.rssOpenMb - f.rssIdleMb) * 1024) / f.streams).toFixed(1),
    ),
    measured('server RSS after the GET one turns, none open, MB', (f) =>
      figure(f.rssAfterMb, megabytes),
    ),
    measured('server RSS after opening and closing all n more times, MB (n)', (f) =>
      f.rssCycledMb === undefined ? '–' : `${megabytes(f.rssCycledMb)} (${f.cycles ?? '?'})`,
    ),
    measured('server RSS kept per opening and closing of all, MB', (f) =>
      f.rssCycledMb === undefined || f.rssAfterMb === undefined || !f.cycles
        ? '–'
        : `${f.rssCycledMb < f.rssAfterMb ? '' : '+'}${((f.rssCycledMb - f.rssAfterMb) / f.cycles).toFixed(1)}`,
    ),
    measured(`server CPU idle ${idleSeconds} s, none open / all open (a round of pings)`, (f) =>
      pair(f.idleCpuNone, f.idleCpuOpen, percent),
    ),
    measured(`GET one, req/s, none open (${connections} connections, ${seconds} s × 2)`, (f) =>
      figure(f.getNonePerSecond, integer.format),
    ),
    measured(`GET one, req/s, all open (${seconds} s)`, (f) =>
      figure(f.getOpenPerSecond, integer.format),
    ),
    judged(EVENTS_TARGETS.streamsThroughput),
    measured("GET one, req/s, all open ÷ none, the turns' least–most", (f) =>
      f.getRatio === undefined ? '–' : spread(f.getRatio),
    ),
    measured("GET one, req/s, none ÷ none, the turns' median (least–most): the noise", (f) =>
      f.getNoise === undefined ? '–' : `${ratio(f.getNoise.median)} (${spread(f.getNoise)})`,
    ),
    measured('GET one, p99 ms, none / all open', (f) =>
      pair(f.getNoneP99Ms, f.getOpenP99Ms, (v) => v.toFixed(2)),
    ),
    measured('server CPU per GET one, µs, none / all open', (f) =>
      pair(f.getNoneCpuUs, f.getOpenCpuUs, (v) => v.toFixed(1)),
    ),
    measured("server CPU per GET one, all open ÷ none, the turns' median (least–most)", (f) =>
      f.getCpuRatio === undefined
        ? '–'
        : `${ratio(f.getCpuRatio.median)} (${spread(f.getCpuRatio)})`,
    ),
    measured("server CPU per GET one, none ÷ none, the turns' median (least–most)", (f) =>
      f.getCpuNoise === undefined
        ? '–'
        : `${ratio(f.getCpuNoise.median)} (${spread(f.getCpuNoise)})`,
    ),
  ];
  const turns = Math.max(1, Math.ceil(seconds / slice));
  return [
    `Latency: ${writesPerSecond} writes a second for ${seconds} s after ${warmup} s (adds, and updates and deletes of memories already seen on the stream), each timed from its answer to its event on a stream of the same store; on PostgreSQL the stream is held on one server process and the writes go to another, on SQLite both on its one process.`,
    '',
    table(runs, latency),
    '',
    `Open streams: on one server process, each stream on its member's own store, read and thrown away by a process on the servers' CPUs. GET one in ${turns} turns, each a run of ${(seconds / turns).toFixed(1)} s with none open, one with all open and one with none open again, the order turning around at every turn; a ratio is the median of the turns' own.`,
    '',
    table(runs, streams),
    ...runs.flatMap((run) => run.failures.map((failure) => `${run.engine}: FAILED: ${failure}`)),
  ].join('\n');
}

/** Whether any target was missed on any engine. */
export function missesEventsTargets(runs: readonly EventsRun[]): boolean {
  const targets: readonly EventsTarget[] = Object.values(EVENTS_TARGETS);
  return runs.some((run) => targets.some((t) => verdictOf(t, run) === 'missed'));
}
