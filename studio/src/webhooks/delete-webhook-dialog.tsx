import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../api/errors.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { webhookName } from './webhook-words.ts';
import { deleteWebhook, type Webhook, webhookKeys } from './webhooks-queries.ts';

/**
 * Asks before a webhook is deleted, naming its URL and what goes with it: the events it had
 * still to send and its delivery log. A webhook deleted meanwhile elsewhere (a 404) is gone as
 * asked: that is an outcome, not a failure.
 */
export function DeleteWebhookDialog(props: {
  target: Webhook | undefined;
  onClose: (deleted?: Webhook) => void;
}) {
  const { target } = props;
  const [pending, setPending] = useState(false);
  return (
    <Dialog
      open={target !== undefined}
      title={`Delete “${target ? webhookName(target) : ''}”?`}
      onClose={() => props.onClose()}
      dismissible={!pending}
    >
      {target ? <Delete webhook={target} onPending={setPending} onClose={props.onClose} /> : null}
    </Dialog>
  );
}

function Delete(props: {
  webhook: Webhook;
  onPending: (pending: boolean) => void;
  onClose: (deleted?: Webhook) => void;
}) {
  const { webhook } = props;
  const studio = useStudio();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: async () => {
      try {
        await deleteWebhook(studio, webhook.id);
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 404)) throw error;
      }
    },
    onMutate: () => props.onPending(true),
    onSettled: () => props.onPending(false),
    onSuccess: () => {
      queryClient.setQueryData<Webhook[]>(webhookKeys.list(studio.org.id), (list) =>
        list?.filter((w) => w.id !== webhook.id),
      );
      queryClient.removeQueries({ queryKey: webhookKeys.deliveries(studio.org.id, webhook.id) });
      props.onClose(webhook);
      void queryClient.invalidateQueries({ queryKey: webhookKeys.list(studio.org.id) });
    },
  });

  return (
    <>
      <ErrorNotice error={remove.error} />
      <p>mnemo stops sending events to</p>
      <p className="mono webhooks-delete-url">{webhook.url}</p>
      <p>
        What it had still to send is dropped, with its delivery log. This cannot be undone: to send
        there again, add a new webhook, which gets a new secret.
      </p>
      <ConfirmActions
        label="Delete webhook"
        busyLabel="Deleting…"
        busy={remove.isPending}
        onConfirm={() => remove.mutate()}
        onCancel={() => props.onClose()}
      />
    </>
  );
}
