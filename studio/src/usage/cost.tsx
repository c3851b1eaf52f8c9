import { formatCost, unpricedNote } from './usage-figures.ts';

/**
 * A cost; an unknown one reads "unknown" to a screen reader and shows a dash. One that leaves out
 * calls without a price is shown as a lower bound, "≥ $0.0048", and says how many it leaves out.
 */
export function Cost(props: { value: number | null | undefined; unpriced?: number | undefined }) {
  if (props.value === null || props.value === undefined) {
    return (
      <span title="Unknown: no price is set for this model">
        <span aria-hidden="true">—</span>
        <span className="visually-hidden">unknown</span>
      </span>
    );
  }
  const note = unpricedNote(props.unpriced);
  if (note === undefined) return <>{formatCost(props.value)}</>;
  return (
    <span title={`At least: ${note}`}>
      <span aria-hidden="true">≥ </span>
      <span className="visually-hidden">at least </span>
      {formatCost(props.value)}
      <span className="visually-hidden"> ({note})</span>
    </span>
  );
}
