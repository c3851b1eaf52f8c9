import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type App, type AppList, queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { revokeApp } from './apps-queries.ts';

/** How a revocation ended: done now, or found done already. */
export type Revoked = { app: App; outcome: 'revoked' | 'gone' };

/**
 * Asks before an app is revoked, naming what goes with it (its access, its own memories, what
 * it added to project pools) and what stays (the end users it registered and what it wrote for
 * them or for members). It cannot be undone.
 */
export function RevokeAppDialog(props: {
  target: App | undefined;
  onClose: (done?: Revoked) => void;
}) {
  const { target } = props;
  const [pending, setPending] = useState(false);
  return (
    <Dialog
      open={target !== undefined}
      title={`Revoke “${target?.name ?? ''}”?`}
      onClose={() => props.onClose()}
      dismissible={!pending}
    >
      {target ? <Revoke app={target} onPending={setPending} onClose={props.onClose} /> : null}
    </Dialog>
  );
}

function Revoke(props: {
  app: App;
  onPending: (pending: boolean) => void;
  onClose: (done?: Revoked) => void;
}) {
  const { app } = props;
  const studio = useStudio();
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => revokeApp(studio, app.id),
    onMutate: () => props.onPending(true),
    onSettled: () => props.onPending(false),
    onSuccess: async (outcome) => {
      // The app goes from the list at once; the list is then read again for anything else.
      queryClient.setQueryData<AppList>(queryKeys.apps(studio.org.id), (list) =>
        list ? { ...list, apps: list.apps.filter((a) => a.id !== app.id) } : list,
      );
      props.onClose({ app, outcome });
      await queryClient.invalidateQueries({ queryKey: queryKeys.apps(studio.org.id) });
    },
  });

  return (
    <>
      <ErrorNotice error={revoke.error} />
      <p>
        {app.name} stops working at once: mnemo refuses its tokens from their next request, and its
        secret gets no new ones.
      </p>
      <p className="apps-revoke-lead">Erased with it:</p>
      <ul className="apps-revoke-list">
        <li>the memories it keeps as itself;</li>
        <li>the memories it added to project pools, and its access to projects;</li>
        <li>any API keys it made.</li>
      </ul>
      <p>
        The end users it registered stay, and so do the memories it wrote for them or for members:
        those are theirs.
      </p>
      <p>
        This cannot be undone. To connect the service again, register it anew: it gets a new client
        ID and secret.
      </p>
      <p className="muted">
        Client ID <span className="mono apps-id-inline">{app.id}</span>
      </p>
      <ConfirmActions
        label="Revoke"
        busyLabel="Revoking…"
        busy={revoke.isPending}
        onConfirm={() => revoke.mutate()}
        onCancel={() => props.onClose()}
      />
    </>
  );
}
