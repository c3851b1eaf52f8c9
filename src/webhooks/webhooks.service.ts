import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { Tables } from '../db/tables.ts';
import { isoTime } from '../platform/iso-time.ts';
import { decodeKeysetCursor, encodeKeysetCursor } from '../platform/paging.ts';
import { parseUuid } from '../platform/uuid.ts';
import type { Caller } from '../tenancy/index.ts';
import { projectNotFound, requireManager } from '../tenancy/index.ts';
import type { WebhookDelivery as DeliveryWorker } from './webhook-delivery.ts';
import type { EventType } from './webhook-events.ts';
import { createWebhookSecret, type SecretBox } from './webhook-secrets.ts';
import { FORBIDDEN_ADDRESS, type TargetPolicy, urlProblem } from './webhook-targets.ts';
import {
  badTarget,
  deliveredNotRedelivered,
  deliveryNotFound,
  noWebhookChanges,
  projectWithEndUserEvents,
  testNotRedelivered,
  webhookNotFound,
} from './webhooks.errors.ts';
import {
  type DeliveryRow,
  deleteWebhook,
  findDelivery,
  findWebhook,
  insertWebhook,
  listWebhooks,
  pageDeliveries,
  requeueDelivery,
  resumeFailedDeliveries,
  updateWebhook,
  type WebhookRow,
} from './webhooks.repository.ts';
import {
  DELIVERIES_PAGE,
  type DeliveriesQuery,
  type DeliveriesResponse,
  type Webhook,
  type WebhookCreateBody,
  type WebhookDelivery,
  type WebhookPatchBody,
} from './webhooks.schemas.ts';

const CURSOR_TAG = 'd1';

/** Why a webhook its owners disabled is disabled. */
export const DISABLED_BY_HAND = 'disabled by an owner or admin';

/** The 400s of creating and changing a webhook that no schema states (the routes list them). */
export const URL_RULES = {
  'url must be an absolute https:// URL': 'it is not a URL with a host',
  'url must use https (this server does not send webhooks over plain http)':
    'an http:// URL where the operator does not allow plain http',
  'url must not contain a user name or password': 'credentials in the URL',
  [FORBIDDEN_ADDRESS]:
    'its host is such an address where the operator does not allow them (a name is resolved, and refused, at delivery)',
};

export function presentWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    ...(row.description === null ? {} : { description: row.description }),
    events: row.events === null ? null : (JSON.parse(row.events) as EventType[]),
    project: row.project_id,
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at === null ? null : isoTime(row.disabled_at),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

export function presentDelivery(row: DeliveryRow): WebhookDelivery {
  const time = (ms: number | null) => (ms === null ? null : isoTime(ms));
  return {
    id: row.id,
    eventId: row.event_id,
    type: row.type,
    ...(row.store === null ? {} : { store: JSON.parse(row.store) }),
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.response_status,
    latencyMs: row.latency_ms,
    error: row.error,
    response: row.response_body,
    redeliverable:
      Number(row.payload_kept) === 1 && row.status !== 'delivered' && row.store !== null,
    createdAt: isoTime(row.created_at),
    lastAttemptAt: time(row.last_attempt_at),
    nextAttemptAt: time(row.next_attempt_at),
    deliveredAt: time(row.delivered_at),
  };
}

export interface WebhooksServiceDeps {
  readonly database: Database;
  readonly secrets: SecretBox;
  readonly policy: TargetPolicy;
  readonly delivery: Pick<DeliveryWorker, 'sendTest' | 'nudge'>;
  readonly now?: () => number;
}

/**
 * Webhooks: an organization's owners and admins subscribe it, or one of its projects, to the
 * events of its memory stores and end users (docs/webhooks.md); the secret is shown once. The
 * delivery log, a test event, redelivery, and disabling and enabling them again.
 */
export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { database, secrets, policy } = deps;
  const now = deps.now ?? Date.now;

  function checkUrl(url: string): string {
    const problem = urlProblem(url, policy);
    if (problem) throw badTarget(problem);
    return url;
  }

  function checkEvents(
    events: readonly EventType[] | null | undefined,
    projectId: string | null,
  ): EventType[] | null {
    if (events === undefined || events === null) return null;
    const chosen = [...new Set(events)];
    if (projectId !== null && chosen.some((type) => type.startsWith('end_user.'))) {
      throw projectWithEndUserEvents();
    }
    return chosen;
  }

  async function existing(db: Kysely<Tables>, caller: Caller, webhookId: string) {
    const id = parseUuid(webhookId);
    const row = id && (await findWebhook(db, caller.orgId, id));
    if (!row) throw webhookNotFound();
    return row;
  }

  return {
    async list(caller: Caller): Promise<Webhook[]> {
      requireManager(caller, 'list webhooks');
      return (await listWebhooks(database.db, caller.orgId)).map(presentWebhook);
    },

    async get(caller: Caller, webhookId: string): Promise<Webhook> {
      requireManager(caller, 'read webhooks');
      return presentWebhook(await existing(database.db, caller, webhookId));
    },

    async create(
      caller: Caller,
      body: WebhookCreateBody,
    ): Promise<{ webhook: Webhook; secret: string }> {
      requireManager(caller, 'manage webhooks');
      const url = checkUrl(body.url);
      const projectId = body.project ?? null;
      const events = checkEvents(body.events, projectId);
      const id = randomUUID();
      const secret = createWebhookSecret();
      const at = now();
      const row: WebhookRow = {
        id,
        org_id: caller.orgId,
        project_id: projectId,
        url,
        description: body.description ?? null,
        events: events === null ? null : JSON.stringify(events),
        secret: await secrets.seal(id, secret),
        enabled: 1,
        disabled_reason: null,
        disabled_at: null,
        created_by: caller.userId,
        created_at: at,
        updated_at: at,
      };
      await database.write(async (trx) => {
        if (projectId !== null) {
          const project = await trx
            .selectFrom('projects')
            .select('id')
            .where('id', '=', projectId)
            .where('org_id', '=', caller.orgId)
            .executeTakeFirst();
          if (!project) throw projectNotFound();
        }
        await insertWebhook(trx, row);
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: id,
          action: 'webhook.create',
          details: { webhookId: id, url, events, project: projectId },
        });
      });
      return { webhook: presentWebhook(row), secret };
    },

    async update(caller: Caller, webhookId: string, body: WebhookPatchBody): Promise<Webhook> {
      requireManager(caller, 'manage webhooks');
      if (Object.keys(body).length === 0) {
        throw noWebhookChanges();
      }
      const url = body.url === undefined ? undefined : checkUrl(body.url);
      const at = now();
      const { after, resumed } = await database.write(async (trx) => {
        const before = await existing(trx, caller, webhookId);
        const events =
          body.events === undefined ? undefined : checkEvents(body.events, before.project_id);
        const after: WebhookRow = {
          ...before,
          ...(url === undefined ? {} : { url }),
          ...(events === undefined
            ? {}
            : { events: events === null ? null : JSON.stringify(events) }),
          ...(body.description === undefined ? {} : { description: body.description }),
          ...(body.enabled === undefined ? {} : { enabled: body.enabled ? 1 : 0 }),
        };
        const enabledNow = before.enabled === 0 && after.enabled === 1;
        if (enabledNow) Object.assign(after, { disabled_reason: null, disabled_at: null });
        if (before.enabled === 1 && after.enabled === 0) {
          Object.assign(after, { disabled_reason: DISABLED_BY_HAND, disabled_at: at });
        }
        const fields = ['url', 'events', 'description', 'enabled'] as const;
        const changed = Object.fromEntries(
          fields
            .filter((field) => before[field] !== after[field])
            .map((field) => [field, { from: before[field], to: after[field] }]),
        );
        if (Object.keys(changed).length === 0) return { after: before, resumed: false };
        after.updated_at = at;
        await updateWebhook(trx, before.id, {
          url: after.url,
          events: after.events,
          description: after.description,
          enabled: after.enabled,
          disabled_reason: after.disabled_reason,
          disabled_at: after.disabled_at,
          updated_at: at,
        });
        if (enabledNow) await resumeFailedDeliveries(trx, before.id, at);
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: before.id,
          action: 'webhook.update',
          details: { webhookId: before.id, ...changed },
        });
        return { after, resumed: enabledNow };
      });
      if (resumed) deps.delivery.nudge();
      return presentWebhook(after);
    },

    /** A new secret, shown once; deliveries are signed with it from now on. */
    async rotateSecret(
      caller: Caller,
      webhookId: string,
    ): Promise<{ webhook: Webhook; secret: string }> {
      requireManager(caller, 'manage webhooks');
      const at = now();
      return database.write(async (trx) => {
        const row = await existing(trx, caller, webhookId);
        const secret = createWebhookSecret();
        await updateWebhook(trx, row.id, {
          secret: await secrets.seal(row.id, secret),
          updated_at: at,
        });
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: row.id,
          action: 'webhook.secret',
          details: { webhookId: row.id },
        });
        return { webhook: presentWebhook({ ...row, updated_at: at }), secret };
      });
    },

    /** Deletes the webhook: what it had still to send is dropped with its log. */
    async remove(caller: Caller, webhookId: string): Promise<void> {
      requireManager(caller, 'manage webhooks');
      await database.write(async (trx) => {
        const row = await existing(trx, caller, webhookId);
        await deleteWebhook(trx, row.id);
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: row.id,
          action: 'webhook.delete',
          details: { webhookId: row.id, url: row.url },
        });
      });
    },

    /** Sends a `webhook.test` event now (enabled or not) and answers how the attempt went. */
    async test(caller: Caller, webhookId: string): Promise<WebhookDelivery> {
      requireManager(caller, 'test webhooks');
      const row = await existing(database.db, caller, webhookId);
      const deliveryId = await deps.delivery.sendTest({ id: row.id, orgId: row.org_id });
      const delivery = await findDelivery(database.db, row.id, deliveryId);
      if (!delivery) throw new Error('a test delivery just made could not be read');
      return presentDelivery(delivery);
    },

    async deliveries(
      caller: Caller,
      webhookId: string,
      query: DeliveriesQuery,
    ): Promise<DeliveriesResponse> {
      requireManager(caller, 'read webhook deliveries');
      const row = await existing(database.db, caller, webhookId);
      const limit = query.limit ?? DELIVERIES_PAGE.default;
      const position =
        query.cursor === undefined ? undefined : decodeKeysetCursor(CURSOR_TAG, query.cursor);
      const rows = await pageDeliveries(database.db, row.id, limit + 1, position);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        deliveries: page.map(presentDelivery),
        ...(rows.length > limit && last
          ? { cursor: encodeKeysetCursor(CURSOR_TAG, { at: last.created_at, id: last.id }) }
          : {}),
      };
    },

    /**
     * Sends a delivery again: one not yet delivered (waiting, retrying, or failed when its
     * webhook was disabled) is due at once, its retry window started afresh, in its place in its
     * store's order. A delivered one is not: its body is dropped once delivered.
     */
    async redeliver(
      caller: Caller,
      webhookId: string,
      deliveryId: string,
    ): Promise<WebhookDelivery> {
      requireManager(caller, 'manage webhooks');
      const at = now();
      const delivery = await database.write(async (trx) => {
        const row = await existing(trx, caller, webhookId);
        const id = parseUuid(deliveryId);
        const found = id && (await findDelivery(trx, row.id, id));
        if (!found) throw deliveryNotFound();
        if (found.store === null) {
          throw testNotRedelivered();
        }
        if (found.status === 'delivered' || Number(found.payload_kept) !== 1) {
          throw deliveredNotRedelivered();
        }
        await requeueDelivery(trx, found.id, at);
        return (await findDelivery(trx, row.id, found.id)) as DeliveryRow;
      });
      deps.delivery.nudge();
      return presentDelivery(delivery);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
