import { Check, Copy } from 'lucide-react';
import { useId, useState } from 'react';

/**
 * A value to paste elsewhere (an address, a command): shown read-only in a labelled field, with
 * a Copy button whose outcome is announced. Where the browser refuses the clipboard, the person
 * is told to copy it by hand; the field selects itself on focus to make that one keystroke.
 */
export function CopyField(props: { label: string; value: string; hint?: string }) {
  const ids = { field: useId(), hint: useId() };
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
    <div className="field copy-field">
      <label htmlFor={ids.field}>{props.label}</label>
      <div className="copy-field-row">
        <input
          id={ids.field}
          className="mono"
          readOnly
          value={props.value}
          autoComplete="off"
          spellCheck={false}
          aria-describedby={props.hint ? ids.hint : undefined}
          onFocus={(event) => event.target.select()}
        />
        <button type="button" className="button" onClick={() => void copyValue()}>
          {copy === 'copied' ? (
            <Check size={16} aria-hidden="true" />
          ) : (
            <Copy size={16} aria-hidden="true" />
          )}
          Copy
        </button>
      </div>
      {props.hint ? (
        <span id={ids.hint} className="field-hint">
          {props.hint}
        </span>
      ) : null}
      <span role="status" className="copy-field-status">
        {copy === 'copied'
          ? 'Copied'
          : copy === 'failed'
            ? 'The browser did not allow copying: select the text and copy it yourself.'
            : ''}
      </span>
    </div>
  );
}
