import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type App, queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import {
  explainRefusal,
  parseRateLimit,
  type RateLimits,
  rateLimitWords,
  TOKEN_MINUTES,
} from './app-words.ts';
import { updateApp } from './apps-queries.ts';
import { RateLimitField } from './rate-limit-field.tsx';

/**
 * Changes an app's own rate limit, or gives it back the default. Tokens carry the limit they
 * were issued with, so a new one applies as the app's tokens are renewed: the dialog says so.
 * A refusal (above the server's ceiling) keeps the dialog open with the API's reason.
 */
export function RateLimitDialog(props: {
  target: App | undefined;
  rates: RateLimits;
  onClose: (saved?: App) => void;
}) {
  const { target } = props;
  const [pending, setPending] = useState(false);
  return (
    <Dialog
      open={target !== undefined}
      title={`Rate limit of “${target?.name ?? ''}”`}
      onClose={() => props.onClose()}
      dismissible={!pending}
    >
      {target ? (
        // Each app opens on its own limit as it is.
        <RateLimitForm
          key={target.id}
          target={target}
          rates={props.rates}
          onPending={setPending}
          onClose={props.onClose}
        />
      ) : null}
    </Dialog>
  );
}

function RateLimitForm(props: {
  target: App;
  rates: RateLimits;
  onPending: (pending: boolean) => void;
  onClose: (saved?: App) => void;
}) {
  const studio = useStudio();
  const queryClient = useQueryClient();
  const { target, rates, onPending, onClose } = props;
  const [value, setValue] = useState(
    target.rateLimitPerMinute === null ? '' : String(target.rateLimitPerMinute),
  );
  const [problem, setProblem] = useState<string>();
  const save = useMutation({
    mutationFn: (rateLimitPerMinute: number | null) =>
      updateApp(studio, target.id, { rateLimitPerMinute }),
    onMutate: () => onPending(true),
    onSettled: () => onPending(false),
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.apps(studio.org.id) });
      onClose(saved);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
    const parsed = parseRateLimit(value);
    if ('problem' in parsed) {
      setProblem(parsed.problem);
      return;
    }
    setProblem(undefined);
    if (parsed.value === target.rateLimitPerMinute) onClose();
    else save.mutate(parsed.value);
  };

  return (
    <form onSubmit={submit} noValidate>
      <ErrorNotice error={save.error} explain={explainRefusal} />
      <p className="muted">
        Now: {rateLimitWords(target.rateLimitPerMinute, rates)}. A new limit applies to the tokens
        the app gets from now on; those it holds keep theirs until they expire, within{' '}
        {TOKEN_MINUTES} minutes.
      </p>
      <RateLimitField
        label="Requests a minute"
        value={value}
        onChange={setValue}
        rates={rates}
        problem={problem ?? explainRefusal(save.error) !== undefined}
      />
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
