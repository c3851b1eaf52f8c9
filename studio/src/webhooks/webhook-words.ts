import { ApiError, asSentence } from '../api/errors.ts';
import { formatInteger } from '../ui/format.ts';
import type { DeliveryStatus, Webhook, WebhookEventType } from './webhooks-queries.ts';

/** The event types a webhook can choose, as docs/webhooks.md describes them, in its order. */
export const EVENT_TYPES: readonly { value: WebhookEventType; means: string }[] = [
  { value: 'memory.created', means: 'An add, or an import’s item, made a memory.' },
  { value: 'memory.updated', means: 'A memory was changed.' },
  { value: 'memory.deleted', means: 'A memory was deleted.' },
  {
    value: 'memory.folded',
    means: 'An add folded into a memory of the same content: nothing new, but an event.',
  },
  { value: 'store.erased', means: 'A whole store, or a category of it, was erased at once.' },
  { value: 'end_user.registered', means: 'An app registered an end user.' },
  { value: 'end_user.erased', means: 'An end user was erased.' },
];

/** End users are the organization's: a project's webhook cannot choose their events. */
export const isEndUserEvent = (type: WebhookEventType) => type.startsWith('end_user.');

/** What the API writes when an owner or admin disabled a webhook (webhooks.service.ts). */
const DISABLED_BY_HAND = 'disabled by an owner or admin';

/** Settings › Webhooks; each webhook's page is under it, by id. */
export const WEBHOOKS_PATH = '/settings/webhooks';

/**
 * Whether mnemo itself disabled the webhook, after 24 hours of failed deliveries: its owners
 * are told so in the studio, with what failed, and asked to enable it again.
 */
export const disabledByMnemo = (webhook: Webhook) =>
  !webhook.enabled &&
  webhook.disabledReason !== null &&
  webhook.disabledReason !== DISABLED_BY_HAND;

/** A webhook's name in sentences and headings: its description, else its URL's host. */
export function webhookName(webhook: Webhook): string {
  if (webhook.description?.trim()) return webhook.description.trim();
  return hostOf(webhook.url);
}

/** The host (and port) of a URL, or the URL itself when it is not one. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/** A delivery's status as a word, and the badge tone it is shown in. */
export const STATUS: Record<DeliveryStatus, { label: string; tone: string }> = {
  pending: { label: 'Pending', tone: '' },
  retrying: { label: 'Retrying', tone: 'warning' },
  delivered: { label: 'Delivered', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
};

/** "12 ms", "1,204 ms"; a dash when no answer came. */
export const latencyWords = (ms: number | null) => (ms === null ? '—' : `${formatInteger(ms)} ms`);

/**
 * The API's refusals of a webhook, in the page's words. They name the field as JSON does
 * ("url must not name a loopback…"); the page calls it the URL.
 */
export function explainRefusal(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  return asSentence(error.message.replace(/^url\b/, 'The URL'));
}

/** Whether a refusal is about the URL: the field is marked as the one to change. */
export const refusesUrl = (error: unknown) =>
  error instanceof ApiError && error.status === 400 && /^url\b/.test(error.message);
