/**
 * Keeps a failing provider out of the router's choices for a while. After `threshold` failures
 * in a row a provider's circuit opens for `cooldownMs` (or as long as its `retry-after` asks);
 * then one trial call may go (half-open): success closes the circuit, failure opens it again for
 * twice as long, up to `maxCooldownMs`.
 *
 * State is per process: each process learns a provider's health from its own calls, which is
 * what a circuit breaker needs (no process waits on another's bad luck) and costs no store.
 *
 * @example
 * const breaker = createCircuitBreaker();
 * if (breaker.admits('anthropic')) {
 *   ok ? breaker.succeeded('anthropic') : breaker.failed('anthropic', retryAfterMs);
 * }
 */
export interface CircuitBreaker {
  /** Whether a call may go to the provider now; a half-open circuit admits one trial at a time. */
  admits(provider: string): boolean;
  succeeded(provider: string): void;
  /** A failure that says the provider is unwell (unreachable, timeout, 429, 5xx, key refused). */
  failed(provider: string, retryAfterMs?: number): void;
  /** How long until an open circuit lets a trial through; undefined when it is not open. */
  reopensInMs(provider: string): number | undefined;
}

export interface CircuitBreakerOptions {
  readonly threshold?: number;
  readonly cooldownMs?: number;
  readonly maxCooldownMs?: number;
  readonly now?: () => number;
}

interface Circuit {
  failures: number;
  /** Until when it stays open; 0 when closed. */
  openUntil: number;
  cooldownMs: number;
  /** When the half-open circuit's trial call went; 0 when none is under way. */
  trialSince: number;
}

export function createCircuitBreaker(options: CircuitBreakerOptions = {}): CircuitBreaker {
  const threshold = options.threshold ?? 3;
  const baseCooldown = options.cooldownMs ?? 30_000;
  const maxCooldown = options.maxCooldownMs ?? 300_000;
  const now = options.now ?? Date.now;
  const circuits = new Map<string, Circuit>();

  const circuitOf = (provider: string) => {
    let circuit = circuits.get(provider);
    if (!circuit) {
      circuit = { failures: 0, openUntil: 0, cooldownMs: baseCooldown, trialSince: 0 };
      circuits.set(provider, circuit);
    }
    return circuit;
  };

  return {
    admits(provider) {
      const circuit = circuits.get(provider);
      if (!circuit || circuit.openUntil === 0) return true;
      const at = now();
      if (at < circuit.openUntil) return false;
      // A trial that never reported back (its caller went away) does not block forever.
      if (circuit.trialSince !== 0 && at - circuit.trialSince < baseCooldown) return false;
      circuit.trialSince = at;
      return true;
    },
    succeeded(provider) {
      circuits.delete(provider);
    },
    failed(provider, retryAfterMs) {
      const circuit = circuitOf(provider);
      const wasTrial = circuit.trialSince !== 0;
      circuit.trialSince = 0;
      circuit.failures += 1;
      if (!wasTrial && circuit.failures < threshold) return;
      if (wasTrial) circuit.cooldownMs = Math.min(circuit.cooldownMs * 2, maxCooldown);
      circuit.openUntil = now() + Math.max(circuit.cooldownMs, retryAfterMs ?? 0);
    },
    reopensInMs(provider) {
      const until = circuits.get(provider)?.openUntil ?? 0;
      const left = until - now();
      return left > 0 ? left : undefined;
    },
  };
}
