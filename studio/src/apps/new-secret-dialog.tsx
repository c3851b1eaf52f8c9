import type { App } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ReplaceSecretDialog } from '../ui/replace-secret-dialog.tsx';
import { AppSecretView } from './app-secret-view.tsx';
import { TOKEN_MINUTES } from './app-words.ts';
import { replaceSecret } from './apps-queries.ts';

/**
 * Replaces an app's client secret: the app stops getting tokens until it has the new one, which
 * is shown once, as at registration.
 */
export function NewSecretDialog(props: {
  target: App | undefined;
  onClose: (replaced?: App) => void;
}) {
  const studio = useStudio();
  return (
    <ReplaceSecretDialog
      target={props.target}
      onClose={props.onClose}
      replace={async (app) => {
        const answer = await replaceSecret(studio, app.id);
        return { item: answer.app, secret: answer.secret };
      }}
      title={{
        ask: (app) => `Replace the secret of “${app.name}”?`,
        shown: (app) => `Save the new secret of “${app.name}”`,
      }}
      explain={(app) => (
        <>
          <p>
            mnemo makes a new secret for {app.name} and shows it once. The current secret stops
            working at once: the app gets no new token with it until it has the new one.
          </p>
          <p>
            Tokens it already holds keep working until they expire, within {TOKEN_MINUTES} minutes.
            Its client ID stays the same.
          </p>
        </>
      )}
      show={(shown, onDone) => (
        <AppSecretView app={shown.item} secret={shown.secret} replaced onDone={onDone} />
      )}
      wideClassName="apps-wide-dialog"
    />
  );
}
