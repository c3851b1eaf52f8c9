import type { FloorKind } from './floor.ts';
import type { Measurement } from './load.ts';
import { FLOOR_SCENARIOS, type Scenario } from './scenarios.ts';
import type { ScenarioResult } from './session.ts';

/** The Fastify floor: what `× floor` and the floor-normalised ratios divide by. */
const FLOOR = FLOOR_SCENARIOS.fastify;

/** How each floor is named in targets and column headers: `≥ 0.30× http floor`. */
export const FLOOR_LABELS: Readonly<Record<FloorKind, string>> = {
  fastify: 'floor',
  http: 'http floor',
};

const FLOOR_NAMES: ReadonlySet<string> = new Set(Object.values(FLOOR_SCENARIOS));

/** Whether `name` is a floor's scenario: the baseline of its setup, held to no target. */
export function isFloor(name: string): boolean {
  return FLOOR_NAMES.has(name);
}

/** A value for each floor. */
function perFloor<T>(of: (kind: FloorKind) => T): Record<FloorKind, T> {
  return { fastify: of('fastify'), http: of('http') };
}

/**
 * `subject` may cost at most `max` times what `base` costs, both measured in the same run: the
 * 100k pull answers the same 10 changes as the 1k one, so its cost must follow the changes,
 * not the size of the store.
 */
export interface CostTarget {
  readonly subject: string;
  readonly base: string;
  readonly max: number;
}

export const COST_TARGETS: readonly CostTarget[] = [
  { subject: 'pull-100k', base: 'pull-1k', max: 1.5 },
];

/** Two setups (ids of setups.ts) compared by one measure: a ratio column of the table. */
export interface SetupPair {
  readonly subject: string;
  readonly base: string;
  /**
   * `req/s`: subject's req/s over base's. `cpu/req`: subject's CPU time per response over
   * base's, its server processes and the database's together (CpuShare.total).
   */
  readonly measure: 'req/s' | 'cpu/req';
}

/**
 * On `scenario`, setup `subject` must answer at least `min` times the req/s of setup `base`, or
 * spend at most `max` times its CPU per response. run.ts measures the setups of a scenario back
 * to back, seconds apart, so the raw figures of both are compared: each over its own floor
 * would compare a figure with one measured minutes earlier, and a two-process floor is not a
 * one-process floor.
 */
export type SetupTarget = { readonly scenario: string } & (
  | (SetupPair & { readonly measure: 'req/s'; readonly min: number })
  | (SetupPair & { readonly measure: 'cpu/req'; readonly max: number })
);

/** One target per scenario named. */
function perScenario(
  scenarios: readonly string[],
  target: SetupPair & { readonly measure: 'cpu/req'; readonly max: number },
): SetupTarget[] {
  return scenarios.map((scenario) => ({ scenario, ...target }));
}

export const SETUP_TARGETS: readonly SetupTarget[] = [
  // PostgreSQL over the network stack costs more than a SQLite file in the process; not half
  // the rate, nor twice the CPU, its own processes counted.
  { scenario: 'get-one', subject: 'postgres-1', base: 'sqlite-1', measure: 'req/s', min: 0.5 },
  { scenario: 'get-one', subject: 'postgres-1', base: 'sqlite-1', measure: 'cpu/req', max: 2 },
  // Adds to one hot store from 100 connections: PostgreSQL's row locks and WAL against SQLite's
  // group commit in the process.
  { scenario: 'post', subject: 'postgres-1', base: 'sqlite-1', measure: 'req/s', min: 0.4 },
  // A second process must not make a request dearer. What it adds in req/s cannot be measured
  // where the load generator, two servers and PostgreSQL share two cores; what it costs can.
  ...perScenario(['get-one', 'list-100', 'post'], {
    subject: 'postgres-2',
    base: 'postgres-1',
    measure: 'cpu/req',
    max: 1.15,
  }),
  // The same two processes apart, each with a store of its own, are the control: what serving
  // one store from two processes adds, beyond what two processes on the servers' core cost.
  ...perScenario(['get-one', 'list-100', 'post'], {
    subject: 'postgres-2',
    base: 'postgres-2-apart',
    measure: 'cpu/req',
    max: 1.15,
  }),
];

/**
 * The scenarios in groups measured in turns (session.ts, runSetups): a scenario joins the group
 * before it when its floor, or the base of its cost target, is in that group, so that the two
 * figures a target divides were taken over the same stretch of time.
 */
export function measuredTogether(scenarios: readonly Scenario[]): Scenario[][] {
  const groups: Scenario[][] = [];
  for (const scenario of scenarios) {
    const bases = new Set([
      ...(scenario.floorTarget ? [FLOOR_SCENARIOS[scenario.floorTarget.floor]] : []),
      ...COST_TARGETS.filter((t) => t.subject === scenario.name).map((t) => t.base),
    ]);
    const last = groups.at(-1);
    const joins =
      last !== undefined &&
      (last.some((s) => bases.has(s.name)) ||
        (isFloor(scenario.name) && last.every((s) => isFloor(s.name))));
    if (joins) last.push(scenario);
    else groups.push([scenario]);
  }
  return groups;
}

/** Whether a control setup runs `scenario`: only where a target compares it. */
export function comparedOn(setupId: string, scenario: string): boolean {
  return SETUP_TARGETS.some(
    (t) => t.scenario === scenario && (t.subject === setupId || t.base === setupId),
  );
}

const samePair = (a: SetupPair, b: SetupPair) =>
  a.subject === b.subject && a.base === b.base && a.measure === b.measure;

/** The pairs the targets compare, each once: the ratio columns of the table, for every scenario. */
export const SETUP_PAIRS: readonly SetupPair[] = SETUP_TARGETS.filter(
  (target, i) => SETUP_TARGETS.findIndex((other) => samePair(target, other)) === i,
).map(({ subject, base, measure }) => ({ subject, base, measure }));

/** The bound of a target between setups, as text: `≥ 0.50×`, `≤ 1.15×`. */
export function boundText(target: SetupTarget): string {
  return target.measure === 'req/s' ? `≥ ${target.min.toFixed(2)}×` : `≤ ${target.max.toFixed(2)}×`;
}

/**
 * `baseline`: a floor itself; `none`: no target; `unjudged`: what the target is relative to
 * was not measured (left out with --only, or failed).
 */
export type Verdict = 'baseline' | 'pass' | 'miss' | 'none' | 'unjudged' | 'failed';

export interface CostComparison {
  readonly target: CostTarget;
  readonly subject: Measurement;
  readonly base: Measurement;
  /** subject p50 / base p50. */
  readonly p50Ratio: number;
  /** base req/s / subject req/s: time per request at full load, relative. */
  readonly throughputCostRatio: number;
  readonly verdict: 'pass' | 'miss';
}

export interface JudgedScenario {
  readonly result: ScenarioResult;
  /** req/s over each floor's req/s, same setup; undefined where that floor was not measured. */
  readonly toFloor: Readonly<Record<FloorKind, number | undefined>>;
  /** The targets it is held to, as text: `≥ 0.30× http floor`. */
  readonly targets: readonly string[];
  readonly verdict: Verdict;
}

export interface Judgement {
  readonly scenarios: readonly JudgedScenario[];
  readonly comparisons: readonly CostComparison[];
}

type Status = 'pass' | 'miss' | 'unjudged';

function measuredOf(results: readonly ScenarioResult[], name: string): Measurement | undefined {
  const found = results.find((r) => r.scenario.name === name);
  return found?.outcome.ok ? found.outcome.measured : undefined;
}

/**
 * CPU seconds per response of `name`'s measured run, servers and database together
 * (CpuShare.total); undefined when it was not run, failed, or its CPU could not be read.
 */
export function cpuPerRequest(
  results: readonly ScenarioResult[],
  name: string,
): number | undefined {
  const outcome = results.find((r) => r.scenario.name === name)?.outcome;
  if (!outcome?.ok || outcome.cpu.total === undefined) return undefined;
  return outcome.cpu.total / outcome.measured.requestsPerSecond;
}

function compareCost(target: CostTarget, subject: Measurement, base: Measurement): CostComparison {
  const p50Ratio = subject.p50 / base.p50;
  const throughputCostRatio = base.requestsPerSecond / subject.requestsPerSecond;
  // Both readings of cost must hold: the median request, and requests per second under load.
  const verdict = p50Ratio <= target.max && throughputCostRatio <= target.max ? 'pass' : 'miss';
  return { target, subject, base, p50Ratio, throughputCostRatio, verdict };
}

function verdictOf(statuses: readonly Status[]): Verdict {
  if (statuses.length === 0) return 'none';
  if (statuses.includes('miss')) return 'miss';
  if (statuses.includes('unjudged')) return 'unjudged';
  return 'pass';
}

/**
 * Holds every result of one setup to its targets. A control (`ownTargets: false`) has none of
 * its own: it is only what targets between setups compare with.
 */
export function judge(results: readonly ScenarioResult[], ownTargets = true): Judgement {
  const floors = perFloor((kind) => measuredOf(results, FLOOR_SCENARIOS[kind]));
  const comparisons: CostComparison[] = [];
  for (const target of COST_TARGETS) {
    const subject = measuredOf(results, target.subject);
    const base = measuredOf(results, target.base);
    if (subject && base) comparisons.push(compareCost(target, subject, base));
  }

  const scenarios = results.map((result): JudgedScenario => {
    const { scenario, outcome } = result;
    const measured = outcome.ok ? outcome.measured : undefined;
    const toFloor = perFloor((kind) => {
      const floor = floors[kind];
      return measured && floor ? measured.requestsPerSecond / floor.requestsPerSecond : undefined;
    });
    if (isFloor(scenario.name)) {
      return { result, toFloor, targets: [], verdict: outcome.ok ? 'baseline' : 'failed' };
    }
    const targets: string[] = [];
    const statuses: Status[] = [];
    if (!ownTargets)
      return { result, toFloor, targets: [], verdict: outcome.ok ? 'none' : 'failed' };
    if (scenario.floorTarget !== undefined) {
      const { floor, min } = scenario.floorTarget;
      const ratio = toFloor[floor];
      targets.push(`≥ ${min.toFixed(2)}× ${FLOOR_LABELS[floor]}`);
      if (ratio === undefined) statuses.push('unjudged');
      else statuses.push(ratio >= min ? 'pass' : 'miss');
    }
    for (const target of COST_TARGETS.filter((t) => t.subject === scenario.name)) {
      targets.push(`cost ≤ ${target.max}× ${target.base}`);
      statuses.push(comparisons.find((c) => c.target === target)?.verdict ?? 'unjudged');
    }
    return {
      result,
      toFloor,
      targets,
      verdict: outcome.ok ? verdictOf(statuses) : 'failed',
    };
  });
  return { scenarios, comparisons };
}

/** One setup's results, as judge() and judgeAcross() read them. */
export interface SetupResults {
  readonly setup: { readonly id: string };
  readonly results: readonly ScenarioResult[];
}

export interface SetupRatio {
  /** subject's figure over base's: what the targets judge. */
  readonly ratio: number;
  /** The figures divided: req/s, or CPU seconds per response. */
  readonly subject: number;
  readonly base: number;
  /**
   * req/s only: each over its own setup's floor, then divided: how far each is from what
   * Fastify alone does in its topology. For reading only.
   */
  readonly floorNormalised: number | undefined;
}

/** The ratio of `pair` on `scenario`; undefined when either figure was not measured. */
export function setupRatio(
  runs: readonly SetupResults[],
  scenario: string,
  pair: SetupPair,
): SetupRatio | undefined {
  const of = (id: string) => runs.find((r) => r.setup.id === id)?.results;
  const subjectResults = of(pair.subject);
  const baseResults = of(pair.base);
  if (!subjectResults || !baseResults) return undefined;
  if (pair.measure === 'cpu/req') {
    const s = cpuPerRequest(subjectResults, scenario);
    const b = cpuPerRequest(baseResults, scenario);
    if (s === undefined || b === undefined) return undefined;
    return { ratio: s / b, subject: s, base: b, floorNormalised: undefined };
  }
  const s = measuredOf(subjectResults, scenario);
  const b = measuredOf(baseResults, scenario);
  if (!s || !b) return undefined;
  const sf = measuredOf(subjectResults, FLOOR);
  const bf = measuredOf(baseResults, FLOOR);
  return {
    ratio: s.requestsPerSecond / b.requestsPerSecond,
    subject: s.requestsPerSecond,
    base: b.requestsPerSecond,
    floorNormalised:
      sf && bf
        ? s.requestsPerSecond / sf.requestsPerSecond / (b.requestsPerSecond / bf.requestsPerSecond)
        : undefined,
  };
}

export interface SetupComparison {
  readonly target: SetupTarget;
  /** Undefined when a setup or the scenario was not run, failed, or its CPU was not read. */
  readonly ratio: SetupRatio | undefined;
  readonly verdict: 'pass' | 'miss' | 'unjudged';
}

function meets(target: SetupTarget, ratio: number): boolean {
  return target.measure === 'req/s' ? ratio >= target.min : ratio <= target.max;
}

/**
 * Holds the setups to the targets between them: those whose two setups and scenario were run
 * (left out with --setups or --only, a target is not listed); a failed run leaves it unjudged.
 */
export function judgeAcross(runs: readonly SetupResults[]): SetupComparison[] {
  const ran = (id: string, scenario: string) =>
    runs.find((r) => r.setup.id === id)?.results.some((r) => r.scenario.name === scenario) ?? false;
  const held = SETUP_TARGETS.filter((t) => ran(t.subject, t.scenario) && ran(t.base, t.scenario));
  return held.map((target) => {
    const ratio = setupRatio(runs, target.scenario, target);
    const verdict = ratio === undefined ? 'unjudged' : meets(target, ratio.ratio) ? 'pass' : 'miss';
    return { target, ratio, verdict };
  });
}
