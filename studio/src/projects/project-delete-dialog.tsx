import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { data } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import type { Project } from './projects-queries.ts';

/**
 * Asks before a project is deleted. The API deletes only an empty project: while its pool has
 * memories or an API key is bound to it the answer is 409, shown here with the ways to empty it.
 */
export function DeleteProjectDialog(props: {
  /** The project to delete; the dialog is open while there is one. */
  project: Project | undefined;
  onClose: () => void;
  onDeleted: (project: Project) => void;
}) {
  const { project } = props;
  return (
    <Dialog
      open={project !== undefined}
      title={project ? `Delete “${project.name}”?` : 'Delete project'}
      onClose={props.onClose}
    >
      {project ? (
        <DeleteProject project={project} onClose={props.onClose} onDeleted={props.onDeleted} />
      ) : null}
    </Dialog>
  );
}

function DeleteProject(props: {
  project: Project;
  onClose: () => void;
  onDeleted: (project: Project) => void;
}) {
  const { project } = props;
  const { api, org } = useStudio();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () =>
      data(
        api.DELETE('/api/v1/projects/{projectId}', { params: { path: { projectId: project.id } } }),
      ),
    onSuccess: async () => {
      props.onDeleted(project);
      queryClient.removeQueries({ queryKey: [...queryKeys.projects(org.id), project.id] });
      await queryClient.invalidateQueries({ queryKey: queryKeys.projects(org.id) });
    },
  });
  const notEmpty = remove.error instanceof ApiError && remove.error.status === 409;

  return (
    <>
      <p>
        The project and everyone’s access to it end for good. Only an empty project can be deleted:
        its memory pool must hold no memories, and no API key may be bound to it.
      </p>
      <ErrorNotice error={remove.error} />
      {notEmpty ? (
        <p className="muted">
          Empty it first: open <Link to={`/memories/projects/${project.id}`}>its memory pool</Link>{' '}
          or revoke its keys in <Link to="/settings/api-keys">API keys</Link>.
        </p>
      ) : null}
      <ConfirmActions
        label={'Delete project'}
        busyLabel="Deleting…"
        busy={remove.isPending}
        onConfirm={() => remove.mutate()}
        onCancel={props.onClose}
      />
    </>
  );
}
