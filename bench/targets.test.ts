import { describe, expect, it } from 'vitest';
import { cpuSecondsBetween, machineCpuSeconds, processCpuSeconds } from './cpu.ts';
import type { Measurement } from './load.ts';
import { type FloorTarget, SCENARIOS, type Scenario } from './scenarios.ts';
import type { ScenarioResult } from './session.ts';
import {
  boundText,
  comparedOn,
  judge,
  judgeAcross,
  measuredTogether,
  SETUP_PAIRS,
  SETUP_TARGETS,
  setupRatio,
} from './targets.ts';

const scenario = (name: string, floorTarget?: FloorTarget): Scenario => ({
  name,
  title: name,
  servers: [],
  ...(floorTarget && { floorTarget }),
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
  loadCpuSeconds: 0.5,
});

/**
 * A run of `requestsPerSecond` whose server and database used `total` cores together (`null`:
 * their CPU could not be read).
 */
const ok = (
  name: string | Scenario,
  requestsPerSecond: number,
  total: number | null = 1,
): ScenarioResult => ({
  scenario: typeof name === 'string' ? scenario(name) : name,
  outcome: {
    ok: true,
    warmup: measured(0),
    measured: measured(requestsPerSecond),
    cpu: {
      servers: [total ?? undefined],
      served: [requestsPerSecond],
      engine: undefined,
      total: total ?? undefined,
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

describe('targets against the floors', () => {
  const getOne = scenario('get-one', { floor: 'http', min: 0.3 });
  const list = scenario('list-100', { floor: 'fastify', min: 0.3 });

  it('holds each scenario to the floor its target names, and shows both ratios', () => {
    const { scenarios } = judge([
      ok('floor', 20_000),
      ok('floor-http', 40_000),
      ok(getOne, 10_000),
      ok(list, 8_000),
    ]);
    const [fastify, http, one, all] = scenarios;
    expect([fastify?.verdict, http?.verdict]).toEqual(['baseline', 'baseline']);
    expect(http?.toFloor.fastify).toBeCloseTo(2);
    expect(one?.toFloor).toEqual({ fastify: 0.5, http: 0.25 });
    expect(one?.targets).toEqual(['≥ 0.30× http floor']);
    expect(one?.verdict).toBe('miss');
    expect(all?.targets).toEqual(['≥ 0.30× floor']);
    expect(all?.verdict).toBe('pass');
  });

  it('holds a control to no target of its own', () => {
    const [one] = judge([ok(getOne, 10_000)], false).scenarios;
    expect(one?.targets).toEqual([]);
    expect(one?.verdict).toBe('none');
    expect(judge([failed('get-one')], false).scenarios[0]?.verdict).toBe('failed');
  });

  it('does not judge against a floor that was not measured', () => {
    const [one] = judge([ok(getOne, 10_000), ok('floor', 20_000)]).scenarios;
    expect(one?.toFloor.http).toBeUndefined();
    expect(one?.verdict).toBe('unjudged');
  });
});

describe('targets between setups', () => {
  // CPU per request (total cores ÷ req/s): sqlite×1 100 µs on get-one, 200 µs on post.
  const runs = [
    run('sqlite-1', [ok('floor', 20_000), ok('get-one', 10_000, 1), ok('post', 5_000, 1)]),
    run('postgres-1', [
      ok('floor', 25_000),
      ok('get-one', 6_500, 1.235),
      ok('list-100', 4_000, 1.2),
      ok('post', 1_500, 0.6),
    ]),
    run('postgres-2', [
      ok('floor', 20_000),
      ok('get-one', 7_000, 1.6),
      ok('list-100', 5_000, 1.6),
      ok('post', 1_800, 0.8),
    ]),
  ];

  it('compares raw req/s, and each over its own floor for reading', () => {
    const pair = { subject: 'postgres-1', base: 'sqlite-1', measure: 'req/s' } as const;
    const ratio = setupRatio(runs, 'get-one', pair);
    expect(ratio?.ratio).toBeCloseTo(0.65);
    expect(ratio?.floorNormalised).toBeCloseTo(6_500 / 25_000 / (10_000 / 20_000));
  });

  it('compares the CPU per request of servers and database together', () => {
    const pair = { subject: 'postgres-1', base: 'sqlite-1', measure: 'cpu/req' } as const;
    const ratio = setupRatio(runs, 'get-one', pair);
    expect(ratio?.subject).toBeCloseTo(190e-6);
    expect(ratio?.base).toBeCloseTo(100e-6);
    expect(ratio?.ratio).toBeCloseTo(1.9);
    expect(ratio?.floorNormalised).toBeUndefined();
  });

  it('judges every target whose setups and scenario ran, each by its measure', () => {
    const verdicts = judgeAcross(runs).map((c) => [
      c.target.scenario,
      c.target.subject,
      c.target.measure,
      c.verdict,
    ]);
    expect(verdicts).toEqual([
      ['get-one', 'postgres-1', 'req/s', 'pass'], // 0.65 ≥ 0.50
      ['get-one', 'postgres-1', 'cpu/req', 'pass'], // 1.90 ≤ 2.00
      ['post', 'postgres-1', 'req/s', 'miss'], // 0.30 < 0.40
      ['get-one', 'postgres-2', 'cpu/req', 'miss'], // 229 / 190 µs = 1.20 > 1.15
      ['list-100', 'postgres-2', 'cpu/req', 'pass'], // 320 / 300 µs = 1.07
      ['post', 'postgres-2', 'cpu/req', 'pass'], // 444 / 400 µs = 1.11
    ]);
  });

  it('leaves out a target whose setup was not run, and does not judge a failed run', () => {
    const [sqlite, pg1] = runs;
    if (!sqlite || !pg1) throw new Error('fixture');
    expect(judgeAcross([sqlite])).toEqual([]);
    const broken = [sqlite, run('postgres-1', [ok('floor', 25_000), failed('get-one')])];
    expect(judgeAcross(broken).map((c) => c.verdict)).toEqual(['unjudged', 'unjudged']);
  });

  it('leaves unjudged a CPU per request that could not be read, not the req/s beside it', () => {
    const [sqlite] = runs;
    if (!sqlite) throw new Error('fixture');
    const unread = [sqlite, run('postgres-1', [ok('get-one', 6_500, null)])];
    expect(judgeAcross(unread).map((c) => [c.target.measure, c.verdict])).toEqual([
      ['req/s', 'pass'],
      ['cpu/req', 'unjudged'],
    ]);
  });

  it('shows each compared pair of setups once per measure, and each bound its way', () => {
    expect(SETUP_PAIRS).toEqual([
      { subject: 'postgres-1', base: 'sqlite-1', measure: 'req/s' },
      { subject: 'postgres-1', base: 'sqlite-1', measure: 'cpu/req' },
      { subject: 'postgres-2', base: 'postgres-1', measure: 'cpu/req' },
      { subject: 'postgres-2', base: 'postgres-2-apart', measure: 'cpu/req' },
    ]);
    expect(SETUP_TARGETS.map(boundText)).toEqual([
      '≥ 0.50×',
      '≤ 2.00×',
      '≥ 0.40×',
      '≤ 1.15×',
      '≤ 1.15×',
      '≤ 1.15×',
      '≤ 1.15×',
      '≤ 1.15×',
      '≤ 1.15×',
    ]);
  });

  it('measures in turns the scenarios a target compares', () => {
    expect(measuredTogether(SCENARIOS).map((group) => group.map((s) => s.name))).toEqual([
      ['floor', 'floor-http', 'get-one', 'list-100'],
      ['post'],
      ['patch'],
      ['pull-1k', 'pull-100k'],
    ]);
    const alone = SCENARIOS.filter((s) => ['get-one', 'post'].includes(s.name));
    expect(measuredTogether(alone).map((group) => group.map((s) => s.name))).toEqual([
      ['get-one'],
      ['post'],
    ]);
  });

  it('runs a control only on the scenarios a target compares it on', () => {
    expect(
      SCENARIOS.filter((s) => comparedOn('postgres-2-apart', s.name)).map((s) => s.name),
    ).toEqual(['get-one', 'list-100', 'post']);
    expect(comparedOn('postgres-2', 'patch')).toBe(false);
    expect(comparedOn('postgres-1', 'get-one')).toBe(true);
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
