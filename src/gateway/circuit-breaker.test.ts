import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createCircuitBreaker } from './circuit-breaker.ts';

function clocked() {
  let now = 1_000_000;
  const breaker = createCircuitBreaker({
    threshold: 3,
    cooldownMs: 1000,
    maxCooldownMs: 4000,
    now: () => now,
  });
  return { breaker, advance: (ms: number) => (now += ms) };
}

describe('a circuit', () => {
  test('opens after three failures in a row, for the cooldown, then admits one trial', () => {
    const { breaker, advance } = clocked();
    breaker.failed('p');
    breaker.failed('p');
    expect(breaker.admits('p')).toBe(true);
    breaker.failed('p');
    expect(breaker.admits('p')).toBe(false);
    expect(breaker.reopensInMs('p')).toBe(1000);
    advance(999);
    expect(breaker.admits('p')).toBe(false);
    advance(1);
    expect(breaker.admits('p')).toBe(true);
    // One trial at a time.
    expect(breaker.admits('p')).toBe(false);
    breaker.succeeded('p');
    expect(breaker.admits('p')).toBe(true);
    expect(breaker.reopensInMs('p')).toBeUndefined();
  });

  test('a failed trial opens it again for twice as long, up to the maximum', () => {
    const { breaker, advance } = clocked();
    for (let i = 0; i < 3; i += 1) breaker.failed('p');
    for (const cooldown of [2000, 4000, 4000]) {
      advance(5000);
      expect(breaker.admits('p')).toBe(true);
      breaker.failed('p');
      expect(breaker.reopensInMs('p')).toBe(cooldown);
    }
  });

  test('a retry-after longer than the cooldown keeps it open that long', () => {
    const { breaker } = clocked();
    for (let i = 0; i < 3; i += 1) breaker.failed('p', 60_000);
    expect(breaker.reopensInMs('p')).toBe(60_000);
  });

  test('a trial that never reports back does not block the provider for good', () => {
    const { breaker, advance } = clocked();
    for (let i = 0; i < 3; i += 1) breaker.failed('p');
    advance(1000);
    expect(breaker.admits('p')).toBe(true);
    advance(999);
    expect(breaker.admits('p')).toBe(false);
    advance(1);
    expect(breaker.admits('p')).toBe(true);
  });

  test('providers are independent', () => {
    const { breaker } = clocked();
    for (let i = 0; i < 3; i += 1) breaker.failed('a');
    expect(breaker.admits('a')).toBe(false);
    expect(breaker.admits('b')).toBe(true);
  });
});

test('property: a success always closes; fewer than three failures in a row never open', () => {
  type Step = { kind: 'fail' } | { kind: 'succeed' } | { kind: 'wait'; ms: number };
  const step = fc.oneof(
    fc.constant<Step>({ kind: 'fail' }),
    fc.constant<Step>({ kind: 'succeed' }),
    fc.integer({ min: 0, max: 5000 }).map<Step>((ms) => ({ kind: 'wait', ms })),
  );
  fc.assert(
    fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
      const { breaker, advance } = clocked();
      let run = 0;
      let everOpened = false;
      for (const s of steps) {
        if (s.kind === 'wait') advance(s.ms);
        else if (s.kind === 'succeed') {
          breaker.succeeded('p');
          run = 0;
          everOpened = false;
          expect(breaker.admits('p')).toBe(true);
          breaker.succeeded('p');
        } else {
          breaker.failed('p');
          run += 1;
          if (run >= 3) everOpened = true;
        }
        if (!everOpened) expect(breaker.reopensInMs('p')).toBeUndefined();
      }
    }),
  );
});
