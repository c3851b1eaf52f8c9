import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_ERROR_RESPONSES, rulesNoSchemaStates } from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { CURSOR_RULE_NO_SCHEMA_STATES } from '../platform/paging.ts';
import { adminSecurity, OkResponse, OrgIdParams, orgScopedHooks } from '../tenancy/index.ts';
import { PROJECT_EVENTS_RULE } from './webhooks.errors.ts';
import {
  DeliveriesQuery,
  DeliveriesResponse,
  DeliveryParams,
  DeliveryResponse,
  WebhookCreateBody,
  WebhookParams,
  WebhookPatchBody,
  WebhookResponse,
  WebhooksResponse,
  WebhookWithSecretResponse,
} from './webhooks.schemas.ts';
import { URL_RULES, type WebhooksService } from './webhooks.service.ts';

export interface WebhooksRoutesDeps {
  readonly service: WebhooksService;
  /** The member of the organization in the path (404 for an unknown one); sets `request.caller`. */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const WEBHOOKS = '/api/v1/orgs/:orgId/webhooks';
const WEBHOOK = `${WEBHOOKS}/:webhookId`;
const SECRET = `${WEBHOOK}/secret`;
const TEST = `${WEBHOOK}/test`;
const DELIVERIES = `${WEBHOOK}/deliveries`;
const REDELIVER = `${DELIVERIES}/:deliveryId/redeliver`;

const EVENT_RULES = {
  [PROJECT_EVENTS_RULE]: 'a project is given with end_user events',
};

/**
 * An organization's webhooks, managed by its owners and admins (src/webhooks/webhooks.service.ts):
 * made (the secret shown once), read, changed, disabled and enabled again, deleted; a test
 * event, the delivery log and redelivery.
 */
export function registerWebhooksRoutes(parent: FastifyInstance, deps: WebhooksRoutesDeps): void {
  const { service } = deps;
  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    // The test, the new secret and a redelivery send nothing.
    orgScopedHooks(scoped, deps.authenticate, { body: 'optional' });
    const common = { tags: ['webhooks'], security: adminSecurity };

    app.get(
      WEBHOOKS,
      {
        schema: {
          ...common,
          summary: "The organization's webhooks (owners and admins)",
          params: OrgIdParams,
          response: { 200: WebhooksResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({ webhooks: await service.list(request.caller) }),
    );

    app.post(
      WEBHOOKS,
      {
        schema: {
          ...common,
          summary:
            "Subscribe an endpoint to the organization's events, or one project's: each is POSTed signed by the Standard Webhooks specification, in order per store, retried for 24 hours; the signing secret is shown once (owners and admins)",
          description: rulesNoSchemaStates({ ...URL_RULES, ...EVENT_RULES }),
          params: OrgIdParams,
          body: WebhookCreateBody,
          response: { 201: WebhookWithSecretResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.create(request.caller, request.body)),
    );

    app.get(
      WEBHOOK,
      {
        schema: {
          ...common,
          summary: 'A webhook (owners and admins)',
          params: WebhookParams,
          response: { 200: WebhookResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({
        webhook: await service.get(request.caller, request.params.webhookId),
      }),
    );

    app.patch(
      WEBHOOK,
      {
        schema: {
          ...common,
          summary:
            'Change a webhook’s URL, events or description, or disable it or enable it again: enabled again, what waited is sent, the failed delivery first (owners and admins)',
          description: rulesNoSchemaStates({ ...URL_RULES, ...EVENT_RULES }),
          params: WebhookParams,
          body: WebhookPatchBody,
          response: { 200: WebhookResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({
        webhook: await service.update(request.caller, request.params.webhookId, request.body),
      }),
    );

    app.delete(
      WEBHOOK,
      {
        schema: {
          ...common,
          summary:
            'Delete a webhook: what it had still to send is dropped, with its delivery log (owners and admins). Again: 404',
          params: WebhookParams,
          response: { 200: OkResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => {
        await service.remove(request.caller, request.params.webhookId);
        return { ok: true as const };
      },
    );

    app.post(
      SECRET,
      {
        schema: {
          ...common,
          summary:
            'Replace the webhook’s signing secret: the new one is shown once, and signs every delivery from now on (owners and admins)',
          params: WebhookParams,
          response: { 200: WebhookWithSecretResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => service.rotateSecret(request.caller, request.params.webhookId),
    );

    app.post(
      TEST,
      {
        schema: {
          ...common,
          summary:
            'Send a webhook.test event to the webhook now, enabled or not, once: the answer is the attempt’s outcome, also kept in its delivery log (owners and admins)',
          params: WebhookParams,
          response: { 200: DeliveryResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({
        delivery: await service.test(request.caller, request.params.webhookId),
      }),
    );

    app.get(
      DELIVERIES,
      {
        schema: {
          ...common,
          summary:
            'The webhook’s delivery log, newest first, a page at a time: each event’s status, attempts, last response and latency (delivered ones are kept 7 days) (owners and admins)',
          description: rulesNoSchemaStates(CURSOR_RULE_NO_SCHEMA_STATES),
          params: WebhookParams,
          querystring: DeliveriesQuery,
          response: { 200: DeliveriesResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) =>
        service.deliveries(request.caller, request.params.webhookId, request.query),
    );

    app.post(
      REDELIVER,
      {
        schema: {
          ...common,
          summary:
            'Send a delivery not yet delivered again, at once and with a fresh 24 hours of retries (a failed one waits until its webhook is enabled); a delivered one is not kept to send again: 409 (owners and admins)',
          params: DeliveryParams,
          response: { 200: DeliveryResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({
        delivery: await service.redeliver(
          request.caller,
          request.params.webhookId,
          request.params.deliveryId,
        ),
      }),
    );
  });
  registerMethodNotAllowed(parent, WEBHOOKS, ['GET', 'POST']);
  registerMethodNotAllowed(parent, WEBHOOK, ['GET', 'PATCH', 'DELETE']);
  registerMethodNotAllowed(parent, SECRET, ['POST']);
  registerMethodNotAllowed(parent, TEST, ['POST']);
  registerMethodNotAllowed(parent, DELIVERIES, ['GET']);
  registerMethodNotAllowed(parent, REDELIVER, ['POST']);
}
