import { useId } from 'react';
import { formatInteger } from '../ui/format.ts';
import type { RateLimits } from './app-words.ts';

/**
 * An app's own rate limit, as the register and change dialogs ask for it: empty is the default
 * every credential has. The ceiling is given as the input's max and in words; the API judges it.
 */
export function RateLimitField(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  rates: RateLimits;
  /** A sentence on what was typed, or true when the API refused it (its sentence is above). */
  problem: string | boolean | undefined;
}) {
  const { rates, problem } = props;
  const ids = { field: useId(), hint: useId(), error: useId() };
  const max = formatInteger(rates.maxPerMinute);
  return (
    <div className="field">
      <label htmlFor={ids.field}>{props.label}</label>
      <div className="apps-rate-input">
        <input
          id={ids.field}
          type="number"
          inputMode="numeric"
          min={1}
          max={rates.maxPerMinute}
          step={1}
          value={props.value}
          onChange={(event) => props.onChange(event.target.value)}
          autoComplete="off"
          aria-invalid={problem ? true : undefined}
          aria-describedby={typeof problem === 'string' ? `${ids.error} ${ids.hint}` : ids.hint}
        />
        <span className="muted" aria-hidden="true">
          a minute
        </span>
      </div>
      {typeof problem === 'string' ? (
        <span id={ids.error} className="field-error">
          {problem}
        </span>
      ) : null}
      <span id={ids.hint} className="field-hint">
        From 1 to {max}, the most this server gives an app.{' '}
        {rates.defaultPerMinute === 0
          ? 'Rate limits are off on this server, though: no credential is limited until the operator turns them on.'
          : `Empty: the default, ${formatInteger(rates.defaultPerMinute)} a minute, as for every credential.`}
      </span>
    </div>
  );
}
