import { useId, useRef } from 'react';
import type { App } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { CopyButton } from '../ui/copy-button.tsx';
import { ShownOnce } from '../ui/shown-once.tsx';
import { TOKEN_MINUTES, tokenCommand } from './app-words.ts';

/**
 * An app's credentials with its secret, shown this once (at registration, or after a new
 * secret): the client ID, the secret and the command that turns them into a token, each with a
 * Copy button.
 */
export function AppSecretView(props: {
  app: App;
  secret: string;
  /** After a new secret, the old one has just stopped working. */
  replaced?: boolean;
  onDone: () => void;
}) {
  const { app, secret, onDone } = props;
  const { org } = useStudio();
  const ids = { id: useId(), secret: useId(), command: useId(), commandHint: useId() };
  const secretField = useRef<HTMLInputElement>(null);
  const command = tokenCommand(location.origin, { clientId: app.id, secret });

  return (
    <ShownOnce
      className="apps-secret"
      secretField={secretField}
      onDone={onDone}
      warning={
        <>
          {props.replaced
            ? `The old secret of “${app.name}” no longer works. Copy the new one now and put it in the app’s settings. `
            : `Copy the secret of “${app.name}” now. `}
          It will not be shown again: mnemo keeps only a fingerprint of it.
        </>
      }
    >
      <div className="field">
        <label htmlFor={ids.id}>Client ID</label>
        <div className="apps-copy-row">
          <input
            id={ids.id}
            className="mono"
            readOnly
            value={app.id}
            autoComplete="off"
            spellCheck={false}
            onFocus={(event) => event.target.select()}
          />
          <CopyButton what="client ID" value={app.id} />
        </div>
      </div>
      <div className="field">
        <label htmlFor={ids.secret}>Client secret</label>
        <div className="apps-copy-row">
          <input
            id={ids.secret}
            ref={secretField}
            className="mono"
            readOnly
            value={secret}
            autoComplete="off"
            spellCheck={false}
            onFocus={(event) => event.target.select()}
          />
          <CopyButton what="client secret" value={secret} />
        </div>
      </div>
      <div className="field apps-command">
        <div className="apps-command-head">
          <span id={ids.command} className="field-label">
            Get a token
          </span>
          <CopyButton what="command" value={command} className="small" describedBy={ids.command} />
        </div>
        {/* A command keeps its lines whole: narrow, it scrolls sideways, by keyboard too. */}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus (WCAG 2.1.1). */}
        <pre className="code-block apps-code" aria-describedby={ids.commandHint} tabIndex={0}>
          {command}
        </pre>
        <p id={ids.commandHint} className="field-hint">
          mnemo answers an access token that lasts {TOKEN_MINUTES} minutes. The app sends it as{' '}
          <code>Authorization: Bearer …</code>, with <code>X-Organization-Id: {org.id}</code>, on{' '}
          <code>/api/v1/…</code>, and asks for a new one when it expires.
        </p>
      </div>
    </ShownOnce>
  );
}
