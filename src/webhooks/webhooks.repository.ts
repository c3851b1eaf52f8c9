import { type ExpressionBuilder, type Kysely, type Selectable, sql } from 'kysely';
import type { Dialect } from '../db/database.ts';
import { prepareQuery, type QueryRunner } from '../db/prepared-query.ts';
import type {
  Tables,
  WebhookDeliveriesTable,
  WebhookDeliveryStatus,
  WebhooksTable,
} from '../db/tables.ts';
import type { KeysetPosition } from '../platform/paging.ts';

export type WebhookRow = Selectable<WebhooksTable>;

export async function insertWebhook(db: Kysely<Tables>, row: WebhookRow): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export async function findWebhook(
  db: Kysely<Tables>,
  orgId: string,
  webhookId: string,
): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('id', '=', webhookId)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
}

export async function listWebhooks(db: Kysely<Tables>, orgId: string): Promise<WebhookRow[]> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function updateWebhook(
  db: Kysely<Tables>,
  webhookId: string,
  changes: Partial<Omit<WebhookRow, 'id' | 'org_id' | 'created_at' | 'created_by'>>,
): Promise<void> {
  await db.updateTable('webhooks').set(changes).where('id', '=', webhookId).execute();
}

/**
 * Deletes a webhook with its deliveries, and the events no other webhook still has to deliver
 * or show: nothing it was to send waits anywhere.
 */
export async function deleteWebhook(db: Kysely<Tables>, webhookId: string): Promise<void> {
  const events = await db
    .selectFrom('webhook_deliveries')
    .select('event_seq')
    .where('webhook_id', '=', webhookId)
    .execute();
  await db.deleteFrom('webhooks').where('id', '=', webhookId).execute();
  await deleteOrphanEvents(
    db,
    events.map((e) => e.event_seq),
  );
}

const EVENTS_PER_STATEMENT = 500;

/** Events no delivery refers to any more: what is left of them is removed. */
const unreferenced = (eb: ExpressionBuilder<Tables, 'webhook_events'>) =>
  eb.not(
    eb.exists(
      eb
        .selectFrom('webhook_deliveries as d')
        .select('d.id')
        .whereRef('d.event_seq', '=', 'webhook_events.seq'),
    ),
  );

/** Of events `seqs`, deletes those no delivery refers to any more. */
async function deleteOrphanEvents(db: Kysely<Tables>, seqs: readonly number[]): Promise<void> {
  for (let i = 0; i < seqs.length; i += EVENTS_PER_STATEMENT) {
    await db
      .deleteFrom('webhook_events')
      .where('seq', 'in', seqs.slice(i, i + EVENTS_PER_STATEMENT))
      .where(unreferenced)
      .execute();
  }
}

/**
 * Resumes a webhook enabled again: its failed deliveries wait again, due now, their retry window
 * started afresh (the order per store is kept: they are the oldest of their stores).
 */
export async function resumeFailedDeliveries(
  db: Kysely<Tables>,
  webhookId: string,
  at: number,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: at, retry_since: null })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'failed')
    .where('store_key', 'is not', null)
    .execute();
}

/** A delivery with what the log shows of its event. */
export type DeliveryRow = Selectable<WebhookDeliveriesTable> & {
  readonly event_id: string;
  readonly type: string;
  readonly store: string | null;
  readonly payload_kept: number | boolean;
};

const deliveries = (db: Kysely<Tables>) =>
  db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.seq', 'd.event_seq')
    .selectAll('d')
    .select(['e.id as event_id', 'e.type', 'e.store'])
    .select((eb) =>
      eb.case().when('e.payload', 'is', null).then(0).else(1).end().as('payload_kept'),
    );

/** A page of a webhook's deliveries, newest first, after `position`. */
export async function pageDeliveries(
  db: Kysely<Tables>,
  webhookId: string,
  limit: number,
  position?: KeysetPosition,
): Promise<DeliveryRow[]> {
  return deliveries(db)
    .where('d.webhook_id', '=', webhookId)
    .$if(position !== undefined, (q) =>
      q.where((eb) => {
        const { at, id } = position as KeysetPosition;
        return eb.or([
          eb('d.created_at', '<', at),
          eb.and([eb('d.created_at', '=', at), eb('d.id', '<', id)]),
        ]);
      }),
    )
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
}

export async function findDelivery(
  db: Kysely<Tables>,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  return deliveries(db)
    .where('d.webhook_id', '=', webhookId)
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
}

/** Makes a delivery wait again, due now, with a fresh retry window. */
export async function requeueDelivery(
  db: Kysely<Tables>,
  deliveryId: string,
  at: number,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: at, retry_since: null })
    .where('id', '=', deliveryId)
    .execute();
}

/** What a worker needs to send a delivery it claimed. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly webhook_id: string;
  readonly event_seq: number;
  readonly store_key: string | null;
  readonly attempts: number;
  readonly retry_since: number | null;
  readonly url: string;
  readonly secret: string;
  readonly event_id: string;
  readonly type: string;
  readonly payload: string | null;
  readonly event_at: number;
  readonly org_id: string;
}

/** Each webhook and store's oldest delivery not yet delivered: the only one that may be sent. */
function headsQuery(dialect: Dialect) {
  return dialect === 'postgres'
    ? sql`select distinct on (h.webhook_id, h.store_key) h.id from webhook_deliveries as h
        where h.status <> 'delivered' and h.store_key is not null
        order by h.webhook_id, h.store_key, h.event_seq`
    : sql`select h.id from (select id, min(event_seq) from webhook_deliveries
        where status <> 'delivered' and store_key is not null
        group by webhook_id, store_key) as h`;
}

/** The deliveries due at `now` that may be sent: their store's oldest, of an enabled webhook. */
function dueQuery(dialect: Dialect, now: unknown, limit: unknown) {
  return sql`select c.id from webhook_deliveries as c
      inner join webhooks as w on w.id = c.webhook_id
      where c.id in (${headsQuery(dialect)})
        and c.status in ('pending', 'retrying') and c.next_attempt_at <= ${now}
        and w.enabled = 1 and (c.lease_until is null or c.lease_until <= ${now})
      order by c.next_attempt_at, c.event_seq
      limit ${limit}`;
}

/**
 * Whether any delivery is due at `now`, read outside any write: a worker with nothing to do
 * writes nothing (on SQLite, no commit and no fsync every poll). Compiled once.
 */
export function createDueCheck(db: Kysely<Tables>, dialect: Dialect) {
  const query = prepareQuery((p: { now: number }) => ({
    compile: () => sql<{ id: string }>`${dueQuery(dialect, p.now, 1)}`.compile(db),
  }));
  return async (reader: QueryRunner, now: number) =>
    (await query.first(reader, { now })) !== undefined;
}

/**
 * Claims up to `limit` deliveries due at `now` for `leaseMs` (token `token`): waiting or retrying,
 * of an enabled webhook, not claimed by a live lease, and each the oldest of its webhook and
 * store not yet delivered (a store's next event waits for the one before). The oldest of each
 * are found in one pass of the order index (`webhook_deliveries_order`: PostgreSQL's `DISTINCT
 * ON`, SQLite's `min()` per group), whatever waits behind them. PostgreSQL: `FOR UPDATE SKIP
 * LOCKED`, so that processes claiming at once take different rows; a row another process has
 * just claimed is skipped, and the one behind it in its store is no store's oldest.
 */
export async function claimDue(
  db: Kysely<Tables>,
  dialect: Dialect,
  claim: { now: number; leaseMs: number; token: string; limit: number },
): Promise<ClaimedDelivery[]> {
  const { now, token, limit } = claim;
  const until = now + claim.leaseMs;
  const due = dueQuery(dialect, now, limit);
  const claimed =
    dialect === 'postgres'
      ? await sql<{ id: string }>`update webhook_deliveries as d
          set lease_until = ${until}, lease_token = ${token}
          from (${due} for update of c skip locked) as due
          where d.id = due.id
          returning d.id`.execute(db)
      : await sql<{ id: string }>`update webhook_deliveries
          set lease_until = ${until}, lease_token = ${token}
          where id in (${due})
          returning id`.execute(db);
  const ids = claimed.rows.map((row) => row.id);
  if (ids.length === 0) return [];
  return claimedDeliveries(db, ids);
}

/**
 * In the transaction that recorded a delivery of `webhookId` and store `storeKey` as delivered
 * (its claim this worker's), claims the store's next one if it is due: the next of a store is no
 * other worker's to take while its predecessor was claimed, and this commit makes it the
 * store's oldest already claimed. A busy store's events go one after another without a search.
 */
export async function claimNext(
  db: Kysely<Tables>,
  after: { webhookId: string; storeKey: string; eventSeq: number },
  claim: { now: number; leaseMs: number; token: string },
): Promise<ClaimedDelivery | undefined> {
  const next = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select(['d.id', 'd.status', 'd.next_attempt_at', 'd.lease_until', 'w.enabled'])
    .where('d.webhook_id', '=', after.webhookId)
    .where('d.store_key', '=', after.storeKey)
    .where('d.status', '<>', 'delivered')
    .where('d.event_seq', '>', after.eventSeq)
    .orderBy('d.event_seq')
    .limit(1)
    .executeTakeFirst();
  const due =
    next &&
    next.enabled === 1 &&
    (next.status === 'pending' || next.status === 'retrying') &&
    next.next_attempt_at !== null &&
    next.next_attempt_at <= claim.now &&
    (next.lease_until === null || next.lease_until <= claim.now);
  if (!due) return undefined;
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_until: claim.now + claim.leaseMs, lease_token: claim.token })
    .where('id', '=', next.id)
    .execute();
  const [claimed] = await claimedDeliveries(db, [next.id]);
  return claimed;
}

/** The deliveries `ids` with their webhook and event, as a worker sends them. */
export async function claimedDeliveries(
  db: Kysely<Tables>,
  ids: readonly string[],
): Promise<ClaimedDelivery[]> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .innerJoin('webhook_events as e', 'e.seq', 'd.event_seq')
    .select([
      'd.id',
      'd.webhook_id',
      'd.event_seq',
      'd.store_key',
      'd.attempts',
      'd.retry_since',
      'w.url',
      'w.secret',
      'w.org_id',
      'e.id as event_id',
      'e.type',
      'e.payload',
      'e.created_at as event_at',
    ])
    .where('d.id', 'in', ids)
    .orderBy('d.event_seq')
    .execute();
}

/** The outcome of one attempt, as the log keeps it. */
export interface AttemptOutcome {
  readonly at: number;
  readonly status: number | null;
  readonly latencyMs: number | null;
  readonly error: string | null;
  readonly responseBody: string | null;
}

/**
 * Records an attempt of a delivery claimed with `token`, and what it now is: delivered, waiting
 * for `nextAttemptAt`, or failed. Nothing when the claim is no longer this worker's (its lease
 * ran out and another took it): that one records its own. True when recorded.
 */
export async function recordAttempt(
  db: Kysely<Tables>,
  delivery: { id: string; token: string },
  outcome: AttemptOutcome & {
    readonly next: WebhookDeliveryStatus;
    readonly nextAttemptAt: number | null;
    readonly retrySince: number | null;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: outcome.next,
      attempts: eb('attempts', '+', 1),
      next_attempt_at: outcome.nextAttemptAt,
      retry_since: outcome.retrySince,
      lease_until: null,
      lease_token: null,
      response_status: outcome.status,
      latency_ms: outcome.latencyMs,
      error: outcome.error,
      response_body: outcome.responseBody,
      last_attempt_at: outcome.at,
      ...(outcome.next === 'delivered' ? { delivered_at: outcome.at } : {}),
    }))
    .where('id', '=', delivery.id)
    .where('lease_token', '=', delivery.token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The values of one run of `recordDeliveredPostgres`. */
interface DeliveredParams {
  id: string;
  token: string;
  status: number | null;
  latencyMs: number | null;
  responseBody: string | null;
  at: number;
  chain: boolean;
  now: number;
  until: number;
}

/**
 * PostgreSQL: what `recordAttempt` (delivered), `dropDeliveredPayload` and `claimNext` do, in one
 * statement, compiled once and kept parsed and planned by each connection (a named statement):
 * round trips and planning are most of what a delivery costs, and the store's next delivery
 * follows at once. (Every part of a statement sees the rows as they were before it: the delivery
 * just recorded is told apart from the others by its id.) `recorded` is false when the claim was
 * no longer this worker's: then nothing changed.
 */
export function createRecordDeliveredPostgres(db: Kysely<Tables>) {
  const statement = prepareQuery((p: DeliveredParams) => ({
    compile: () =>
      sql<ClaimedDelivery & { recorded: boolean; id: string | null }>`
        with done as (
          update webhook_deliveries set status = 'delivered', attempts = attempts + 1,
              next_attempt_at = null, retry_since = null, lease_until = null, lease_token = null,
              response_status = ${p.status}, latency_ms = ${p.latencyMs}, error = null,
              response_body = ${p.responseBody}, last_attempt_at = ${p.at}, delivered_at = ${p.at}
            where id = ${p.id} and lease_token = ${p.token}
            returning id, webhook_id, store_key, event_seq
        ), dropped as (
          update webhook_events as e set payload = null from done
            where e.seq = done.event_seq and not exists (select 1 from webhook_deliveries as o
              where o.event_seq = done.event_seq and o.id <> done.id and o.status <> 'delivered')
        ), following as (
          select n.id from done, lateral (select d.id from webhook_deliveries as d
              where d.webhook_id = done.webhook_id and d.store_key = done.store_key
                and d.status <> 'delivered' and d.event_seq > done.event_seq
              order by d.event_seq limit 1) as n
            where cast(${p.chain} as boolean)
        ), claimed as (
          update webhook_deliveries as c set lease_until = ${p.until}, lease_token = ${p.token}
            from following, webhooks as w
            where c.id = following.id and w.id = c.webhook_id and w.enabled = 1
              and c.status in ('pending', 'retrying') and c.next_attempt_at <= ${p.now}
              and (c.lease_until is null or c.lease_until <= ${p.now})
            returning c.id, c.webhook_id, c.event_seq, c.store_key, c.attempts, c.retry_since,
              w.url, w.secret, w.org_id
        )
        select exists (select 1 from done) as recorded, claimed.*, e.id as event_id, e.type,
            e.payload, e.created_at as event_at
          from (select 1) as one
            left join claimed on true
            left join webhook_events as e on e.seq = claimed.event_seq`.compile(db),
  }));
  return async (
    delivery: { id: string; token: string },
    outcome: AttemptOutcome,
    claim: { now: number; leaseMs: number; chain: boolean },
  ): Promise<{ recorded: boolean; next: ClaimedDelivery | undefined }> => {
    const row = await statement.first(db, {
      id: delivery.id,
      token: delivery.token,
      status: outcome.status,
      latencyMs: outcome.latencyMs,
      responseBody: outcome.responseBody,
      at: outcome.at,
      chain: claim.chain,
      now: claim.now,
      until: claim.now + claim.leaseMs,
    });
    if (!row?.recorded) return { recorded: false, next: undefined };
    if (row.id === null) return { recorded: true, next: undefined };
    const { recorded: _, ...next } = row;
    return { recorded: true, next: next as ClaimedDelivery };
  };
}

/** Drops an event's body once every delivery of it is delivered: its content is not kept. */
export async function dropDeliveredPayload(db: Kysely<Tables>, eventSeq: number): Promise<void> {
  await db
    .updateTable('webhook_events')
    .set({ payload: null })
    .where('seq', '=', eventSeq)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_deliveries as d')
            .select('d.id')
            .where('d.event_seq', '=', eventSeq)
            .where('d.status', '<>', 'delivered'),
        ),
      ),
    )
    .execute();
}

/** Drops an event's body whatever became of it (a test event, sent once). */
export async function dropPayload(db: Kysely<Tables>, eventSeq: number): Promise<void> {
  await db
    .updateTable('webhook_events')
    .set({ payload: null })
    .where('seq', '=', eventSeq)
    .execute();
}

/**
 * Disables a webhook that could not be delivered to (once: false when it was disabled
 * already), keeping why for its owners.
 */
export async function disableWebhook(
  db: Kysely<Tables>,
  webhookId: string,
  reason: string,
  at: number,
): Promise<boolean> {
  const result = await db
    .updateTable('webhooks')
    .set({ enabled: 0, disabled_reason: reason, disabled_at: at, updated_at: at })
    .where('id', '=', webhookId)
    .where('enabled', '=', 1)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Lets go of what this worker claimed and did not finish: due again at once, anywhere. */
export async function releaseClaims(db: Kysely<Tables>, token: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_until: null, lease_token: null })
    .where('lease_token', '=', token)
    .execute();
}

/** Whether any delivery was delivered before `before`: the log's retention has work. */
export function createPruneCheck(db: Kysely<Tables>) {
  const query = prepareQuery((p: { before: number }) =>
    db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'delivered')
      .where('delivered_at', '<', p.before)
      .limit(1),
  );
  return async (reader: QueryRunner, before: number) =>
    (await query.first(reader, { before })) !== undefined;
}

/**
 * The log's retention: deliveries delivered before `before` go, and the events no delivery
 * refers to any more (a webhook's last delivered one, a deleted webhook's).
 */
export async function pruneDelivered(db: Kysely<Tables>, before: number): Promise<void> {
  await db
    .deleteFrom('webhook_deliveries')
    .where('status', '=', 'delivered')
    .where('delivered_at', '<', before)
    .execute();
  await db.deleteFrom('webhook_events').where(unreferenced).execute();
}

/** A test event and its delivery, claimed at once by `token` (no worker takes it: no store). */
export async function insertTestDelivery(
  db: Kysely<Tables>,
  test: {
    eventId: string;
    deliveryId: string;
    orgId: string;
    webhookId: string;
    type: string;
    payload: string;
    at: number;
    token: string;
    leaseMs: number;
  },
): Promise<number> {
  const { seq } = await db
    .insertInto('webhook_events')
    .values({
      id: test.eventId,
      org_id: test.orgId,
      type: test.type,
      store_key: null,
      store: null,
      person_id: null,
      memory_id: null,
      payload: test.payload,
      created_at: test.at,
    })
    .returning('seq')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: test.deliveryId,
      webhook_id: test.webhookId,
      event_seq: Number(seq),
      store_key: null,
      status: 'pending',
      attempts: 0,
      next_attempt_at: null,
      lease_until: test.at + test.leaseMs,
      lease_token: test.token,
      created_at: test.at,
    })
    .execute();
  return Number(seq);
}
