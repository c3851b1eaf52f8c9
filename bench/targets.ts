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
