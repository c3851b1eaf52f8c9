import type { components, paths } from '../api/openapi.d.ts';
import { formatInteger, formatUsd } from '../ui/format.ts';
import { daysOf } from './usage-range.ts';

export type UsageReport =
  paths['/api/v1/usage']['get']['responses'][200]['content']['application/json'];
export type ApiKey = components['schemas']['ApiKey'];
export type Member = components['schemas']['Member'];

/**
 * The sums of some calls. The cost is that of the calls with a price; `unpricedRequests` calls
 * had none and are not in it. It is absent or null when no call's cost is known: shown as
 * unknown, never as $0.
 */
export interface Figures {
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly costUsd?: number | null | undefined;
  readonly unpricedRequests?: number | undefined;
}

export interface DayFigures extends Figures {
  readonly day: string;
}

export type Metric = 'requests' | 'tokens' | 'cost';

export const METRICS: readonly { value: Metric; label: string }[] = [
  { value: 'requests', label: 'Requests' },
  { value: 'tokens', label: 'Tokens' },
  { value: 'cost', label: 'Cost' },
];

/** What a chart of the metric plots for some figures; null when unknown. */
export function metricValue(figures: Figures, metric: Metric): number | null {
  switch (metric) {
    case 'requests':
      return figures.requests;
    case 'tokens':
      return figures.totalTokens;
    case 'cost':
      return figures.costUsd ?? null;
  }
}

const ZERO: Figures = {
  requests: 0,
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  costUsd: 0,
  unpricedRequests: 0,
};

/** One entry per day of the range, in order: the API leaves out days without calls, the chart does not. */
export function everyDay(
  range: { first: string; last: string },
  groups: readonly (Figures & { key: string })[],
): DayFigures[] {
  const byDay = new Map(groups.map((group) => [group.key, group]));
  return daysOf(range).map((day) => ({ ...(byDay.get(day) ?? ZERO), day }));
}

const SMALLEST_SHOWN = 0.0001;

/**
 * A cost in dollars as people read it: "—" when unknown, and a cost too small for four decimals
 * as "< $0.0001" rather than a misleading "$0.00".
 */
export function formatCost(cost: number | null | undefined): string {
  if (cost === null || cost === undefined) return '—';
  if (cost > 0 && cost < SMALLEST_SHOWN) return `< ${formatUsd(SMALLEST_SHOWN)}`;
  return formatUsd(cost);
}

/**
 * What a known cost leaves out: the calls without a price (a self-hosted model), so that the
 * cost reads as a lower bound; none when every call had a price.
 */
export function unpricedNote(unpriced: number | undefined): string | undefined {
  if (!unpriced) return undefined;
  return unpriced === 1
    ? '1 call without a price is not counted'
    : `${formatInteger(unpriced)} calls without a price are not counted`;
}

const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const utcShortDay = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});

/** A UTC day (YYYY-MM-DD) in the browser's words: "Mar 3, 2026". */
export const formatDay = (day: string) => utcDay.format(new Date(`${day}T00:00:00Z`));
/** A UTC day without its year, for axes: "Mar 3". */
export const formatShortDay = (ms: number) => utcShortDay.format(new Date(ms));
