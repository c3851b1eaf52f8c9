import type { ReactNode } from 'react';

/** What a page shows with nothing in it yet: what it is for and how to fill it. */
export function EmptyState(props: { title: string; children: ReactNode; icon?: ReactNode }) {
  return (
    <section className="empty-state" aria-label={props.title}>
      {props.icon ? (
        <div className="empty-icon" aria-hidden="true">
          {props.icon}
        </div>
      ) : null}
      <h2>{props.title}</h2>
      {props.children}
    </section>
  );
}
