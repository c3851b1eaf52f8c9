import { Plus, ShieldCheck, Webhook as WebhookIcon } from 'lucide-react';
import { useId, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { isManager, useStudio } from '../app/studio-context.tsx';
import { SettingsNav } from '../keys/settings-nav.tsx';
import { EmptyState } from '../ui/empty-state.tsx';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { CreateWebhookDialog } from './create-webhook-dialog.tsx';
import { DisabledByMnemoNotice } from './disabled-notice.tsx';
import { HowDeliveriesArrive } from './how-deliveries-arrive.tsx';
import { StoppedWebhooks } from './stopped-webhooks.tsx';
import { WebhookFacts, WebhookState } from './webhook-facts.tsx';
import { disabledByMnemo, WEBHOOKS_PATH, webhookName } from './webhook-words.ts';
import { useEnabledSwitch, useWebhooks, type Webhook } from './webhooks-queries.ts';
import './webhooks.css';

export const SUBTITLE =
  'Endpoints of yours that mnemo tells, as it happens, what changed in the organization’s memory.';

/**
 * Settings › Webhooks: the organization's webhooks, each an endpoint mnemo POSTs its events to,
 * signed. Owners and admins add them (the signing secret shown once) and open each for its
 * delivery log and actions; one that mnemo disabled after 24 hours of failures is shown first
 * of all, with Enable. Members are told who manages them: the API answers them 403.
 */
export function WebhooksPage() {
  const { org } = useStudio();
  return (
    <>
      <SettingsNav />
      {isManager(org) ? <ManagedWebhooks /> : <ForManagersOnly />}
    </>
  );
}

export function ForManagersOnly() {
  const { org } = useStudio();
  return (
    <Page title="Webhooks" subtitle={SUBTITLE}>
      <EmptyState title="For owners and admins" icon={<ShieldCheck size={32} />}>
        <p>
          Only the owners and admins of {org.name} add and manage webhooks: a webhook is sent what
          changes in the whole organization’s memory.
        </p>
        <p>Ask one of them if a service of yours needs to hear of those changes.</p>
      </EmptyState>
    </Page>
  );
}

function ManagedWebhooks() {
  const list = useWebhooks();
  const [creating, setCreating] = useState(false);
  // Back from a webhook just deleted on its own page: the list says so.
  const deleted = (useLocation().state as { deleted?: string } | null)?.deleted;
  const [status, setStatus] = useState(deleted ? `The webhook to ${deleted} is deleted.` : '');
  const enable = useEnabledSwitch((saved) =>
    setStatus(
      `“${webhookName(saved)}” is enabled again: what waited is being sent, the failed delivery first.`,
    ),
  );
  const webhooks = list.data ?? [];
  const stopped = webhooks.filter(disabledByMnemo);

  return (
    <Page
      title="Webhooks"
      subtitle={SUBTITLE}
      actions={
        <button
          type="button"
          className="button primary"
          onClick={() => {
            setStatus('');
            setCreating(true);
          }}
        >
          <Plus size={16} aria-hidden="true" />
          Add webhook
        </button>
      }
    >
      {stopped.length > 0 ? <StoppedWebhooks webhooks={stopped} /> : null}
      <div role="status" className="status-line webhooks-status">
        {status ? <p className="notice info">{status}</p> : null}
      </div>
      <ErrorNotice error={enable.error} />
      {list.isPending ? <Loading what="webhooks" /> : null}
      <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      {list.data && webhooks.length === 0 ? (
        <EmptyState title="No webhooks yet" icon={<WebhookIcon size={32} />}>
          <p>
            A webhook is an endpoint of yours, such as a CRM sync or a search index, that mnemo
            POSTs each change to as it happens: memories created, changed or deleted, a store
            erased, an end user registered or erased.
          </p>
          <p>Add one to get its signing secret; the secret is shown once.</p>
        </EmptyState>
      ) : null}
      {webhooks.length > 0 ? (
        <section aria-labelledby="webhooks-list" className="webhooks-section">
          <h2 id="webhooks-list" className="webhooks-heading">
            Endpoints <span className="badge">{webhooks.length}</span>
          </h2>
          <ul className="webhooks-list">
            {webhooks.map((webhook) => (
              <WebhookCard
                key={webhook.id}
                webhook={webhook}
                enabling={enable.isPending && enable.variables.webhook.id === webhook.id}
                onEnable={() => {
                  setStatus('');
                  enable.mutate({ webhook, enabled: true });
                }}
              />
            ))}
          </ul>
        </section>
      ) : null}
      {list.data ? <HowDeliveriesArrive /> : null}
      <CreateWebhookDialog
        open={creating}
        onClose={(made) => {
          setCreating(false);
          if (made)
            setStatus(`“${webhookName(made)}” is added: mnemo sends it events from now on.`);
        }}
      />
    </Page>
  );
}

/** A webhook as a card of the list: where it sends, what, and its state. */
function WebhookCard(props: { webhook: Webhook; enabling: boolean; onEnable: () => void }) {
  const { webhook } = props;
  const nameId = useId();
  const name = webhookName(webhook);
  const stopped = disabledByMnemo(webhook);
  return (
    <li className="webhooks-item">
      <article
        className={`webhooks-card${stopped ? ' webhooks-card-stopped' : ''}`}
        aria-labelledby={nameId}
      >
        <div className="webhooks-card-head">
          <span
            className={`webhooks-tile ${webhook.enabled ? 'on' : stopped ? 'stopped' : 'off'}`}
            aria-hidden="true"
          >
            <WebhookIcon size={18} />
          </span>
          <div className="webhooks-card-title">
            <h3 id={nameId}>
              <Link to={`${WEBHOOKS_PATH}/${webhook.id}`}>{name}</Link>
            </h3>
            <p className="mono webhooks-url">{webhook.url}</p>
          </div>
          <div className="webhooks-card-state">
            <WebhookState webhook={webhook} />
          </div>
        </div>
        {stopped ? (
          <div className="webhooks-card-notice">
            <DisabledByMnemoNotice
              webhook={webhook}
              busy={props.enabling}
              onEnable={props.onEnable}
            />
          </div>
        ) : null}
        <div className="webhooks-card-body">
          <WebhookFacts webhook={webhook} className="webhooks-card-facts" />
          <div className="webhooks-card-actions">
            {!webhook.enabled && !stopped ? (
              <button
                type="button"
                className="button small"
                aria-describedby={nameId}
                disabled={props.enabling}
                onClick={props.onEnable}
              >
                {props.enabling ? 'Enabling…' : 'Enable'}
              </button>
            ) : null}
            <Link
              to={`${WEBHOOKS_PATH}/${webhook.id}`}
              className="button small"
              aria-describedby={nameId}
            >
              Deliveries and settings
            </Link>
          </div>
        </div>
      </article>
    </li>
  );
}
