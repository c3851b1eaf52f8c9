import { describe, expect, it } from 'vitest';
import type { Measurement } from '../load.ts';
import type {
  GatewayResults,
  LoadRun,
  MeasuredRun,
  MemoryRead,
  Pacing,
  TargetName,
} from './results.ts';
import { judgeGateway } from './targets.ts';

const measured = (requestsPerSecond: number, p50: number, p99: number): Measurement => ({
  responses: requestsPerSecond,
  seconds: 1,
  requestsPerSecond,
  p50,
  p99,
  statusCounts: { 200: requestsPerSecond },
  unanswered: 0,
  loadCpuSeconds: 0.3,
});

const load = (target: TargetName, connections: number, m: Measurement): LoadRun => ({
  target,
  connections,
  result: {
    ok: true,
    value: {
      measured: m,
      cpu: { gateway: 0.5, simulator: 0.2, loadGenerator: 0.3, machine: 1, steal: 0 },
    },
  },
});

const run = (m: Measurement): MeasuredRun => ({
  measured: m,
  cpu: { gateway: 0.7, simulator: 0.2, loadGenerator: 0.1, machine: 1, steal: 0 },
});

const memoryRead = (withoutP50: number, readP50: number): MemoryRead => ({
  memories: 1000,
  questions: [
    {
      question: 'Which cluster runs the ledger service?',
      matches: 470,
      recalled: 30,
    },
  ],
  without: run(measured(1600, withoutP50, 2.5)),
  read: run(measured(1100, readP50, 3.1)),
});

const pacing = (eventsPerRequest: number, readsPerRequest: number): Pacing => ({
  requests: 40,
  eventsPerRequest,
  readsPerRequest,
  gapP50: 2.1,
  gapP99: 3,
});

function results(overrides: Partial<GatewayResults> = {}): GatewayResults {
  return {
    load: [
      load('direct', 1, measured(5000, 0.2, 0.6)),
      load('mnemo', 1, measured(2500, 0.6, 2.3)),
      load('portkey', 1, measured(900, 1.1, 4)),
      load('direct', 16, measured(20000, 0.8, 2)),
      load('mnemo', 16, measured(6000, 2.6, 6)),
      load('portkey', 16, measured(1500, 10, 40)),
    ],
    firstChunk: [
      { target: 'direct', result: { ok: true, value: { requests: 300, p50: 0.3, p99: 1 } } },
      { target: 'mnemo', result: { ok: true, value: { requests: 300, p50: 1.1, p99: 2 } } },
    ],
    pacing: [
      { target: 'direct', result: { ok: true, value: pacing(27, 27) } },
      { target: 'mnemo', result: { ok: true, value: pacing(27, 26) } },
    ],
    memoryRead: { ok: true, value: memoryRead(0.6, 1.4) },
    problems: [],
    ...overrides,
  };
}

const verdicts = (r: GatewayResults) => judgeGateway(r).map((j) => [j.target.name, j.verdict]);

describe('the gateway targets', () => {
  it('judges mnemo against direct and Portkey, figures of the same run', () => {
    const judged = judgeGateway(results());
    expect(judged.map((j) => j.verdict)).toEqual(['pass', 'miss', 'pass', 'pass', 'pass', 'pass']);
    expect(judged.map((j) => j.value)).toEqual([
      expect.closeTo(0.4, 9),
      expect.closeTo(1.7, 9),
      expect.closeTo(0.8, 9),
      26 / 27,
      4,
      expect.closeTo(0.8, 9),
    ]);
    expect(judged[1]?.figure).toBe('1.70 ms (2.30 − 0.60)');
    expect(judged[4]?.figure).toBe('4.00× (6000 ÷ 1500)');
    expect(judged[5]?.target.name).toBe(
      'memory read on 1,000 memories, added p50 (read − without)',
    );
    expect(judged[5]?.figure).toBe('0.80 ms (1.40 − 0.60)');
  });

  it('judges memory read by its own pair of runs, whatever direct measured', () => {
    const slow = results({ memoryRead: { ok: true, value: memoryRead(0.6, 1.75) } });
    expect(judgeGateway(slow)[5]).toMatchObject({
      value: expect.closeTo(1.15, 9),
      figure: '1.15 ms (1.75 − 0.60)',
      verdict: 'miss',
    });
    // At the bound exactly, met; the other targets do not move with it.
    const atBound = results({ memoryRead: { ok: true, value: memoryRead(0.5, 1.5) } });
    expect(verdicts(atBound).map(([, verdict]) => verdict)).toEqual([
      'pass',
      'miss',
      'pass',
      'pass',
      'pass',
      'pass',
    ]);
  });

  it('calls chunks batched when they come in fewer reads, or different events', () => {
    const batched = results({
      pacing: [
        { target: 'direct', result: { ok: true, value: pacing(27, 27) } },
        { target: 'mnemo', result: { ok: true, value: pacing(27, 15) } },
      ],
    });
    expect(verdicts(batched)[3]).toEqual([expect.stringContaining('one for one'), 'miss']);
    const other = results({
      pacing: [
        { target: 'direct', result: { ok: true, value: pacing(27, 27) } },
        { target: 'mnemo', result: { ok: true, value: pacing(26, 26) } },
      ],
    });
    expect(judgeGateway(other)[3]).toMatchObject({ value: 0, verdict: 'miss' });
  });

  it('leaves a target unjudged when a run it needs failed', () => {
    const failed = results({
      load: results().load.map((run) =>
        run.target === 'portkey' ? { ...run, result: { ok: false, message: 'boom' } } : run,
      ),
      firstChunk: [{ target: 'mnemo', result: { ok: false, message: 'boom' } }],
      memoryRead: { ok: false, message: 'boom' },
    });
    const judged = judgeGateway(failed);
    expect(judged.map((j) => j.verdict)).toEqual([
      'pass',
      'miss',
      'unjudged',
      'pass',
      'unjudged',
      'unjudged',
    ]);
    expect(judged[4]?.figure).toBe('–');
    expect(judged[5]).toMatchObject({ value: undefined, figure: '–' });
  });
});
