import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Trash2, UserPlus } from 'lucide-react';
import { useState } from 'react';
import { data } from '../api/client.ts';
import { membersQuery, organizationQuery, queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import type { OrgRole } from '../auth/userinfo.ts';
import { BASENAME } from '../routing/base.ts';
import { copyText } from '../ui/copy-button.tsx';
import { formatDate } from '../ui/format.ts';
import { useHeadingFocusAfterClose } from '../ui/heading-focus.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { SavingSelect } from '../ui/saving-select.tsx';
import { InvitationLinkDialog } from './invitation-link.tsx';
import { RevokeInvitationDialog } from './invitation-revoke-dialog.tsx';
import { type Invitation, invitationsQuery } from './invitations-queries.ts';
import { InviteDialog } from './invite-dialog.tsx';
import { RemoveMemberDialog } from './member-remove-dialog.tsx';
import { displayName, type Member, ROLES, roleLabel } from './members-queries.ts';
import { OrganizationSettings } from './organization-settings.tsx';
import './members.css';
import { PendingInvitations } from './pending-invitations.tsx';
import { PersonName } from './person-name.tsx';
import './people.css';
import './invitations.css';

/** Accounts that cannot sign in stand out; an active one is the quiet usual case. */
const STATUS: Record<Member['status'], { label: string; badge?: string }> = {
  active: { label: 'Active' },
  suspended: { label: 'Suspended', badge: 'badge warning' },
  banned: { label: 'Banned', badge: 'badge danger' },
};

/**
 * The organization's members and its settings. Owners and admins invite people, change and
 * remove members, and see and revoke the pending invitations (only owners make or touch
 * owners); everyone else reads.
 */
export function MembersPage() {
  const { api, org, me } = useStudio();
  const members = useQuery(membersQuery(api, org.id));
  // The name as it is now: it may have changed since sign-in, here or elsewhere.
  const orgName = useQuery(organizationQuery(api, org.id)).data?.name ?? org.name;
  // The list's own row, once read, is fresher than the role read at sign-in.
  const myRole: OrgRole = members.data?.find((m) => m.userId === me.sub)?.role ?? org.role;
  const manager = myRole === 'owner' || myRole === 'admin';
  const invitations = useQuery({ ...invitationsQuery(api, org.id), enabled: manager });
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<Member>();
  const [revoking, setRevoking] = useState<Invitation>();
  const [showingLink, setShowingLink] = useState<{
    email: string;
    url: string;
    expiresAt: string;
  }>();
  const [status, setStatus] = useState('');
  // The links made here, which the API never gives again: they last as long as the page.
  const [links, setLinks] = useState<ReadonlyMap<string, string>>(new Map());
  // A revoked invitation's row goes, and its Revoke button with it.
  const focusHeadingAfterRevoke = useHeadingFocusAfterClose(revoking !== undefined);

  return (
    <Page
      title="Members"
      subtitle={`The people in ${orgName} and what each of them may do.`}
      actions={
        manager ? (
          <button
            type="button"
            className="button primary"
            onClick={() => {
              setStatus('');
              setInviting(true);
            }}
          >
            <UserPlus size={18} aria-hidden="true" />
            Invite
          </button>
        ) : null
      }
    >
      <div role="status" className="status-line">
        {status ? <p className="notice info">{status}</p> : null}
      </div>
      {members.isPending ? (
        <Loading what="members" />
      ) : members.isError ? (
        <ErrorNotice error={members.error} onRetry={() => void members.refetch()} />
      ) : (
        <MembersTable
          members={members.data}
          myRole={myRole}
          onChanged={(m) =>
            setStatus(`${displayName(m)} is now ${roleLabel(m.role).toLowerCase()}.`)
          }
          onRemove={(m) => {
            setStatus('');
            setRemoving(m);
          }}
        />
      )}
      {manager && invitations.isError ? (
        <ErrorNotice error={invitations.error} onRetry={() => void invitations.refetch()} />
      ) : null}
      {manager && invitations.data && invitations.data.length > 0 ? (
        <PendingInvitations
          invitations={invitations.data}
          links={links}
          members={members.data}
          myRole={myRole}
          onCopyLink={async (invitation, url) => {
            setStatus('');
            if (await copyText(url)) setStatus(`The link for ${invitation.email} is copied.`);
            else setShowingLink({ email: invitation.email, url, expiresAt: invitation.expiresAt });
          }}
          onRevoke={(invitation) => {
            setStatus('');
            setRevoking(invitation);
          }}
        />
      ) : null}
      <section className="card" aria-labelledby="roles-title">
        <h2 id="roles-title">Roles</h2>
        <dl className="legend">
          {ROLES.map((r) => (
            <div key={r.value}>
              <dt>{r.label}</dt>
              <dd>{r.allows}</dd>
            </div>
          ))}
        </dl>
        <p className="field-hint roles-note">
          Suspended and banned accounts keep their membership but cannot sign in or use their keys
          until an operator reinstates them.
        </p>
      </section>
      <OrganizationSettings manager={manager} />
      <InviteDialog
        open={inviting}
        actorRole={myRole}
        orgName={orgName}
        pending={invitations.data ?? []}
        onCreated={({ invitation, url }) =>
          setLinks((before) => new Map(before).set(invitation.id, url))
        }
        onClose={() => setInviting(false)}
      />
      <RevokeInvitationDialog
        invitation={revoking}
        onClose={(revoked) => {
          setRevoking(undefined);
          if (!revoked) return;
          setLinks((before) => {
            const after = new Map(before);
            after.delete(revoked.id);
            return after;
          });
          setStatus(`The invitation for ${revoked.email} is revoked: its link no longer works.`);
          focusHeadingAfterRevoke();
        }}
      />
      <InvitationLinkDialog shown={showingLink} onClose={() => setShowingLink(undefined)} />
      <RemoveMemberDialog
        member={removing}
        onClose={() => setRemoving(undefined)}
        onRemoved={(m) => {
          setRemoving(undefined);
          // Whoever left the organization starts over: signing in again reads its list anew.
          if (m.userId === me.sub) location.assign(`${BASENAME}/memories`);
          else setStatus(`${displayName(m)} is no longer a member.`);
        }}
      />
    </Page>
  );
}

function MembersTable(props: {
  members: readonly Member[];
  myRole: OrgRole;
  onChanged: (member: Member) => void;
  onRemove: (member: Member) => void;
}) {
  const { api, org } = useStudio();
  const queryClient = useQueryClient();
  const { myRole } = props;
  const manager = myRole === 'owner' || myRole === 'admin';
  /** Admins manage members and admins; owners also owners. */
  const manages = (m: Member) => manager && (myRole === 'owner' || m.role !== 'owner');
  const change = useMutation({
    mutationFn: async (next: { userId: string; role: OrgRole }) =>
      (
        await data(
          api.PATCH('/api/v1/orgs/{orgId}/members/{userId}', {
            params: { path: { orgId: org.id, userId: next.userId } },
            body: { role: next.role },
          }),
        )
      ).member,
    onSuccess: (member) => props.onChanged(member),
    // Also after a refusal: the select goes back to the role actually held.
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.members(org.id) }),
  });

  return (
    <>
      <ErrorNotice error={change.error} />
      <div className="table-wrap">
        <table className="table-stack members-table">
          <caption className="visually-hidden">Members of {org.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Joined</th>
              {manager ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {props.members.map((m) => (
              <tr key={m.userId}>
                <td data-label="Name">
                  <PersonName person={m} />
                </td>
                <td data-label="Email" className="email-cell">
                  {m.email}
                </td>
                <td data-label="Role">
                  {manages(m) ? (
                    <RoleSelect
                      member={m}
                      myRole={myRole}
                      pending={
                        change.isPending && change.variables.userId === m.userId
                          ? change.variables.role
                          : undefined
                      }
                      onChange={(role) => change.mutate({ userId: m.userId, role })}
                    />
                  ) : (
                    <span>{roleLabel(m.role)}</span>
                  )}
                </td>
                <td data-label="Status">
                  <span className={STATUS[m.status].badge ?? 'muted'}>
                    {STATUS[m.status].label}
                  </span>
                </td>
                <td data-label="Joined">{formatDate(m.joinedAt)}</td>
                {manager ? (
                  <td className="row-actions">
                    {manages(m) ? (
                      <button
                        type="button"
                        className="button small ghost danger-text"
                        onClick={() => props.onRemove(m)}
                      >
                        <Trash2 size={16} aria-hidden="true" />
                        Remove<span className="visually-hidden"> {displayName(m)}</span>
                      </button>
                    ) : null}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function RoleSelect(props: {
  member: Member;
  myRole: OrgRole;
  /** The role being saved, shown until the answer comes. */
  pending: OrgRole | undefined;
  onChange: (role: OrgRole) => void;
}) {
  const { member } = props;
  return (
    <SavingSelect
      label={`Role of ${displayName(member)}`}
      value={member.role}
      saving={props.pending}
      options={ROLES.filter((r) => props.myRole === 'owner' || r.value !== 'owner')}
      onChange={props.onChange}
    />
  );
}
