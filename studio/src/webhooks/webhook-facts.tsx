import { useQuery } from '@tanstack/react-query';
import { projectsQuery } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { formatDate, formatDateTime } from '../ui/format.ts';
import { disabledByMnemo } from './webhook-words.ts';
import type { Webhook } from './webhooks-queries.ts';

/** Enabled, disabled by hand, or disabled by mnemo: a badge, never colour alone. */
export function WebhookState(props: { webhook: Webhook }) {
  const { webhook } = props;
  if (webhook.enabled) return <span className="badge success">Enabled</span>;
  if (disabledByMnemo(webhook)) return <span className="badge danger">Disabled by mnemo</span>;
  return <span className="badge">Disabled</span>;
}

/** What a webhook is sent: its events, the project it is limited to, since when it exists. */
export function WebhookFacts(props: { webhook: Webhook; className?: string }) {
  const { webhook } = props;
  return (
    <dl className={`webhooks-facts ${props.className ?? ''}`}>
      <div className="webhooks-fact webhooks-fact-events">
        <dt>Events</dt>
        <dd>
          <EventList events={webhook.events} />
        </dd>
      </div>
      <div className="webhooks-fact">
        <dt>Project</dt>
        <dd>
          <ProjectName projectId={webhook.project} />
        </dd>
      </div>
      <div className="webhooks-fact">
        <dt>Created</dt>
        <dd>
          <time dateTime={webhook.createdAt} title={formatDateTime(webhook.createdAt)}>
            {formatDate(webhook.createdAt)}
          </time>
        </dd>
      </div>
    </dl>
  );
}

function EventList(props: { events: Webhook['events'] }) {
  if (props.events === null) return <span>All events</span>;
  return (
    <ul className="webhooks-events" aria-label="Event types">
      {props.events.map((type) => (
        <li key={type} className="webhooks-event mono">
          {type}
        </li>
      ))}
    </ul>
  );
}

/** A project by its name (the organization's owners and admins see every project). */
function ProjectName(props: { projectId: string | null }) {
  const { api, org } = useStudio();
  const projects = useQuery({ ...projectsQuery(api, org.id), enabled: props.projectId !== null });
  if (props.projectId === null) return <span className="muted">Whole organization</span>;
  const project = projects.data?.find((p) => p.id === props.projectId);
  return <span>{project?.name ?? (projects.isPending ? '…' : 'A deleted project')}</span>;
}
