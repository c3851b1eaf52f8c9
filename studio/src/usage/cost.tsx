import { formatCost } from './usage-figures.ts';

/** A cost; an unknown one reads "unknown" to a screen reader and shows a dash. */
export function Cost(props: { value: number | null | undefined }) {
  if (props.value === null || props.value === undefined) {
    return (
      <span title="Unknown: no price is set for this model">
        <span aria-hidden="true">—</span>
        <span className="visually-hidden">unknown</span>
      </span>
    );
  }
  return <>{formatCost(props.value)}</>;
}
