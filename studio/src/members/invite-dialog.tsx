import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link2, MailCheck } from 'lucide-react';
import { useId, useState } from 'react';
import { ApiError, sentence } from '../api/errors.ts';
import { useStudio } from '../app/studio-context.tsx';
import type { OrgRole } from '../auth/userinfo.ts';
import { Dialog } from '../ui/dialog.tsx';
import { formatDate } from '../ui/format.ts';
import { InvitationLink } from './invitation-link.tsx';
import {
  type CreatedInvitation,
  createInvitation,
  type Invitation,
  invitationsKey,
  sameAddress,
} from './invitations-queries.ts';
import { ROLES, roleLabel } from './members-queries.ts';

/** What people type as an address: something@somewhere, no spaces (as the API checks it). */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * Invites someone by email, with a role: with the link they make a mnemo account, or sign in to
 * the one they have, and join. Only owners invite owners, so an admin is not offered that role.
 * Whether the server emails the link is known only from its answer, so the form says "Invite"
 * and the outcome says what happened; the link is shown then, the only time it can be.
 */
export function InviteDialog(props: {
  open: boolean;
  /** The role of the person inviting: it decides which roles can be given. */
  actorRole: OrgRole;
  orgName: string;
  /** The pending invitations, to say when a new one replaces one of them. */
  pending: readonly Invitation[];
  onCreated: (created: CreatedInvitation) => void;
  onClose: () => void;
}) {
  const [created, setCreated] = useState<CreatedInvitation>();
  const [busy, setBusy] = useState(false);
  const close = () => {
    setCreated(undefined);
    props.onClose();
  };

  return (
    <Dialog
      open={props.open}
      title={
        created
          ? created.emailed
            ? 'Invitation sent'
            : 'Invitation created'
          : `Invite to ${props.orgName}`
      }
      onClose={close}
      dismissible={!busy}
      className="invite-dialog"
    >
      {created ? (
        <Outcome
          created={created}
          orgName={props.orgName}
          onAnother={() => setCreated(undefined)}
          onDone={close}
        />
      ) : (
        <InviteForm
          actorRole={props.actorRole}
          orgName={props.orgName}
          pending={props.pending}
          onBusy={setBusy}
          onCreated={(answer) => {
            setCreated(answer);
            props.onCreated(answer);
          }}
          onCancel={close}
        />
      )}
    </Dialog>
  );
}

/** The refusals people meet here, said with what to do about them. */
function refusal(error: unknown, email: string, orgName: string): string {
  if (error instanceof ApiError && error.status === 409) {
    return `${email} is already a member of ${orgName}. To change what they may do, change their role in the list.`;
  }
  if (error instanceof ApiError && error.status === 403 && /owner/i.test(error.message)) {
    return 'Only owners can invite owners. Choose another role, or ask an owner.';
  }
  return sentence(error);
}

function InviteForm(props: {
  actorRole: OrgRole;
  orgName: string;
  pending: readonly Invitation[];
  onBusy: (busy: boolean) => void;
  onCreated: (created: CreatedInvitation) => void;
  onCancel: () => void;
}) {
  const { api, org } = useStudio();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OrgRole>('member');
  const [problem, setProblem] = useState<string>();
  const ids = {
    email: useId(),
    emailError: useId(),
    emailHint: useId(),
    role: useId(),
    roleHint: useId(),
  };
  const roles = ROLES.filter((r) => props.actorRole === 'owner' || r.value !== 'owner');
  const invite = useMutation({
    mutationFn: (body: { email: string; role: OrgRole }) => createInvitation(api, org.id, body),
    onMutate: () => props.onBusy(true),
    onSettled: () => props.onBusy(false),
    onSuccess: (created) => {
      void queryClient.invalidateQueries({ queryKey: invitationsKey(org.id) });
      props.onCreated(created);
    },
  });
  const replaces = props.pending.find(
    (i) => EMAIL.test(email.trim()) && sameAddress(i.email, email),
  );
  const describedBy = [problem ? ids.emailError : '', replaces ? ids.emailHint : '']
    .filter(Boolean)
    .join(' ');

  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const address = email.trim();
        const found =
          address === ''
            ? 'Enter the email of the person to invite.'
            : EMAIL.test(address)
              ? undefined
              : 'Enter an email address, such as grace@example.com.';
        setProblem(found);
        if (!found) invite.mutate({ email: address, role });
      }}
    >
      <p className="muted">
        They get a link to join {props.orgName}: with it they make a mnemo account, or sign in to
        the one they have.
      </p>
      <div className="field">
        <label htmlFor={ids.email}>Email</label>
        <input
          id={ids.email}
          type="email"
          value={email}
          autoComplete="off"
          spellCheck={false}
          // biome-ignore lint/a11y/noAutofocus: the dialog opens to be filled in.
          autoFocus
          aria-invalid={problem !== undefined}
          aria-describedby={describedBy || undefined}
          onChange={(event) => setEmail(event.target.value)}
        />
        {problem ? (
          <span id={ids.emailError} className="field-error">
            {problem}
          </span>
        ) : null}
        {replaces ? (
          <span id={ids.emailHint} className="field-hint">
            {replaces.email} has a pending invitation, sent {formatDate(replaces.createdAt)}:
            inviting again replaces it, and its earlier link stops working.
          </span>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor={ids.role}>Role</label>
        <select
          id={ids.role}
          value={role}
          aria-describedby={ids.roleHint}
          onChange={(event) => setRole(event.target.value as OrgRole)}
        >
          {roles.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
        </select>
        <span id={ids.roleHint} className="field-hint">
          {ROLES.find((r) => r.value === role)?.allows}
        </span>
      </div>
      {invite.isError ? (
        <div className="notice error" role="alert">
          {refusal(invite.error, invite.variables.email, props.orgName)}
        </div>
      ) : null}
      <div className="dialog-actions">
        <button
          type="button"
          className="button"
          onClick={props.onCancel}
          disabled={invite.isPending}
        >
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={invite.isPending}>
          {invite.isPending ? 'Inviting…' : 'Invite'}
        </button>
      </div>
    </form>
  );
}

/** What happened: emailed, or a link to pass on; either way the link, this once. */
function Outcome(props: {
  created: CreatedInvitation;
  orgName: string;
  onAnother: () => void;
  onDone: () => void;
}) {
  const { invitation, url, emailed } = props.created;
  const said = useId();
  const role = roleLabel(invitation.role).toLowerCase();
  const until = formatDate(invitation.expiresAt);

  return (
    <div className="invitation-outcome">
      {emailed ? (
        <div id={said} className="invitation-said sent">
          <MailCheck size={20} aria-hidden="true" />
          <p>
            We emailed an invitation to <strong>{invitation.email}</strong> to join {props.orgName}{' '}
            as {role}.
          </p>
        </div>
      ) : (
        <div id={said} className="invitation-said pass-on">
          <Link2 size={20} aria-hidden="true" />
          <p>
            Copy this link and send it to <strong>{invitation.email}</strong> — it is shown only
            now.
          </p>
        </div>
      )}
      <InvitationLink
        url={url}
        describedBy={said}
        hint={
          emailed
            ? `You can also send the link yourself: it is shown only now. It works once, until ${until}.`
            : `It works once, until ${until}: with it they make a mnemo account, or sign in to theirs, and join ${props.orgName} as ${role}.`
        }
      />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={props.onAnother}>
          Invite someone else
        </button>
        <button type="button" className="button primary" onClick={props.onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
