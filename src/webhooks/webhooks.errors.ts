import { badRequest, conflict, notFound } from '../platform/errors.ts';

/** The refusals of webhooks (webhooks.service.ts): each with its status and its sentence. */
export const webhookNotFound = () => notFound('webhook not found');
export const deliveryNotFound = () => notFound('delivery not found');
export const PROJECT_EVENTS_RULE =
  "a project's webhook takes only memory and store events: end_user events are the organization's";
export const projectWithEndUserEvents = () => badRequest(PROJECT_EVENTS_RULE);
/** What is wrong with a target address (webhook-targets.ts says it). */
export const badTarget = (problem: string) => badRequest(problem);
export const noWebhookChanges = () =>
  badRequest('at least one of url, events, description or enabled is required');
export const testNotRedelivered = () =>
  conflict('a test delivery is not sent again: send another test');
export const deliveredNotRedelivered = () =>
  conflict('a delivered event is not sent again: its body is not kept once it is delivered');
