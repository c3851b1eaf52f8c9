import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import type { LoadOptions } from './session.ts';
import type { Setup } from './setups.ts';
import type { JudgedScenario, Judgement, Verdict } from './targets.ts';

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
  readonly judgement: Judgement;
  /** Processes that did not stop cleanly. */
  readonly problems: readonly string[];
}

export function formatHeader(
  machine: Machine,
  load: LoadOptions,
  setups: readonly Setup[],
): string {
  const sharing =
    machine.cores <= 2
      ? `on ${machine.cores} cores the load generator and the server under test have about one core each`
      : `the load generator and the server under test share ${machine.cores} cores`;
  const warmup = load.warmup > 0 ? `warm-up ${load.warmup} s, ` : 'no warm-up, ';
  return [
    `mnemo bench, ${machine.date}`,
    `machine:   ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}`,
    `node:      ${machine.node} (sqlite ${machine.sqlite ?? 'n/a'}) for the load generator and every server`,
    `load:      autocannon in this process, loopback, ${load.connections} connections, pipelining 1, ${warmup}measured ${load.seconds} s per scenario`,
    `processes: every server is its own process; ${sharing}`,
    ...setups.map((s) => `setup:     ${s.name}: ${s.notes}`),
    'server:    log level warn, rate limit off',
    `load avg:  ${machine.loadAverage.join(' ')} (1, 5, 15 min) before the run`,
  ].join('\n');
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');
const times = (value: number | undefined) => (value === undefined ? '–' : `${value.toFixed(2)}×`);

const VERDICT_TEXT: Record<Verdict, string> = {
  baseline: 'baseline',
  pass: 'pass',
  miss: 'MISSED',
  none: '–',
  unjudged: 'not judged',
  failed: 'FAILED',
};

const cores = (value: number | undefined) =>
  value === undefined ? '–' : `${Math.round(value * 100)}%`;

const FIGURES = ['req/s', 'p50 ms', 'p99 ms', '× floor', 'server CPU', 'µs CPU/req', 'load CPU'];

/** Server CPU time per response: what a request costs, whichever side limited the rate. */
const perRequest = (cores: number | undefined, requestsPerSecond: number) =>
  cores === undefined ? '–' : integer.format((cores / requestsPerSecond) * 1e6);

function figures(judged: JudgedScenario | undefined): string[] {
  const none = FIGURES.map(() => '–');
  if (!judged) return none;
  const { outcome } = judged.result;
  if (!outcome.ok) return [`failed (${outcome.stage})`, ...none.slice(1)];
  const { measured, cpu } = outcome;
  return [
    integer.format(measured.requestsPerSecond),
    ms(measured.p50),
    ms(measured.p99),
    times(judged.ratioToFloor),
    cores(cpu.server),
    perRequest(cpu.server, measured.requestsPerSecond),
    cores(cpu.loadGenerator),
  ];
}

/**
 * A Markdown table, padded to read in a terminal too: one row per scenario; per setup its
 * req/s, p50, p99, ratio to that setup's floor, the CPU the server used (100% is one core busy
 * throughout) and per response, the CPU the load generator used, and verdict; one target
 * column, the same for all.
 */
export function formatTable(reports: readonly SetupReport[]): string {
  const prefix = (setup: Setup, column: string) =>
    reports.length > 1 ? `${setup.name}: ${column}` : column;
  const header = [
    'scenario',
    ...reports.flatMap(({ setup }) => FIGURES.map((c) => prefix(setup, c))),
    'target',
    ...reports.map(({ setup }) => prefix(setup, 'verdict')),
  ];
  const names = [
    ...new Set(reports.flatMap((r) => r.judgement.scenarios.map((s) => s.result.scenario.name))),
  ];
  const rows = names.map((name) => {
    const judged = reports.map((r) =>
      r.judgement.scenarios.find((s) => s.result.scenario.name === name),
    );
    const any = judged.find((j) => j !== undefined);
    return [
      any?.result.scenario.title ?? name,
      ...judged.flatMap(figures),
      any && any.targets.length > 0 ? any.targets.join(', ') : '–',
      ...judged.map((j) => (j ? VERDICT_TEXT[j.verdict] : '–')),
    ];
  });
  const rightAligned = header.map((_, i) => i > 0 && i <= reports.length * FIGURES.length);
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

/** The cost comparisons, then every failure, missed target and unclean stop. */
export function formatFindings(reports: readonly SetupReport[]): string {
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
  const held = reports.flatMap((r) => r.judgement.scenarios.filter((s) => s.targets.length > 0));
  const met = held.filter((s) => s.verdict === 'pass').length;
  lines.push(
    held.length === 0
      ? 'targets: none among these scenarios'
      : `targets: ${met} of ${held.length} met`,
  );
  for (const { setup, judgement, problems } of reports) {
    const where = reports.length > 1 ? `${setup.name}, ` : '';
    for (const judged of judgement.scenarios) {
      const { scenario, outcome } = judged.result;
      if (!outcome.ok) {
        lines.push(`FAILED ${where}${scenario.name} (${outcome.stage}): ${outcome.message}`);
      } else if (judged.verdict === 'miss') {
        lines.push(
          `missed ${where}${scenario.name}: ${times(judged.ratioToFloor)} floor, target ${judged.targets.join(', ')}`,
        );
      } else if (judged.verdict === 'unjudged') {
        lines.push(
          `not judged ${where}${scenario.name}: what its target is relative to was not measured`,
        );
      }
    }
    for (const problem of problems) lines.push(`unclean stop ${where}${problem}`);
  }
  return lines.join('\n');
}

/** The same results as data, for docs and for comparing runs. */
export function toJson(
  machine: Machine,
  load: LoadOptions,
  reports: readonly SetupReport[],
  loadAverageAfter: readonly number[],
) {
  return {
    machine,
    load,
    loadAverageAfter,
    setups: reports.map(({ setup, judgement, problems }) => ({
      setup: { name: setup.name, engine: setup.engine, processes: setup.processes },
      scenarios: judgement.scenarios.map(({ result, ratioToFloor, targets, verdict }) => ({
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
        ratioToFloor: ratioToFloor ?? null,
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
  };
}
