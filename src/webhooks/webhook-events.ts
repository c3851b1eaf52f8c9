/**
 * The events a webhook subscribes to (docs/webhooks.md): what changed in a memory store, a store
 * erased, an end user registered or erased. `webhook.test` is sent only when asked for
 * (`POST …/webhooks/{id}/test`); no subscription chooses it.
 */
export const EVENT_TYPES = [
  'memory.created',
  'memory.updated',
  'memory.deleted',
  'memory.folded',
  'store.erased',
  'end_user.registered',
  'end_user.erased',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const TEST_EVENT = 'webhook.test';

/** The store an event is about, as its body names it. */
export type EventStore =
  | { readonly user: string }
  | { readonly user: string; readonly endUser: string }
  | { readonly project: string };

/**
 * What decides an event's order: its store. Events of one store reach each subscription in the
 * order they were written; `kind:ownerId` (the organization is the subscription's).
 */
export const storeKeyOf = (kind: 'user' | 'project', ownerId: string) => `${kind}:${ownerId}`;
