import { useId, useRef } from 'react';
import { CopyButton } from '../ui/copy-button.tsx';
import { ShownOnce } from '../ui/shown-once.tsx';
import { webhookName } from './webhook-words.ts';
import type { Webhook } from './webhooks-queries.ts';

/**
 * A webhook's signing secret, shown this once (at creation, or after a new secret), with a Copy
 * button.
 */
export function WebhookSecretView(props: {
  webhook: Webhook;
  secret: string;
  /** After a new secret, deliveries are signed with it already. */
  replaced?: boolean;
  onDone: () => void;
}) {
  const { webhook, secret, onDone } = props;
  const ids = { url: useId(), secret: useId(), hint: useId() };
  const secretField = useRef<HTMLInputElement>(null);

  return (
    <ShownOnce
      className="webhooks-secret"
      secretField={secretField}
      onDone={onDone}
      warning={
        <>
          {props.replaced
            ? `Deliveries to “${webhookName(webhook)}” are signed with this new secret from now on: the endpoint rejects them until it has it. `
            : `Copy the signing secret of “${webhookName(webhook)}” now and give it to the endpoint. `}
          It will not be shown again.
        </>
      }
    >
      <div className="field">
        <label htmlFor={ids.url}>Endpoint URL</label>
        <input
          id={ids.url}
          className="mono webhooks-readonly"
          readOnly
          value={webhook.url}
          autoComplete="off"
          spellCheck={false}
        />
      </div>
      <div className="field">
        <label htmlFor={ids.secret}>Signing secret</label>
        <div className="webhooks-copy-row">
          <input
            id={ids.secret}
            ref={secretField}
            className="mono webhooks-readonly"
            readOnly
            value={secret}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={ids.hint}
            onFocus={(event) => event.target.select()}
          />
          <CopyButton what="signing secret" value={secret} />
        </div>
        <span id={ids.hint} className="field-hint">
          The endpoint verifies each delivery’s <code>webhook-signature</code> with it, by the
          Standard Webhooks specification: <code>new Webhook(secret).verify(body, headers)</code>.
        </span>
      </div>
    </ShownOnce>
  );
}
