import { useMutation } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { App } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { AppSecretView } from './app-secret-view.tsx';
import { TOKEN_MINUTES } from './app-words.ts';
import { replaceSecret } from './apps-queries.ts';

/**
 * Asks before an app's secret is replaced (the app stops getting tokens until it has the new
 * one), then shows the new secret once, as at registration. While it is shown, only Done ends
 * the dialog; the secret lives in the mutation's state and goes with it.
 */
export function NewSecretDialog(props: {
  target: App | undefined;
  onClose: (replaced?: App) => void;
}) {
  const studio = useStudio();
  const { target, onClose } = props;
  const replace = useMutation({ mutationFn: (app: App) => replaceSecret(studio, app.id) });
  const shown = replace.data;
  const { reset } = replace;
  const done = useCallback(() => {
    const app = shown?.app;
    reset();
    onClose(app);
  }, [shown, reset, onClose]);
  const cancel = () => {
    reset();
    onClose();
  };

  return (
    <Dialog
      open={target !== undefined}
      title={
        shown
          ? `Save the new secret of “${shown.app.name}”`
          : `Replace the secret of “${target?.name ?? ''}”?`
      }
      onClose={shown ? done : cancel}
      dismissible={!shown && !replace.isPending}
      className={shown ? 'apps-wide-dialog' : ''}
    >
      {shown ? (
        <AppSecretView app={shown.app} secret={shown.secret} replaced onDone={done} />
      ) : target ? (
        <>
          <ErrorNotice error={replace.error} />
          <p>
            mnemo makes a new secret for {target.name} and shows it once. The current secret stops
            working at once: the app gets no new token with it until it has the new one.
          </p>
          <p>
            Tokens it already holds keep working until they expire, within {TOKEN_MINUTES} minutes.
            Its client ID stays the same.
          </p>
          <ConfirmActions
            label="Replace secret"
            busyLabel="Replacing…"
            busy={replace.isPending}
            onConfirm={() => replace.mutate(target)}
            onCancel={cancel}
          />
        </>
      ) : null}
    </Dialog>
  );
}
