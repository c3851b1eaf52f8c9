import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type Connection, queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { formatDate } from '../ui/format.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { clientOrigin } from './client-origin.ts';
import { disconnect } from './connections-queries.ts';

/** How a disconnection ended: done now, or found done already. */
export type Disconnected = { connection: Connection; outcome: 'disconnected' | 'gone' };

/**
 * Asks before an app is disconnected: it loses access at once, and only the person can connect
 * it again, through the app's own sign-in.
 */
export function DisconnectDialog(props: {
  /** The connection to end; the dialog is open while there is one. */
  target: Connection | undefined;
  onClose: (done?: Disconnected) => void;
}) {
  const { target } = props;
  return (
    <Dialog
      open={target !== undefined}
      title={target ? `Disconnect “${target.clientName}”?` : 'Disconnect app'}
      onClose={() => props.onClose()}
    >
      {target ? <Disconnect connection={target} onClose={props.onClose} /> : null}
    </Dialog>
  );
}

function Disconnect(props: { connection: Connection; onClose: (done?: Disconnected) => void }) {
  const { connection } = props;
  const { api } = useStudio();
  const queryClient = useQueryClient();
  const end = useMutation({
    mutationFn: () => disconnect(api, connection.id),
    onSuccess: async (outcome) => {
      // The row goes at once; the list is then read again for anything else that changed.
      queryClient.setQueryData<Connection[]>(queryKeys.connections(), (list) =>
        list?.filter((c) => c.id !== connection.id),
      );
      props.onClose({ connection, outcome });
      await queryClient.invalidateQueries({ queryKey: queryKeys.connections() });
    },
  });
  const origin = clientOrigin(connection.clientId);

  return (
    <>
      <p>
        {connection.clientName} loses access to your memories in {connection.organization.name} at
        once: mnemo refuses its next request, and it cannot renew its access.
      </p>
      <p>
        To use it again, connect it again from the app. It will ask you to sign in to mnemo and to
        choose an organization.
      </p>
      <p className="muted">
        {origin.kind === 'published' ? `From ${origin.host}` : 'Registered with mnemo'}, connected{' '}
        {formatDate(connection.createdAt)}
      </p>
      <ErrorNotice error={end.error} />
      <ConfirmActions
        label="Disconnect"
        busyLabel="Disconnecting…"
        busy={end.isPending}
        onConfirm={() => end.mutate()}
        onCancel={() => props.onClose()}
      />
    </>
  );
}
