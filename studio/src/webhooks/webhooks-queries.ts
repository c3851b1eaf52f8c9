import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { data } from '../api/client.ts';
import type { components } from '../api/openapi.d.ts';
import { isManager, type Studio, useStudio } from '../app/studio-context.tsx';

export type Webhook = components['schemas']['Webhook'];
export type WebhookEventType = components['schemas']['WebhookEventType'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type DeliveryStatus = WebhookDelivery['status'];

/** What a webhook is made with; `events` absent: every type, those added later too. */
export interface NewWebhook {
  url: string;
  description?: string;
  events?: WebhookEventType[];
  project?: string;
}

/** A webhook with its signing secret: it lives in a dialog's state until Done, never in a cache. */
export interface WebhookWithSecret {
  readonly webhook: Webhook;
  readonly secret: string;
}

/** Deliveries a page of the log asks for: the API's default. */
const DELIVERIES_PAGE = 50;
/** How often an open delivery log is read again: deliveries arrive and change on their own. */
export const LOG_REFRESH_MS = 2_000;

export const webhookKeys = {
  list: (orgId: string) => ['webhooks', orgId] as const,
  deliveries: (orgId: string, webhookId: string) =>
    ['webhooks', orgId, webhookId, 'deliveries'] as const,
};

/** The organization's webhooks, oldest first (owners and admins: the API answers members 403). */
export function useWebhooks() {
  const { api, org } = useStudio();
  return useQuery({
    queryKey: webhookKeys.list(org.id),
    queryFn: async (): Promise<Webhook[]> =>
      (
        await data(
          api.GET('/api/v1/orgs/{orgId}/webhooks', { params: { path: { orgId: org.id } } }),
        )
      ).webhooks,
    enabled: isManager(org),
  });
}

/**
 * A webhook's delivery log, newest first, a page at a time ("Load more" follows `cursor`). It
 * is read again every few seconds while shown: attempts happen on mnemo's side, not the page's.
 */
export function useDeliveries(webhookId: string) {
  const { api, org } = useStudio();
  return useInfiniteQuery({
    queryKey: webhookKeys.deliveries(org.id, webhookId),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      data(
        api.GET('/api/v1/orgs/{orgId}/webhooks/{webhookId}/deliveries', {
          params: {
            path: { orgId: org.id, webhookId },
            query: {
              limit: DELIVERIES_PAGE,
              ...(pageParam === undefined ? {} : { cursor: pageParam }),
            },
          },
        }),
      ),
    getNextPageParam: (page) => page.cursor,
    refetchInterval: LOG_REFRESH_MS,
  });
}

type Caller = Pick<Studio, 'api' | 'org'>;

const path = (org: Caller['org'], webhookId: string) => ({
  params: { path: { orgId: org.id, webhookId } },
});

export async function createWebhook({ api, org }: Caller, body: NewWebhook) {
  return data(
    api.POST('/api/v1/orgs/{orgId}/webhooks', { params: { path: { orgId: org.id } }, body }),
  );
}

/** Disables or enables a webhook (enabled again, what waited is sent, the failed one first). */
export async function setEnabled({ api, org }: Caller, webhookId: string, enabled: boolean) {
  const answer = await data(
    api.PATCH('/api/v1/orgs/{orgId}/webhooks/{webhookId}', {
      ...path(org, webhookId),
      body: { enabled },
    }),
  );
  return answer.webhook;
}

export async function deleteWebhook({ api, org }: Caller, webhookId: string) {
  await data(api.DELETE('/api/v1/orgs/{orgId}/webhooks/{webhookId}', path(org, webhookId)));
}

/** A new signing secret, shown once by the caller; every delivery is signed with it from now on. */
export async function rotateSecret({ api, org }: Caller, webhookId: string) {
  return data(api.POST('/api/v1/orgs/{orgId}/webhooks/{webhookId}/secret', path(org, webhookId)));
}

/** Sends a `webhook.test` event now, once: the answer is the attempt's outcome. */
export async function sendTest({ api, org }: Caller, webhookId: string) {
  const answer = await data(
    api.POST('/api/v1/orgs/{orgId}/webhooks/{webhookId}/test', path(org, webhookId)),
  );
  return answer.delivery;
}

export async function redeliver({ api, org }: Caller, webhookId: string, deliveryId: string) {
  const answer = await data(
    api.POST('/api/v1/orgs/{orgId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
      params: { path: { orgId: org.id, webhookId, deliveryId } },
    }),
  );
  return answer.delivery;
}

/**
 * Disables or enables a webhook: the list (which the webhook's own page reads too) takes the
 * answer at once, then is read again; the log is read again, as enabling resumes what waited.
 */
export function useEnabledSwitch(onDone?: (webhook: Webhook) => void) {
  const studio = useStudio();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (next: { webhook: Webhook; enabled: boolean }) =>
      setEnabled(studio, next.webhook.id, next.enabled),
    onSuccess: (saved) => {
      queryClient.setQueryData<Webhook[]>(webhookKeys.list(studio.org.id), (list) =>
        list?.map((w) => (w.id === saved.id ? saved : w)),
      );
      onDone?.(saved);
      void queryClient.invalidateQueries({
        queryKey: webhookKeys.deliveries(studio.org.id, saved.id),
      });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: webhookKeys.list(studio.org.id) }),
  });
}
