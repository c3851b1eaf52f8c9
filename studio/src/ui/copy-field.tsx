import { useId } from 'react';
import { CopyButton } from './copy-button.tsx';

/**
 * A value to paste elsewhere (an address, a command): shown read-only in a labelled field, with
 * a Copy button whose outcome is announced. Where the browser refuses the clipboard, the person
 * is told to copy it by hand; the field selects itself on focus to make that one keystroke.
 */
export function CopyField(props: { label: string; value: string; hint?: string }) {
  const ids = { field: useId(), hint: useId() };

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
        <CopyButton value={props.value} />
      </div>
      {props.hint ? (
        <span id={ids.hint} className="field-hint">
          {props.hint}
        </span>
      ) : null}
    </div>
  );
}
