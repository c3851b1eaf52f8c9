import { OctagonAlert } from 'lucide-react';
import { useId } from 'react';
import { asSentence } from '../api/errors.ts';
import { formatDateTime, formatRelative } from '../ui/format.ts';
import type { Webhook } from './webhooks-queries.ts';

/**
 * A webhook mnemo disabled after 24 hours of failed deliveries: what failed and when, that what
 * waited is kept, and Enable, which sends it again (the failed delivery first). Its owners
 * learn of it here: mnemo has no other way to tell them.
 */
export function DisabledByMnemoNotice(props: {
  webhook: Webhook;
  /** The webhook's name, for the heading of a notice among several. */
  name?: string;
  busy: boolean;
  onEnable: () => void;
}) {
  const { webhook } = props;
  const headingId = useId();
  const at = webhook.disabledAt ?? webhook.updatedAt;
  return (
    <section className="notice webhooks-disabled" aria-labelledby={headingId}>
      <OctagonAlert size={20} aria-hidden="true" className="webhooks-disabled-icon" />
      <div className="webhooks-disabled-text">
        <h3 id={headingId}>
          mnemo disabled {props.name ? `“${props.name}”` : 'this webhook'}{' '}
          <time dateTime={at} title={formatDateTime(at)}>
            {formatRelative(at)}
          </time>
        </h3>
        <p>
          {asSentence(webhook.disabledReason ?? 'deliveries failed')} Disabled on{' '}
          {formatDateTime(at)}.
        </p>
        <p className="muted">
          No new events are recorded for it meanwhile; the delivery that failed and those behind it
          are kept. Once the endpoint answers again, enable it: mnemo sends what waited, the failed
          delivery first.
        </p>
      </div>
      <button
        type="button"
        className="button primary small"
        disabled={props.busy}
        aria-describedby={headingId}
        onClick={props.onEnable}
      >
        {props.busy ? 'Enabling…' : 'Enable'}
      </button>
    </section>
  );
}
