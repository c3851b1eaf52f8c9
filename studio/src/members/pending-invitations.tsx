import { Link2, MailPlus, Trash2 } from 'lucide-react';
import { useId } from 'react';
import { useStudio } from '../app/studio-context.tsx';
import type { OrgRole } from '../auth/userinfo.ts';
import { formatDate, formatDateTime } from '../ui/format.ts';
import { expiresIn, expiresSoon, type Invitation } from './invitations-queries.ts';
import { displayName, type Member, roleLabel } from './members-queries.ts';

/**
 * The invitations not yet used, under the members. A link exists in the page only for the
 * invitations made here since the page was opened (the API never gives it again), so only
 * those rows offer "Copy link".
 */
export function PendingInvitations(props: {
  invitations: readonly Invitation[];
  /** The links made on this page, by invitation id. */
  links: ReadonlyMap<string, string>;
  members: readonly Member[] | undefined;
  myRole: OrgRole;
  onCopyLink: (invitation: Invitation, url: string) => void;
  onRevoke: (invitation: Invitation) => void;
}) {
  const { me } = useStudio();
  const titleId = useId();
  const now = Date.now();
  /** Admins revoke invitations to be a member or an admin; owners any. */
  const manages = (i: Invitation) => props.myRole === 'owner' || i.role !== 'owner';
  const inviter = (userId: string) => {
    if (userId === me.sub) return 'you';
    if (!props.members) return '…';
    const member = props.members.find((m) => m.userId === userId);
    return member ? displayName(member) : 'a former member';
  };

  return (
    <section className="pending-invitations" aria-labelledby={titleId}>
      <h2 id={titleId} className="invitations-heading">
        <MailPlus size={18} aria-hidden="true" />
        Pending invitations <span className="badge">{props.invitations.length}</span>
      </h2>
      <div className="table-wrap">
        <table className="table-stack invitations-table">
          <caption className="visually-hidden">Invitations not yet accepted</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Invited</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.invitations.map((i) => {
              const url = props.links.get(i.id);
              return (
                <tr key={i.id} className={url ? 'invitation-new' : undefined}>
                  <td data-label="Email" className="email-cell invitation-email">
                    {i.email}
                  </td>
                  <td data-label="Role">{roleLabel(i.role)}</td>
                  <td data-label="Invited">
                    <span className="invitation-when">
                      <time dateTime={i.createdAt} title={formatDateTime(i.createdAt)}>
                        {formatDate(i.createdAt)}
                      </time>
                      <span className="invitation-aside">by {inviter(i.invitedBy)}</span>
                    </span>
                  </td>
                  <td data-label="Expires">
                    <span className="invitation-when">
                      <time
                        dateTime={i.expiresAt}
                        title={formatDateTime(i.expiresAt)}
                        className={
                          expiresSoon(i.expiresAt, now) ? 'invitation-expires-soon' : undefined
                        }
                      >
                        {expiresIn(i.expiresAt, now)}
                      </time>
                      <span className="invitation-aside">{formatDate(i.expiresAt)}</span>
                    </span>
                  </td>
                  <td className="row-actions">
                    {url ? (
                      <button
                        type="button"
                        className="button small"
                        onClick={() => props.onCopyLink(i, url)}
                      >
                        <Link2 size={16} aria-hidden="true" />
                        Copy link<span className="visually-hidden"> for {i.email}</span>
                      </button>
                    ) : null}
                    {manages(i) ? (
                      <button
                        type="button"
                        className="button small ghost danger-text"
                        onClick={() => props.onRevoke(i)}
                      >
                        <Trash2 size={16} aria-hidden="true" />
                        Revoke<span className="visually-hidden"> the invitation for {i.email}</span>
                      </button>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p className="field-hint invitations-note">
        Links are shown once, when made: “Copy link” stays beside those made on this page until you
        leave it. To send a new link, invite the address again.
      </p>
    </section>
  );
}
