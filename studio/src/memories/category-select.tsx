import { CATEGORIES } from './categories.ts';

/** A category picker; the empty choice leaves the memory without one. */
export function CategorySelect(props: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  disabled?: boolean;
}) {
  return (
    <select
      id={props.id}
      value={props.value}
      disabled={props.disabled ?? false}
      onChange={(event) => props.onChange(event.target.value)}
    >
      <option value="">No category</option>
      {CATEGORIES.map((c) => (
        <option key={c.value} value={c.value} title={c.hint}>
          {c.label}
        </option>
      ))}
    </select>
  );
}
