import { useMutation, useQueryClient } from '@tanstack/react-query';
import { data } from '../api/client.ts';
import { queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { displayName } from '../members/members-queries.ts';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import type { Collaborator, Project } from './projects-queries.ts';

/** Asks before a collaborator loses access; the last owner stays (the API's 409 is shown). */
export function RemoveCollaboratorDialog(props: {
  project: Project;
  /** The collaborator to remove; the dialog is open while there is one. */
  collaborator: Collaborator | undefined;
  onClose: () => void;
  onRemoved: (collaborator: Collaborator) => void;
}) {
  const { collaborator } = props;
  return (
    <Dialog
      open={collaborator !== undefined}
      title={collaborator ? `Remove ${displayName(collaborator)}?` : 'Remove collaborator'}
      onClose={props.onClose}
    >
      {collaborator ? (
        <RemoveCollaborator
          project={props.project}
          collaborator={collaborator}
          onClose={props.onClose}
          onRemoved={props.onRemoved}
        />
      ) : null}
    </Dialog>
  );
}

function RemoveCollaborator(props: {
  project: Project;
  collaborator: Collaborator;
  onClose: () => void;
  onRemoved: (collaborator: Collaborator) => void;
}) {
  const { project, collaborator } = props;
  const { api, org, me } = useStudio();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () =>
      data(
        api.DELETE('/api/v1/projects/{projectId}/collaborators/{userId}', {
          params: { path: { projectId: project.id, userId: collaborator.userId } },
        }),
      ),
    onSuccess: async () => {
      props.onRemoved(collaborator);
      await queryClient.invalidateQueries({ queryKey: queryKeys.projects(org.id) });
    },
  });
  const self = collaborator.userId === me.sub;

  return (
    <>
      <p>
        {self ? 'You lose' : `${displayName(collaborator)} loses`} access to “{project.name}” and
        its memory pool. The memories {self ? 'you' : 'they'} added to the pool stay in it.
      </p>
      <ErrorNotice error={remove.error} />
      <ConfirmActions
        label={'Remove'}
        busyLabel="Removing…"
        busy={remove.isPending}
        onConfirm={() => remove.mutate()}
        onCancel={props.onClose}
      />
    </>
  );
}
