import { useStudio } from '../app/studio-context.tsx';
import { ReplaceSecretDialog } from '../ui/replace-secret-dialog.tsx';
import { WebhookSecretView } from './webhook-secret-view.tsx';
import { webhookName } from './webhook-words.ts';
import { rotateSecret, type Webhook } from './webhooks-queries.ts';

/**
 * Replaces a webhook's signing secret: the endpoint rejects deliveries signed with the new one
 * until it has it, and the new secret is shown once, as at creation.
 */
export function NewSecretDialog(props: {
  target: Webhook | undefined;
  onClose: (replaced?: Webhook) => void;
}) {
  const studio = useStudio();
  return (
    <ReplaceSecretDialog
      target={props.target}
      onClose={props.onClose}
      replace={async (webhook) => {
        const answer = await rotateSecret(studio, webhook.id);
        return { item: answer.webhook, secret: answer.secret };
      }}
      title={{
        ask: () => 'Replace the signing secret?',
        shown: () => 'Save the new signing secret',
      }}
      explain={(webhook) => (
        <>
          <p>
            mnemo makes a new signing secret for “{webhookName(webhook)}” and shows it once. Every
            delivery is signed with it from then on, retries of earlier events too: the endpoint
            rejects them until it has the new secret, and mnemo retries them for 24 hours.
          </p>
          <p>To change without a gap, have the endpoint accept both secrets for a while.</p>
        </>
      )}
      show={(shown, onDone) => (
        <WebhookSecretView webhook={shown.item} secret={shown.secret} replaced onDone={onDone} />
      )}
      wideClassName="webhooks-wide-dialog"
    />
  );
}
