import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ChevronLeft, KeyRound, Power, Send, Trash2, Webhook as WebhookIcon } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { isManager, useStudio } from '../app/studio-context.tsx';
import { SettingsNav } from '../keys/settings-nav.tsx';
import { EmptyState } from '../ui/empty-state.tsx';
import { formatDateTime } from '../ui/format.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { DeleteWebhookDialog } from './delete-webhook-dialog.tsx';
import { DeliveryLog } from './delivery-log.tsx';
import { DisabledByMnemoNotice } from './disabled-notice.tsx';
import { NewSecretDialog } from './new-secret-dialog.tsx';
import { WebhookFacts, WebhookState } from './webhook-facts.tsx';
import {
  disabledByMnemo,
  latencyWords,
  STATUS,
  WEBHOOKS_PATH,
  webhookName,
} from './webhook-words.ts';
import { ForManagersOnly } from './webhooks-page.tsx';
import {
  sendTest,
  useEnabledSwitch,
  useWebhooks,
  type Webhook,
  type WebhookDelivery,
  webhookKeys,
} from './webhooks-queries.ts';
import './webhooks.css';

/**
 * One webhook (`/settings/webhooks/{id}`): where it sends and what, its state, and its delivery
 * log, kept current. Send test shows the attempt's outcome; Disable and Enable, a new signing
 * secret (shown once) and Delete act on it. Read from the list every page shares.
 */
export function WebhookPage() {
  const { org } = useStudio();
  return (
    <>
      <SettingsNav />
      {isManager(org) ? <ManagedWebhook /> : <ForManagersOnly />}
    </>
  );
}

function ManagedWebhook() {
  const { webhookId = '' } = useParams();
  const list = useWebhooks();
  const webhook = list.data?.find((w) => w.id === webhookId);
  if (list.isPending) {
    return (
      <Frame title="Webhook">
        <Loading what="the webhook" />
      </Frame>
    );
  }
  if (list.isError) {
    return (
      <Frame title="Webhook">
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      </Frame>
    );
  }
  if (!webhook) {
    return (
      <Frame title="Webhook not found">
        <EmptyState title="There is no such webhook here" icon={<WebhookIcon size={32} />}>
          <p>It may have been deleted, or belong to another organization.</p>
          <Link to={WEBHOOKS_PATH} className="button">
            See the webhooks
          </Link>
        </EmptyState>
      </Frame>
    );
  }
  return <WebhookDetails key={webhook.id} webhook={webhook} />;
}

function Frame(props: {
  title: string;
  subtitle?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <>
      <nav aria-label="Breadcrumb" className="webhooks-back">
        <Link to={WEBHOOKS_PATH}>
          <ChevronLeft size={16} aria-hidden="true" />
          Webhooks
        </Link>
      </nav>
      <Page title={props.title} subtitle={props.subtitle} actions={props.actions}>
        {props.children}
      </Page>
    </>
  );
}

function WebhookDetails({ webhook }: { webhook: Webhook }) {
  const studio = useStudio();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [status, setStatus] = useState('');
  const [rotating, setRotating] = useState<Webhook>();
  const [deleting, setDeleting] = useState<Webhook>();
  const name = webhookName(webhook);
  const stopped = disabledByMnemo(webhook);

  const toggle = useEnabledSwitch((saved) =>
    setStatus(
      saved.enabled
        ? 'Enabled: events are recorded and sent again, starting with what waited.'
        : 'Disabled: no events are recorded or sent until it is enabled again.',
    ),
  );
  const test = useMutation({
    mutationFn: () => sendTest(studio, webhook.id),
    onMutate: () => setStatus(''),
    onSettled: () =>
      queryClient.invalidateQueries({
        queryKey: webhookKeys.deliveries(studio.org.id, webhook.id),
      }),
  });

  return (
    <Frame
      title={name}
      subtitle={<span className="mono webhooks-url">{webhook.url}</span>}
      actions={
        <>
          <button
            type="button"
            className="button primary"
            disabled={test.isPending}
            onClick={() => test.mutate()}
          >
            <Send size={16} aria-hidden="true" />
            {test.isPending ? 'Sending…' : 'Send test'}
          </button>
          {stopped ? null : (
            <button
              type="button"
              className="button"
              disabled={toggle.isPending}
              onClick={() => {
                setStatus('');
                toggle.mutate({ webhook, enabled: !webhook.enabled });
              }}
            >
              <Power size={16} aria-hidden="true" />
              {webhook.enabled ? 'Disable' : 'Enable'}
            </button>
          )}
          <button
            type="button"
            className="button"
            onClick={() => {
              setStatus('');
              setRotating(webhook);
            }}
          >
            <KeyRound size={16} aria-hidden="true" />
            New secret
          </button>
          <button
            type="button"
            className="button danger-text"
            onClick={() => {
              setStatus('');
              setDeleting(webhook);
            }}
          >
            <Trash2 size={16} aria-hidden="true" />
            Delete
          </button>
        </>
      }
    >
      {stopped ? (
        <DisabledByMnemoNotice
          webhook={webhook}
          busy={toggle.isPending}
          onEnable={() => {
            setStatus('');
            toggle.mutate({ webhook, enabled: true });
          }}
        />
      ) : null}
      <div role="status" className="status-line webhooks-status">
        {status ? <p className="notice info">{status}</p> : null}
      </div>
      <ErrorNotice error={toggle.error} />
      <section className="card webhooks-about" aria-labelledby="webhook-about">
        <div className="webhooks-about-head">
          <h2 id="webhook-about">Subscription</h2>
          <WebhookState webhook={webhook} />
        </div>
        {!webhook.enabled && !stopped ? (
          <p className="muted webhooks-off-line">
            Disabled by an owner or admin
            {webhook.disabledAt ? ` on ${formatDateTime(webhook.disabledAt)}` : ''}: no events are
            recorded for it until it is enabled again.
          </p>
        ) : null}
        <WebhookFacts webhook={webhook} />
      </section>
      <TestOutcome pending={test.isPending} error={test.error} delivery={test.data} />
      <section aria-labelledby="webhook-log" className="webhooks-log-section">
        <div className="webhooks-log-head">
          <h2 id="webhook-log">Delivery log</h2>
          <span className="muted">Newest first, updated as deliveries happen</span>
        </div>
        <DeliveryLog webhook={webhook} onStatus={setStatus} />
      </section>
      <NewSecretDialog
        target={rotating}
        onClose={(replaced) => {
          setRotating(undefined);
          if (replaced) setStatus('The new signing secret signs every delivery from now on.');
        }}
      />
      <DeleteWebhookDialog
        target={deleting}
        onClose={(deleted) => {
          setDeleting(undefined);
          if (deleted) navigate(WEBHOOKS_PATH, { replace: true, state: { deleted: deleted.url } });
        }}
      />
    </Frame>
  );
}

/**
 * What the test event met, once Send test answered: delivered or not, the endpoint's status,
 * how long it took, and why it failed. Announced as it appears.
 */
function TestOutcome(props: {
  pending: boolean;
  error: unknown;
  delivery: WebhookDelivery | undefined;
}) {
  const { delivery } = props;
  return (
    <section aria-label="Test delivery" className="webhooks-test" aria-live="polite">
      <ErrorNotice error={props.error} />
      {delivery && !props.pending ? (
        <div
          className={`webhooks-test-outcome ${delivery.status === 'delivered' ? 'ok' : 'failed'}`}
        >
          <h2 className="webhooks-test-title">
            {delivery.status === 'delivered'
              ? 'The test event was delivered'
              : 'The test event was not delivered'}
          </h2>
          <dl className="webhooks-test-facts">
            <div>
              <dt>Status</dt>
              <dd>
                <span className={`badge ${STATUS[delivery.status].tone}`}>
                  {STATUS[delivery.status].label}
                </span>
              </dd>
            </div>
            <div>
              <dt>Response code</dt>
              <dd>{delivery.responseStatus ?? 'No answer'}</dd>
            </div>
            <div>
              <dt>Latency</dt>
              <dd>{latencyWords(delivery.latencyMs)}</dd>
            </div>
            {delivery.error ? (
              <div className="webhooks-test-error">
                <dt>Error</dt>
                <dd>{delivery.error}</dd>
              </div>
            ) : null}
          </dl>
        </div>
      ) : null}
    </section>
  );
}
