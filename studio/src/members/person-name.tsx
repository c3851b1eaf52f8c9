import { useStudio } from '../app/studio-context.tsx';

/** A person in a table of people: the name (a dash when none), and "You" for the signed-in one. */
export function PersonName(props: { person: { userId: string; name?: string } }) {
  const { me } = useStudio();
  return (
    <span className="person">
      <span className="person-name">{props.person.name ?? '—'}</span>
      {props.person.userId === me.sub ? <span className="badge accent">You</span> : null}
    </span>
  );
}
