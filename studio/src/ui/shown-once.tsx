import { TriangleAlert } from 'lucide-react';
import { type ReactNode, type RefObject, useEffect, useRef } from 'react';

/**
 * A secret shown this once inside a dialog (an API key's, an app's, a webhook's): the warning
 * that it will not be shown again, what to copy, then Done. The secret lives in the dialog's
 * state until Done; nothing else keeps it.
 *
 * Focus goes to `secretField` when it shows, selected for copying: what had focus (the form's
 * button) is gone. The browser may still close a modal dialog on a repeated Escape whatever the
 * page asks; closed that way, the secret goes as after Done instead of staying hidden in the page.
 */
export function ShownOnce(props: {
  /** The sentence above the fields: whose secret, and what to do with it. */
  warning: ReactNode;
  secretField: RefObject<HTMLInputElement | null>;
  onDone: () => void;
  className?: string;
  children: ReactNode;
}) {
  const { secretField, onDone } = props;
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => secretField.current?.focus(), [secretField]);

  useEffect(() => {
    const dialog = root.current?.closest('dialog');
    if (!dialog) return;
    dialog.addEventListener('close', onDone);
    return () => dialog.removeEventListener('close', onDone);
  }, [onDone]);

  return (
    <div ref={root} className={props.className}>
      <div className="notice warning">
        <span className="shown-once-warning">
          <TriangleAlert size={18} aria-hidden="true" />
          <span>{props.warning}</span>
        </span>
      </div>
      {props.children}
      <div className="dialog-actions">
        <button type="button" className="button primary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
