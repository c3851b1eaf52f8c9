import { describe, expect, it } from 'vitest';
import { cpuSecondsBetween, machineCpuSeconds, processCpuSeconds } from './cpu.ts';
import type { Measurement } from './load.ts';
import type { Scenario } from './scenarios.ts';
import type { ScenarioResult } from './session.ts';
import { judgeAcross, SETUP_PAIRS, SETUP_TARGETS, setupRatio } from './targets.ts';

const scenario = (name: string): Scenario => ({
  name,
  title: name,
  servers: [],
  prepare: () => Promise.reject(new Error('not run')),
});

const measured = (requestsPerSecond: number): Measurement => ({
  responses: requestsPerSecond,
  seconds: 1,
  requestsPerSecond,
  p50: 1,
  p99: 2,
  statusCounts: {},
  unanswered: 0,
});

const ok = (name: string, requestsPerSecond: number): ScenarioResult => ({
  scenario: scenario(name),
  outcome: {
    ok: true,
    warmup: measured(0),
    measured: measured(requestsPerSecond),
    cpu: {
      servers: [1],
      served: [requestsPerSecond],
      engine: undefined,
      loadGenerator: 0.5,
      machine: 2,
      steal: 0,
    },
  },
});

const failed = (name: string): ScenarioResult => ({
  scenario: scenario(name),
  outcome: { ok: false, stage: 'load', message: 'boom' },
});

const run = (id: string, results: ScenarioResult[]) => ({ setup: { id }, results });

describe('targets between setups', () => {
  const runs = [
    run('sqlite-1', [ok('floor', 20_000), ok('get-one', 10_000), ok('list-100', 9_000)]),
    run('postgres-1', [ok('floor', 25_000), ok('get-one', 6_500), ok('list-100', 4_000)]),
    run('postgres-2', [ok('floor', 20_000), ok('get-one', 7_000), ok('list-100', 5_000)]),
  ];

  it('compares raw req/s, and each over its own floor for reading', () => {
    const ratio = setupRatio(runs, 'get-one', 'postgres-1', 'sqlite-1');
    expect(ratio?.ratio).toBeCloseTo(0.65);
    expect(ratio?.floorNormalised).toBeCloseTo(6_500 / 25_000 / (10_000 / 20_000));
  });

  it('judges every target whose setups and scenario ran', () => {
    const verdicts = judgeAcross(runs).map((c) => [
      c.target.scenario,
      c.target.subject,
      c.target.base,
      c.verdict,
    ]);
    expect(verdicts).toEqual([
      ['get-one', 'postgres-1', 'sqlite-1', 'pass'],
      ['get-one', 'postgres-2', 'postgres-1', 'miss'],
      ['list-100', 'postgres-2', 'postgres-1', 'pass'],
    ]);
  });

  it('leaves out a target whose setup was not run, and does not judge a failed run', () => {
    const [sqlite, pg1] = runs;
    if (!sqlite || !pg1) throw new Error('fixture');
    expect(judgeAcross([sqlite])).toEqual([]);
    const broken = [sqlite, run('postgres-1', [ok('floor', 25_000), failed('get-one')])];
    expect(judgeAcross(broken).map((c) => c.verdict)).toEqual(['unjudged']);
  });

  it('shows each compared pair of setups once', () => {
    expect(SETUP_PAIRS).toEqual([
      { subject: 'postgres-1', base: 'sqlite-1' },
      { subject: 'postgres-2', base: 'postgres-1' },
    ]);
    expect(SETUP_TARGETS.length).toBe(3);
  });
});

describe('CPU readings', () => {
  it('counts what each process used between two readings, a new one from zero', () => {
    const before = new Map([
      [1, 10],
      [2, 5],
    ]);
    const after = new Map([
      [1, 12.5],
      [3, 1],
    ]);
    expect(cpuSecondsBetween(before, after)).toBeCloseTo(3.5);
  });

  it.runIf(process.platform === 'linux')('reads this process and the machine from /proc', () => {
    expect(processCpuSeconds(process.pid)).toBeGreaterThanOrEqual(0);
    const machine = machineCpuSeconds();
    expect(machine?.busy).toBeGreaterThan(0);
    expect(machine?.steal).toBeGreaterThanOrEqual(0);
  });
});
