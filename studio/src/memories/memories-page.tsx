import { Brain } from 'lucide-react';
import { useDeferredValue, useEffect, useId, useMemo, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { data, inOrg } from '../api/client.ts';
import { useStudio } from '../app/studio-context.tsx';
import { EmptyState } from '../ui/empty-state.tsx';
import { formatInteger } from '../ui/format.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { type Added, AddMemory } from './add-memory.tsx';
import { CATEGORIES, UNCATEGORIZED } from './categories.ts';
import type { Accepted, Proposal } from './memory-proposals.ts';
import { landsIn, MemoryReview } from './memory-review.tsx';
import { explainPoolChange, MemoryRow } from './memory-row.tsx';
import { itemQuery, type MemoryScope, scopeKey } from './memory-scope.ts';
import { scheduleDelete, usePendingDeletes } from './pending-deletes.ts';
import { StorePicker, useMembers, useProjects } from './store-picker.tsx';
import { type StoreName, StoreTransfer } from './store-transfer.tsx';
import type { MemoryItem } from './sync-mirror.ts';
import { UndoToasts } from './undo-toasts.tsx';
import { type SyncStatus, useMemorySync } from './use-memory-sync.ts';
import './memories.css';
import { CodeBlock } from '../ui/code-block.tsx';

/** Memories rendered at once; "Show more" adds as many. 5,000 stay responsive this way. */
const PAGE_SIZE = 100;

const byNewest = (a: MemoryItem, b: MemoryItem) =>
  a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1;

function useScope(): MemoryScope {
  const { projectId, userId } = useParams();
  if (projectId) return { kind: 'project', projectId };
  if (userId) return { kind: 'member', userId };
  return { kind: 'own' };
}

/**
 * A memory store, live: the person's own, a project's pool, or (acting for them) another
 * member's. The list is the sync mirror (use-memory-sync.ts) less the deletions waiting out
 * their undo; filters live in the URL, so a filtered view can be linked and gone back to.
 */
export function MemoriesPage(props: {
  /** Given by a page that finds the store itself (an end user's, by the app's id); else the URL's. */
  scope?: MemoryScope;
}) {
  const routeScope = useScope();
  const scope = props.scope ?? routeScope;
  const sync = useMemorySync(scope);
  const pendingDeletes = usePendingDeletes();
  const [params, setParams] = useSearchParams();
  const category = params.get('category') ?? '';
  const query = params.get('q') ?? '';
  const deferredQuery = useDeferredValue(query);
  const [limit, setLimit] = useState(PAGE_SIZE);
  const [highlight, setHighlight] = useState<string>();
  const [folded, setFolded] = useState<{ id: string | undefined; content: string }>();
  const [deleteError, setDeleteError] = useState<unknown>();
  const filterId = useId();

  const all = useMemo(() => {
    const hidden = new Set(pendingDeletes.map((p) => p.id));
    return [...sync.items.values()].filter((m) => !hidden.has(m.id)).sort(byNewest);
  }, [sync.items, pendingDeletes]);

  const counts = useMemo(() => {
    const result = new Map<string, number>();
    for (const m of all) {
      const key = m.category ?? UNCATEGORIZED;
      result.set(key, (result.get(key) ?? 0) + 1);
    }
    return result;
  }, [all]);

  const shown = useMemo(() => {
    const needle = deferredQuery.trim().toLocaleLowerCase();
    return all.filter(
      (m) =>
        (category === '' || (m.category ?? UNCATEGORIZED) === category) &&
        (needle === '' || m.content.toLocaleLowerCase().includes(needle)),
    );
  }, [all, category, deferredQuery]);

  // A new filter or store starts again from the first page of results.
  // biome-ignore lint/correctness/useExhaustiveDependencies: these are the resets' triggers.
  useEffect(() => setLimit(PAGE_SIZE), [category, deferredQuery, sync.loaded]);

  const setFilter = (name: 'category' | 'q', value: string) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: name === 'q' },
    );

  const show = (id: string) => {
    setParams({}, { replace: true });
    const index = all.findIndex((m) => m.id === id);
    if (index >= limit) setLimit(index + 1);
    setHighlight(id);
  };

  const onAdded = (added: Added) => {
    if (added.kind === 'created') {
      sync.wrote(added.memory);
      setFolded(undefined);
    } else {
      // The answer has no full memory: the next pull brings any category it gained.
      sync.pullNow();
      setFolded({ id: added.id, content: added.content });
    }
  };

  // An accepted proposal is a save like any other: shown at once where it lands, else pulled.
  const onAccepted = (proposal: Proposal, accepted: Accepted) => {
    if (landsIn(proposal, scope) && !accepted.folded && 'createdAt' in accepted.memory) {
      sync.wrote(accepted.memory);
    } else {
      sync.pullNow();
    }
  };

  const { api, org } = useStudio();
  // In a pool, adding takes editor access (spec); a viewer is told rather than refused.
  const projects = useProjects();
  const poolAccess =
    scope.kind === 'project'
      ? projects.data?.find((p) => p.id === scope.projectId)?.access
      : undefined;
  const canAdd =
    scope.kind !== 'project' ||
    projects.data === undefined ||
    poolAccess === 'editor' ||
    poolAccess === 'owner';
  const onDelete = (item: MemoryItem) => {
    setDeleteError(undefined);
    scheduleDelete({
      id: item.id,
      content: item.content,
      send: async (keepalive) => {
        await data(
          api.DELETE('/api/v1/memory/{id}', {
            params: { path: { id: item.id }, query: itemQuery(scope), header: inOrg(org.id) },
            keepalive,
          }),
        );
        sync.deleted(item.id);
      },
      onFailed: setDeleteError,
    });
  };

  const storeName = useStoreName(scope);
  const empty = all.length === 0 && pendingDeletes.length === 0;
  return (
    <Page
      title="Memories"
      subtitle={<ScopeLine scope={scope} />}
      actions={<StorePicker scope={scope} />}
    >
      {sync.status === 'refused' ? (
        <ErrorNotice error={sync.error} />
      ) : (
        <>
          {canAdd ? (
            <AddMemory scope={scope} onAdded={onAdded} />
          ) : (
            <p className="notice info">
              You can read this pool. Its editors and owners add to it; ask an owner of the project
              for editor access to add memories.
            </p>
          )}
          <MemoryReview scope={scope} onAccepted={onAccepted} />
          {folded ? (
            <div className="notice info" role="status">
              <span>
                Already saved: this store has a memory that says the same, “{folded.content}”.
                Nothing new was stored.
              </span>
              {folded.id ? (
                <button
                  type="button"
                  className="button small"
                  onClick={() => folded.id && show(folded.id)}
                >
                  Show it
                </button>
              ) : null}
            </div>
          ) : null}
          <ErrorNotice error={deleteError} explain={(error) => explainPoolChange(scope, error)} />
          {/* A pull or stream that failed and will be tried again: what is shown may be behind. */}
          {sync.status === 'retrying' ? <ErrorNotice error={sync.error} /> : null}
          {sync.status === 'loading' ? null : (
            <StoreTransfer
              key={scopeKey(scope)}
              scope={scope}
              store={storeName}
              count={all.length}
              canImport={canAdd}
              canDeleteAll={scope.kind !== 'project' || poolAccess === 'owner'}
              onImported={sync.pullNow}
              onDeletedAll={() => {
                sync.deletedAll();
                sync.pullNow();
              }}
            />
          )}
          {sync.status === 'loading' ? (
            <Loading what="memories" />
          ) : empty ? (
            <EmptyMemories scope={scope} />
          ) : (
            <>
              <div className="memory-filters">
                <fieldset className="chips">
                  <legend className="visually-hidden">Category</legend>
                  <Chip
                    label="All"
                    count={all.length}
                    pressed={category === ''}
                    onClick={() => setFilter('category', '')}
                  />
                  {CATEGORIES.map((c) => (
                    <Chip
                      key={c.value}
                      label={c.label}
                      count={counts.get(c.value) ?? 0}
                      pressed={category === c.value}
                      className={`cat-${c.value}`}
                      onClick={() => setFilter('category', category === c.value ? '' : c.value)}
                    />
                  ))}
                  <Chip
                    label="No category"
                    count={counts.get(UNCATEGORIZED) ?? 0}
                    pressed={category === UNCATEGORIZED}
                    onClick={() =>
                      setFilter('category', category === UNCATEGORIZED ? '' : UNCATEGORIZED)
                    }
                  />
                </fieldset>
                <div className="memory-search">
                  <label htmlFor={filterId} className="visually-hidden">
                    Filter memories
                  </label>
                  <input
                    id={filterId}
                    type="search"
                    placeholder="Filter memories"
                    value={query}
                    onChange={(event) => setFilter('q', event.target.value)}
                  />
                </div>
              </div>
              <SyncLine status={sync.status} shown={shown.length} total={all.length} />
              {shown.length === 0 ? (
                <p className="muted no-match">No memory matches these filters.</p>
              ) : (
                <ul className="memory-list" aria-label="Memories">
                  {shown.slice(0, limit).map((item) => (
                    <MemoryRow
                      key={item.id}
                      item={item}
                      scope={scope}
                      highlighted={highlight === item.id}
                      onSaved={sync.wrote}
                      onDelete={onDelete}
                    />
                  ))}
                </ul>
              )}
              {shown.length > limit ? (
                <button
                  type="button"
                  className="button show-more"
                  onClick={() => setLimit((n) => n + PAGE_SIZE)}
                >
                  Show {formatInteger(Math.min(PAGE_SIZE, shown.length - limit))} more of{' '}
                  {formatInteger(shown.length - limit)}
                </button>
              ) : null}
            </>
          )}
        </>
      )}
      <UndoToasts />
    </Page>
  );
}

function Chip(props: {
  label: string;
  count: number;
  pressed: boolean;
  onClick: () => void;
  className?: string;
}) {
  return (
    <button
      type="button"
      className={`chip ${props.className ?? ''}`}
      aria-pressed={props.pressed}
      onClick={props.onClick}
    >
      {props.label} <span className="chip-count">{formatInteger(props.count)}</span>
    </button>
  );
}

const STATUS_WORDS: Record<SyncStatus, string> = {
  loading: 'Loading…',
  live: 'Live',
  polling: 'Checking for changes every few seconds',
  paused: 'Paused while this tab is hidden',
  retrying: 'Reconnecting…',
  refused: '',
};

/** How many are shown, and whether the list is live; only a change of state is announced. */
function SyncLine(props: { status: SyncStatus; shown: number; total: number }) {
  return (
    <div className="sync-line">
      <span className="muted">
        {props.shown === props.total
          ? `${formatInteger(props.total)} ${props.total === 1 ? 'memory' : 'memories'}`
          : `${formatInteger(props.shown)} of ${formatInteger(props.total)} memories`}
      </span>
      <span className={`sync-status ${props.status}`} role="status">
        <span className="sync-dot" aria-hidden="true" />
        {STATUS_WORDS[props.status]}
      </span>
    </div>
  );
}

/**
 * The store in a few words, as a sentence names it ("your store", "the pool of “Atlas”") and as
 * a file name does (whose it is: "Ada Lovelace", "Atlas").
 */
function useStoreName(scope: MemoryScope): StoreName {
  const { me } = useStudio();
  const projects = useProjects();
  const members = useMembers(scope.kind === 'member' && !scope.endUser);
  if (scope.kind === 'project') {
    const project = projects.data?.find((p) => p.id === scope.projectId);
    return project
      ? { sentence: `the pool of “${project.name}”`, label: project.name }
      : { sentence: 'this pool', label: 'pool' };
  }
  if (scope.kind === 'member') {
    if (scope.endUser) {
      const { name, externalId } = scope.endUser;
      return { sentence: `${name ?? externalId}’s store`, label: externalId };
    }
    const member = members.data?.find((m) => m.userId === scope.userId);
    if (!member) return { sentence: 'this store', label: 'member' };
    return {
      sentence: `${member.name ?? member.email}’s store`,
      label: member.name ?? member.email.split('@')[0] ?? member.email,
    };
  }
  return { sentence: 'your store', label: me.name ?? me.email.split('@')[0] ?? 'mine' };
}

/** The line under the title: whose store this is, in words. */
function ScopeLine(props: { scope: MemoryScope }) {
  const { org } = useStudio();
  const projects = useProjects();
  const members = useMembers(props.scope.kind === 'member' && !props.scope.endUser);
  const { scope } = props;
  if (scope.kind === 'project') {
    const project = projects.data?.find((p) => p.id === scope.projectId);
    return (
      <>
        The shared pool of <strong>{project?.name ?? 'a project'}</strong>: every collaborator of
        the project sees it.
      </>
    );
  }
  if (scope.kind === 'member' && scope.endUser) {
    const { externalId, name } = scope.endUser;
    return (
      <>
        Acting for the end user <strong>{name ?? externalId}</strong>
        {name ? (
          <>
            {' '}
            <span className="scope-external-id">({externalId})</span>
          </>
        ) : null}
        : what you do here is recorded in the audit log.
      </>
    );
  }
  if (scope.kind === 'member') {
    const member = members.data?.find((m) => m.userId === scope.userId);
    return (
      <>
        Acting for <strong>{member ? (member.name ?? member.email) : 'another member'}</strong>:
        what you do here is recorded in the audit log.
      </>
    );
  }
  return (
    <>
      What is remembered about you in <strong>{org.name}</strong>.
    </>
  );
}

function EmptyMemories(props: { scope: MemoryScope }) {
  const { org } = useStudio();
  const target =
    props.scope.kind === 'project'
      ? `, "project": "${props.scope.projectId}"`
      : props.scope.kind === 'member'
        ? `, "user": "${props.scope.userId}"`
        : '';
  const curl = `curl -X POST ${location.origin}/api/v1/memory \\
  -H "Authorization: Bearer $TOKEN" \\
  -H "X-Organization-Id: ${org.id}" \\
  -H "Content-Type: application/json" \\
  -d '{"content": "Prefers tea over coffee", "category": "preference"${target}}'`;
  return (
    <EmptyState title="No memories yet" icon={<Brain size={32} />}>
      <p>
        Memories are short facts an assistant keeps about a person: who they are, what they prefer,
        what they are working toward. Add the first one above, or from your application with the
        memory API:
      </p>
      <CodeBlock>{curl}</CodeBlock>
    </EmptyState>
  );
}
