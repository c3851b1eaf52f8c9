import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { projectsQuery } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { WebhookSecretView } from './webhook-secret-view.tsx';
import { EVENT_TYPES, explainRefusal, refusesUrl } from './webhook-words.ts';
import {
  createWebhook,
  type Webhook,
  type WebhookEventType,
  type WebhookWithSecret,
  webhookKeys,
} from './webhooks-queries.ts';

/** The longest URL and description the API takes (webhooks.schemas.ts). */
const URL_MAX_CHARS = 2000;
const DESCRIPTION_MAX_CHARS = 500;

/**
 * Adds a webhook and shows its signing secret once. While it is shown, Escape does nothing: the
 * dialog ends only through Done, which drops the secret from the page. Nothing else keeps it:
 * not the query cache (the list is read again instead), not storage. The API judges the URL
 * (https, no private address, unless the operator allows them): its refusal is shown as a
 * sentence, and what was typed stays.
 */
export function CreateWebhookDialog(props: { open: boolean; onClose: (made?: Webhook) => void }) {
  const studio = useStudio();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>([]);
  const [project, setProject] = useState('');
  const [problem, setProblem] = useState<string>();
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  const [made, setMade] = useState<WebhookWithSecret>();

  function finish() {
    const webhook = made?.webhook;
    setMade(undefined);
    setUrl('');
    setDescription('');
    setEvents([]);
    setProject('');
    setProblem(undefined);
    setFailure(undefined);
    props.onClose(webhook);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (pending) return;
    const trimmed = url.trim();
    if (trimmed === '') {
      setProblem('Give the address mnemo sends events to, such as https://example.com/hooks.');
      return;
    }
    setProblem(undefined);
    setPending(true);
    setFailure(undefined);
    try {
      const answer = await createWebhook(studio, {
        url: trimmed,
        ...(description.trim() === '' ? {} : { description: description.trim() }),
        // In the API's order, whatever order they were ticked in; none: every type.
        ...(events.length === 0
          ? {}
          : { events: EVENT_TYPES.map((t) => t.value).filter((t) => events.includes(t)) }),
        ...(project === '' ? {} : { project }),
      });
      setMade(answer);
      void queryClient.invalidateQueries({ queryKey: webhookKeys.list(studio.org.id) });
    } catch (error) {
      setFailure(error);
    } finally {
      setPending(false);
    }
  }

  return (
    <Dialog
      open={props.open}
      title={made ? 'Save the signing secret' : 'Add webhook'}
      onClose={finish}
      dismissible={!made && !pending}
      className="webhooks-wide-dialog"
    >
      {made ? (
        <WebhookSecretView webhook={made.webhook} secret={made.secret} onDone={finish} />
      ) : (
        <form onSubmit={submit} noValidate>
          <ErrorNotice error={failure} explain={explainRefusal} />
          <UrlField value={url} onChange={setUrl} problem={problem} refused={refusesUrl(failure)} />
          <DescriptionField value={description} onChange={setDescription} />
          <ProjectChoice value={project} onChange={setProject} />
          <EventChoice value={events} onChange={setEvents} />
          <div className="dialog-actions">
            <button type="button" className="button" onClick={finish} disabled={pending}>
              Cancel
            </button>
            <button type="submit" className="button primary" disabled={pending}>
              {pending ? 'Adding…' : 'Add webhook'}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

function UrlField(props: {
  value: string;
  onChange: (value: string) => void;
  problem: string | undefined;
  refused: boolean;
}) {
  const ids = { field: useId(), hint: useId(), error: useId() };
  const invalid = props.problem !== undefined || props.refused;
  return (
    <div className="field">
      <label htmlFor={ids.field}>Endpoint URL</label>
      <input
        id={ids.field}
        type="url"
        inputMode="url"
        className="mono"
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        maxLength={URL_MAX_CHARS}
        placeholder="https://example.com/hooks/mnemo"
        autoComplete="off"
        spellCheck={false}
        required
        aria-invalid={invalid ? true : undefined}
        aria-describedby={props.problem ? `${ids.error} ${ids.hint}` : ids.hint}
      />
      {props.problem ? (
        <span id={ids.error} className="field-error">
          {props.problem}
        </span>
      ) : null}
      <span id={ids.hint} className="field-hint">
        An https:// address of yours. mnemo POSTs each event there, signed, and follows no redirect.
      </span>
    </div>
  );
}

function DescriptionField(props: { value: string; onChange: (value: string) => void }) {
  const ids = { field: useId(), hint: useId() };
  return (
    <div className="field">
      <label htmlFor={ids.field}>Description (optional)</label>
      <input
        id={ids.field}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        maxLength={DESCRIPTION_MAX_CHARS}
        autoComplete="off"
        aria-describedby={ids.hint}
      />
      <span id={ids.hint} className="field-hint">
        What the endpoint is, to tell it apart later: “CRM sync”, “Search index”.
      </span>
    </div>
  );
}

function EventChoice(props: {
  value: WebhookEventType[];
  onChange: (value: WebhookEventType[]) => void;
}) {
  const hint = useId();
  const chosen = new Set(props.value);
  return (
    <fieldset className="field webhooks-events-choice" aria-describedby={hint}>
      <legend className="field-label">Events</legend>
      <span id={hint} className="field-hint">
        {props.value.length === 0
          ? 'None ticked: every event, and those mnemo adds later.'
          : `${props.value.length} of ${EVENT_TYPES.length} ticked: only these are sent.`}
      </span>
      <div className="webhooks-event-options">
        {EVENT_TYPES.map((type) => (
          <label key={type.value} className="webhooks-event-option">
            <input
              type="checkbox"
              checked={chosen.has(type.value)}
              onChange={(event) =>
                props.onChange(
                  event.target.checked
                    ? [...props.value, type.value]
                    : props.value.filter((v) => v !== type.value),
                )
              }
              aria-describedby={`${hint}-${type.value}`}
            />
            <span>
              <span className="mono webhooks-event-name">{type.value}</span>
              <span id={`${hint}-${type.value}`} className="webhooks-event-means">
                {type.means}
              </span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function ProjectChoice(props: { value: string; onChange: (value: string) => void }) {
  const { api, org } = useStudio();
  const projects = useQuery(projectsQuery(api, org.id));
  const ids = { field: useId(), hint: useId() };
  return (
    <div className="field">
      <label htmlFor={ids.field}>Project</label>
      <select
        id={ids.field}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        aria-describedby={ids.hint}
      >
        <option value="">Whole organization</option>
        {(projects.data ?? []).map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
      <span id={ids.hint} className="field-hint">
        A project’s webhook is sent only that pool’s memory events and erasures; end-user events are
        the organization’s.
      </span>
    </div>
  );
}
