import { Check, Copy } from 'lucide-react';
import { useEffect, useState } from 'react';

/** Characters of an id shown: enough to tell rows apart at a glance. */
const SHOWN = 8;

/**
 * A mnemo id in a table: its start to the eye, the whole of it to screen readers and on hover,
 * and a button that copies the whole of it. What came of the copy is said by `onCopied`, for
 * the page's status line.
 */
export function MnemoId(props: {
  id: string;
  /** Whose id it is, for the button's name: "Copy the mnemo id of customer-42". */
  of: string;
  onCopied: (copied: boolean) => void;
}) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(props.id);
      setCopied(true);
      props.onCopied(true);
    } catch {
      props.onCopied(false);
    }
  }

  return (
    <span className="mnemo-id">
      <span className="mono" title={props.id}>
        <span aria-hidden="true">{props.id.slice(0, SHOWN)}…</span>
        <span className="visually-hidden">{props.id}</span>
      </span>
      <button
        type="button"
        className="icon-button mnemo-id-copy"
        aria-label={`Copy the mnemo id of ${props.of}`}
        title="Copy the whole id"
        onClick={() => void copy()}
      >
        {copied ? <Check size={15} aria-hidden="true" /> : <Copy size={15} aria-hidden="true" />}
      </button>
    </span>
  );
}
