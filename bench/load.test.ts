import { describe, expect, it } from 'vitest';
import { combine, type Sampled } from './load.ts';

/** A run of `times` (ms), `seconds` long, as the load generator answers it. */
function run(times: number[], seconds: number, extra: Partial<Sampled['measurement']> = {}) {
  const latencies = Float64Array.from(times).sort();
  return {
    measurement: {
      responses: times.length,
      seconds,
      requestsPerSecond: times.length / seconds,
      p50: Number.NaN,
      p99: Number.NaN,
      statusCounts: { 200: times.length },
      unanswered: 0,
      loadCpuSeconds: 0.1,
      ...extra,
    },
    latencies,
  };
}

describe('combining runs', () => {
  it('adds up the seconds of runs in turn, and takes percentiles of every response', () => {
    const first = run([1, 2, 3, 4], 2);
    const second = run([10, 20, 30, 40, 50, 60], 2, { unanswered: 3 });
    const { measurement, latencies } = combine([first, second], 'in turn');
    expect([...latencies]).toEqual([1, 2, 3, 4, 10, 20, 30, 40, 50, 60]);
    expect(measurement).toEqual({
      responses: 10,
      seconds: 4,
      requestsPerSecond: 2.5,
      p50: 10,
      p99: 60,
      statusCounts: { 200: 10 },
      unanswered: 3,
      loadCpuSeconds: expect.closeTo(0.2, 10),
    });
  });

  it('adds up the rates of runs together, over the longest of their seconds', () => {
    const a = run([5, 1], 2, { statusCounts: { 201: 2 } });
    const b = run([3, 2, 4], 2.5, { statusCounts: { 201: 2, 500: 1 } });
    const { measurement } = combine([a, b], 'together');
    expect(measurement.responses).toBe(5);
    expect(measurement.seconds).toBe(2.5);
    expect(measurement.requestsPerSecond).toBe(2);
    expect(measurement.statusCounts).toEqual({ 201: 4, 500: 1 });
    expect(measurement.p50).toBe(3);
  });

  it('answers no rate and no percentile for no run at all', () => {
    const { measurement } = combine([], 'in turn');
    expect(measurement.responses).toBe(0);
    expect(measurement.requestsPerSecond).toBe(0);
    expect(measurement.p50).toBeNaN();
  });
});
