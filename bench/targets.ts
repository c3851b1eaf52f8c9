import type { Measurement } from './load.ts';
import type { ScenarioResult } from './session.ts';

/** The scenario every `floorTarget` is a fraction of. */
export const FLOOR = 'floor';

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

/**
 * On `scenario`, setup `subject` must answer at least `min` times the req/s of setup `base`
 * (ids of setups.ts). run.ts measures the setups of a scenario back to back, seconds apart, so
 * the raw req/s of both are compared: each over its own floor would compare a figure with one
 * measured minutes earlier, and a two-process floor is not a one-process floor.
 */
export interface SetupTarget {
  readonly scenario: string;
  readonly subject: string;
  readonly base: string;
  readonly min: number;
}

export const SETUP_TARGETS: readonly SetupTarget[] = [
  // PostgreSQL over the network stack costs more than a SQLite file in the process; not 40% less.
  { scenario: 'get-one', subject: 'postgres-1', base: 'sqlite-1', min: 0.6 },
  // A second process on the same database must pay for itself on reads.
  { scenario: 'get-one', subject: 'postgres-2', base: 'postgres-1', min: 1.2 },
  { scenario: 'list-100', subject: 'postgres-2', base: 'postgres-1', min: 1.2 },
];

/** The pairs of setups the targets compare: the ratio columns of the table, for every scenario. */
export const SETUP_PAIRS: ReadonlyArray<{ readonly subject: string; readonly base: string }> = [
  ...new Map(SETUP_TARGETS.map((t) => [`${t.subject}/${t.base}`, t])).values(),
].map(({ subject, base }) => ({ subject, base }));

/**
 * `baseline`: the floor itself; `none`: no target; `unjudged`: what the target is relative to
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
  /** req/s over the floor's req/s. */
  readonly ratioToFloor: number | undefined;
  /** The targets it is held to, as text: `≥ 0.50× floor`. */
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

/** Holds every result of one setup to its targets. */
export function judge(results: readonly ScenarioResult[]): Judgement {
  const floor = measuredOf(results, FLOOR);
  const comparisons: CostComparison[] = [];
  for (const target of COST_TARGETS) {
    const subject = measuredOf(results, target.subject);
    const base = measuredOf(results, target.base);
    if (subject && base) comparisons.push(compareCost(target, subject, base));
  }

  const scenarios = results.map((result): JudgedScenario => {
    const { scenario, outcome } = result;
    const measured = outcome.ok ? outcome.measured : undefined;
    const ratioToFloor =
      measured && floor ? measured.requestsPerSecond / floor.requestsPerSecond : undefined;
    if (scenario.name === FLOOR) {
      return { result, ratioToFloor, targets: [], verdict: outcome.ok ? 'baseline' : 'failed' };
    }
    const targets: string[] = [];
    const statuses: Status[] = [];
    if (scenario.floorTarget !== undefined) {
      targets.push(`≥ ${scenario.floorTarget.toFixed(2)}× floor`);
      if (ratioToFloor === undefined) statuses.push('unjudged');
      else statuses.push(ratioToFloor >= scenario.floorTarget ? 'pass' : 'miss');
    }
    for (const target of COST_TARGETS.filter((t) => t.subject === scenario.name)) {
      targets.push(`cost ≤ ${target.max}× ${target.base}`);
      statuses.push(comparisons.find((c) => c.target === target)?.verdict ?? 'unjudged');
    }
    return {
      result,
      ratioToFloor,
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
  /** subject req/s over base req/s: what the targets judge. */
  readonly ratio: number;
  /**
   * Each over its own setup's floor, then divided: how far each is from what Fastify alone does
   * in its topology. For reading only.
   */
  readonly floorNormalised: number | undefined;
}

/** The ratio of `subject` to `base` on `scenario`; undefined when either was not measured. */
export function setupRatio(
  runs: readonly SetupResults[],
  scenario: string,
  subject: string,
  base: string,
): SetupRatio | undefined {
  const of = (id: string) => runs.find((r) => r.setup.id === id)?.results;
  const subjectResults = of(subject);
  const baseResults = of(base);
  if (!subjectResults || !baseResults) return undefined;
  const s = measuredOf(subjectResults, scenario);
  const b = measuredOf(baseResults, scenario);
  if (!s || !b) return undefined;
  const sf = measuredOf(subjectResults, FLOOR);
  const bf = measuredOf(baseResults, FLOOR);
  return {
    ratio: s.requestsPerSecond / b.requestsPerSecond,
    floorNormalised:
      sf && bf
        ? s.requestsPerSecond / sf.requestsPerSecond / (b.requestsPerSecond / bf.requestsPerSecond)
        : undefined,
  };
}

export interface SetupComparison {
  readonly target: SetupTarget;
  /** Undefined when a setup or the scenario was not run, or failed. */
  readonly ratio: SetupRatio | undefined;
  readonly verdict: 'pass' | 'miss' | 'unjudged';
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
    const ratio = setupRatio(runs, target.scenario, target.subject, target.base);
    const verdict = ratio === undefined ? 'unjudged' : ratio.ratio >= target.min ? 'pass' : 'miss';
    return { target, ratio, verdict };
  });
}
