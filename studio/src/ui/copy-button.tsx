import { Check, Copy } from 'lucide-react';
import { useState } from 'react';

/** Puts `text` on the clipboard; false where the browser refuses. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A Copy button for a value shown beside it, and the live region that announces its outcome.
 * `what` names it for screen readers ("Copy client ID"), so that several in one place stay
 * apart. Where the browser refuses the clipboard, the person is told to copy by hand.
 */
export function CopyButton(props: {
  value: string;
  /** What is copied, in the button's accessible name: "client ID". */
  what?: string;
  className?: string;
  describedBy?: string;
}) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <>
      <button
        type="button"
        className={props.className ? `button ${props.className}` : 'button'}
        aria-describedby={props.describedBy}
        onClick={async () => setCopy((await copyText(props.value)) ? 'copied' : 'failed')}
      >
        {copy === 'copied' ? (
          <Check size={16} aria-hidden="true" />
        ) : (
          <Copy size={16} aria-hidden="true" />
        )}
        Copy
        {props.what ? <span className="visually-hidden"> {props.what}</span> : null}
      </button>
      {/* Empty, it takes no room, yet stays in the page: a live region must be there before it speaks. */}
      <span role="status" className="copy-outcome">
        {copy === 'copied'
          ? 'Copied'
          : copy === 'failed'
            ? 'The browser did not allow copying: select the text and copy it yourself.'
            : ''}
      </span>
    </>
  );
}
