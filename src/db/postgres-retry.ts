/**
 * PostgreSQL aborts a transaction it cannot order with the others — a deadlock (`40P01`), or a
 * serialization failure (`40001`; CockroachDB and YugabyteDB raise it where PostgreSQL would
 * make the transaction wait) — and documents running it again as the answer. Nothing of an
 * aborted transaction was applied, so running the job again is safe.
 */
const RETRYABLE = new Set(['40001', '40P01']);
/** Attempts in all; a conflict that survives them is a 500, as any other failure. */
const ATTEMPTS = 5;
/** The first wait; each later one doubles it, with jitter, so the conflicting jobs spread out. */
const FIRST_WAIT_MS = 5;

export function isRetryableConflict(error: unknown): boolean {
  return error instanceof Error && RETRYABLE.has((error as { code?: unknown }).code as string);
}

/** Runs `transaction` until it commits, again after each conflict abort, at most 5 times. */
export async function retryOnConflict<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryableConflict(error)) throw error;
      const wait = FIRST_WAIT_MS * 2 ** (attempt - 1) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
