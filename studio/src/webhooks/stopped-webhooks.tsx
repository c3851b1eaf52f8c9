import { OctagonAlert } from 'lucide-react';
import { Link, useLocation } from 'react-router';
import { disabledByMnemo, WEBHOOKS_PATH, webhookName } from './webhook-words.ts';
import { useWebhooks, type Webhook } from './webhooks-queries.ts';
import './webhooks.css';

/**
 * The webhooks mnemo disabled after 24 hours of failed deliveries, each a link to its own page
 * (which says why, with Enable): at the top of Settings › Webhooks, before anything else, and
 * of every other page for its owners and admins, who have no other way to learn of it.
 */
export function StoppedWebhooks(props: { webhooks: readonly Webhook[] }) {
  const { webhooks } = props;
  const one = webhooks.length === 1;
  return (
    <section className="notice webhooks-stopped" aria-label="Disabled by mnemo">
      <OctagonAlert size={20} aria-hidden="true" className="webhooks-disabled-icon" />
      <p>
        {one
          ? 'mnemo disabled a webhook after its deliveries failed for 24 hours: '
          : `mnemo disabled ${webhooks.length} webhooks after their deliveries failed for 24 hours: `}
        {webhooks.map((webhook, index) => (
          <span key={webhook.id}>
            {index > 0 ? ', ' : ''}
            <Link to={`${WEBHOOKS_PATH}/${webhook.id}`}>{webhookName(webhook)}</Link>
          </span>
        ))}
        .{' '}
        {one
          ? 'Its events wait until it is enabled again.'
          : 'Their events wait until each is enabled again.'}
      </p>
    </section>
  );
}

/**
 * The same, above every page but the webhooks' own (which show it in their place), for owners
 * and admins (members are not asked: the API answers them 403), when mnemo disabled any.
 */
export function StoppedWebhooksNotice() {
  const { pathname } = useLocation();
  const stopped = (useWebhooks().data ?? []).filter(disabledByMnemo);
  if (stopped.length === 0 || pathname.startsWith(WEBHOOKS_PATH)) return null;
  return <StoppedWebhooks webhooks={stopped} />;
}
