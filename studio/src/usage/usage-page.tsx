import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { BarChart3, Download } from 'lucide-react';
import { useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { data, inOrg } from '../api/client.ts';
import { apiKeysQuery, membersQuery } from '../api/queries.ts';
import { isManager, useStudio } from '../app/studio-context.tsx';
import { EmptyState } from '../ui/empty-state.tsx';
import { formatInteger } from '../ui/format.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { Cost } from './cost.tsx';
import { RangePicker } from './range-picker.tsx';
import { describeValue, UsageChart } from './usage-chart.tsx';
import { downloadUsageCsv } from './usage-export.ts';
import {
  type DayFigures,
  everyDay,
  type Figures,
  formatDay,
  METRICS,
  type Metric,
  metricValue,
} from './usage-figures.ts';
import {
  apiBounds,
  type DayRange,
  dayCount,
  rangeOfSearch,
  searchOfChoice,
  todayUtc,
} from './usage-range.ts';
import { ByKeyTable, ByKindTable, ByModelTable } from './usage-tables.tsx';
import './usage.css';
import { CodeBlock } from '../ui/code-block.tsx';

type Grouping = 'day' | 'model' | 'key' | 'kind';

/**
 * What the chat interface (/v1) was used for in a range of days: totals, a chart by day, and
 * tables by model and by API key, and by kind once memories were learned from chat calls;
 * members see their own calls, owners and admins everyone's.
 */
export function UsagePage() {
  const { org } = useStudio();
  const [search, setSearch] = useSearchParams();
  const range = rangeOfSearch(search, todayUtc());
  const manager = isManager(org);
  const exporting = useExport(range);

  const byDay = useReport('day', range);
  const byModel = useReport('model', range);
  const byKey = useReport('key', range);
  const byKind = useReport('kind', range);
  const keys = useKeys();
  const members = useMembers(manager);
  const reports = [byDay, byModel, byKey, byKind];
  const failed = reports.find((q) => q.isError);

  return (
    <Page
      title="Usage"
      subtitle={
        manager
          ? `Calls of the chat interface (/v1) by everyone in ${org.name}.`
          : 'Your calls of the chat interface (/v1).'
      }
      actions={
        <button
          type="button"
          className="button"
          onClick={exporting.start}
          disabled={exporting.busy}
        >
          <Download size={16} aria-hidden="true" />
          {exporting.busy ? 'Exporting…' : 'Export CSV'}
        </button>
      }
    >
      <div className="toolbar usage-toolbar">
        <RangePicker range={range} onChange={(choice) => setSearch(searchOfChoice(choice))} />
        <p className="usage-days muted">
          {formatDay(range.first)} – {formatDay(range.last)}
          <span className="usage-days-note"> · UTC days</span>
        </p>
      </div>
      <ErrorNotice error={exporting.error} />
      <p className="visually-hidden" role="status">
        {exporting.done}
      </p>
      {failed ? (
        <ErrorNotice
          error={failed.error}
          onRetry={() => {
            for (const query of reports) if (query.isError) void query.refetch();
          }}
        />
      ) : byDay.data === undefined ? (
        <Loading what="usage" />
      ) : (
        <div
          className="usage-body"
          aria-busy={reports.some((q) => q.isFetching)}
          data-stale={byDay.isPlaceholderData || undefined}
        >
          {byDay.data.totals.requests === 0 ? (
            <NoCalls range={range} />
          ) : (
            <>
              <Totals totals={byDay.data.totals} />
              <DayChart range={range} days={everyDay(range, byDay.data.groups)} />
              {byModel.data ? <ByModelTable groups={byModel.data.groups} /> : null}
              {byKey.data ? (
                <ByKeyTable
                  groups={byKey.data.groups}
                  keys={new Map((keys.data ?? []).map((key) => [key.id, key]))}
                  members={
                    manager && members.data
                      ? new Map(members.data.map((member) => [member.userId, member]))
                      : undefined
                  }
                />
              ) : null}
              {/* Only chat calls: the table would say nothing the totals do not. */}
              {byKind.data?.groups.some((group) => group.key !== 'chat') ? (
                <ByKindTable groups={byKind.data.groups} />
              ) : null}
              {keys.isError ? <ErrorNotice error={keys.error} onRetry={keys.refetch} /> : null}
            </>
          )}
        </div>
      )}
    </Page>
  );
}

function useReport(groupBy: Grouping, range: DayRange) {
  const { api, org } = useStudio();
  const bounds = apiBounds(range);
  return useQuery({
    queryKey: ['usage', org.id, groupBy, bounds.from, bounds.to],
    queryFn: () =>
      data(
        api.GET('/api/v1/usage', {
          params: { query: { ...bounds, groupBy }, header: inOrg(org.id) },
        }),
      ),
    // Another range keeps the figures shown until its own arrive (no flash of "Loading").
    placeholderData: keepPreviousData,
  });
}

/** The API keys the person may see, to name the keys of the usage rows. */
function useKeys() {
  const { api, org } = useStudio();
  return useQuery(apiKeysQuery(api, org.id));
}

/** The members, to say whose key each is (for those who see everyone's usage). */
function useMembers(enabled: boolean) {
  const { api, org } = useStudio();
  return useQuery({ ...membersQuery(api, org.id), enabled });
}

/** The CSV export of the range: busy while it downloads, its failure as a sentence. */
function useExport(range: DayRange) {
  const { session, org } = useStudio();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState('');
  const start = () => {
    setBusy(true);
    setError(undefined);
    setDone('');
    downloadUsageCsv(session, org.id, apiBounds(range))
      .then((name) => setDone(`Downloaded ${name}.`))
      .catch(setError)
      .finally(() => setBusy(false));
  };
  return { busy, error, done, start };
}

function Totals(props: { totals: Figures }) {
  const { totals } = props;
  const headingId = useId();
  const tiles = [
    { label: 'Requests', value: formatInteger(totals.requests) },
    { label: 'Prompt tokens', value: formatInteger(totals.promptTokens) },
    { label: 'Completion tokens', value: formatInteger(totals.completionTokens) },
    { label: 'Total tokens', value: formatInteger(totals.totalTokens) },
    {
      label: 'Cost',
      value: <Cost value={totals.costUsd} unpriced={totals.unpricedRequests} />,
    },
  ];
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId} className="visually-hidden">
        Totals
      </h2>
      <dl className="stats usage-totals">
        {tiles.map((tile) => (
          <div key={tile.label} className="stat">
            <dt className="stat-label">{tile.label}</dt>
            <dd className="stat-value">{tile.value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

const METRIC_TITLES: Record<Metric, string> = {
  requests: 'Requests by day',
  tokens: 'Tokens by day',
  cost: 'Cost by day',
};

function DayChart(props: { range: DayRange; days: readonly DayFigures[] }) {
  const { range, days } = props;
  const [metric, setMetric] = useState<Metric>('requests');
  const headingId = useId();
  const name = useId();
  const title = METRIC_TITLES[metric];
  const values = days.map((day) => metricValue(day, metric));
  const known = values.filter((value): value is number => value !== null);
  const total = known.length === values.length ? known.reduce((sum, v) => sum + v, 0) : null;
  const peakIndex = values.reduce<number>(
    (best, value, index) => ((value ?? 0) > (values[best] ?? 0) ? index : best),
    0,
  );
  const peak = days[peakIndex];
  const span = `${formatDay(range.first)} to ${formatDay(range.last)}`;
  // A cost not known for some calls has no total: the chart says so rather than a sum too low.
  const summed = total === null ? 'total not known' : `${describeValue(metric, total)} in total`;
  const label = `Bar chart of ${title.toLowerCase()}, ${span}: ${summed}${
    peak
      ? `, the most on ${formatDay(peak.day)} (${describeValue(metric, values[peakIndex] ?? null)})`
      : ''
  }.`;
  const idle = `${total === null ? 'Total not known' : describeValue(metric, total)} in ${dayCount(range)} days. Point at a bar to read its day.`;

  return (
    <section className="card usage-chart-card" aria-labelledby={headingId}>
      <div className="usage-chart-head">
        <h2 id={headingId}>{title}</h2>
        <fieldset className="segmented">
          <legend className="visually-hidden">Chart shows</legend>
          {METRICS.map((option) => (
            <label key={option.value} className="segment">
              <input
                type="radio"
                name={name}
                checked={metric === option.value}
                onChange={() => setMetric(option.value)}
              />
              <span>{option.label}</span>
            </label>
          ))}
        </fieldset>
      </div>
      <UsageChart days={days} metric={metric} label={label} idle={idle} />
    </section>
  );
}

/** No calls in the range: what the page counts, and how a call gets counted. */
function NoCalls(props: { range: DayRange }) {
  const curl = [
    `curl ${location.origin}/v1/chat/completions \\`,
    '  -H "Authorization: Bearer $MNEMO_API_KEY" \\',
    '  -H "Content-Type: application/json" \\',
    `  -d '{"model": "auto", "messages": [{"role": "user", "content": "Hello"}]}'`,
  ].join('\n');
  return (
    <EmptyState title="No calls in these days" icon={<BarChart3 size={32} />}>
      <p>
        Usage counts the calls of mnemo’s chat interface (<code>/v1</code>) made with an API key:
        requests, tokens and cost, by day, model and key. There were none from{' '}
        {formatDay(props.range.first)} to {formatDay(props.range.last)}.
      </p>
      <p>
        Create a key in <Link to="/settings/api-keys">Settings › API Keys</Link>, then make a call
        with it:
      </p>
      <CodeBlock>{curl}</CodeBlock>
    </EmptyState>
  );
}
