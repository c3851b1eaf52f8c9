import { type ReactNode, useEffect } from 'react';

/**
 * A page's frame: its heading (the target of focus after navigation, see layout.tsx), an
 * optional line under it, actions on the right, and the document title.
 */
export function Page(props: {
  title: string;
  subtitle?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  useEffect(() => {
    document.title = `${props.title} · mnemo studio`;
  }, [props.title]);
  return (
    <>
      <header className="page-header">
        <div>
          <h1 tabIndex={-1}>{props.title}</h1>
          {props.subtitle ? <p className="page-subtitle">{props.subtitle}</p> : null}
        </div>
        {props.actions ? <div className="page-actions">{props.actions}</div> : null}
      </header>
      {props.children}
    </>
  );
}
