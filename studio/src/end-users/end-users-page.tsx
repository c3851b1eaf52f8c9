import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { Brain, Contact, Search, ShieldCheck, Trash2 } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { isManager, useStudio } from '../app/studio-context.tsx';
import { EmptyState } from '../ui/empty-state.tsx';
import { formatDate, formatDateTime, formatInteger } from '../ui/format.ts';
import { useHeadingFocusAfterClose } from '../ui/heading-focus.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { type EndUser, endUserMemoriesPath, endUsersListQuery } from './end-users-queries.ts';
import { EraseEndUserDialog } from './erase-end-user-dialog.tsx';
import { MnemoId } from './mnemo-id.tsx';
import './end-users.css';
import { CodeBlock } from '../ui/code-block.tsx';

/** How long typing pauses before the search is sent: one request per pause, not per key. */
const SEARCH_DELAY_MS = 250;

const END_USERS_SUBTITLE =
  'The people your apps remember, each known by the app’s own id for them.';

/**
 * The organization's end users: people its apps remember, registered by the apps under their
 * own ids, who never sign in. Owners and admins search them, open their memories and erase
 * them; members are told the page is not theirs (the API would answer them 403).
 */
export function EndUsersPage() {
  const { org } = useStudio();
  return (
    <Page title="End users" subtitle={END_USERS_SUBTITLE}>
      {isManager(org) ? <EndUsersDirectory /> : <ForManagers />}
    </Page>
  );
}

/** What a member sees where only owners and admins may look. */
export function ForManagers() {
  const { org } = useStudio();
  return (
    <EmptyState title="For owners and admins" icon={<ShieldCheck size={32} />}>
      <p>
        Only the owners and admins of {org.name} can see its end users, the people its apps
        remember, and their memories. Ask one of them if you need something here.
      </p>
    </EmptyState>
  );
}

function EndUsersDirectory() {
  const { api, org } = useStudio();
  const [params, setParams] = useSearchParams();
  const q = (params.get('q') ?? '').trim();
  const list = useInfiniteQuery({
    ...endUsersListQuery(api, org.id, q),
    // While a new search runs, the last answer stays in view instead of a loading line.
    placeholderData: keepPreviousData,
  });
  const [erasing, setErasing] = useState<EndUser>();
  const [status, setStatus] = useState('');
  // The erased row goes, and with it the button that opened the dialog.
  const focusHeadingAfterClose = useHeadingFocusAfterClose(erasing !== undefined);

  const setQuery = (next: string) =>
    setParams(
      (current) => {
        const updated = new URLSearchParams(current);
        if (next) updated.set('q', next);
        else updated.delete('q');
        return updated;
      },
      { replace: true },
    );

  const pages = list.data?.pages ?? [];
  const endUsers = pages.flatMap((page) => page.endUsers);
  const total = pages.at(-1)?.total;
  // While a new search runs, what is shown (and counted) is the last search's answer.
  const shownQuery = pages[0]?.q;
  const none = total === 0 && shownQuery === '';

  return (
    <>
      <div role="status" className="status-line">
        {status ? <p className="notice info">{status}</p> : null}
      </div>
      {none ? null : (
        <div className="end-users-toolbar">
          <SearchBox value={q} onSearch={setQuery} />
          <CountLine total={total} query={shownQuery} />
        </div>
      )}
      {list.isPending ? <Loading what="end users" /> : null}
      {list.isError && list.data === undefined ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : null}
      {none ? <NoEndUsers /> : null}
      {endUsers.length > 0 ? (
        <EndUsersTable
          endUsers={endUsers}
          onErase={(endUser) => {
            setStatus('');
            setErasing(endUser);
          }}
          onCopied={(endUser, copied) =>
            setStatus(
              copied
                ? `Copied the mnemo id of ${endUser.externalId}.`
                : `The browser did not allow copying. The mnemo id of ${endUser.externalId} is ${endUser.id}.`,
            )
          }
        />
      ) : null}
      {/* Said once there is more than one page: with one, the count above says it all. */}
      {endUsers.length > 0 && total !== undefined && (list.hasNextPage || pages.length > 1) ? (
        <div className="end-users-more">
          <p className="muted">
            {list.hasNextPage
              ? `Showing the newest ${formatInteger(endUsers.length)} of ${formatInteger(total)}.`
              : `Showing all ${formatInteger(endUsers.length)}.`}
          </p>
          {list.isFetchNextPageError ? (
            <ErrorNotice error={list.error} onRetry={() => void list.fetchNextPage()} />
          ) : null}
          {list.hasNextPage ? (
            <button
              type="button"
              className="button"
              disabled={list.isFetchingNextPage}
              onClick={() => void list.fetchNextPage()}
            >
              {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
            </button>
          ) : null}
        </div>
      ) : null}
      <EraseEndUserDialog
        target={erasing}
        onClose={(done) => {
          setErasing(undefined);
          if (!done) return;
          const who = done.endUser.externalId;
          setStatus(
            done.outcome === 'erased'
              ? `${who} is erased, with everything mnemo held of them.`
              : `${who} was erased already.`,
          );
          focusHeadingAfterClose();
        }}
      />
    </>
  );
}

/**
 * The search field: what is typed shows at once; the search (and the URL's `?q=`) follows once
 * typing pauses. A `q` changed from elsewhere (back, a link) is put back into the field.
 */
function SearchBox(props: { value: string; onSearch: (q: string) => void }) {
  const id = useId();
  const [text, setText] = useState(props.value);
  const sent = useRef(props.value);
  // The latest way to search, without restarting the wait each time the page renders.
  const onSearch = useRef(props.onSearch);
  onSearch.current = props.onSearch;
  const { value } = props;

  useEffect(() => {
    if (value !== sent.current) {
      sent.current = value;
      setText(value);
    }
  }, [value]);

  useEffect(() => {
    const next = text.trim();
    if (next === sent.current) return;
    const timer = setTimeout(() => {
      sent.current = next;
      onSearch.current(next);
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);

  return (
    <div className="end-users-search">
      <label htmlFor={id} className="visually-hidden">
        Search end users by id or name
      </label>
      <Search size={16} aria-hidden="true" className="end-users-search-icon" />
      <input
        id={id}
        type="search"
        placeholder="Search by id or name"
        autoComplete="off"
        spellCheck={false}
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
    </div>
  );
}

/** "1,204 end users", or with a search "3 match “jan”"; announced as it changes. */
function CountLine(props: { total: number | undefined; query: string | undefined }) {
  const { total, query } = props;
  let said = '';
  if (total !== undefined && query !== undefined) {
    if (query === '') said = `${formatInteger(total)} ${total === 1 ? 'end user' : 'end users'}`;
    else if (total === 0) said = `No end user’s id or name starts with “${query}”`;
    else said = `${formatInteger(total)} ${total === 1 ? 'matches' : 'match'} “${query}”`;
  }
  return (
    <p className="end-users-count" role="status">
      {said}
    </p>
  );
}

function EndUsersTable(props: {
  endUsers: readonly EndUser[];
  onErase: (endUser: EndUser) => void;
  onCopied: (endUser: EndUser, copied: boolean) => void;
}) {
  const { org } = useStudio();
  return (
    <div className="table-wrap">
      <table className="table-stack end-users-table">
        <caption className="visually-hidden">End users of {org.name}, newest first</caption>
        <thead>
          <tr>
            <th scope="col">External id</th>
            <th scope="col">Name</th>
            <th scope="col">mnemo id</th>
            <th scope="col">Registered</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.endUsers.map((endUser) => (
            <tr key={endUser.id}>
              <td data-label="External id" className="end-user-external">
                <span className="mono">{endUser.externalId}</span>
              </td>
              <td data-label="Name" className="end-user-name">
                {endUser.name ?? (
                  <span className="muted">
                    <span aria-hidden="true">—</span>
                    <span className="visually-hidden">None</span>
                  </span>
                )}
              </td>
              <td data-label="mnemo id">
                <MnemoId
                  id={endUser.id}
                  of={endUser.externalId}
                  onCopied={(copied) => props.onCopied(endUser, copied)}
                />
              </td>
              <td data-label="Registered" className="end-user-registered">
                <time dateTime={endUser.createdAt} title={formatDateTime(endUser.createdAt)}>
                  {formatDate(endUser.createdAt)}
                </time>
              </td>
              <td className="row-actions">
                <Link to={endUserMemoriesPath(endUser.externalId)} className="button small">
                  <Brain size={16} aria-hidden="true" />
                  Memories<span className="visually-hidden"> of {endUser.externalId}</span>
                </Link>
                <button
                  type="button"
                  className="button small ghost danger-text"
                  onClick={() => props.onErase(endUser)}
                >
                  <Trash2 size={16} aria-hidden="true" />
                  Erase<span className="visually-hidden"> {endUser.externalId}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** No end user at all yet: what they are, and how an app registers one. */
function NoEndUsers() {
  const { org } = useStudio();
  const curl = `curl -X PUT ${location.origin}/api/v1/orgs/${org.id}/end-users/customer-42 \\
  -H "Authorization: Bearer $TOKEN" \\
  -H "Content-Type: application/json" \\
  -d '{"name": "Jane Doe"}'`;
  return (
    <EmptyState title="No end users yet" icon={<Contact size={32} />}>
      <p>
        End users are the people your apps remember: the customers of a support assistant, say, or
        the learners of a tutoring app. They have no email or password and never sign in to mnemo.
      </p>
      <p>
        An app registers each one under its own id for them, as below, then keeps their memories
        with the memory API’s <code>user</code>. The README’s section “Apps and the people they
        remember” shows how.
      </p>
      <CodeBlock>{curl}</CodeBlock>
    </EmptyState>
  );
}
