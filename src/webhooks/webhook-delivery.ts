import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Agent, request } from 'undici';
import { OPERATOR_ACTOR_ID, recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { WebhookDeliveryStatus } from '../db/tables.ts';
import { isoTime } from '../platform/iso-time.ts';
import { onEventsRecorded } from './webhook-outbox.ts';
import { type SecretBox, signedHeaders, Webhook } from './webhook-secrets.ts';
import {
  guardedLookup,
  type Resolve,
  systemResolve,
  type TargetPolicy,
  TargetRefused,
  urlProblem,
} from './webhook-targets.ts';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDue,
  claimedDeliveries,
  claimNext,
  createDueCheck,
  createPruneCheck,
  createRecordDeliveredPostgres,
  disableWebhook,
  dropDeliveredPayload,
  dropPayload,
  insertTestDelivery,
  pruneDelivered,
  recordAttempt,
  releaseClaims,
} from './webhooks.repository.ts';

/**
 * How long a failing delivery is retried: after the n-th failed attempt it waits `delaysMs[n-1]`
 * (± `jitter` of it), past those a random wait in `repeatMs`; a delivery that fails again once
 * `windowMs` have passed since its failures began is given up, and its webhook disabled.
 */
export interface RetrySchedule {
  readonly delaysMs: readonly number[];
  readonly repeatMs: readonly [number, number];
  readonly windowMs: number;
  readonly jitter: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then every 2 to 4 h, for 24 h (docs/webhooks.md). */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  delaysMs: [5_000, 30_000, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR],
  repeatMs: [2 * HOUR, 4 * HOUR],
  windowMs: 24 * HOUR,
  jitter: 0.1,
};

/** The wait after the `failures`-th failed attempt in a row (1 for the first). */
export function retryDelay(
  schedule: RetrySchedule,
  failures: number,
  random: () => number = Math.random,
): number {
  const fixed = schedule.delaysMs[failures - 1];
  if (fixed !== undefined) return Math.round(fixed * (1 + schedule.jitter * (2 * random() - 1)));
  const [least, most] = schedule.repeatMs;
  return Math.round(least + (most - least) * random());
}

export interface DeliveryOptions {
  readonly schedule: RetrySchedule;
  /** One attempt's limit, connection to the end of the response's head. */
  readonly timeoutMs: number;
  /** A claim's life: longer than an attempt. A process killed mid-attempt is replaced after it. */
  readonly leaseMs: number;
  /** How often a worker looks for work it was not told of (another process's writes). */
  readonly pollMs: number;
  /** Deliveries one process makes at once. */
  readonly concurrency: number;
  /** How much of a response's body the log keeps. */
  readonly responseBytes: number;
  /** How long delivered deliveries stay in the log. */
  readonly retentionMs: number;
  /** Resolves a target's name (tests give a DNS of their own). */
  readonly resolve: Resolve;
  readonly now: () => number;
}

export const DEFAULT_DELIVERY_OPTIONS: DeliveryOptions = {
  schedule: DEFAULT_RETRY_SCHEDULE,
  timeoutMs: 10_000,
  leaseMs: 15_000,
  pollMs: 500,
  concurrency: 32,
  responseBytes: 1024,
  retentionMs: 7 * 24 * HOUR,
  resolve: systemResolve,
  now: Date.now,
};

/** The notification channel new deliveries wake workers on (migration 2026-12-01T00_webhooks). */
const WAKE_CHANNEL = 'mnemo_webhooks';

/** How often delivered deliveries past their retention are removed. */
const PRUNE_EVERY_MS = HOUR;

export interface WebhookDeliveryDeps {
  readonly database: Database;
  readonly secrets: SecretBox;
  readonly policy: TargetPolicy;
  readonly log: FastifyBaseLogger;
  readonly options?: Partial<DeliveryOptions> | undefined;
}

/** A delivery's attempt as the API answers a test: what happened. */
export interface TestOutcome {
  readonly deliveryId: string;
}

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;

/**
 * The delivery worker (docs/design.md §3.9), one in every process: it claims due deliveries
 * from the outbox (a lease), sends each signed by the Standard Webhooks specification, and
 * records the outcome: delivered after a 2xx, else retried with backoff, and after 24 hours of
 * failures given up and its webhook disabled. A store's events go to each webhook in order: the
 * next is not claimed while an earlier one is not delivered. At least once: a delivery is
 * marked delivered only after its 2xx, and one whose process died mid-attempt is claimed again
 * once its lease runs out.
 *
 * Targets are checked when connected to (webhook-targets.ts); no redirect is followed (a 3xx
 * is a failed attempt); a response's body is read up to `responseBytes` for the log.
 */
export function createWebhookDelivery(deps: WebhookDeliveryDeps) {
  const { database, secrets, policy, log } = deps;
  const options: DeliveryOptions = { ...DEFAULT_DELIVERY_OPTIONS, ...deps.options };
  const { now } = options;
  const token = randomUUID();
  const agent = new Agent({
    connect: { lookup: guardedLookup(policy, options.resolve), timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 4_000,
  });
  const anyDue = createDueCheck(database.db, database.dialect);
  const anyDeliveredBefore = createPruneCheck(database.db);
  const recordDeliveredPostgres =
    database.dialect === 'postgres' ? createRecordDeliveredPostgres(database.db) : undefined;
  /** Signers by sealed secret: the secret is opened and decoded once. */
  const signers = new Map<string, Webhook>();
  const inFlight = new Map<string, AbortController>();
  const settled = new Set<Promise<void>>();
  let stopped = false;
  let started = false;
  let wake: (() => void) | undefined;
  let nudged = false;
  let loop: Promise<void> | undefined;
  let lastError = 0;
  /** The first look for deliveries past their retention is an interval after the start. */
  let lastPrune = now();

  async function signerOf(webhookId: string, sealed: string): Promise<Webhook> {
    let signer = signers.get(sealed);
    if (!signer) {
      if (signers.size > 1000) signers.clear();
      signer = new Webhook(await secrets.open(webhookId, sealed));
      signers.set(sealed, signer);
    }
    return signer;
  }

  /** Sends one delivery; answers what happened, never throws. */
  async function attempt(delivery: ClaimedDelivery, signal: AbortSignal): Promise<AttemptOutcome> {
    const started = now();
    const outcome = (fields: Partial<AttemptOutcome>): AttemptOutcome => ({
      at: started,
      status: null,
      latencyMs: null,
      error: null,
      responseBody: null,
      ...fields,
    });
    if (delivery.payload === null) {
      return outcome({ error: "the event's body is no longer kept" });
    }
    const problem = urlProblem(delivery.url, policy);
    if (problem) return outcome({ error: `refused: ${problem}` });
    const body = JSON.stringify({
      type: delivery.type,
      timestamp: isoTime(delivery.event_at),
      data: JSON.parse(delivery.payload) as unknown,
    });
    const clock = performance.now();
    try {
      const signer = await signerOf(delivery.webhook_id, delivery.secret);
      const response = await request(delivery.url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'mnemo-webhooks',
          ...signedHeaders(signer, delivery.event_id, new Date(started), body),
        },
        body,
        signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]),
      });
      const responseBody = await readSome(response.body, options.responseBytes);
      const latencyMs = Math.round(performance.now() - clock);
      const status = response.statusCode;
      if (status >= 200 && status < 300) return outcome({ status, latencyMs, responseBody });
      const location = response.headers.location;
      const error =
        status >= 300 && status < 400
          ? `redirect not followed (HTTP ${status}${typeof location === 'string' ? ` to ${location}` : ''})`
          : `HTTP ${status}`;
      return outcome({ status, latencyMs, responseBody, error });
    } catch (error) {
      const latencyMs = Math.round(performance.now() - clock);
      return outcome({ latencyMs, error: describeFailure(error, options.timeoutMs) });
    }
  }

  /**
   * Records `result` of `delivery`'s attempt: delivered, retried later, or given up. Delivered,
   * the store's next delivery is claimed in the same transaction when it is due: answered, to
   * be sent next.
   */
  async function record(
    delivery: ClaimedDelivery,
    result: AttemptOutcome,
  ): Promise<ClaimedDelivery | undefined> {
    const at = now();
    if (result.error === null) {
      if (recordDeliveredPostgres) {
        // One statement, committed on its own: atomic, and durable when it returns (a
        // transaction around it would cost two more round trips a delivery).
        const chain = !stopped && delivery.store_key !== null;
        const done = await recordDeliveredPostgres({ id: delivery.id, token }, result, {
          now: at,
          leaseMs: options.leaseMs,
          chain,
        });
        return done.next;
      }
      return database.write(async (trx) => {
        const mine = await recordAttempt(
          trx,
          { id: delivery.id, token },
          { ...result, next: 'delivered', nextAttemptAt: null, retrySince: null },
        );
        if (!mine) return undefined;
        await dropDeliveredPayload(trx, delivery.event_seq);
        if (stopped || delivery.store_key === null) return undefined;
        return claimNext(
          trx,
          {
            webhookId: delivery.webhook_id,
            storeKey: delivery.store_key,
            eventSeq: delivery.event_seq,
          },
          { now: at, leaseMs: options.leaseMs, token },
        );
      });
    }
    const failures = delivery.attempts + 1;
    const since = delivery.retry_since ?? result.at;
    // Measured between attempts' starts: an answer slow to come does not shorten the window.
    const givenUp = result.at - since >= options.schedule.windowMs;
    const next: WebhookDeliveryStatus = givenUp ? 'failed' : 'retrying';
    await database.write(async (trx) => {
      const mine = await recordAttempt(
        trx,
        { id: delivery.id, token },
        {
          ...result,
          next,
          nextAttemptAt: givenUp ? null : at + retryDelay(options.schedule, failures),
          retrySince: since,
        },
      );
      if (!mine || !givenUp) return;
      const reason = `deliveries failed for ${duration(result.at - since)} (last: ${result.error})`;
      if (await disableWebhook(trx, delivery.webhook_id, reason, at)) {
        await recordAudit(trx, {
          orgId: delivery.org_id,
          actorId: OPERATOR_ACTOR_ID,
          targetId: delivery.webhook_id,
          action: 'webhook.disable',
          details: { webhookId: delivery.webhook_id, reason },
        });
        log.warn({ webhookId: delivery.webhook_id, reason }, 'webhook disabled');
      }
    });
    return undefined;
  }

  function deliver(delivery: ClaimedDelivery): void {
    const abort = new AbortController();
    inFlight.set(delivery.id, abort);
    const done = attempt(delivery, abort.signal)
      .then(async (result) => {
        if (abort.signal.aborted) return;
        const next = await record(delivery, result);
        if (next) deliver(next);
      })
      .catch((error: unknown) => {
        // The claim stays: the delivery is made again once its lease runs out.
        failed(error, 'recording a webhook delivery failed');
      })
      .finally(() => {
        inFlight.delete(delivery.id);
        settled.delete(done);
        wake?.();
      });
    settled.add(done);
  }

  function failed(error: unknown, message: string) {
    // Once a minute at most: a store outage would otherwise log every poll.
    if (now() - lastError < MINUTE) return;
    lastError = now();
    log.warn({ err: error }, message);
  }

  async function claimSome(): Promise<number> {
    const room = options.concurrency - inFlight.size;
    if (room <= 0) return 0;
    if (!(await anyDue(database.reader, now()))) return 0;
    const claimed = await database.write((trx) =>
      claimDue(trx, database.dialect, {
        now: now(),
        leaseMs: options.leaseMs,
        token,
        limit: room,
      }),
    );
    for (const delivery of claimed) deliver(delivery);
    if (claimed.length > 0) listen();
    return claimed.length;
  }

  async function prune(): Promise<void> {
    if (now() - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now();
    const before = now() - options.retentionMs;
    if (await anyDeliveredBefore(database.reader, before)) {
      await database.write((trx) => pruneDelivered(trx, before));
    }
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  }

  async function run(): Promise<void> {
    // A write of this process was told of before it committed (on PostgreSQL): looked for
    // again a little later, in case the first look came too early.
    let followUps: number[] = [];
    while (!stopped) {
      let claimed = 0;
      try {
        await prune();
        claimed = await claimSome();
      } catch (error) {
        failed(error, 'claiming webhook deliveries failed');
      }
      if (stopped) break;
      if (nudged) {
        nudged = false;
        followUps = [20, 200];
      }
      if (claimed > 0 && inFlight.size < options.concurrency) continue;
      const next = followUps.shift();
      const full = inFlight.size >= options.concurrency;
      await sleep(full ? options.pollMs : Math.min(next ?? options.pollMs, options.pollMs));
    }
  }

  let stopLocal: (() => void) | undefined;
  let listening: Promise<(() => void) | undefined> | undefined;

  function nudge(): void {
    nudged = true;
    wake?.();
  }

  /**
   * Listens for other processes' deliveries, told at their commit (PostgreSQL's NOTIFY); a gap
   * in the telling (the listening connection lost) is a nudge too. From the first delivery this
   * process sees: one that never sees any holds no listening connection, and finds work by
   * polling.
   */
  function listen(): void {
    if (listening || stopped) return;
    listening = database.notifications
      .listen(WAKE_CHANNEL, nudge, nudge)
      .catch((error: unknown) => {
        failed(error, 'listening for webhook deliveries failed; polling only');
        return undefined;
      });
  }

  return {
    /** Starts the worker: it runs until `close`. */
    start(): void {
      if (started) return;
      started = true;
      stopLocal = onEventsRecorded(() => {
        listen();
        nudge();
      });
      loop = run();
    },

    /**
     * Stops claiming, gives attempts in flight a moment, then lets go of what is left (due at
     * once again, to any process): nothing is lost, at worst sent twice.
     */
    async close(): Promise<void> {
      stopped = true;
      stopLocal?.();
      void listening?.then((stop) => stop?.());
      wake?.();
      await loop;
      if (settled.size > 0) {
        await Promise.race([Promise.all(settled), new Promise((r) => setTimeout(r, 1000))]);
      }
      for (const abort of inFlight.values()) abort.abort();
      await Promise.all(settled);
      await database.write((trx) => releaseClaims(trx, token)).catch(() => undefined);
      await agent.close().catch(() => undefined);
    },

    /** Looks for due deliveries now (a test, a redelivery, a webhook enabled again). */
    nudge,

    /**
     * Sends a `webhook.test` event to the webhook now, once (no retry), and answers the
     * delivery's id; its outcome is in the log.
     */
    async sendTest(webhook: { id: string; orgId: string }): Promise<string> {
      const at = now();
      const deliveryId = randomUUID();
      const eventId = randomUUID();
      const payload = JSON.stringify({ webhook: { id: webhook.id } });
      const seq = await database.write((trx) =>
        insertTestDelivery(trx, {
          eventId,
          deliveryId,
          orgId: webhook.orgId,
          webhookId: webhook.id,
          type: 'webhook.test',
          payload,
          at,
          token,
          leaseMs: options.leaseMs,
        }),
      );
      const [delivery] = await claimedDeliveries(database.db, [deliveryId]);
      if (!delivery) throw new Error('a test delivery just written could not be read');
      const result = await attempt(delivery, new AbortController().signal);
      await database.write(async (trx) => {
        await recordAttempt(
          trx,
          { id: deliveryId, token },
          {
            ...result,
            next: result.error === null ? 'delivered' : 'failed',
            nextAttemptAt: null,
            retrySince: null,
          },
        );
        await dropPayload(trx, seq);
      });
      return deliveryId;
    },
  };
}

/** `25 hours`, `3 minutes`, `40 seconds`: how long, in words for people. */
function duration(ms: number): string {
  const [amount, unit] =
    ms >= 2 * HOUR
      ? [Math.floor(ms / HOUR), 'hours']
      : ms >= 2 * MINUTE
        ? [Math.floor(ms / MINUTE), 'minutes']
        : [Math.max(1, Math.floor(ms / 1000)), 'seconds'];
  return amount === 1 ? `1 ${unit.slice(0, -1)}` : `${amount} ${unit}`;
}

/** Up to `limit` bytes of a body as text; the rest is not read. */
async function readSome(
  body: AsyncIterable<Buffer> & { destroy?: () => void },
  limit: number,
): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  if (size === 0) return null;
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/** Why an attempt got no answer, in words for the log. */
function describeFailure(error: unknown, timeoutMs: number): string {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof TargetRefused) return cause.message;
  }
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || /timeout/i.test((error as { code?: string }).code ?? '')) {
      return `no answer within ${timeoutMs / 1000} s`;
    }
    const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown })?.code;
    const message = error.cause instanceof Error ? error.cause.message : error.message;
    return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}
