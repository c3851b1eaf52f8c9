import { describe, expect, it } from 'vitest';
import type { Measurement } from '../load.ts';
import type { GatewayResults, LoadRun, Pacing, TargetName } from './results.ts';
import { judgeGateway } from './targets.ts';

const measured = (requestsPerSecond: number, p50: number, p99: number): Measurement => ({
  responses: requestsPerSecond,
  seconds: 1,
  requestsPerSecond,
  p50,
  p99,
  statusCounts: { 200: requestsPerSecond },
  unanswered: 0,
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
    problems: [],
    ...overrides,
  };
}

const verdicts = (r: GatewayResults) => judgeGateway(r).map((j) => [j.target.name, j.verdict]);

describe('the gateway targets', () => {
  it('judges mnemo against direct and Portkey, figures of the same run', () => {
    const judged = judgeGateway(results());
    expect(judged.map((j) => j.verdict)).toEqual(['pass', 'miss', 'pass', 'pass', 'pass']);
    expect(judged.map((j) => j.value)).toEqual([
      expect.closeTo(0.4, 9),
      expect.closeTo(1.7, 9),
      expect.closeTo(0.8, 9),
      26 / 27,
      4,
    ]);
    expect(judged[1]?.figure).toBe('1.70 ms (2.30 − 0.60)');
    expect(judged[4]?.figure).toBe('4.00× (6000 ÷ 1500)');
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
    });
    const judged = judgeGateway(failed);
    expect(judged.map((j) => j.verdict)).toEqual(['pass', 'miss', 'unjudged', 'pass', 'unjudged']);
    expect(judged[4]?.figure).toBe('–');
  });
});
