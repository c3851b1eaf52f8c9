import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Check, X } from 'lucide-react';
import { useId, useState } from 'react';
import { data } from '../api/client.ts';
import { queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import type { Project } from './projects-queries.ts';

/**
 * A project's new name: in place in a list row (`inline`), or as a dialog's body. Enter saves,
 * Escape cancels; what was typed stays when the save fails.
 */
export function RenameProjectForm(props: {
  project: Project;
  inline?: boolean;
  onDone: (renamed: Project) => void;
  onCancel: () => void;
}) {
  const { project, inline = false } = props;
  const { api, org } = useStudio();
  const queryClient = useQueryClient();
  const [name, setName] = useState(project.name);
  const [empty, setEmpty] = useState(false);
  const inputId = useId();
  const hintId = useId();
  const rename = useMutation({
    mutationFn: async (next: string) =>
      (
        await data(
          api.PATCH('/api/v1/projects/{projectId}', {
            params: { path: { projectId: project.id } },
            body: { name: next },
          }),
        )
      ).project,
    onSuccess: async (renamed) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.projects(org.id) });
      props.onDone(renamed);
    },
  });

  const submit = () => {
    const next = name.trim();
    setEmpty(next === '');
    if (next === '') return;
    if (next === project.name) props.onCancel();
    else rename.mutate(next);
  };

  return (
    <form
      className={inline ? 'rename-inline' : undefined}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      onKeyDown={(event) => {
        if (inline && event.key === 'Escape') {
          event.preventDefault();
          props.onCancel();
        }
      }}
    >
      <div className={inline ? 'rename-field' : 'field'}>
        <label htmlFor={inputId} className={inline ? 'visually-hidden' : undefined}>
          Name
        </label>
        <input
          id={inputId}
          value={name}
          maxLength={200}
          autoComplete="off"
          // biome-ignore lint/a11y/noAutofocus: the field was asked for; it takes focus as it appears.
          autoFocus
          aria-invalid={empty}
          aria-describedby={empty ? hintId : undefined}
          onChange={(event) => setName(event.target.value)}
        />
        {empty ? (
          <span id={hintId} className="field-error">
            Give the project a name.
          </span>
        ) : null}
      </div>
      {inline ? <ErrorNotice error={rename.error} /> : null}
      {inline ? (
        <div className="rename-actions">
          <button type="submit" className="button small primary" disabled={rename.isPending}>
            <Check size={16} aria-hidden="true" />
            {rename.isPending ? 'Saving…' : 'Save'}
          </button>
          <button type="button" className="button small ghost" onClick={props.onCancel}>
            <X size={16} aria-hidden="true" />
            Cancel
          </button>
        </div>
      ) : (
        <>
          <ErrorNotice error={rename.error} />
          <div className="dialog-actions">
            <button type="button" className="button" onClick={props.onCancel}>
              Cancel
            </button>
            <button type="submit" className="button primary" disabled={rename.isPending}>
              {rename.isPending ? 'Saving…' : 'Save name'}
            </button>
          </div>
        </>
      )}
    </form>
  );
}
