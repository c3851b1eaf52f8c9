import { Logo } from './logo.tsx';

/** A whole-page message before the studio can show anything: signing in, signed out, failed. */
export function Splash(props: {
  title: string;
  text?: string;
  busy?: boolean;
  action?: { label: string; onClick: () => void };
}) {
  return (
    <main className="splash" aria-busy={props.busy ?? false}>
      <div className="splash-card">
        <Logo />
        <h1>{props.title}</h1>
        {props.text ? <p>{props.text}</p> : null}
        {props.busy ? <div className="spinner" aria-hidden="true" /> : null}
        {props.action ? (
          <button type="button" className="button primary" onClick={props.action.onClick}>
            {props.action.label}
          </button>
        ) : null}
      </div>
    </main>
  );
}
