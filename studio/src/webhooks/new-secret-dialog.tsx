import { useMutation } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useStudio } from '../app/studio-context.tsx';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { WebhookSecretView } from './webhook-secret-view.tsx';
import { webhookName } from './webhook-words.ts';
import { rotateSecret, type Webhook } from './webhooks-queries.ts';

/**
 * Asks before a webhook's signing secret is replaced (the endpoint rejects deliveries signed with
 * the new one until it has it), then shows the new secret once, as at creation. While it is
 * shown, only Done ends the dialog; the secret lives in the mutation's state and goes with it.
 */
export function NewSecretDialog(props: {
  target: Webhook | undefined;
  onClose: (replaced?: Webhook) => void;
}) {
  const studio = useStudio();
  const { target, onClose } = props;
  const replace = useMutation({ mutationFn: (w: Webhook) => rotateSecret(studio, w.id) });
  const shown = replace.data;
  const { reset } = replace;
  const done = useCallback(() => {
    const webhook = shown?.webhook;
    reset();
    onClose(webhook);
  }, [shown, reset, onClose]);
  const cancel = () => {
    reset();
    onClose();
  };

  return (
    <Dialog
      open={target !== undefined}
      title={shown ? 'Save the new signing secret' : 'Replace the signing secret?'}
      onClose={shown ? done : cancel}
      dismissible={!shown && !replace.isPending}
      className={shown ? 'webhooks-wide-dialog' : ''}
    >
      {shown ? (
        <WebhookSecretView webhook={shown.webhook} secret={shown.secret} replaced onDone={done} />
      ) : target ? (
        <>
          <ErrorNotice error={replace.error} />
          <p>
            mnemo makes a new signing secret for “{webhookName(target)}” and shows it once. Every
            delivery is signed with it from then on, retries of earlier events too: the endpoint
            rejects them until it has the new secret, and mnemo retries them for 24 hours.
          </p>
          <p>To change without a gap, have the endpoint accept both secrets for a while.</p>
          <ConfirmActions
            label="Replace secret"
            busyLabel="Replacing…"
            busy={replace.isPending}
            onConfirm={() => replace.mutate(target)}
            onCancel={cancel}
          />
        </>
      ) : null}
    </Dialog>
  );
}
