import { useMutation, useQueryClient } from '@tanstack/react-query';
import { UserPlus } from 'lucide-react';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { data } from '../api/client.ts';
import { queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import type { Member } from '../members/members-queries.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { ACCESS, type Collaborator, type ProjectAccess } from './projects-queries.ts';

/**
 * Gives a member of the organization access to the project: only members can hold it, so the
 * choice is among those who have none yet.
 */
export function AddCollaboratorForm(props: {
  projectId: string;
  members: readonly Member[];
  collaborators: readonly Collaborator[];
  onAdded: (collaborator: Collaborator) => void;
}) {
  const { api, org } = useStudio();
  const queryClient = useQueryClient();
  const [userId, setUserId] = useState('');
  const [access, setAccess] = useState<ProjectAccess>('viewer');
  const [unchosen, setUnchosen] = useState(false);
  const memberId = useId();
  const accessId = useId();
  const errorId = useId();
  const holders = new Set(props.collaborators.map((c) => c.userId));
  const candidates = props.members.filter((m) => !holders.has(m.userId));
  const add = useMutation({
    mutationFn: async (grant: { userId: string; access: ProjectAccess }) =>
      (
        await data(
          api.PUT('/api/v1/projects/{projectId}/collaborators/{userId}', {
            params: { path: { projectId: props.projectId, userId: grant.userId } },
            body: { access: grant.access },
          }),
        )
      ).collaborator,
    onSuccess: async (collaborator) => {
      setUserId('');
      await queryClient.invalidateQueries({
        queryKey: queryKeys.collaborators(org.id, props.projectId),
      });
      props.onAdded(collaborator);
    },
  });

  if (candidates.length === 0) {
    return (
      <p className="muted add-collaborator-none">
        Everyone in {org.name} has access already. To share the project with someone else, first{' '}
        <Link to="/members">add them to the organization</Link>.
      </p>
    );
  }

  return (
    <form
      className="add-collaborator"
      aria-label="Add a collaborator"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setUnchosen(userId === '');
        if (userId !== '') add.mutate({ userId, access });
      }}
    >
      <div className="field">
        <label htmlFor={memberId}>Member</label>
        <select
          id={memberId}
          value={userId}
          aria-invalid={unchosen}
          aria-describedby={unchosen ? errorId : undefined}
          onChange={(event) => {
            setUserId(event.target.value);
            setUnchosen(false);
          }}
        >
          <option value="">Choose a member…</option>
          {candidates.map((m) => (
            <option key={m.userId} value={m.userId}>
              {m.name ? `${m.name} (${m.email})` : m.email}
            </option>
          ))}
        </select>
        {unchosen ? (
          <span id={errorId} className="field-error">
            Choose the member to add.
          </span>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor={accessId}>Access</label>
        <select
          id={accessId}
          value={access}
          onChange={(event) => setAccess(event.target.value as ProjectAccess)}
        >
          {ACCESS.map((a) => (
            <option key={a.value} value={a.value}>
              {a.label}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="button primary" disabled={add.isPending}>
        <UserPlus size={18} aria-hidden="true" />
        {add.isPending ? 'Adding…' : 'Add collaborator'}
      </button>
      <div className="add-collaborator-error">
        <ErrorNotice error={add.error} />
      </div>
    </form>
  );
}
