/**
 * Webhooks: subscriptions to a store's events, the outbox written with each change, and their
 * signed delivery. This file is the part's front door: what other parts may use of it. The rest of
 * the folder is private to it.
 */
export type { DeliveryOptions } from './webhook-delivery.ts';
export { createWebhookDelivery } from './webhook-delivery.ts';
export type { StoreOutbox } from './webhook-outbox.ts';
export { forgetPersonInOutbox, openStoreOutbox, recordEndUserEvent } from './webhook-outbox.ts';
export { createSecretBox } from './webhook-secrets.ts';
export { registerWebhooksRoutes } from './webhooks.routes.ts';
export { createWebhooksService } from './webhooks.service.ts';
