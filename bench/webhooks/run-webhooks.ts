/**
 * The webhooks part of `npm run bench` (`--only webhooks`), on one server process of each
 * engine asked for (`--setups`): a burst of 10,000 changes, 200 to each of 50 stores (one
 * import request per store, all at once), delivered to a receiver on loopback (node:http in the
 * bench's process, every signature verified with the Standard Webhooks library, answering 204
 * at once). Measured: deliveries a second from the first arrival to the last, and each event's
 * time from its change to its arrival (p50, p99). The run fails unless every change arrived, each
 * store's in the order written, every signature verified.
 *
 * The target (docs/benchmarks.md): at least 500 deliveries a second on each engine.
 */
import { createDatabase } from '../../src/db/database.ts';
import { upsertMembership } from '../../src/tenancy/orgs.repository.ts';
import { startWebhookReceiver } from '../../src/testing/webhook-receiver.ts';
import { expectCall, type MnemoServer, storeOf } from '../api-client.ts';
import { startMnemoServer } from '../processes.ts';
import type { Setup } from '../setups.ts';

const STORES = 50;
const PER_STORE = 200;
/** Deliveries a second each engine must reach. */
export const MIN_DELIVERIES_PER_SECOND = 500;
/** How long the burst may take to arrive whole before the run fails. */
const DELIVERY_TIMEOUT_MS = 120_000;

export interface WebhooksOptions {
  /** One setup per engine (`sqlite-1`, `postgres-1`). */
  readonly setups: readonly Setup[];
  readonly dir: string;
  readonly profileDir: string | undefined;
  readonly log: (line: string) => void;
}

export interface WebhooksRun {
  readonly engine: string;
  readonly writeSeconds?: number;
  readonly deliverySeconds?: number;
  readonly perSecond?: number;
  readonly latencyP50Ms?: number;
  readonly latencyP99Ms?: number;
  readonly repeats?: number;
  readonly failure?: string;
}

export interface WebhooksOutcome {
  readonly broken: boolean;
  readonly missed: boolean;
  readonly json: unknown;
}

export async function benchWebhooks(
  options: WebhooksOptions,
  out: (text: string) => void,
): Promise<WebhooksOutcome> {
  out('## Webhooks: delivery of a burst');
  out('');
  const runs: WebhooksRun[] = [];
  for (const setup of options.setups) runs.push(await runOn(setup, options));
  out(formatWebhooks(runs));
  out('');
  const missed = runs.some(
    (run) => run.perSecond !== undefined && run.perSecond < MIN_DELIVERIES_PER_SECOND,
  );
  return {
    broken: runs.some((run) => run.failure !== undefined),
    missed,
    json: { setting: { stores: STORES, perStore: PER_STORE }, runs },
  };
}

export function formatWebhooks(runs: readonly WebhooksRun[]): string {
  const lines = [
    `${STORES * PER_STORE} changes (${PER_STORE} to each of ${STORES} stores, one import request per store, all at once), delivered to a receiver on loopback that verifies each signature and answers 204; target ≥ ${MIN_DELIVERIES_PER_SECOND} deliveries/s`,
    '',
    '| engine | writes (s) | delivery (s) | deliveries/s | change → arrival p50 (ms) | p99 (ms) | repeats | verdict |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  const fixed = (value: number | undefined, digits = 0) =>
    value === undefined ? '—' : value.toFixed(digits);
  for (const run of runs) {
    const verdict =
      run.failure !== undefined
        ? `failed: ${run.failure}`
        : (run.perSecond ?? 0) >= MIN_DELIVERIES_PER_SECOND
          ? 'ok'
          : 'miss';
    lines.push(
      `| ${run.engine} | ${fixed(run.writeSeconds, 2)} | ${fixed(run.deliverySeconds, 2)} | ${fixed(run.perSecond)} | ${fixed(run.latencyP50Ms)} | ${fixed(run.latencyP99Ms)} | ${run.repeats ?? '—'} | ${verdict} |`,
    );
  }
  return lines.join('\n');
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function runOn(setup: Setup, options: WebhooksOptions): Promise<WebhooksRun> {
  const label = `webhooks-${setup.engine}`;
  const log = (line: string) => options.log(`${label}: ${line}`);
  const receiver = await startWebhookReceiver();
  try {
    const location = await setup.createStore(options.dir, label);
    try {
      const stores = Object.fromEntries(
        Array.from({ length: STORES }, (_, i) => [`store-${i}`, 0]),
      );
      const { server, group } = await startMnemoServer(
        stores,
        location.url,
        { label, profileDir: options.profileDir, processes: 1 },
        undefined,
        {
          MNEMO_RATE_LIMIT_PER_MINUTE: '0',
          MNEMO_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1',
          MNEMO_WEBHOOKS_ALLOW_HTTP: '1',
        },
      );
      try {
        return { engine: setup.engine, ...(await burst(server, location.url, receiver, log)) };
      } finally {
        await group.stop();
      }
    } finally {
      await location.dispose();
    }
  } catch (error) {
    return {
      engine: setup.engine,
      failure: error instanceof Error ? error.message : String(error),
    };
  } finally {
    await receiver.close();
  }
}

async function burst(
  server: MnemoServer,
  databaseUrl: string,
  receiver: Awaited<ReturnType<typeof startWebhookReceiver>>,
  log: (line: string) => void,
) {
  const owner = storeOf(server, 'store-0');
  // The seeded members are members; the first is made an owner, who may subscribe.
  const database = createDatabase(databaseUrl);
  try {
    await upsertMembership(database.db, server.info.orgId, owner.userId, 'owner');
  } finally {
    await database.close();
  }
  const made = await expectCall(
    201,
    server,
    owner,
    'POST',
    `/api/v1/orgs/${server.info.orgId}/webhooks`,
    { url: receiver.url, events: ['memory.created'] },
  );
  receiver.setSecret((made.json() as { secret: string }).secret);

  log(`writing ${STORES * PER_STORE} changes`);
  const written = new Map<string, string[]>();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: STORES }, async (_, i) => {
      const store = storeOf(server, `store-${i}`);
      const response = await expectCall(200, server, store, 'POST', '/api/v1/memory/import', {
        memories: Array.from({ length: PER_STORE }, (_, n) => ({ content: `change ${n} of ${i}` })),
      });
      const { results } = response.json() as { results: { memory: { id: string } }[] };
      written.set(
        store.userId,
        results.map((result) => result.memory.id),
      );
    }),
  );
  const writeSeconds = (performance.now() - started) / 1000;
  log('waiting for the deliveries');
  const total = STORES * PER_STORE;
  const distinct = () => new Set(receiver.received.map((d) => d.id)).size;
  const deadline = performance.now() + DELIVERY_TIMEOUT_MS;
  while (distinct() < total) {
    if (performance.now() > deadline) {
      throw new Error(`${distinct()} of ${total} changes arrived within ${DELIVERY_TIMEOUT_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const arrivals = receiver.received;
  const first = arrivals[0]?.at ?? 0;
  const last = arrivals.at(-1)?.at ?? 0;
  const deliverySeconds = (last - first) / 1000;

  const unverified = arrivals.filter((d) => d.verified !== true);
  if (unverified.length > 0) throw new Error(`${unverified.length} signatures did not verify`);
  for (const [user, ids] of written) {
    const order = [
      ...new Set(
        arrivals
          .filter((d) => (d.event.data.store as { user?: string }).user === user)
          .map((d) => (d.event.data.memory as { id: string }).id),
      ),
    ];
    if (JSON.stringify(order) !== JSON.stringify(ids)) {
      throw new Error(`store ${user}: its changes arrived out of order`);
    }
  }
  // Wall-clock arrival against the change's time (the body's timestamp): same machine, one clock.
  const offset = Date.now() - performance.now();
  const latencies = arrivals
    .map((d) => d.at + offset - Date.parse(d.event.timestamp))
    .sort((a, b) => a - b);
  return {
    writeSeconds,
    deliverySeconds,
    perSecond: arrivals.length / deliverySeconds,
    latencyP50Ms: percentile(latencies, 50),
    latencyP99Ms: percentile(latencies, 99),
    repeats: arrivals.length - total,
  };
}
