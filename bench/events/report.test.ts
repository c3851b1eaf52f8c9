import { describe, expect, it } from 'vitest';
import {
  EVENTS_TARGETS,
  type EventsFigures,
  type EventsRun,
  formatEvents,
  missesEventsTargets,
  turnRatio,
  verdictOf,
} from './report.ts';

const figures = (over: EventsFigures = {}): EventsFigures => ({
  latencyProcesses: 2,
  adds: 350,
  updates: 100,
  deletes: 50,
  latencyCount: 500,
  latencyP50Ms: 4.2,
  latencyP90Ms: 8.5,
  latencyP99Ms: 21,
  latencyMaxMs: 140,
  beforeAnswer: 0,
  lost: 0,
  outOfOrder: 0,
  unexpected: 0,
  streams: 1000,
  accounts: 50,
  openSeconds: 2.5,
  rssIdleMb: 280,
  rssOpenMb: 300,
  rssAfterMb: 330,
  rssCycledMb: 333,
  cycles: 3,
  idleCpuNone: 0.004,
  idleCpuOpen: 0.012,
  getNonePerSecond: 4000,
  getOpenPerSecond: 3900,
  getNoneP99Ms: 30,
  getOpenP99Ms: 31.5,
  getNoneCpuUs: 60,
  getOpenCpuUs: 61,
  getRatio: { median: 0.975, least: 0.91, most: 1.04 },
  getNoise: { median: 1.02, least: 0.88, most: 1.1 },
  getCpuRatio: { median: 1.017, least: 0.96, most: 1.08 },
  getCpuNoise: { median: 0.99, least: 0.93, most: 1.05 },
  ...over,
});

const run = (engine: string, over: EventsFigures = {}, failures: string[] = []): EventsRun => ({
  engine,
  figures: figures(over),
  failures,
});

/** The cells of a row of a Markdown table, trimmed. */
const cells = (line: string | undefined) =>
  (line ?? '')
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());

/** The rows of the table after the line starting `lead`, its header first, its rule left out. */
const tableAfter = (text: string, lead: string) => {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(lead));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\| -/.test(line)) continue;
    if (line.startsWith('| ')) rows.push(cells(line));
    else if (rows.length > 0) break;
  }
  return rows;
};

const setting = {
  writesPerSecond: 50,
  seconds: 10,
  warmup: 3,
  connections: 100,
  slice: 2,
  idleSeconds: 21,
};

describe('the change streams targets', () => {
  it('judges each at its bound', () => {
    const { latencyP50, latencyP99, streamsMemory, streamsThroughput } = EVENTS_TARGETS;
    const pg = (over: EventsFigures) => ({ engine: 'postgres', figures: figures(over) });
    expect(verdictOf(latencyP50, pg({ latencyP50Ms: 50 }))).toBe('met');
    expect(verdictOf(latencyP50, pg({ latencyP50Ms: 50.1 }))).toBe('missed');
    expect(verdictOf(latencyP99, pg({ latencyP99Ms: 1000 }))).toBe('met');
    expect(verdictOf(latencyP99, pg({ latencyP99Ms: 1001 }))).toBe('missed');
    expect(verdictOf(streamsMemory, pg({ rssOpenMb: 330 }))).toBe('met');
    expect(verdictOf(streamsMemory, pg({ rssOpenMb: 330.5 }))).toBe('missed');
    const turns = (median: number) => ({ getRatio: { median, least: 0.5, most: 1.5 } });
    expect(verdictOf(streamsThroughput, pg(turns(0.95)))).toBe('met');
    expect(verdictOf(streamsThroughput, pg(turns(0.949)))).toBe('missed');
  });

  it("judges the latency on PostgreSQL only: SQLite's is the baseline", () => {
    const slow = { latencyP50Ms: 80, latencyP99Ms: 2000 };
    expect(verdictOf(EVENTS_TARGETS.latencyP50, run('sqlite', slow))).toBe('not judged');
    expect(verdictOf(EVENTS_TARGETS.latencyP99, run('sqlite', slow))).toBe('not judged');
    expect(missesEventsTargets([run('sqlite', slow)])).toBe(false);
    expect(missesEventsTargets([run('postgres', slow)])).toBe(true);
  });

  it('leaves a figure not measured unjudged, neither met nor missed', () => {
    const partial: EventsRun = { engine: 'postgres', figures: { streams: 1000 }, failures: ['x'] };
    expect(verdictOf(EVENTS_TARGETS.latencyP50, partial)).toBe('not measured');
    expect(verdictOf(EVENTS_TARGETS.streamsMemory, run('sqlite', { rssIdleMb: undefined }))).toBe(
      'not measured',
    );
    expect(missesEventsTargets([partial])).toBe(false);
  });

  it('counts a miss on any engine', () => {
    const runs = [
      run('sqlite'),
      run('postgres', { getRatio: { median: 0.8, least: 0.7, most: 1 } }),
    ];
    expect(missesEventsTargets(runs)).toBe(true);
    expect(missesEventsTargets(runs.slice(0, 1))).toBe(false);
  });
});

describe('turnRatio', () => {
  it("gives the turns' median, least and most", () => {
    expect(turnRatio([1.1, 0.9, 1.0, 0.5, 1.02])).toEqual({ median: 1, least: 0.5, most: 1.1 });
    expect(turnRatio([1.2, 0.8, 1.0, 0.9])).toEqual({ median: 0.95, least: 0.8, most: 1.2 });
  });

  it('gives nothing of no turn, or of a ratio that is not a number', () => {
    expect(turnRatio([])).toBeUndefined();
    expect(turnRatio([1, Number.NaN])).toBeUndefined();
  });
});

describe('formatEvents', () => {
  it('prints the latency, a column per engine, the targets judged on PostgreSQL alone', () => {
    const text = formatEvents(
      [
        run('sqlite', { latencyProcesses: 1, latencyP50Ms: 0.91, latencyP99Ms: 14.2 }),
        run('postgres', { latencyP99Ms: 1250, beforeAnswer: 3 }),
      ],
      setting,
    );
    const rows = tableAfter(text, 'Latency: 50 writes a second for 10 s after 3 s');
    expect(rows[0]).toEqual(['measure', 'sqlite', 'postgres', 'target']);
    expect(rows.slice(1)).toEqual([
      ['server processes (stream held on, writes sent to)', '1 (the same)', '2 (one each)', ''],
      ['writes measured (adds, updates, deletes)', '500 (350, 100, 50)', '500 (350, 100, 50)', ''],
      ['events received of them', '500', '500', ''],
      ['answer → event, p50, ms', '0.9', '4.2 met', '≤ 50 (postgres, 2 processes)'],
      ['answer → event, p90, ms', '8.5', '8.5', ''],
      ['answer → event, p99, ms', '14', '1,250 MISSED', '≤ 1,000 (postgres, 2 processes)'],
      ['answer → event, max, ms', '140', '140', ''],
      ['events before their answer (counted 0 ms)', '0', '3', ''],
      ['events lost, out of order, of no write', '0, 0, 0', '0, 0, 0', 'all 0, or the run fails'],
    ]);
  });

  it('prints what the open streams cost, with the noise beside the ratio', () => {
    const text = formatEvents([run('sqlite'), run('postgres', { rssOpenMb: 345 })], setting);
    const rows = tableAfter(text, 'Open streams: on one server process');
    expect(text).toContain('GET one in 5 turns, each a run of 2.0 s with none open');
    expect(rows.slice(1)).toEqual([
      ['streams open (accounts × streams each)', '1,000 (50 × 20)', '1,000 (50 × 20)', ''],
      ['opening them, 50 at a time, s', '2.50', '2.50', ''],
      ['server RSS, none open, MB', '280', '280', ''],
      ['server RSS, all open, MB', '300', '345', ''],
      ['server RSS, open − idle, MB', '+20.0 met', '+65.0 MISSED', '≤ 50'],
      ['per stream, kB', '20.5', '66.6', ''],
      ['server RSS after the GET one turns, none open, MB', '330', '330', ''],
      ['server RSS after opening and closing all n more times, MB (n)', '333 (3)', '333 (3)', ''],
      ['server RSS kept per opening and closing of all, MB', '+1.0', '+1.0', ''],
      [
        'server CPU idle 21 s, none open / all open (a round of pings)',
        '0.4% / 1.2%',
        '0.4% / 1.2%',
        '',
      ],
      ['GET one, req/s, none open (100 connections, 10 s × 2)', '4,000', '4,000', ''],
      ['GET one, req/s, all open (10 s)', '3,900', '3,900', ''],
      ["GET one, req/s, all open ÷ none, the turns' median", '0.975 met', '0.975 met', '≥ 0.95'],
      ["GET one, req/s, all open ÷ none, the turns' least–most", '0.910–1.040', '0.910–1.040', ''],
      [
        "GET one, req/s, none ÷ none, the turns' median (least–most): the noise",
        '1.020 (0.880–1.100)',
        '1.020 (0.880–1.100)',
        '',
      ],
      ['GET one, p99 ms, none / all open', '30.00 / 31.50', '30.00 / 31.50', ''],
      ['server CPU per GET one, µs, none / all open', '60.0 / 61.0', '60.0 / 61.0', ''],
      [
        "server CPU per GET one, all open ÷ none, the turns' median (least–most)",
        '1.017 (0.960–1.080)',
        '1.017 (0.960–1.080)',
        '',
      ],
      [
        "server CPU per GET one, none ÷ none, the turns' median (least–most)",
        '0.990 (0.930–1.050)',
        '0.990 (0.930–1.050)',
        '',
      ],
    ]);
  });

  it('shows what a failed engine measured before its failures, and the failures', () => {
    const failed: EventsRun = {
      engine: 'postgres',
      figures: { latencyProcesses: 2, adds: 350, updates: 100, deletes: 50, lost: 2 },
      failures: ['latency: 2 lost', 'open streams: GET /api/v1/memory/events: 429'],
    };
    const text = formatEvents([failed], setting);
    const latency = tableAfter(text, 'Latency:');
    expect(latency[4]).toEqual(['answer → event, p50, ms', '–', '≤ 50 (postgres, 2 processes)']);
    expect(latency[9]).toEqual([
      'events lost, out of order, of no write',
      '2, 0, 0',
      'all 0, or the run fails',
    ]);
    const streams = tableAfter(text, 'Open streams:');
    expect(streams[1]).toEqual(['streams open (accounts × streams each)', '–', '']);
    expect(streams[10]).toEqual([
      'server CPU idle 21 s, none open / all open (a round of pings)',
      '–',
      '',
    ]);
    expect(text.split('\n').slice(-2)).toEqual([
      'postgres: FAILED: latency: 2 lost',
      'postgres: FAILED: open streams: GET /api/v1/memory/events: 429',
    ]);
  });
});
