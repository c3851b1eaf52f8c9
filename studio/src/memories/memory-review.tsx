import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Check, X } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { ApiError } from '../api/errors.ts';
import { apiKeysQuery } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { formatDateTime, formatRelative } from '../ui/format.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { categoryLabel } from './categories.ts';
import {
  type Accepted,
  acceptProposal,
  dropProposal,
  type Proposal,
  proposalsKey,
  useProposals,
} from './memory-proposals.ts';
import type { MemoryScope } from './memory-scope.ts';
import { useProjects } from './store-picker.tsx';

/** Whether a proposal, accepted, lands in the store the page shows. */
export const landsIn = (proposal: Proposal, scope: MemoryScope) =>
  scope.kind === 'project'
    ? proposal.projectId === scope.projectId
    : scope.kind === 'own' && proposal.projectId === undefined;

/**
 * "Learned from chats — waiting for review": what chat calls proposed while the server keeps
 * learning for review (MNEMO_MEMORY_EXTRACTION=review), each to accept or drop. The queue is the
 * person's own: all of it on their own memories (each says where it goes), a pool's part on
 * that pool, none while acting for another member. Nothing shows while it is empty.
 */
export function MemoryReview(props: {
  scope: MemoryScope;
  onAccepted: (proposal: Proposal, accepted: Accepted) => void;
}) {
  const { scope } = props;
  const proposals = useProposals(scope.kind !== 'member');
  const [announcement, setAnnouncement] = useState('');
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  // The decided one's buttons are gone with it: focus goes to the section, or the page's heading.
  const refocus = useRef(false);

  const shown = (proposals.data ?? []).filter(
    (proposal) => scope.kind === 'own' || landsIn(proposal, scope),
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs as the queue shrinks.
  useEffect(() => {
    if (!refocus.current) return;
    refocus.current = false;
    (heading.current ?? document.querySelector<HTMLElement>('#main h1'))?.focus();
  }, [shown.length]);

  const decided = (said: string) => {
    refocus.current = true;
    setAnnouncement(said);
  };

  return (
    <>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {scope.kind !== 'member' && shown.length === 0 ? (
        <ErrorNotice error={proposals.error} onRetry={() => void proposals.refetch()} />
      ) : null}
      {shown.length > 0 ? (
        <section className="card memory-review" aria-labelledby={headingId}>
          <h2 id={headingId} ref={heading} tabIndex={-1} className="memory-review-heading">
            Learned from chats — waiting for review <span className="badge">{shown.length}</span>
          </h2>
          <p className="muted memory-review-intro">
            Chat calls with memory proposed these. Accept one to save it as a memory, or drop it.
          </p>
          <ul className="proposal-list" aria-label="Proposed memories">
            {shown.map((proposal) => (
              <ProposalItem
                key={proposal.id}
                proposal={proposal}
                onAccepted={(accepted) => {
                  props.onAccepted(proposal, accepted);
                  decided(
                    accepted.folded
                      ? `Accepted: a memory already said the same, “${accepted.memory.content}”. Nothing new was stored.`
                      : `Accepted: “${proposal.content}” is saved.`,
                  );
                }}
                onDropped={() => decided(`Dropped: “${proposal.content}”.`)}
              />
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}

function ProposalItem(props: {
  proposal: Proposal;
  onAccepted: (accepted: Accepted) => void;
  onDropped: () => void;
}) {
  const studio = useStudio();
  const queryClient = useQueryClient();
  const { proposal } = props;
  const contentId = useId();
  const gone = proposal.action === 'update' && proposal.current === null;

  /** Takes the decided proposal out of the queue at once, then asks for the queue again. */
  const settle = async () => {
    const key = proposalsKey(studio.org.id);
    queryClient.setQueryData<Proposal[]>(key, (all) => all?.filter((p) => p.id !== proposal.id));
    await queryClient.invalidateQueries({ queryKey: key });
  };
  const accept = useMutation({
    mutationFn: () => acceptProposal(studio, proposal.id),
    onSuccess: async (accepted) => {
      props.onAccepted(accepted);
      await settle();
    },
  });
  const drop = useMutation({
    mutationFn: () => dropProposal(studio, proposal.id),
    onSuccess: async () => {
      props.onDropped();
      await settle();
    },
  });
  const busy = accept.isPending || drop.isPending;

  return (
    <li className="proposal">
      {proposal.action === 'update' ? (
        <div className="proposal-change" id={contentId}>
          <p className="proposal-was">
            <span className="proposal-label">Now</span>
            {gone ? (
              <span className="muted">Deleted since this was proposed</span>
            ) : (
              <span>{proposal.current?.content}</span>
            )}
          </p>
          <p className="proposal-becomes">
            <span className="proposal-label">
              <span aria-hidden="true">→ </span>Proposed
            </span>
            <span>{proposal.content}</span>
          </p>
        </div>
      ) : (
        <p className="memory-content" id={contentId}>
          {proposal.content}
        </p>
      )}
      <div className="memory-meta">
        <span className={`category-badge cat-${proposal.category ?? 'none'}`}>
          {categoryLabel(proposal.category)}
        </span>
        <Destination proposal={proposal} />
        <Learned proposal={proposal} />
        <span className="proposal-actions">
          <button
            type="button"
            className="button primary small"
            aria-describedby={contentId}
            disabled={busy || gone}
            onClick={() => accept.mutate()}
          >
            <Check size={14} aria-hidden="true" />
            {accept.isPending ? 'Accepting…' : 'Accept'}
          </button>
          <button
            type="button"
            className="button small"
            aria-describedby={contentId}
            disabled={busy}
            onClick={() => drop.mutate()}
          >
            <X size={14} aria-hidden="true" />
            {drop.isPending ? 'Dropping…' : 'Drop'}
          </button>
        </span>
      </div>
      <ErrorNotice
        error={accept.error ?? drop.error}
        explain={(error) =>
          proposal.action === 'update' && error instanceof ApiError && error.status === 404
            ? 'The memory this would change was deleted in the meantime: drop the proposal.'
            : undefined
        }
      />
    </li>
  );
}

/** Where it goes when accepted: the person's own memories, or a project's shared pool. */
function Destination({ proposal }: { proposal: Proposal }) {
  const projects = useProjects();
  if (proposal.projectId === undefined) return <span>To your memories</span>;
  const name = projects.data?.find((p) => p.id === proposal.projectId)?.name;
  return (
    <span>
      To the shared pool of{' '}
      {name ? <strong className="proposal-project">{name}</strong> : 'a project'}
    </span>
  );
}

/** When it was learned, and by a call with which key. */
function Learned({ proposal }: { proposal: Proposal }) {
  const { api, org } = useStudio();
  const keys = useQuery(apiKeysQuery(api, org.id));
  const key = keys.data?.find((k) => k.id === proposal.keyId);
  return (
    <time dateTime={proposal.createdAt} title={formatDateTime(proposal.createdAt)}>
      Learned {formatRelative(proposal.createdAt)}
      {key ? ` with “${key.name}”` : ''}
    </time>
  );
}
