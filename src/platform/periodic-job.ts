/**
 * Runs `job` now and then every `intervalMs` while the process runs (the timer does not keep it
 * alive); a failure is reported and the next run goes ahead. Returns the function that stops it.
 */
export function runPeriodically(
  job: () => Promise<unknown>,
  intervalMs: number,
  onError: (error: unknown) => void,
): () => void {
  const run = () => {
    job().catch(onError);
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
