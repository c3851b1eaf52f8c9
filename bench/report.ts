import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import { cpuPlacement, describePlacement } from './cpu-placement.ts';
import { FLOOR_KINDS } from './floor.ts';
import { describeLoadGenerator } from './load.ts';
import { UNREACHED_RATE_LIMIT } from './processes.ts';
import { FLOOR_SCENARIOS } from './scenarios.ts';
import { type CpuShare, type LoadOptions, type ScenarioResult, sliceSeconds } from './session.ts';
import type { Setup } from './setups.ts';
import {
  boundText,
  FLOOR_LABELS,
  type JudgedScenario,
  type Judgement,
  SETUP_PAIRS,
  SETUP_TARGETS,
  type SetupComparison,
  type SetupPair,
  type SetupTarget,
  setupRatio,
  type Verdict,
} from './targets.ts';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly sqlite: string | undefined;
  /** ISO 8601, when the run started. */
  readonly date: string;
  /** 1, 5 and 15 minute load averages when the run started: other work on a shared machine. */
  readonly loadAverage: readonly number[];
}

export function loadAverage(): number[] {
  return loadavg().map((value) => Math.round(value * 100) / 100);
}

export function describeMachine(): Machine {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${process.platform} ${release()} ${process.arch}`,
    node: process.version,
    sqlite: process.versions.sqlite,
    date: new Date().toISOString(),
    loadAverage: loadAverage(),
  };
}

/** One setup's judged results. */
export interface SetupReport {
  readonly setup: Setup;
  readonly results: readonly ScenarioResult[];
  readonly judgement: Judgement;
  /** Processes that did not stop cleanly. */
  readonly problems: readonly string[];
}

export function formatHeader(
  machine: Machine,
  load: LoadOptions,
  setups: readonly Setup[],
  engines: readonly string[],
): string {
  const sharing = cpuPlacement().pinned
    ? 'PostgreSQL not pinned, where the kernel puts it'
    : machine.cores <= 2
      ? `the load generator, the server processes and the database share ${machine.cores} cores`
      : `the load generator and the servers under test share ${machine.cores} cores`;
  const warmup = load.warmup > 0 ? `warm-up ${load.warmup} s, ` : 'no warm-up, ';
  return [
    ...machineLines(machine),
    ...engines.map((line) => `engine:    ${line}`),
    `load:      ${describeLoadGenerator()}, loopback, ${load.connections} connections, pipelining 1, ${warmup}measured ${load.seconds} s per scenario${slicing(load)}`,
    `processes: every server and floor is a process of its own, ${describePlacement('server')}; ${sharing}`,
    ...setups.map((s) => `setup:     ${s.name}: ${s.notes}`),
    `order:     a scenario runs on every setup together, with the scenarios a target compares it with (its floor; the other pull): their runs are prepared and warmed up one after another, then take turns, a slice each, the order turning around at every turn, so the figures a ratio divides were taken over the same stretch of time; each setup has its own floors, with as many processes; a control runs only the scenarios it is compared on`,
    `server:    log level warn; rate limit on, at ${UNREACHED_RATE_LIMIT.toLocaleString('en-US')} requests a minute per subject: every request counted, none refused`,
    loadAverageLine(machine),
  ].join('\n');
}

/** `, in 5 slices of 2 s` where a measured run is cut into several. */
function slicing(load: LoadOptions): string {
  const slices = sliceSeconds(load.seconds, load.slice);
  return slices.length > 1
    ? `, in ${slices.length} slices of ${formatSeconds(load.seconds / slices.length)} s`
    : '';
}

const formatSeconds = (seconds: number) =>
  Number.isInteger(seconds) ? String(seconds) : seconds.toFixed(1);

function machineLines(machine: Machine): string[] {
  return [
    `mnemo bench, ${machine.date}`,
    `machine:   ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}`,
    `node:      ${machine.node} (sqlite ${machine.sqlite ?? 'n/a'}) for the load generator and every server`,
  ];
}

const loadAverageLine = (machine: Machine) =>
  `load avg:  ${machine.loadAverage.join(' ')} (1, 5, 15 min) before the run`;

/** The header of a run without memory scenarios: the machine alone. */
export function formatMachineHeader(machine: Machine): string {
  return [...machineLines(machine), loadAverageLine(machine)].join('\n');
}

export const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');
export const times = (value: number | undefined) =>
  value === undefined ? '–' : `${value.toFixed(2)}×`;

export const VERDICT_TEXT: Record<Verdict, string> = {
  baseline: 'baseline',
  pass: 'pass',
  miss: 'MISSED',
  none: '–',
  unjudged: 'not judged',
  failed: 'FAILED',
};

export const cores = (value: number | undefined) =>
  value === undefined ? '–' : `${Math.round(value * 100)}%`;

const FIGURES = [
  'req/s',
  'p50 ms',
  'p99 ms',
  ...FLOOR_KINDS.map((kind) => `× ${FLOOR_LABELS[kind]}`),
];

function figures(judged: JudgedScenario | undefined): string[] {
  const none = FIGURES.map(() => '–');
  if (!judged) return none;
  const { outcome } = judged.result;
  if (!outcome.ok) return [`failed (${outcome.stage})`, ...none.slice(1)];
  const { measured } = outcome;
  return [
    integer.format(measured.requestsPerSecond),
    ms(measured.p50),
    ms(measured.p99),
    ...FLOOR_KINDS.map((kind) => times(judged.toFloor[kind])),
  ];
}

/**
 * A Markdown table, padded to read in a terminal too: the first `left` columns are names, the
 * figures after them right-aligned up to column `rightUpTo` (counted from 0), text after that.
 */
export function markdown(
  header: readonly string[],
  rows: readonly string[][],
  left: number,
  rightUpTo: number,
): string {
  const rightAligned = header.map((_, i) => i >= left && i <= rightUpTo);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells
      .map((cell, i) =>
        rightAligned[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0),
      )
      .join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (rightAligned[i] ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

function scenarioNames(reports: readonly SetupReport[]): string[] {
  return [...new Set(reports.flatMap((r) => r.results.map((s) => s.scenario.name)))];
}

function shortOf(reports: readonly SetupReport[], id: string): string {
  return reports.find((r) => r.setup.id === id)?.setup.short ?? id;
}

/** The pairs of setups the targets compare, where both were run. */
function pairsOf(reports: readonly SetupReport[]) {
  const ran = new Set(reports.map((r) => r.setup.id));
  return SETUP_PAIRS.filter((p) => ran.has(p.subject) && ran.has(p.base));
}

const MEASURE_TEXT: Record<SetupPair['measure'], string> = {
  'req/s': 'req/s',
  'cpu/req': 'CPU/req',
};

const pairName = (reports: readonly SetupReport[], pair: SetupPair) =>
  `${shortOf(reports, pair.subject)} ÷ ${shortOf(reports, pair.base)} ${MEASURE_TEXT[pair.measure]}`;

/** A target between setups, as text: `pg×2 CPU/req ≤ 1.15× pg×1`. */
const setupTargetText = (reports: readonly SetupReport[], target: SetupTarget) =>
  `${shortOf(reports, target.subject)} ${MEASURE_TEXT[target.measure]} ${boundText(target)} ${shortOf(reports, target.base)}`;

const isPair = (target: SetupPair, pair: SetupPair) =>
  target.subject === pair.subject && target.base === pair.base && target.measure === pair.measure;

/**
 * One row per scenario: per setup its req/s, p50, p99 and ratio to each of that setup's floors;
 * then the ratio of each pair of setups a target compares, by req/s or by CPU per request (with
 * the verdict where a target holds it on that scenario); the targets; each setup's verdict on
 * its own targets.
 */
export function formatTable(
  reports: readonly SetupReport[],
  across: readonly SetupComparison[],
): string {
  const prefix = (setup: Setup, column: string) =>
    reports.length > 1 ? `${setup.short} ${column}` : column;
  const pairs = pairsOf(reports);
  const header = [
    'scenario',
    ...reports.flatMap(({ setup }) => FIGURES.map((c) => prefix(setup, c))),
    ...pairs.map((p) => pairName(reports, p)),
    'target',
    ...reports.map(({ setup }) => prefix(setup, 'verdict')),
  ];
  const rows = scenarioNames(reports).map((name) => {
    const judged = reports.map((r) =>
      r.judgement.scenarios.find((s) => s.result.scenario.name === name),
    );
    const any = judged.find((j) => j !== undefined);
    const ratios = pairs.map((pair) => {
      const ratio = setupRatio(reports, name, pair);
      const held = across.find((c) => c.target.scenario === name && isPair(c.target, pair));
      const value = times(ratio?.ratio);
      return held ? `${value} ${VERDICT_TEXT[held.verdict]}` : value;
    });
    const setupTargets = SETUP_TARGETS.filter(
      (t) => t.scenario === name && pairs.some((p) => isPair(t, p)),
    ).map((t) => setupTargetText(reports, t));
    const targets = [...(any?.targets ?? []), ...setupTargets];
    return [
      any?.result.scenario.title ?? name,
      ...judged.flatMap(figures),
      ...ratios,
      targets.length > 0 ? targets.join(', ') : '–',
      ...judged.map((j) => (j ? VERDICT_TEXT[j.verdict] : '–')),
    ];
  });
  return markdown(header, rows, 1, reports.length * FIGURES.length + pairs.length);
}

const sum = (values: readonly (number | undefined)[]) =>
  values.some((v) => v === undefined)
    ? undefined
    : values.reduce<number>((a, b) => a + (b ?? 0), 0);

/** Seconds as whole microseconds: `105`. */
const micros = (seconds: number) => integer.format(seconds * 1e6);

/** CPU time per response, µs: what a request costs that side, whichever side limited the rate. */
const perRequest = (used: number | undefined, requestsPerSecond: number) =>
  used === undefined ? '–' : micros(used / requestsPerSecond);

/** How the requests were spread over the processes: `52% / 48%`; `–` for one process. */
function spread(served: readonly (number | undefined)[]): string {
  if (served.length < 2) return '–';
  const total = sum(served);
  if (total === undefined || total === 0) return '?';
  return served.map((n) => `${Math.round(((n ?? 0) / total) * 100)}%`).join(' / ');
}

/** What the machine did besides the servers, the database and the load generator. */
function other(cpu: CpuShare): number | undefined {
  const servers = sum(cpu.servers);
  if (cpu.machine === undefined || servers === undefined) return undefined;
  return Math.max(0, cpu.machine - servers - (cpu.engine ?? 0) - cpu.loadGenerator);
}

/** Other work above this share of a core during a measured run is worth saying. */
export const DISTURBED = 0.25;

const CPU_COLUMNS = [
  'scenario',
  'setup',
  'req/s',
  'server CPU',
  'requests per process',
  'server µs/req',
  'postgres CPU',
  'postgres µs/req',
  'total µs/req',
  'load CPU',
  'machine busy',
  'other',
  'steal',
];

/**
 * Where the CPU went during each measured run, one row per scenario and setup, in cores as
 * percentages (100% = one core busy throughout): each server process (and how the requests
 * were spread over them), PostgreSQL's processes, what both cost per response together (what
 * the `cpu/req` targets compare), the load generator's process, the whole machine, what else
 * ran on it, and what the hypervisor took.
 */
export function formatCpuTable(reports: readonly SetupReport[]): string {
  const rows: string[][] = [];
  for (const name of scenarioNames(reports)) {
    for (const { setup, results } of reports) {
      const result = results.find((r) => r.scenario.name === name);
      if (!result) continue;
      const title = result.scenario.title;
      if (!result.outcome.ok) {
        rows.push([
          title,
          setup.short,
          `failed (${result.outcome.stage})`,
          ...CPU_COLUMNS.slice(3).map(() => '–'),
        ]);
        continue;
      }
      const { measured, cpu } = result.outcome;
      const rate = measured.requestsPerSecond;
      rows.push([
        title,
        setup.short,
        integer.format(rate),
        cpu.servers.length > 1 ? cpu.servers.map(cores).join(' + ') : cores(cpu.servers[0]),
        spread(cpu.served),
        perRequest(sum(cpu.servers), rate),
        cores(cpu.engine),
        perRequest(cpu.engine, rate),
        perRequest(cpu.total, rate),
        cores(cpu.loadGenerator),
        cores(cpu.machine),
        cores(other(cpu)),
        cores(cpu.steal),
      ]);
    }
  }
  return markdown(CPU_COLUMNS, rows, 2, CPU_COLUMNS.length - 1);
}

/**
 * The cost comparisons, the ratios between setups, the floors of setups with as many
 * processes (the same measurement twice: the noise between setups), then every failure,
 * missed target and unclean stop.
 */
export function formatFindings(
  reports: readonly SetupReport[],
  across: readonly SetupComparison[],
): string {
  const lines: string[] = [];
  for (const { setup, judgement } of reports) {
    const where = reports.length > 1 ? ` (${setup.name})` : '';
    for (const c of judgement.comparisons) {
      const { subject: s, base: b } = c;
      lines.push(
        `${c.target.subject} vs ${c.target.base}${where}: ` +
          `p50 ${ms(s.p50)} / ${ms(b.p50)} ms = ${times(c.p50Ratio)}; ` +
          `req/s ${integer.format(s.requestsPerSecond)} / ${integer.format(b.requestsPerSecond)}, cost ${times(c.throughputCostRatio)}; ` +
          `target cost ≤ ${c.target.max}×: ${VERDICT_TEXT[c.verdict]}`,
      );
    }
  }
  for (const c of across) {
    const { scenario, subject, base, measure } = c.target;
    const name = `${scenario} ${shortOf(reports, subject)} ÷ ${shortOf(reports, base)}`;
    const target = `target ${boundText(c.target)}: ${VERDICT_TEXT[c.verdict]}`;
    const r = c.ratio;
    if (!r) {
      lines.push(`${name}: not judged, a run failed or its CPU could not be read`);
    } else if (measure === 'req/s') {
      lines.push(
        `${name}: req/s ${times(r.ratio)} (each over its own floor: ${times(r.floorNormalised)}); ${target}`,
      );
    } else {
      lines.push(
        `${name}: CPU per request, servers and database, ${micros(r.subject)} / ${micros(r.base)} µs = ${times(r.ratio)}; ${target}`,
      );
    }
  }
  for (const kind of FLOOR_KINDS) {
    const floors = new Map<number, string[]>();
    for (const { setup, results } of reports) {
      const floor = results.find((r) => r.scenario.name === FLOOR_SCENARIOS[kind])?.outcome;
      if (!floor?.ok) continue;
      const seen = floors.get(setup.processes) ?? [];
      seen.push(`${integer.format(floor.measured.requestsPerSecond)} (${setup.short})`);
      floors.set(setup.processes, seen);
    }
    for (const [processes, seen] of floors) {
      if (seen.length > 1)
        lines.push(
          `${FLOOR_LABELS[kind]} with ${processes} process${processes === 1 ? '' : 'es'}, measured ${seen.length} times: ${seen.join(', ')} req/s`,
        );
    }
  }
  const disturbed = reports.flatMap(({ setup, results }) =>
    results.flatMap(({ scenario, outcome }) => {
      const used = outcome.ok ? other(outcome.cpu) : undefined;
      return used !== undefined && used >= DISTURBED
        ? [`${scenario.name} on ${setup.short} (${cores(used)})`]
        : [];
    }),
  );
  if (disturbed.length > 0) {
    lines.push(
      `other work on the machine used ≥ ${cores(DISTURBED)} of a core during: ${disturbed.join(', ')}`,
    );
  }
  const held = reports.flatMap((r) => r.judgement.scenarios.filter((s) => s.targets.length > 0));
  const met =
    held.filter((s) => s.verdict === 'pass').length +
    across.filter((c) => c.verdict === 'pass').length;
  const total = held.length + across.length;
  lines.push(
    total === 0 ? 'targets: none among these scenarios' : `targets: ${met} of ${total} met`,
  );
  for (const { setup, judgement, problems } of reports) {
    const where = reports.length > 1 ? `${setup.name}, ` : '';
    for (const judged of judgement.scenarios) {
      const { scenario, outcome } = judged.result;
      if (!outcome.ok) {
        lines.push(`FAILED ${where}${scenario.name} (${outcome.stage}): ${outcome.message}`);
      } else if (judged.verdict === 'miss') {
        const figures = [
          ...(scenario.floorTarget === undefined
            ? []
            : [
                `${times(judged.toFloor[scenario.floorTarget.floor])} ${FLOOR_LABELS[scenario.floorTarget.floor]}`,
              ]),
          ...judgement.comparisons
            .filter((c) => c.target.subject === scenario.name)
            .map(
              (c) => `cost ${times(Math.max(c.p50Ratio, c.throughputCostRatio))} ${c.target.base}`,
            ),
        ];
        lines.push(
          `missed ${where}${scenario.name}: ${figures.join(', ')}, target ${judged.targets.join(', ')}`,
        );
      } else if (judged.verdict === 'unjudged') {
        lines.push(
          `not judged ${where}${scenario.name}: what its target is relative to was not measured`,
        );
      }
    }
    for (const problem of problems) lines.push(`unclean stop ${where}${problem}`);
  }
  for (const c of across.filter((c) => c.verdict === 'miss')) {
    const { scenario, subject, base, measure } = c.target;
    lines.push(
      `missed ${scenario}: ${shortOf(reports, subject)} ${MEASURE_TEXT[measure]} at ${times(c.ratio?.ratio)} ${shortOf(reports, base)}'s, target ${boundText(c.target)}`,
    );
  }
  return lines.join('\n');
}

/** The same results as data, for docs and for comparing runs. */
export function toJson(
  machine: Machine,
  load: LoadOptions,
  reports: readonly SetupReport[],
  across: readonly SetupComparison[],
  loadAverageAfter: readonly number[],
) {
  return {
    machine,
    load,
    placement: cpuPlacement(),
    loadAverageAfter,
    setups: reports.map(({ setup, judgement, problems }) => ({
      setup: { id: setup.id, name: setup.name, engine: setup.engine, processes: setup.processes },
      scenarios: judgement.scenarios.map(({ result, toFloor, targets, verdict }) => ({
        name: result.scenario.name,
        title: result.scenario.title,
        ...(result.outcome.ok
          ? {
              requestsPerSecond: result.outcome.measured.requestsPerSecond,
              p50Ms: result.outcome.measured.p50,
              p99Ms: result.outcome.measured.p99,
              responses: result.outcome.measured.responses,
              seconds: result.outcome.measured.seconds,
              cpuCores: result.outcome.cpu,
            }
          : { failed: { stage: result.outcome.stage, message: result.outcome.message } }),
        ratioToFloor: toFloor.fastify ?? null,
        ratioToHttpFloor: toFloor.http ?? null,
        targets,
        verdict,
      })),
      comparisons: judgement.comparisons.map((c) => ({
        subject: c.target.subject,
        base: c.target.base,
        max: c.target.max,
        p50Ratio: c.p50Ratio,
        throughputCostRatio: c.throughputCostRatio,
        verdict: c.verdict,
      })),
      problems,
    })),
    across: across.map((c) => ({
      ...c.target,
      ratio: c.ratio?.ratio ?? null,
      // req/s, or CPU seconds per response (servers and database).
      subjectFigure: c.ratio?.subject ?? null,
      baseFigure: c.ratio?.base ?? null,
      floorNormalised: c.ratio?.floorNormalised ?? null,
      verdict: c.verdict,
    })),
  };
}
