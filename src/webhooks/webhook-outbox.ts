import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type PreparedQuery, prepareQuery } from '../db/prepared-query.ts';
import { newRowId } from '../db/row-id.ts';
import type { Tables } from '../db/tables.ts';
import { type EventStore, type EventType, storeKeyOf } from './webhook-events.ts';

/**
 * The outbox of webhooks (docs/design.md §3.9): every write of the store that is an event
 * records it here, in its own transaction, with one delivery row per subscription that takes it.
 * A crash between the write and the delivery loses nothing (the rows are in the commit), and
 * nothing is recorded unless the organization has an enabled subscription that would take the
 * store's events: one indexed look-up of an empty result for every other write.
 *
 * SQLite's writes and the writes made in TypeScript on both engines (imports, erasures, end
 * users) call this; PostgreSQL's write functions do the same in PL/pgSQL (migration
 * 2026-12-01T00_webhooks: `mnemo_webhook_store`, `mnemo_webhook_event`).
 *
 * Events of one store are written under the store's lock (every write takes it first), so their
 * `seq` (an identity, given at insert) is the order the store changed in: what the delivery
 * worker keeps per subscription and store.
 */

/** Told, in this process, that deliveries were recorded: the delivery workers of this process. */
const recorded = new Set<() => void>();

/**
 * Calls `listener` soon after each transaction of this process records deliveries (before it
 * commits, maybe: the listener looks and, finding nothing yet, looks again a little later;
 * PostgreSQL also wakes every process at the commit, by NOTIFY). The function it gives stops it.
 */
export function onEventsRecorded(listener: () => void): () => void {
  recorded.add(listener);
  return () => recorded.delete(listener);
}

function announce() {
  if (recorded.size === 0) return;
  setImmediate(() => {
    for (const listener of recorded) listener();
  });
}

/** A subscription as the outbox reads it: who takes which events. */
interface Subscription {
  readonly id: string;
  readonly project_id: string | null;
  /** JSON array of event types; null: every type. */
  readonly events: string | null;
}

/** Memory stores: the organization, and whose store it is (a member's, an end user's, a pool). */
export interface OutboxStore {
  readonly orgId: string;
  readonly kind: 'user' | 'project';
  readonly ownerId: string;
}

/** One event to record: its type, the body's `data` beside `store`, and what it is of. */
export interface OutboxEvent {
  readonly type: EventType;
  /** The fields of the body's `data` after `store` (`memory`, `deleted`…). */
  readonly data: Readonly<Record<string, unknown>>;
  /** The memory it carries, if any: an erasure of its contributor takes the event away. */
  readonly memoryId?: string | undefined;
  /** Milliseconds: when it happened (the body's `timestamp`). */
  readonly at: number;
}

/** Records the events of one store, in the transaction it was opened in. */
export interface StoreOutbox {
  record(event: OutboxEvent): Promise<void>;
}

const takes = (subscription: Subscription, type: EventType) =>
  subscription.events === null || (JSON.parse(subscription.events) as string[]).includes(type);

/** The look-up of `subscriptionsOf`, compiled once per dialect: it runs in every write. */
const compiled = new WeakMap<object, PreparedQuery<{ orgId: string }, Subscription>>();

/**
 * The enabled subscriptions of an organization: few, read by the (org_id, enabled) index; none
 * for nearly every write.
 */
async function subscriptionsOf(trx: Kysely<Tables>, orgId: string): Promise<Subscription[]> {
  const dialect = trx.getExecutor().adapter.constructor;
  let query = compiled.get(dialect);
  if (!query) {
    query = prepareQuery((p: { orgId: string }) =>
      trx
        .selectFrom('webhooks')
        .select(['id', 'project_id', 'events'])
        .where('org_id', '=', p.orgId)
        .where('enabled', '=', 1),
    );
    compiled.set(dialect, query);
  }
  return query.rows(trx, { orgId });
}

/**
 * Inserts the event and its deliveries, one for each of `subscriptions` that takes its type:
 * nothing when none does.
 */
async function insertEvent(
  trx: Kysely<Tables>,
  subscriptions: readonly Subscription[],
  event: OutboxEvent & {
    readonly orgId: string;
    readonly storeKey: string;
    readonly store: EventStore;
    /** The store as the delivery log keeps it, when not `store`. */
    readonly logStore?: EventStore;
    readonly personId: string | null;
  },
): Promise<void> {
  const taking = subscriptions.filter((subscription) => takes(subscription, event.type));
  if (taking.length === 0) return;
  const { seq } = await trx
    .insertInto('webhook_events')
    .values({
      id: randomUUID(),
      org_id: event.orgId,
      type: event.type,
      store_key: event.storeKey,
      store: JSON.stringify(event.logStore ?? event.store),
      person_id: event.personId,
      memory_id: event.memoryId ?? null,
      payload: JSON.stringify({ store: event.store, ...event.data }),
      created_at: event.at,
    })
    .returning('seq')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('webhook_deliveries')
    .values(
      taking.map((subscription) => ({
        id: newRowId(),
        webhook_id: subscription.id,
        event_seq: Number(seq),
        store_key: event.storeKey,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: event.at,
        created_at: event.at,
      })),
    )
    .execute();
  announce();
}

/**
 * The outbox of `store` in transaction `trx`, or undefined when no enabled subscription of its
 * organization takes its events (a project's webhook takes only its pool's): then nothing is
 * to be recorded, and the caller builds no event.
 */
export async function openStoreOutbox(
  trx: Kysely<Tables>,
  store: OutboxStore,
): Promise<StoreOutbox | undefined> {
  const subscriptions = (await subscriptionsOf(trx, store.orgId)).filter(
    (s) => s.project_id === null || (store.kind === 'project' && s.project_id === store.ownerId),
  );
  if (subscriptions.length === 0) return undefined;
  const named = await eventStore(trx, store);
  const base = {
    orgId: store.orgId,
    storeKey: storeKeyOf(store.kind, store.ownerId),
    store: named,
    personId: store.kind === 'user' ? store.ownerId : null,
  };
  return { record: (event) => insertEvent(trx, subscriptions, { ...base, ...event }) };
}

/** The store as an event names it: an end user's by the app's id too. */
async function eventStore(trx: Kysely<Tables>, store: OutboxStore): Promise<EventStore> {
  if (store.kind === 'project') return { project: store.ownerId };
  const endUser = await trx
    .selectFrom('end_users')
    .select('external_id')
    .where('user_id', '=', store.ownerId)
    .where('org_id', '=', store.orgId)
    .executeTakeFirst();
  return endUser ? { user: store.ownerId, endUser: endUser.external_id } : { user: store.ownerId };
}

/**
 * Records an end user's event (`end_user.registered`, `end_user.erased`) of organization
 * `orgId`: its store is the end user's own, so it keeps its place among the store's events. Only
 * the organization's own subscriptions take it (a project's takes its pool's events only).
 */
export async function recordEndUserEvent(
  trx: Kysely<Tables>,
  event: {
    readonly orgId: string;
    readonly type: 'end_user.registered' | 'end_user.erased';
    readonly userId: string;
    readonly externalId: string;
    readonly endUser: Readonly<Record<string, unknown>>;
    readonly at: number;
  },
): Promise<void> {
  const subscriptions = (await subscriptionsOf(trx, event.orgId)).filter(
    (s) => s.project_id === null,
  );
  if (subscriptions.length === 0) return;
  await insertEvent(trx, subscriptions, {
    orgId: event.orgId,
    type: event.type,
    storeKey: storeKeyOf('user', event.userId),
    store: { user: event.userId, endUser: event.externalId },
    // An erased end user's id in the app's terms is in the body only, gone once it is sent.
    ...(event.type === 'end_user.erased' && { logStore: { user: event.userId } }),
    personId: event.userId,
    data: { endUser: event.endUser },
    at: event.at,
  });
}

/**
 * Takes out of the outbox everything of a person being erased, in the erasure's transaction:
 * the events of their own stores (delivered or waiting, with their deliveries: the log names
 * their store), and those carrying a memory they contributed to a pool. Call it before their
 * pool memories stop naming them. Nothing of an erased person waits to be sent, or stays in a
 * delivery log.
 */
export async function forgetPersonInOutbox(trx: Kysely<Tables>, userId: string): Promise<void> {
  await trx.deleteFrom('webhook_events').where('person_id', '=', userId).execute();
  await trx
    .deleteFrom('webhook_events')
    .where('memory_id', 'in', (eb) =>
      eb.selectFrom('memories').select('id').where('contributor_id', '=', userId),
    )
    .execute();
}
