import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { data } from '../api/client.ts';
import { ApiError, sentence } from '../api/errors.ts';
import { queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import type { OrgRole } from '../auth/userinfo.ts';
import { Dialog } from '../ui/dialog.tsx';
import { type Member, ROLES } from './members-queries.ts';

/**
 * Adds a person who already has a mnemo account, found by email, with a role. Only owners
 * make owners, so an admin is not offered that role.
 */
export function AddMemberDialog(props: {
  open: boolean;
  /** The role of the person adding: it decides which roles can be given. */
  actorRole: OrgRole;
  onClose: () => void;
  onAdded: (member: Member) => void;
}) {
  return (
    <Dialog open={props.open} title="Add a member" onClose={props.onClose}>
      <AddMemberForm actorRole={props.actorRole} onClose={props.onClose} onAdded={props.onAdded} />
    </Dialog>
  );
}

/** The two refusals people meet here, said with what to do about them. */
function refusal(error: unknown, email: string, orgName: string): string {
  if (error instanceof ApiError && error.status === 404) {
    return `No one has a mnemo account with the email ${email}. Check the address: only people who already have an account can be added.`;
  }
  if (error instanceof ApiError && error.status === 409) {
    return `${email} is already a member of ${orgName}.`;
  }
  return sentence(error);
}

function AddMemberForm(props: {
  actorRole: OrgRole;
  onClose: () => void;
  onAdded: (member: Member) => void;
}) {
  const { api, org } = useStudio();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OrgRole>('member');
  const [missing, setMissing] = useState(false);
  const emailId = useId();
  const emailErrorId = useId();
  const roleId = useId();
  const roleHintId = useId();
  const roles = ROLES.filter((r) => props.actorRole === 'owner' || r.value !== 'owner');
  const add = useMutation({
    mutationFn: async (body: { email: string; role: OrgRole }) =>
      (
        await data(
          api.POST('/api/v1/orgs/{orgId}/members', { params: { path: { orgId: org.id } }, body }),
        )
      ).member,
    onSuccess: async (member) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.members(org.id) });
      props.onAdded(member);
    },
  });

  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const address = email.trim();
        setMissing(address === '');
        if (address !== '') add.mutate({ email: address, role });
      }}
    >
      <p className="muted">
        The person needs a mnemo account already; once added, they see {org.name} when they next
        sign in.
      </p>
      <div className="field">
        <label htmlFor={emailId}>Email</label>
        <input
          id={emailId}
          type="email"
          value={email}
          autoComplete="off"
          spellCheck={false}
          // biome-ignore lint/a11y/noAutofocus: the dialog opens to be filled in.
          autoFocus
          aria-invalid={missing}
          aria-describedby={missing ? emailErrorId : undefined}
          onChange={(event) => setEmail(event.target.value)}
        />
        {missing ? (
          <span id={emailErrorId} className="field-error">
            Enter the email of the person to add.
          </span>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor={roleId}>Role</label>
        <select
          id={roleId}
          value={role}
          aria-describedby={roleHintId}
          onChange={(event) => setRole(event.target.value as OrgRole)}
        >
          {roles.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
        </select>
        <span id={roleHintId} className="field-hint">
          {ROLES.find((r) => r.value === role)?.allows}
        </span>
      </div>
      {add.isError ? (
        <div className="notice error" role="alert">
          {refusal(add.error, add.variables.email, org.name)}
        </div>
      ) : null}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={add.isPending}>
          {add.isPending ? 'Adding…' : 'Add member'}
        </button>
      </div>
    </form>
  );
}
