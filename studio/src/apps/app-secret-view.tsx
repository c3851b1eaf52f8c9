import { TriangleAlert } from 'lucide-react';
import { useEffect, useId, useRef } from 'react';
import type { App } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { CopyButton } from '../ui/copy-button.tsx';
import { TOKEN_MINUTES, tokenCommand } from './app-words.ts';

/**
 * An app's credentials with its secret, shown this once (at registration, or after a new
 * secret): the client ID, the secret and the command that turns them into a token, each with a
 * Copy button. The secret lives in the dialog's state until Done; nothing else keeps it.
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
  const root = useRef<HTMLDivElement>(null);
  const secretField = useRef<HTMLInputElement>(null);
  const command = tokenCommand(location.origin, { clientId: app.id, secret });

  // What had focus (the form's button) is gone: focus goes to the secret, selected for copying.
  useEffect(() => secretField.current?.focus(), []);

  // The browser may still close a modal dialog on a repeated Escape whatever the page asks;
  // closed that way, the secret goes as after Done instead of staying hidden in the page.
  useEffect(() => {
    const dialog = root.current?.closest('dialog');
    if (!dialog) return;
    dialog.addEventListener('close', onDone);
    return () => dialog.removeEventListener('close', onDone);
  }, [onDone]);

  return (
    <div ref={root} className="apps-secret">
      <div className="notice warning">
        <span className="apps-secret-warning">
          <TriangleAlert size={18} aria-hidden="true" />
          <span>
            {props.replaced
              ? `The old secret of “${app.name}” no longer works. Copy the new one now and put it in the app’s settings. `
              : `Copy the secret of “${app.name}” now. `}
            It will not be shown again: mnemo keeps only a fingerprint of it.
          </span>
        </span>
      </div>
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
      <div className="dialog-actions">
        <button type="button" className="button primary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
