/**
 * The OpenAI simulator (src/testing/simulators/openai-simulator.ts) as a process of its own, so
 * that it shares no event loop with the load generator or the gateway under test:
 *
 *   node bench/gateway/simulator.ts <chunk delay ms>
 *
 * Takes the key from BENCH_OPENAI_KEY, listens on a free loopback port and prints
 * `bench-simulator {"baseUrl":…}` once it does; closes and exits 0 on SIGTERM.
 */
import { startOpenAiSimulator } from '../../src/testing/simulators/openai-simulator.ts';

export const SIMULATOR_PREFIX = 'bench-simulator ';

/** Forgetting what was recorded, now and then: a long run would otherwise grow without bound. */
const FORGET_EVERY_MS = 1000;

async function main(): Promise<void> {
  const [delay] = process.argv.slice(2);
  const chunkDelayMs = Number(delay);
  const apiKey = process.env.BENCH_OPENAI_KEY;
  if (!Number.isFinite(chunkDelayMs) || chunkDelayMs < 0 || !apiKey) {
    throw new Error('usage: BENCH_OPENAI_KEY=… simulator.ts <chunk delay ms>');
  }
  const simulator = await startOpenAiSimulator({ apiKey, chunkDelayMs });
  const forget = setInterval(() => {
    simulator.requests.length = 0;
  }, FORGET_EVERY_MS);
  process.once('SIGTERM', () => {
    clearInterval(forget);
    simulator.close().finally(() => process.exit(0));
  });
  process.stdout.write(`${SIMULATOR_PREFIX}${JSON.stringify({ baseUrl: simulator.baseUrl })}\n`);
}

if (import.meta.main) await main();
