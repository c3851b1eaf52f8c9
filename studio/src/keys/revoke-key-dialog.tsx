import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import type { ApiKey } from './key-lifetime.ts';
import { revokeKey } from './keys-queries.ts';

/** Asks before a key is revoked: apps using it stop working at once, and it cannot be undone. */
export function RevokeKeyDialog(props: {
  target: ApiKey | undefined;
  owner: string | undefined;
  onClose: (revoked?: ApiKey) => void;
}) {
  const studio = useStudio();
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: (key: ApiKey) => revokeKey(studio, key.id),
    onSuccess: async (_, key) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys(studio.org.id) });
      revoke.reset();
      props.onClose(key);
    },
  });
  const { target } = props;
  const close = () => {
    revoke.reset();
    props.onClose();
  };

  return (
    <Dialog
      open={target !== undefined}
      title={`Revoke “${target?.name ?? ''}”?`}
      onClose={close}
      dismissible={!revoke.isPending}
    >
      <ErrorNotice error={revoke.error} />
      <p>
        Apps and scripts using this key
        {props.owner && props.owner !== 'You' ? `, which belongs to ${props.owner},` : ''} stop
        working at once: <code>/v1</code> refuses it from now on. This cannot be undone; make
        another key if it is needed again.
      </p>
      <p className="muted">
        Key <span className="mono">{target?.prefix}…</span>
      </p>
      <ConfirmActions
        label={'Revoke'}
        busyLabel="Revoking…"
        busy={revoke.isPending}
        onConfirm={() => target && revoke.mutate(target)}
        onCancel={close}
      />
    </Dialog>
  );
}
