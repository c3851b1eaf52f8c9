import { useState } from 'react';
import { data, inOrg } from '../api/client.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { formatCount } from '../ui/format.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { listQuery, type MemoryScope } from './memory-scope.ts';

/**
 * Asks before every memory of a store goes: the title names the store and how many memories it
 * holds, the red button says the count again. Confirmed, one `DELETE /api/v1/memory`, and the
 * dialog closes with the count the server deleted.
 */
export function DeleteAllDialog(props: {
  open: boolean;
  scope: MemoryScope;
  /** The store in words: "your store", "the pool of “Atlas”". */
  store: string;
  /** How many memories the store held when the dialog was asked for. */
  count: number;
  onClose: () => void;
  onDeleted: (deleted: number) => void;
}) {
  const { api, org } = useStudio();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const close = () => {
    setError(undefined);
    props.onClose();
  };
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await data(
        api.DELETE('/api/v1/memory', {
          params: { query: listQuery(props.scope), header: inOrg(org.id) },
        }),
      );
      props.onDeleted(answer.deleted);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={props.open}
      title={`Delete all ${formatCount(props.count, 'memory', 'memories')} of ${props.store}?`}
      onClose={close}
      dismissible={!busy}
    >
      <p>
        Every memory of this store goes, in one step, and cannot be brought back. Apps syncing the
        store are told each one was deleted. Export the store first to keep a copy.
      </p>
      <ErrorNotice error={error} />
      <ConfirmActions
        label={`Delete ${formatCount(props.count, 'memory', 'memories')}`}
        busyLabel="Deleting…"
        busy={busy}
        onConfirm={confirm}
        onCancel={close}
      />
    </Dialog>
  );
}
