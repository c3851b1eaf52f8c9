import { useId } from 'react';

/**
 * A select that saves on change (a member's role, a collaborator's access), labelled for screen
 * readers, showing the value being saved until the answer comes.
 */
export function SavingSelect<T extends string>(props: {
  /** The accessible name: "Role of Grace Hopper". */
  label: string;
  value: T;
  /** The value being saved, shown until the answer comes. */
  saving: T | undefined;
  options: readonly { value: T; label: string }[];
  onChange: (value: T) => void;
}) {
  const id = useId();
  return (
    <>
      <label htmlFor={id} className="visually-hidden">
        {props.label}
      </label>
      <select
        id={id}
        value={props.saving ?? props.value}
        // Not disabled while saving: that would take the focus away from a keyboard user.
        aria-busy={props.saving !== undefined}
        onChange={(event) => props.onChange(event.target.value as T)}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </>
  );
}
