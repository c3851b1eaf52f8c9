import { Check, Copy } from 'lucide-react';
import { useState } from 'react';

/**
 * A Copy button for a value shown beside it, named for what it copies ("Copy client ID"), so
 * that several in one place stay apart; its outcome is announced. Where the browser refuses the
 * clipboard, the person is told to copy by hand.
 */
export function CopyButton(props: {
  /** What is copied, in the button's name: "client ID". */
  what: string;
  value: string;
  className?: string;
  describedBy?: string;
}) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');

  async function copyValue() {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  }

  return (
    <>
      <button
        type="button"
        className={`button ${props.className ?? ''}`}
        aria-describedby={props.describedBy}
        onClick={() => void copyValue()}
      >
        {copy === 'copied' ? (
          <Check size={16} aria-hidden="true" />
        ) : (
          <Copy size={16} aria-hidden="true" />
        )}
        Copy<span className="visually-hidden"> {props.what}</span>
      </button>
      <span role="status" className="apps-copy-status">
        {copy === 'copied'
          ? 'Copied'
          : copy === 'failed'
            ? 'The browser did not allow copying: select the text and copy it yourself.'
            : ''}
      </span>
    </>
  );
}
