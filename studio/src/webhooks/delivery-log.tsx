import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ChevronDown, ChevronRight, RotateCw } from 'lucide-react';
import { Fragment, useId, useState } from 'react';
import { membersQuery, projectsQuery } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { displayName } from '../members/members-queries.ts';
import { formatDateTime } from '../ui/format.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { latencyWords, STATUS } from './webhook-words.ts';
import {
  redeliver,
  useDeliveries,
  type Webhook,
  type WebhookDelivery,
  webhookKeys,
} from './webhooks-queries.ts';

const COLUMNS = 7;

/**
 * A webhook's delivery log, newest first and kept current: each event's status, attempts, last
 * response and latency; a row opens on what the last attempt got (its error, the start of the
 * answer). A delivery not yet delivered can be sent again at once; "Load more" reads older ones.
 */
export function DeliveryLog(props: { webhook: Webhook; onStatus: (said: string) => void }) {
  const { webhook, onStatus } = props;
  const studio = useStudio();
  const queryClient = useQueryClient();
  const log = useDeliveries(webhook.id);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const again = useMutation({
    mutationFn: (delivery: WebhookDelivery) => redeliver(studio, webhook.id, delivery.id),
    onMutate: () => onStatus(''),
    onSuccess: (delivery) => {
      onStatus(
        webhook.enabled
          ? `The ${delivery.type} event is being sent again, with a fresh 24 hours of retries.`
          : `The ${delivery.type} event is sent again once the webhook is enabled.`,
      );
      void queryClient.invalidateQueries({
        queryKey: webhookKeys.deliveries(studio.org.id, webhook.id),
      });
    },
  });

  if (log.isError && log.data === undefined) {
    return <ErrorNotice error={log.error} onRetry={() => void log.refetch()} />;
  }
  if (log.data === undefined) return <Loading what="the delivery log" />;

  // A page read again after new deliveries came can repeat one of the next page's: shown once.
  const seen = new Set<string>();
  const deliveries = log.data.pages
    .flatMap((page) => page.deliveries)
    .filter((d) => !seen.has(d.id) && seen.add(d.id));

  const toggle = (id: string) =>
    setOpen((was) => {
      const next = new Set(was);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  if (deliveries.length === 0) {
    return (
      <p className="webhooks-log-empty muted">
        No deliveries yet. Each event sent to this webhook appears here as it goes; Send test sends
        one now.
      </p>
    );
  }

  return (
    <>
      <ErrorNotice error={again.error} />
      <div className="table-wrap">
        <table className="table-stack webhooks-log">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col" className="number">
                Attempts
              </th>
              <th scope="col" className="number">
                Response
              </th>
              <th scope="col" className="number">
                Latency
              </th>
              <th scope="col">Time</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <DeliveryRow
                key={delivery.id}
                delivery={delivery}
                open={open.has(delivery.id)}
                onToggle={() => toggle(delivery.id)}
                sending={again.isPending && again.variables.id === delivery.id}
                onRedeliver={() => again.mutate(delivery)}
              />
            ))}
          </tbody>
        </table>
      </div>
      {log.hasNextPage ? (
        <div className="webhooks-more">
          <button
            type="button"
            className="button"
            disabled={log.isFetchingNextPage}
            onClick={() => void log.fetchNextPage()}
          >
            {log.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        </div>
      ) : null}
    </>
  );
}

function DeliveryRow(props: {
  delivery: WebhookDelivery;
  open: boolean;
  onToggle: () => void;
  sending: boolean;
  onRedeliver: () => void;
}) {
  const { delivery } = props;
  const ids = { details: useId(), event: useId() };
  const status = STATUS[delivery.status];
  const Chevron = props.open ? ChevronDown : ChevronRight;
  return (
    <Fragment>
      <tr className={props.open ? 'webhooks-row-open' : undefined}>
        <td data-label="Event">
          <span id={ids.event} className="mono webhooks-type">
            {delivery.type}
          </span>
        </td>
        <td data-label="Status">
          <span className={`badge ${status.tone}`}>{status.label}</span>
        </td>
        <td data-label="Attempts" className="number">
          {delivery.attempts}
        </td>
        <td data-label="Response" className="number">
          {delivery.responseStatus ?? '—'}
        </td>
        <td data-label="Latency" className="number">
          {latencyWords(delivery.latencyMs)}
        </td>
        <td data-label="Time">
          <time dateTime={delivery.createdAt}>{formatDateTime(delivery.createdAt)}</time>
        </td>
        <td className="row-actions">
          <button
            type="button"
            className="button small ghost"
            aria-expanded={props.open}
            aria-controls={ids.details}
            aria-describedby={ids.event}
            onClick={props.onToggle}
          >
            <Chevron size={16} aria-hidden="true" />
            Details
          </button>
          {delivery.redeliverable ? (
            <button
              type="button"
              className="button small"
              aria-describedby={ids.event}
              disabled={props.sending}
              onClick={props.onRedeliver}
            >
              <RotateCw size={14} aria-hidden="true" />
              {props.sending ? 'Sending…' : 'Redeliver'}
            </button>
          ) : null}
        </td>
      </tr>
      <tr id={ids.details} className="webhooks-details-row" hidden={!props.open}>
        <td colSpan={COLUMNS}>{props.open ? <DeliveryDetails delivery={delivery} /> : null}</td>
      </tr>
    </Fragment>
  );
}

/**
 * The store an event is of, by the names the studio shows elsewhere: a member's, an end user's
 * (by the app's id), a project's pool. An id stands in for what is no longer there.
 */
function StoreName(props: { store: NonNullable<WebhookDelivery['store']> }) {
  const { store } = props;
  const { api, org } = useStudio();
  const members = useQuery({ ...membersQuery(api, org.id), enabled: store.user !== undefined });
  const projects = useQuery({
    ...projectsQuery(api, org.id),
    enabled: store.project !== undefined,
  });
  if (store.project !== undefined) {
    const project = projects.data?.find((p) => p.id === store.project);
    return <>{project ? `The pool of ${project.name}` : `Project pool ${store.project}`}</>;
  }
  if (store.endUser !== undefined) {
    return (
      <>
        End user <span className="mono">{store.endUser}</span>
      </>
    );
  }
  const member = members.data?.find((m) => m.userId === store.user);
  return <>{member ? `${displayName(member)}’s memories` : `Member ${store.user ?? ''}`}</>;
}

/** What the last attempt got, and where the delivery stands. */
function DeliveryDetails(props: { delivery: WebhookDelivery }) {
  const { delivery } = props;
  const at = (iso: string | null) =>
    iso === null ? null : <time dateTime={iso}>{formatDateTime(iso)}</time>;
  return (
    <div className="webhooks-details">
      <dl className="webhooks-details-facts">
        {delivery.error ? (
          <div className="webhooks-details-error">
            <dt>Error</dt>
            <dd>{delivery.error}</dd>
          </div>
        ) : null}
        <div>
          <dt>Event id</dt>
          <dd className="mono">{delivery.eventId}</dd>
        </div>
        {delivery.store ? (
          <div>
            <dt>Store</dt>
            <dd>
              <StoreName store={delivery.store} />
            </dd>
          </div>
        ) : null}
        {delivery.lastAttemptAt ? (
          <div>
            <dt>Last attempt</dt>
            <dd>{at(delivery.lastAttemptAt)}</dd>
          </div>
        ) : null}
        {delivery.nextAttemptAt ? (
          <div>
            <dt>Next attempt</dt>
            <dd>{at(delivery.nextAttemptAt)}</dd>
          </div>
        ) : null}
        {delivery.deliveredAt ? (
          <div>
            <dt>Delivered</dt>
            <dd>{at(delivery.deliveredAt)}</dd>
          </div>
        ) : null}
      </dl>
      <div className="webhooks-response">
        <span className="field-label">Response</span>
        {delivery.response ? (
          <pre className="webhooks-excerpt">{delivery.response}</pre>
        ) : (
          <p className="muted">
            {delivery.attempts === 0
              ? 'Not sent yet.'
              : delivery.responseStatus === null
                ? 'No answer came.'
                : 'The answer had no body.'}
          </p>
        )}
      </div>
    </div>
  );
}
