import { useQueryClient } from '@tanstack/react-query';
import { Check, Copy } from 'lucide-react';
import { type FormEvent, useId, useRef, useState } from 'react';
import { queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { ShownOnce } from '../ui/shown-once.tsx';
import { type ExpiryChoice, expiryFor, today } from './key-lifetime.ts';
import { DEFAULT_KEY_MEMORY, type KeyMemory } from './key-memory.ts';
import { createKey, useProjects } from './keys-queries.ts';
import { MemoryFields } from './memory-fields.tsx';

/** The longest name the API takes (keys.schemas.ts), counted in characters. */
const NAME_MAX_CHARS = 100;

/** A key just made: its secret lives here, in this dialog's state, until Done. */
interface Created {
  readonly name: string;
  readonly secret: string;
}

/**
 * Makes a key and shows its secret once. While the secret is shown, Escape does nothing: the
 * dialog ends only through Done, which drops the secret from the page. Nothing else keeps it:
 * not the query cache (the list is fetched again instead), not storage.
 */
export function CreateKeyDialog(props: { open: boolean; onClose: (created?: string) => void }) {
  const studio = useStudio();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState<ExpiryChoice>('never');
  const [date, setDate] = useState('');
  const [projectId, setProjectId] = useState('');
  const [memory, setMemory] = useState<KeyMemory>(DEFAULT_KEY_MEMORY);
  const [problems, setProblems] = useState<{ name?: string; date?: string }>({});
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  const [created, setCreated] = useState<Created>();

  function finish() {
    const madeName = created?.name;
    setCreated(undefined);
    setName('');
    setExpiry('never');
    setDate('');
    setProjectId('');
    setMemory(DEFAULT_KEY_MEMORY);
    setProblems({});
    setFailure(undefined);
    props.onClose(madeName);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = name.trim();
    const expiresAt = expiryFor(expiry, date);
    const found = {
      ...(trimmed === '' ? { name: 'Give the key a name, such as the app that will use it.' } : {}),
      ...(expiry === 'date' && expiresAt === undefined ? { date: 'Pick the last day.' } : {}),
      ...(expiresAt !== undefined && Date.parse(expiresAt) <= Date.now()
        ? { date: 'Pick a day from today on.' }
        : {}),
    };
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    setPending(true);
    setFailure(undefined);
    try {
      const answer = await createKey(studio, {
        name: trimmed,
        ...(expiresAt === undefined ? {} : { expiresAt }),
        ...(projectId === '' ? {} : { projectId }),
        ...memory,
      });
      setCreated({ name: answer.key.name, secret: answer.secret });
      void queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys(studio.org.id) });
    } catch (error) {
      setFailure(error);
    } finally {
      setPending(false);
    }
  }

  return (
    <Dialog
      open={props.open}
      title={created ? 'Save your secret key' : 'Create key'}
      onClose={finish}
      dismissible={!created && !pending}
    >
      {created ? (
        <SecretView created={created} onDone={finish} />
      ) : (
        <KeyForm
          values={{ name, expiry, date, projectId, memory }}
          set={{
            name: setName,
            expiry: setExpiry,
            date: setDate,
            projectId: setProjectId,
            memory: setMemory,
          }}
          problems={problems}
          pending={pending}
          failure={failure}
          onSubmit={submit}
          onCancel={finish}
        />
      )}
    </Dialog>
  );
}

function KeyForm(props: {
  values: {
    name: string;
    expiry: ExpiryChoice;
    date: string;
    projectId: string;
    memory: KeyMemory;
  };
  set: {
    name: (v: string) => void;
    expiry: (v: ExpiryChoice) => void;
    date: (v: string) => void;
    projectId: (v: string) => void;
    memory: (v: KeyMemory) => void;
  };
  problems: { name?: string; date?: string };
  pending: boolean;
  failure: unknown;
  onSubmit: (event: FormEvent) => void;
  onCancel: () => void;
}) {
  const { values, set, problems } = props;
  const ids = {
    name: useId(),
    nameHint: useId(),
    nameError: useId(),
    expiry: useId(),
    date: useId(),
    dateError: useId(),
    project: useId(),
    projectHint: useId(),
  };
  const projects = useProjects();

  return (
    <form onSubmit={props.onSubmit} noValidate>
      <ErrorNotice error={props.failure} />
      <div className="field">
        <label htmlFor={ids.name}>Name</label>
        <input
          id={ids.name}
          value={values.name}
          onChange={(event) => set.name(event.target.value)}
          maxLength={NAME_MAX_CHARS}
          autoComplete="off"
          required
          aria-invalid={problems.name ? true : undefined}
          aria-describedby={problems.name ? `${ids.nameError} ${ids.nameHint}` : ids.nameHint}
        />
        {problems.name ? (
          <span id={ids.nameError} className="field-error">
            {problems.name}
          </span>
        ) : null}
        <span id={ids.nameHint} className="field-hint">
          What the key is for, to tell it apart later: “billing service”, “Ada’s laptop”.
        </span>
      </div>
      <div className="field">
        <label htmlFor={ids.expiry}>Expires</label>
        <select
          id={ids.expiry}
          value={values.expiry}
          onChange={(event) => set.expiry(event.target.value as ExpiryChoice)}
        >
          <option value="never">Never</option>
          <option value="30">In 30 days</option>
          <option value="90">In 90 days</option>
          <option value="date">On a date…</option>
        </select>
      </div>
      {values.expiry === 'date' ? (
        <div className="field">
          <label htmlFor={ids.date}>Last day</label>
          <input
            id={ids.date}
            type="date"
            min={today()}
            value={values.date}
            onChange={(event) => set.date(event.target.value)}
            aria-invalid={problems.date ? true : undefined}
            aria-describedby={problems.date ? ids.dateError : undefined}
          />
          {problems.date ? (
            <span id={ids.dateError} className="field-error">
              {problems.date}
            </span>
          ) : null}
        </div>
      ) : null}
      <div className="field">
        <label htmlFor={ids.project}>Project (optional)</label>
        <select
          id={ids.project}
          value={values.projectId}
          onChange={(event) => set.projectId(event.target.value)}
          aria-describedby={ids.projectHint}
          disabled={!projects.data}
        >
          <option value="">No project</option>
          {(projects.data ?? []).map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
            </option>
          ))}
        </select>
        <span id={ids.projectHint} className="field-hint">
          {projects.error
            ? 'The projects could not be loaded; the key can be made without one.'
            : 'Binds the key to one project; a project with live keys bound to it cannot be deleted.'}
        </span>
      </div>
      <MemoryFields value={values.memory} onChange={set.memory} />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={props.onCancel} disabled={props.pending}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={props.pending}>
          {props.pending ? 'Creating…' : 'Create'}
        </button>
      </div>
    </form>
  );
}

function SecretView(props: { created: Created; onDone: () => void }) {
  const { created, onDone } = props;
  const ids = { secret: useId(), hint: useId() };
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const secretField = useRef<HTMLInputElement>(null);

  async function copySecret() {
    try {
      await navigator.clipboard.writeText(created.secret);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  }

  return (
    <ShownOnce
      className="secret-view"
      secretField={secretField}
      onDone={onDone}
      warning={`Copy the secret of “${created.name}” now. It will not be shown again: mnemo keeps only a fingerprint of it.`}
    >
      <div className="field">
        <label htmlFor={ids.secret}>Secret key</label>
        <div className="secret-row">
          <input
            id={ids.secret}
            className="mono secret-input"
            readOnly
            value={created.secret}
            ref={secretField}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={ids.hint}
            onFocus={(event) => event.target.select()}
          />
          <button type="button" className="button" onClick={() => void copySecret()}>
            {copy === 'copied' ? (
              <Check size={16} aria-hidden="true" />
            ) : (
              <Copy size={16} aria-hidden="true" />
            )}
            Copy
          </button>
        </div>
        <span id={ids.hint} className="field-hint">
          Use it as the API key of any OpenAI client, with the base URL{' '}
          <code>{location.origin}/v1</code>.
        </span>
        <p role="status" className="copy-status">
          {copy === 'copied'
            ? 'Copied'
            : copy === 'failed'
              ? 'The browser did not allow copying: select the key and copy it yourself.'
              : ''}
        </p>
      </div>
    </ShownOnce>
  );
}
