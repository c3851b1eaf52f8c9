import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import type { ApiKey } from './key-lifetime.ts';
import type { KeyMemory } from './key-memory.ts';
import { updateKeyMemory } from './keys-queries.ts';
import { MemoryFields } from './memory-fields.tsx';

/**
 * Changes a key's memory settings in place: calls made with it from then on follow them. A
 * refusal (memory above the rights) keeps the dialog open with the API's reason, and what was
 * chosen, to correct.
 */
export function EditKeyMemoryDialog(props: {
  target: ApiKey | undefined;
  owner: string | undefined;
  onClose: (saved?: ApiKey) => void;
}) {
  const { target } = props;
  const [pending, setPending] = useState(false);
  return (
    <Dialog
      open={target !== undefined}
      title={`Memory of “${target?.name ?? ''}”`}
      onClose={() => props.onClose()}
      dismissible={!pending}
    >
      {target ? (
        // Each key opens on its own settings as they are.
        <MemoryForm
          key={target.id}
          target={target}
          owner={props.owner}
          onPending={setPending}
          onClose={props.onClose}
        />
      ) : null}
    </Dialog>
  );
}

function MemoryForm(props: {
  target: ApiKey;
  owner: string | undefined;
  onPending: (pending: boolean) => void;
  onClose: (saved?: ApiKey) => void;
}) {
  const studio = useStudio();
  const queryClient = useQueryClient();
  const { target, onPending, onClose } = props;
  const [value, setValue] = useState<KeyMemory>({
    memory: target.memory,
    memoryAccess: target.memoryAccess,
  });
  const save = useMutation({
    mutationFn: () => updateKeyMemory(studio, target.id, value),
    onMutate: () => onPending(true),
    onSettled: () => onPending(false),
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys(studio.org.id) });
      onClose(saved);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
    const unchanged = value.memory === target.memory && value.memoryAccess === target.memoryAccess;
    if (unchanged) onClose();
    else save.mutate();
  };

  return (
    <form onSubmit={submit} noValidate>
      <ErrorNotice error={save.error} />
      <p className="muted">
        Calls made with key <span className="mono">{target.prefix}…</span>
        {props.owner && props.owner !== 'You' ? `, which belongs to ${props.owner},` : ''} follow
        the new settings at once.
      </p>
      <MemoryFields value={value} onChange={setValue} />
      <div className="dialog-actions">
        <button
          type="button"
          className="button"
          onClick={() => onClose()}
          disabled={save.isPending}
        >
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}
