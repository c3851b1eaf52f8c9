import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { data } from '../api/client.ts';
import { queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import type { Project } from './projects-queries.ts';

/** A new project, named here; its creator becomes its owner (owners and admins only). */
export function CreateProjectDialog(props: {
  open: boolean;
  onClose: () => void;
  onCreated: (project: Project) => void;
}) {
  return (
    <Dialog open={props.open} title="New project" onClose={props.onClose}>
      <CreateProjectForm onClose={props.onClose} onCreated={props.onCreated} />
    </Dialog>
  );
}

function CreateProjectForm(props: { onClose: () => void; onCreated: (project: Project) => void }) {
  const { api, org } = useStudio();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [empty, setEmpty] = useState(false);
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
  const create = useMutation({
    mutationFn: async (next: string) =>
      (
        await data(
          api.POST('/api/v1/orgs/{orgId}/projects', {
            params: { path: { orgId: org.id } },
            body: { name: next },
          }),
        )
      ).project,
    onSuccess: async (project) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.projects(org.id) });
      props.onCreated(project);
    },
  });

  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const next = name.trim();
        setEmpty(next === '');
        if (next !== '') create.mutate(next);
      }}
    >
      <div className="field">
        <label htmlFor={inputId}>Name</label>
        <input
          id={inputId}
          value={name}
          maxLength={200}
          autoComplete="off"
          // biome-ignore lint/a11y/noAutofocus: the dialog opens to be filled in.
          autoFocus
          aria-invalid={empty}
          aria-describedby={empty ? `${errorId} ${hintId}` : hintId}
          onChange={(event) => setName(event.target.value)}
        />
        {empty ? (
          <span id={errorId} className="field-error">
            Give the project a name.
          </span>
        ) : null}
        <span id={hintId} className="field-hint">
          For example the team or product whose memories it pools. You become its owner and can add
          collaborators next.
        </span>
      </div>
      <ErrorNotice error={create.error} />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create project'}
        </button>
      </div>
    </form>
  );
}
