/** The rate limit's windows: the clock's minutes (platform/rate-limit.ts, 60 s by default). */
const MINUTE_MS = 60_000;

/**
 * For a test that spends a budget to its end on the real clock: when less than `roomMs` is left
 * of the clock's minute, waits for the next one. Across a minute's end the ended minute's
 * requests start to fade from the sliding window, and rounding lets one more through than the
 * test counts on.
 */
export async function clearOfMinuteEnd(roomMs: number): Promise<void> {
  const left = MINUTE_MS - (Date.now() % MINUTE_MS);
  if (left < roomMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
