import { useQuery } from '@tanstack/react-query';
import { ChevronLeft, UserX } from 'lucide-react';
import { type ReactNode, useEffect, useMemo } from 'react';
import { Link, useLocation } from 'react-router';
import { ApiError } from '../api/errors.ts';
import { isManager, useStudio } from '../app/studio-context.tsx';
import { MemoriesPage } from '../memories/memories-page.tsx';
import type { MemoryScope } from '../memories/memory-scope.ts';
import { EmptyState } from '../ui/empty-state.tsx';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { ForManagers } from './end-users-page.tsx';
import { type EndUserDetail, endUserQuery } from './end-users-queries.ts';
import '../projects/projects.css';

const PREFIX = '/memories/end-users/';

/**
 * The app's id from the path, decoded from its one segment as the address has it. The router's
 * parameter would read an id holding the text "%2F" as one holding a slash.
 */
function useExternalId(): string {
  const { pathname } = useLocation();
  const segment = pathname.slice(pathname.indexOf(PREFIX) + PREFIX.length).replace(/\/$/, '');
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * An end user's memories: the end user is found by the app's id, then their store is the
 * Memories page acting for them, as for any other member (`user=<their mnemo id>`).
 */
export function EndUserMemoriesPage() {
  const { api, org } = useStudio();
  const externalId = useExternalId();
  const endUser = useQuery({
    ...endUserQuery(api, org.id, externalId),
    enabled: isManager(org),
    retry: (failures: number, error: unknown) =>
      !(error instanceof ApiError && [403, 404].includes(error.status)) && failures < 2,
  });

  if (!isManager(org)) {
    return (
      <Frame>
        <Page title="Memories" subtitle="Of an end user, a person your apps remember.">
          <ForManagers />
        </Page>
      </Frame>
    );
  }
  if (endUser.data) return <EndUserStore key={endUser.data.id} endUser={endUser.data} />;
  if (endUser.error instanceof ApiError && endUser.error.status === 404) {
    return (
      <Frame>
        <Page title="End user not found">
          <EmptyState title={`No end user “${externalId}” here`} icon={<UserX size={32} />}>
            <p>
              No app has registered an end user with this id in {org.name}, or the one registered
              was erased. Ids are matched exactly, letter case included.
            </p>
            <Link to="/end-users" className="button">
              See all end users
            </Link>
          </EmptyState>
        </Page>
      </Frame>
    );
  }
  return (
    <Frame>
      <Page title="Memories" subtitle={`Of the end user ${externalId}.`}>
        {endUser.isError ? (
          <ErrorNotice error={endUser.error} onRetry={() => void endUser.refetch()} />
        ) : (
          <Loading what="the end user" />
        )}
      </Page>
    </Frame>
  );
}

function EndUserStore({ endUser }: { endUser: EndUserDetail }) {
  // The page that said "Loading" gave way to this one, and its heading took focus with it: the
  // new heading takes it back, unless the person has moved on to something else meanwhile.
  useEffect(() => {
    if (document.activeElement === null || document.activeElement === document.body) {
      document.querySelector<HTMLElement>('#main h1')?.focus();
    }
  }, []);
  const scope = useMemo<MemoryScope>(
    () => ({
      kind: 'member',
      userId: endUser.id,
      endUser: {
        externalId: endUser.externalId,
        ...(endUser.name === undefined ? {} : { name: endUser.name }),
      },
    }),
    [endUser.id, endUser.externalId, endUser.name],
  );
  return (
    <Frame>
      <MemoriesPage scope={scope} />
    </Frame>
  );
}

/** The way back to the list, above the page. */
function Frame(props: { children: ReactNode }) {
  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/end-users">
          <ChevronLeft size={16} aria-hidden="true" />
          End users
        </Link>
      </nav>
      {props.children}
    </>
  );
}
