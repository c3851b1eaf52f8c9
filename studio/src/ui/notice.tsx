import { sentence } from '../api/errors.ts';

/** A failure, as a sentence, announced to screen readers as it appears. */
export function ErrorNotice(props: {
  error: unknown;
  onRetry?: () => void;
  /** A page's own words for a failure it knows better than the generic sentence. */
  explain?: (error: unknown) => string | undefined;
}) {
  if (!props.error) return null;
  return (
    <div className="notice error" role="alert">
      <span>{props.explain?.(props.error) ?? sentence(props.error)}</span>
      {props.onRetry ? (
        <button type="button" className="button small" onClick={props.onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** A quiet line while something loads (not announced: the content that follows is). */
export function Loading(props: { what: string }) {
  return (
    <p className="loading" aria-busy="true">
      Loading {props.what}…
    </p>
  );
}
