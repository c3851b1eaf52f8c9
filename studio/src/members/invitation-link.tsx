import { useEffect, useId, useRef } from 'react';
import { CopyButton } from '../ui/copy-button.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { formatDate } from '../ui/format.ts';

/**
 * An invitation's link, read-only, with Copy. It takes focus when shown, selected, since the
 * button that made it is gone and the link is what the person came for; where the browser
 * refuses the clipboard, that selection makes copying by hand one keystroke.
 */
export function InvitationLink(props: {
  url: string;
  /** Ids of what the field means (the sentence above it), read with its label. */
  describedBy?: string;
  hint?: string;
}) {
  const ids = { field: useId(), hint: useId() };
  const field = useRef<HTMLTextAreaElement>(null);

  useEffect(() => field.current?.focus(), []);

  const describedBy = [props.describedBy, props.hint ? ids.hint : undefined]
    .filter(Boolean)
    .join(' ');

  return (
    <div className="field invitation-link">
      <label htmlFor={ids.field}>Invitation link</label>
      <div className="invitation-link-row">
        {/* A text area, wrapping: the whole link is seen, not the end of it scrolled into view. */}
        <textarea
          id={ids.field}
          ref={field}
          className="mono"
          readOnly
          rows={2}
          value={props.url}
          autoComplete="off"
          spellCheck={false}
          aria-describedby={describedBy || undefined}
          onFocus={(event) => event.target.select()}
        />
        <CopyButton value={props.url} />
      </div>
      {props.hint ? (
        <span id={ids.hint} className="field-hint">
          {props.hint}
        </span>
      ) : null}
    </div>
  );
}

/**
 * The link of an invitation made on this page, shown again where the browser refused to copy it
 * from its row: selected in its field, it is one keystroke to copy by hand.
 */
export function InvitationLinkDialog(props: {
  shown: { email: string; url: string; expiresAt: string } | undefined;
  onClose: () => void;
}) {
  const { shown } = props;
  const said = useId();
  return (
    <Dialog
      open={shown !== undefined}
      title={shown ? `Link for ${shown.email}` : 'Invitation link'}
      onClose={props.onClose}
    >
      {shown ? (
        <>
          <p id={said}>
            The browser did not allow copying. Select the link and copy it yourself, then send it to{' '}
            {shown.email}.
          </p>
          <InvitationLink
            url={shown.url}
            describedBy={said}
            hint={`It works once, until ${formatDate(shown.expiresAt)}.`}
          />
          <div className="dialog-actions">
            <button type="button" className="button primary" onClick={props.onClose}>
              Done
            </button>
          </div>
        </>
      ) : null}
    </Dialog>
  );
}
