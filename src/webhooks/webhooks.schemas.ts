import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../platform/api-schemas.ts';
import { PageCursor, PageLimit } from '../platform/paging.ts';
import { EVENT_TYPES } from './webhook-events.ts';

/** A page of a webhook's delivery log: its size by default, and at most. */
export const DELIVERIES_PAGE = { default: 50, max: 200 };

/** The longest URL a webhook takes, and description. */
const MAX_URL_CHARS = 2000;
const MAX_DESCRIPTION_CHARS = 500;

export const WebhookParams = Type.Object({
  orgId: Type.String({ description: 'Organization id' }),
  webhookId: Type.String({ description: "The webhook's id" }),
});

export const DeliveryParams = Type.Object({
  orgId: Type.String({ description: 'Organization id' }),
  webhookId: Type.String({ description: "The webhook's id" }),
  deliveryId: Type.String({ description: "The delivery's id" }),
});

export const EventType = Type.Enum([...EVENT_TYPES], {
  $id: 'WebhookEventType',
  description:
    'memory.created, memory.updated, memory.deleted, memory.folded (an add folded into a memory of the same content), store.erased (a whole store, or a category of it, erased in one request), end_user.registered, end_user.erased',
});

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_CHARS,
  pattern: '^https?://\\S+$',
  errorMessage: 'url must be an absolute https:// URL',
  description:
    'Where events are POSTed: https:// (http:// only where the operator allows it), never a loopback, private, link-local or metadata address unless the operator allows them; no redirect is followed',
  examples: ['https://app.example/hooks/mnemo'],
});

const Events = Type.Array(EventType, {
  minItems: 1,
  errorMessage: { minItems: 'events must name at least one event type' },
  description: 'The event types sent; absent or null: every type, those added later too',
});

const Description = Type.String({
  maxLength: MAX_DESCRIPTION_CHARS,
  description: 'A note for people: what the endpoint is',
});

export const Webhook = Type.Object(
  {
    id: Uuid("The webhook's id"),
    url: Type.String({ description: 'Where events are POSTed' }),
    description: Type.Optional(Type.String({ description: 'Absent when none was given' })),
    events: Type.Union([Type.Array(EventType), Type.Null()], {
      description: 'The event types sent; null: every type, those added later too',
    }),
    project: Type.Union([Uuid('The project'), Type.Null()], {
      description:
        "Only this project pool's memory events (and its erasures); null: the whole organization's events",
    }),
    enabled: Type.Boolean({
      description:
        'Whether events are recorded and sent; false after 24 hours of failed deliveries, or when set so',
    }),
    disabledReason: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why it was disabled (by hand, or what its deliveries last failed of); null while enabled',
    }),
    disabledAt: Type.Union([Timestamp('When it was disabled'), Type.Null()], {
      description: 'When it was disabled; null while enabled',
    }),
    createdAt: Timestamp('When it was made'),
    updatedAt: Timestamp('When it last changed'),
  },
  { $id: 'Webhook', additionalProperties: false },
);
export type Webhook = Static<typeof Webhook>;

export const WebhooksResponse = Type.Object(
  { webhooks: Type.Array(Webhook, { description: 'Oldest first' }) },
  { description: "The organization's webhooks" },
);
export const WebhookResponse = Type.Object({ webhook: Webhook }, { description: 'The webhook' });
export const WebhookWithSecretResponse = Type.Object(
  {
    webhook: Webhook,
    secret: Type.String({
      description:
        "The signing secret (`whsec_…`), shown this once: a receiver verifies each delivery's `webhook-signature` with it (Standard Webhooks)",
    }),
  },
  { description: 'The webhook and its signing secret' },
);

export const WebhookCreateBody = Type.Object(
  {
    url: Url,
    events: Type.Optional(Events),
    project: Type.Optional(
      Uuid("Only this project pool's memory events; absent: the whole organization's"),
    ),
    description: Type.Optional(Description),
  },
  { additionalProperties: false, description: 'events: every type unless given' },
);
export type WebhookCreateBody = Static<typeof WebhookCreateBody>;

export const WebhookPatchBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(
      Type.Union([Events, Type.Null()], { description: 'null: every type, those added later too' }),
    ),
    description: Type.Optional(
      Type.Union([Description, Type.Null()], { description: 'null: none' }),
    ),
    enabled: Type.Optional(
      Type.Boolean({
        description:
          'false: events are no longer recorded or sent; true: enabled again, the deliveries that waited (the failed one first) resume',
      }),
    ),
  },
  {
    additionalProperties: false,
    anyOf: [
      { required: ['url'] },
      { required: ['events'] },
      { required: ['description'] },
      { required: ['enabled'] },
    ],
    errorMessage: 'at least one of url, events, description or enabled is required',
    description: 'At least one field',
  },
);
export type WebhookPatchBody = Static<typeof WebhookPatchBody>;

export const DeliveryStatus = Type.Enum(['pending', 'retrying', 'delivered', 'failed'], {
  description:
    'pending: waiting for its first attempt (or for an earlier event of its store); retrying: failed, to be tried again at nextAttemptAt; delivered: a 2xx answered; failed: given up (its webhook was disabled), or a test that failed',
});

export const WebhookDelivery = Type.Object(
  {
    id: Uuid("The delivery's id"),
    eventId: Type.String({
      description: "The event's id: the delivery's `webhook-id` header, the same on every attempt",
    }),
    type: Type.String({ description: 'The event type, or webhook.test' }),
    store: Type.Optional(
      Type.Object(
        {
          user: Type.Optional(Uuid("A member's or an end user's store")),
          endUser: Type.Optional(
            Type.String({ description: "The end user's id in the app's terms" }),
          ),
          project: Type.Optional(Uuid("A project's pool")),
        },
        {
          additionalProperties: false,
          description: 'The store the event is of; absent for a test',
        },
      ),
    ),
    status: DeliveryStatus,
    attempts: Type.Integer({ description: 'Attempts so far' }),
    responseStatus: Type.Union([Type.Integer(), Type.Null()], {
      description: "The last attempt's HTTP status; null when it got no answer or none was made",
    }),
    latencyMs: Type.Union([Type.Integer(), Type.Null()], {
      description: "The last attempt's time to the answer's head, in milliseconds",
    }),
    error: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why the last attempt failed (HTTP 500, no answer within 10 s, a redirect not followed, a target refused…); null when it did not',
    }),
    response: Type.Union([Type.String(), Type.Null()], {
      description: "The start of the last answer's body (1 KiB at most)",
    }),
    redeliverable: Type.Boolean({
      description: 'Whether it can be sent again: its body is kept until it is delivered',
    }),
    createdAt: Timestamp('When the event happened'),
    lastAttemptAt: Type.Union([Timestamp('The last attempt'), Type.Null()]),
    nextAttemptAt: Type.Union([Timestamp('When it is tried next'), Type.Null()], {
      description: 'null once delivered or failed',
    }),
    deliveredAt: Type.Union([Timestamp('When a 2xx answered'), Type.Null()]),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const DeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(PageLimit('Deliveries', DELIVERIES_PAGE.default, DELIVERIES_PAGE.max)),
    cursor: Type.Optional(PageCursor('The `cursor` of the previous page: the page after it')),
  },
  { additionalProperties: false },
);
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

export const DeliveriesResponse = Type.Object(
  {
    deliveries: Type.Array(WebhookDelivery, { description: 'Newest first' }),
    cursor: Type.Optional(
      Type.String({ description: 'Present when there are more: pass it for the next page' }),
    ),
  },
  { description: "A page of the webhook's delivery log" },
);
export type DeliveriesResponse = Static<typeof DeliveriesResponse>;

export const DeliveryResponse = Type.Object(
  { delivery: WebhookDelivery },
  { description: 'The delivery' },
);
