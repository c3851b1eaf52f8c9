import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useStudio } from '../app/studio-context.tsx';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { type Invitation, invitationsKey, revokeInvitation } from './invitations-queries.ts';

/** Asks before an invitation is revoked: its link stops working at once. */
export function RevokeInvitationDialog(props: {
  /** The invitation to revoke; the dialog is open while there is one. */
  invitation: Invitation | undefined;
  onClose: (revoked?: Invitation) => void;
}) {
  const { api, org } = useStudio();
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: (invitation: Invitation) => revokeInvitation(api, org.id, invitation.id),
    onSuccess: async (_, invitation) => {
      await queryClient.invalidateQueries({ queryKey: invitationsKey(org.id) });
      revoke.reset();
      props.onClose(invitation);
    },
  });
  const { invitation } = props;
  const close = () => {
    revoke.reset();
    props.onClose();
  };

  return (
    <Dialog
      open={invitation !== undefined}
      title={invitation ? `Revoke the invitation for ${invitation.email}?` : 'Revoke invitation'}
      onClose={close}
      dismissible={!revoke.isPending}
    >
      <ErrorNotice error={revoke.error} />
      <p>
        Its link stops working at once. To change your mind later, invite {invitation?.email} again:
        they get a new link.
      </p>
      <ConfirmActions
        label="Revoke invitation"
        busyLabel="Revoking…"
        busy={revoke.isPending}
        onConfirm={() => invitation && revoke.mutate(invitation)}
        onCancel={close}
      />
    </Dialog>
  );
}
