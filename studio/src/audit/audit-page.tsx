import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { History, ShieldCheck } from 'lucide-react';
import { useId } from 'react';
import { data, inOrg } from '../api/client.ts';
import { type Member, membersQuery, projectsQuery } from '../api/queries.ts';
import { isManager, useStudio } from '../app/studio-context.tsx';
import { EmptyState } from '../ui/empty-state.tsx';
import { formatDateTime, formatInteger } from '../ui/format.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import {
  type AuditEntry,
  type AuditNames,
  type AuditTarget,
  describeEntry,
  OPERATOR_ID,
  OPERATOR_NAME,
} from './audit-words.ts';
import './audit.css';

/** Entries per page: the API's default. */
const PAGE_SIZE = 50;

const SUBTITLE = 'Who changed what in the organization, and who acted for another member.';

/**
 * The organization's audit log, newest first, for its owners and admins. Members are told so
 * at once: the API would answer them 403.
 */
export function AuditPage() {
  const { org } = useStudio();
  if (!isManager(org)) {
    return (
      <Page title="Audit" subtitle={SUBTITLE}>
        <EmptyState title="For owners and admins" icon={<ShieldCheck size={32} />}>
          <p>
            Only the owners and admins of {org.name} can read its audit log. Ask one of them if you
            need to know who changed something.
          </p>
        </EmptyState>
      </Page>
    );
  }
  return (
    <Page title="Audit" subtitle={SUBTITLE}>
      <AuditLog />
    </Page>
  );
}

function AuditLog() {
  const { api, org } = useStudio();
  const log = useInfiniteQuery({
    queryKey: ['audit', org.id, 'entries'],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      data(
        api.GET('/api/v1/audit', {
          params: {
            query: {
              limit: PAGE_SIZE,
              ...(pageParam === undefined ? {} : { cursor: pageParam }),
            },
            header: inOrg(org.id),
          },
        }),
      ),
    getNextPageParam: (page) => page.next ?? undefined,
  });
  const members = useQuery(membersQuery(api, org.id));
  const projects = useQuery(projectsQuery(api, org.id));

  if (log.isError && log.data === undefined) {
    return <ErrorNotice error={log.error} onRetry={() => void log.refetch()} />;
  }
  // The names come with the entries: an entry is never shown by ids that a moment later become names.
  if (log.data === undefined || members.isPending || projects.isPending) {
    return <Loading what="the audit log" />;
  }
  const entries = log.data.pages.flatMap((page) => page.entries);
  if (entries.length === 0) {
    return (
      <EmptyState title="Nothing recorded yet" icon={<History size={32} />}>
        <p>
          The audit log records who did what in {org.name}: members added, removed or given another
          role; invitations sent, revoked or accepted; projects created, renamed or deleted, and who
          may use them; API keys created or revoked; apps registered, changed or revoked; end users
          registered, renamed or erased; changes to the organization’s settings; and every memory
          listed, read or written by someone acting for another member.
        </p>
        <p>Entries appear here as those things happen, newest first.</p>
      </EmptyState>
    );
  }

  const people = new Map((members.data ?? []).map((member) => [member.userId, member]));
  const projectNames = new Map((projects.data ?? []).map((project) => [project.id, project.name]));
  const names: AuditNames = {
    project: (id) => projectNames.get(id),
    person: (id) => {
      if (id === OPERATOR_ID) return OPERATOR_NAME;
      const member = people.get(id);
      return member ? (member.name ?? member.email) : undefined;
    },
  };

  return (
    <>
      {members.isError || projects.isError ? (
        <ErrorNotice
          error={members.error ?? projects.error}
          onRetry={() => {
            if (members.isError) void members.refetch();
            if (projects.isError) void projects.refetch();
          }}
        />
      ) : null}
      <AuditTable entries={entries} people={people} names={names} orgName={org.name} />
      <div className="audit-more">
        <p className="muted" role="status">
          {log.hasNextPage
            ? `Showing the newest ${formatInteger(entries.length)} entries.`
            : `Showing all ${formatInteger(entries.length)} ${entries.length === 1 ? 'entry' : 'entries'}.`}
        </p>
        {log.isFetchNextPageError ? (
          <ErrorNotice error={log.error} onRetry={() => void log.fetchNextPage()} />
        ) : null}
        {log.hasNextPage ? (
          <button
            type="button"
            className="button"
            disabled={log.isFetchingNextPage}
            onClick={() => void log.fetchNextPage()}
          >
            {log.isFetchingNextPage ? 'Loading…' : 'Load older entries'}
          </button>
        ) : null}
      </div>
    </>
  );
}

function AuditTable(props: {
  entries: readonly AuditEntry[];
  people: ReadonlyMap<string, Member>;
  names: AuditNames;
  orgName: string;
}) {
  const { people, names } = props;
  const captionId = useId();
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so that a keyboard can scroll it when it is wider than the screen (WCAG 2.1.1).
    <section className="table-wrap audit-wrap" aria-labelledby={captionId} tabIndex={0}>
      <table className="audit-table">
        <caption id={captionId} className="visually-hidden">
          Audit log, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((entry) => {
            const described = describeEntry(entry, names);
            return (
              <tr key={entry.id}>
                <td className="audit-when">
                  <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                </td>
                <td data-label="By">
                  <Person id={entry.actorId} people={people} />
                </td>
                <td className="audit-what">{described.action}</td>
                <td data-label="Target">
                  <Target
                    target={described.target}
                    people={people}
                    names={names}
                    orgName={props.orgName}
                  />
                </td>
                <td className="audit-details-cell">
                  <div className="audit-details">
                    {described.details ? <span>{described.details}</span> : null}
                    {entry.memoryId ? (
                      <span className="audit-memory">
                        Memory <span className="mono">{entry.memoryId}</span>
                      </span>
                    ) : null}
                    {!described.details && !entry.memoryId ? (
                      <span className="muted audit-none">
                        <span aria-hidden="true">—</span>
                        <span className="visually-hidden">None</span>
                      </span>
                    ) : null}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

/**
 * A member by name; the operator of the command line as such, on one line; someone no longer in
 * the organization by id.
 */
function Person(props: { id: string; people: ReadonlyMap<string, Member> }) {
  if (props.id === OPERATOR_ID) {
    return (
      <span
        className="audit-operator"
        title="An operator of this mnemo server, with the mnemo command"
      >
        {OPERATOR_NAME}
      </span>
    );
  }
  const member = props.people.get(props.id);
  if (member) {
    return (
      <span className="audit-person" title={member.email}>
        {member.name ?? member.email}
      </span>
    );
  }
  return (
    <span className="audit-gone">
      <span className="muted">Former member</span> <span className="mono audit-id">{props.id}</span>
    </span>
  );
}

function Target(props: {
  target: AuditTarget;
  people: ReadonlyMap<string, Member>;
  names: AuditNames;
  orgName: string;
}) {
  const { target } = props;
  switch (target.kind) {
    case 'person':
      return <Person id={target.id} people={props.people} />;
    case 'organization':
      return <span>The organization ({props.orgName})</span>;
    case 'project': {
      const current = props.names.project(target.id);
      if (current) return <span>Project “{current}”</span>;
      return (
        <span>
          {target.recordedName ? `Project “${target.recordedName}”` : 'A project'}{' '}
          <span className="muted">(deleted)</span>
        </span>
      );
    }
    case 'end_user':
      return (
        <span className="audit-gone">
          <span className="muted">{target.erased ? 'End user, erased' : 'End user'}</span>{' '}
          <span className="mono audit-id">{target.id}</span>
        </span>
      );
    case 'app':
      if (target.recordedName) return <span>App “{target.recordedName}”</span>;
      return (
        <span className="audit-gone">
          <span className="muted">App</span>{' '}
          <span className="mono audit-id">{target.appId ?? target.id}</span>
        </span>
      );
    case 'invitation':
      return <span>{target.email ? `Invitation for ${target.email}` : 'An invitation'}</span>;
    case 'other':
      return <span className="mono">{target.id}</span>;
  }
}
