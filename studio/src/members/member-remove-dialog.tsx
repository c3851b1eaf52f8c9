import { useMutation, useQueryClient } from '@tanstack/react-query';
import { data } from '../api/client.ts';
import { queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { displayName, type Member } from './members-queries.ts';

/**
 * Asks before a member is removed: the membership and the member's access to every project of
 * the organization end together. The last owner stays: the API's 409 is shown.
 */
export function RemoveMemberDialog(props: {
  /** The member to remove; the dialog is open while there is one. */
  member: Member | undefined;
  onClose: () => void;
  onRemoved: (member: Member) => void;
}) {
  const { member } = props;
  return (
    <Dialog
      open={member !== undefined}
      title={member ? `Remove ${displayName(member)}?` : 'Remove member'}
      onClose={props.onClose}
    >
      {member ? (
        <RemoveMember member={member} onClose={props.onClose} onRemoved={props.onRemoved} />
      ) : null}
    </Dialog>
  );
}

function RemoveMember(props: {
  member: Member;
  onClose: () => void;
  onRemoved: (member: Member) => void;
}) {
  const { member } = props;
  const { api, org, me } = useStudio();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () =>
      data(
        api.DELETE('/api/v1/orgs/{orgId}/members/{userId}', {
          params: { path: { orgId: org.id, userId: member.userId } },
        }),
      ),
    onSuccess: async () => {
      props.onRemoved(member);
      await queryClient.invalidateQueries({ queryKey: queryKeys.members(org.id) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.projects(org.id) });
    },
  });
  const self = member.userId === me.sub;

  return (
    <>
      {self ? (
        <p>
          You leave {org.name}: you lose access to its memories, its projects and this page. Only an
          owner or admin can add you back.
        </p>
      ) : (
        <p>
          {displayName(member)} ({member.email}) leaves {org.name} and loses access to every project
          in it. Their account stays, and an owner or admin can add them back, though not their
          project access.
        </p>
      )}
      <ErrorNotice error={remove.error} />
      <ConfirmActions
        label={self ? `Leave ${org.name}` : 'Remove member'}
        busyLabel="Removing…"
        busy={remove.isPending}
        onConfirm={() => remove.mutate()}
        onCancel={props.onClose}
      />
    </>
  );
}
