import { useEffect, useRef, useSyncExternalStore } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatInteger, formatUsd } from '../ui/format.ts';
import { Cost } from './cost.tsx';
import {
  type DayFigures,
  formatCost,
  formatDay,
  formatShortDay,
  type Metric,
  metricValue,
} from './usage-figures.ts';
import { startOf } from './usage-range.ts';

const DAY_S = 86_400;
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });
const compactUsd = new Intl.NumberFormat(undefined, {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
  maximumFractionDigits: 1,
});

/** Whole-number steps for counts: a chart of 3 requests has no tick at 1.5. */
const COUNT_STEPS = Array.from({ length: 10 }, (_, power) =>
  [1, 2, 5].map((step) => step * 10 ** power),
).flat();
/** Day steps for the time axis, in seconds. */
const DAY_STEPS = [1, 2, 7, 14, 28, 56, 91, 182].map((days) => days * DAY_S);
/** uPlot's bar paths; the bundle always has them (the type says they may be left out). */
const bars = uPlot.paths.bars as NonNullable<typeof uPlot.paths.bars>;

const UNITS: Record<Metric, (n: number) => string> = {
  requests: (n) => (n === 1 ? '1 request' : `${formatInteger(n)} requests`),
  tokens: (n) => (n === 1 ? '1 token' : `${formatInteger(n)} tokens`),
  cost: (n) => formatCost(n),
};

/** The value of a metric in words, "unknown" for an unknown cost. */
export function describeValue(metric: Metric, value: number | null): string {
  return value === null ? 'cost unknown' : UNITS[metric](value);
}

const darkScheme = () => window.matchMedia('(prefers-color-scheme: dark)');
const subscribeToScheme = (onChange: () => void) => {
  const query = darkScheme();
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
};
/** The system's colour scheme, which the stylesheet's tokens follow. */
const useDarkScheme = () => useSyncExternalStore(subscribeToScheme, () => darkScheme().matches);

/** The design tokens a canvas needs: it cannot read CSS variables itself. */
function readTokens() {
  const style = getComputedStyle(document.documentElement);
  const token = (name: string) => style.getPropertyValue(name).trim();
  return {
    accent: token('--accent'),
    muted: token('--muted'),
    line: token('--line'),
    font: `12px ${token('--font')}`,
  };
}

function axisLabel(metric: Metric, value: number): string {
  if (metric !== 'cost') return compact.format(value);
  return value >= 1000 ? compactUsd.format(value) : formatUsd(value);
}

function chartOptions(
  metric: Metric,
  days: readonly DayFigures[],
  size: { width: number; height: number },
  readout: HTMLElement | null,
  idle: string,
): uPlot.Options {
  const tokens = readTokens();
  const axis = {
    stroke: tokens.muted,
    font: tokens.font,
    grid: { stroke: tokens.line, width: 1 },
    ticks: { stroke: tokens.line, width: 1, size: 4 },
  };
  return {
    ...size,
    legend: { show: false },
    cursor: {
      y: false,
      points: { show: false },
      drag: { x: false, y: false, setScale: false },
    },
    scales: {
      // Half a day of room each side, so that the first and last bars are whole.
      x: { time: true, range: (_u, min, max) => [min - DAY_S / 2, max + DAY_S / 2] },
      y: {
        range: (_u, _min, max) => {
          const top = uPlot.rangeNum(0, max !== null && max > 0 ? max : 1, 0.1, true)[1] ?? 1;
          return [0, metric === 'cost' ? top : Math.max(top, 1)];
        },
      },
    },
    axes: [
      {
        ...axis,
        grid: { show: false },
        size: 32,
        space: 56,
        incrs: DAY_STEPS,
        values: (_u, splits) => splits.map((s) => formatShortDay(s * 1000)),
      },
      {
        ...axis,
        space: 36,
        ...(metric === 'cost' ? {} : { incrs: COUNT_STEPS }),
        values: (_u, splits) => splits.map((s) => axisLabel(metric, s)),
        size: (_u, values) => {
          const longest = Math.max(0, ...(values ?? []).map((v) => v.length));
          return Math.ceil(longest * 7.5 + 16);
        },
      },
    ],
    series: [
      {},
      {
        label: metric,
        stroke: tokens.accent,
        fill: tokens.accent,
        width: 0,
        points: { show: false },
        paths: bars({ size: [0.72, 40, 2], align: 0 }),
      },
    ],
    hooks: {
      setCursor: [
        (u) => {
          if (!readout) return;
          const index = u.cursor.idx;
          const day = index === null || index === undefined ? undefined : days[index];
          readout.textContent = day
            ? `${formatDay(day.day)}: ${describeValue(metric, metricValue(day, metric))}`
            : idle;
        },
      ],
    },
  };
}

/**
 * A bar chart of one metric by day, drawn with uPlot on a canvas. The canvas has an accessible
 * name that sums it up, and a table a screen reader can read holds the days with calls.
 */
export function UsageChart(props: {
  days: readonly DayFigures[];
  metric: Metric;
  /** What the chart shows, in words: its accessible name. */
  label: string;
  /** The line under the chart when no bar is pointed at. */
  idle: string;
}) {
  const { days, metric, idle } = props;
  const plot = useRef<HTMLDivElement>(null);
  const readout = useRef<HTMLParagraphElement>(null);
  const dark = useDarkScheme();

  // biome-ignore lint/correctness/useExhaustiveDependencies: `dark` redraws the chart in the scheme's colours, which chartOptions reads from the stylesheet.
  useEffect(() => {
    const target = plot.current;
    if (!target) return;
    if (readout.current) readout.current.textContent = idle;
    const height = () => (target.clientWidth < 520 ? 200 : 260);
    const data: uPlot.AlignedData = [
      days.map((d) => startOf(d.day) / 1000),
      days.map((d) => metricValue(d, metric)),
    ];
    const chart = new uPlot(
      chartOptions(
        metric,
        days,
        { width: target.clientWidth, height: height() },
        readout.current,
        idle,
      ),
      data,
      target,
    );
    const resize = new ResizeObserver(() => {
      if (chart.width !== target.clientWidth) {
        chart.setSize({ width: target.clientWidth, height: height() });
      }
    });
    resize.observe(target);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [days, metric, dark, idle]);

  const withCalls = days.filter((d) => d.requests > 0);
  return (
    <div className="usage-chart">
      <div ref={plot} className="usage-plot" role="img" aria-label={props.label} />
      {/* Written by the chart as the pointer moves; the table below says the same to everyone. */}
      <p ref={readout} className="usage-readout muted" aria-hidden="true" />
      {/* A table cannot be shrunk to nothing itself: its box hides it. */}
      <div className="visually-hidden">
        <table>
          <caption>Usage by day (days without calls are left out)</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Requests</th>
              <th scope="col">Tokens</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {withCalls.map((d) => (
              <tr key={d.day}>
                <th scope="row">{formatDay(d.day)}</th>
                <td>{formatInteger(d.requests)}</td>
                <td>{formatInteger(d.totalTokens)}</td>
                <td>
                  <Cost value={d.costUsd} unpriced={d.unpricedRequests} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
