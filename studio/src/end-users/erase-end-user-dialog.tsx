import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/errors.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { formatInteger } from '../ui/format.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import {
  type EndUser,
  type EndUserDetail,
  endUserQuery,
  endUsersKey,
  eraseEndUser,
  forgetEndUser,
} from './end-users-queries.ts';

/** How an erasure ended: done now, or found done already (elsewhere, meanwhile). */
export type Erased = { endUser: EndUser; outcome: 'erased' | 'gone' };

/**
 * Asks before an end user is erased, saying what goes, as counted by the API just now: their
 * memories, what they contributed to project pools, their project access and their keys. It
 * cannot be undone; the audit log keeps that it happened, not what was held.
 */
export function EraseEndUserDialog(props: {
  /** The end user to erase; the dialog is open while there is one. */
  target: EndUser | undefined;
  onClose: (done?: Erased) => void;
}) {
  const { target } = props;
  return (
    <Dialog
      open={target !== undefined}
      title={target ? `Erase ${target.externalId}?` : 'Erase end user'}
      onClose={() => props.onClose()}
    >
      {target ? <Erase endUser={target} onClose={props.onClose} /> : null}
    </Dialog>
  );
}

const count = (n: number, one: string, many: string) =>
  `${formatInteger(n)} ${n === 1 ? one : many}`;

function Erase(props: { endUser: EndUser; onClose: (done?: Erased) => void }) {
  const { endUser } = props;
  const { api, org } = useStudio();
  const queryClient = useQueryClient();
  // Counted when asked, not when the list was read: memories may have come since.
  const detail = useQuery({
    ...endUserQuery(api, org.id, endUser.externalId),
    staleTime: 0,
    refetchOnMount: 'always',
    retry: (failures: number, error: unknown) =>
      !(error instanceof ApiError && error.status === 404) && failures < 2,
  });
  const gone = detail.error instanceof ApiError && detail.error.status === 404;
  const erase = useMutation({
    mutationFn: () => eraseEndUser(api, org.id, endUser.externalId),
    onSuccess: async () => {
      forgetEndUser(queryClient, org.id, endUser);
      props.onClose({ endUser, outcome: 'erased' });
      await queryClient.invalidateQueries({ queryKey: [...endUsersKey(org.id), 'list'] });
    },
  });

  if (gone) {
    return (
      <>
        <p>
          {`There is nothing left to erase: ${endUser.externalId} is no longer registered in ${org.name}. It was erased meanwhile, here or by an app.`}
        </p>
        <div className="dialog-actions">
          <button
            type="button"
            className="button"
            onClick={() => {
              forgetEndUser(queryClient, org.id, endUser);
              props.onClose({ endUser, outcome: 'gone' });
              void queryClient.invalidateQueries({ queryKey: [...endUsersKey(org.id), 'list'] });
            }}
          >
            Close
          </button>
        </div>
      </>
    );
  }

  return (
    <>
      <p>
        Erasing{' '}
        {endUser.name ? (
          <>
            <strong>{endUser.name}</strong> ({endUser.externalId})
          </>
        ) : (
          <strong>{endUser.externalId}</strong>
        )}{' '}
        deletes, at once and for good, everything {org.name} holds of them:
      </p>
      {detail.data ? (
        <WhatGoes detail={detail.data} />
      ) : detail.isPending ? (
        <Loading what="what is held of them" />
      ) : (
        <ErrorNotice error={detail.error} onRetry={() => void detail.refetch()} />
      )}
      <p className="muted">
        The audit log keeps only that they were erased, by you, and how much went; never what. If an
        app registers {endUser.externalId} again, that is someone new, with no memories.
      </p>
      <ErrorNotice error={erase.error} />
      <ConfirmActions
        label={`Erase ${endUser.externalId}`}
        busyLabel="Erasing…"
        busy={erase.isPending}
        disabled={detail.data === undefined}
        onConfirm={() => erase.mutate()}
        onCancel={() => props.onClose()}
      />
    </>
  );
}

function WhatGoes({ detail }: { detail: EndUserDetail }) {
  const { own, pools } = detail.memories;
  return (
    <ul className="erase-list">
      <li>
        {own === 0
          ? 'their memories (they have none at the moment),'
          : `their ${count(own, 'memory', 'memories')},`}
      </li>
      {pools > 0 ? (
        <li>{`${count(pools, 'memory', 'memories')} they contributed to project pools,`}</li>
      ) : null}
      <li>memories proposed from their chats that wait for review,</li>
      <li>their access to projects and their API keys.</li>
    </ul>
  );
}
