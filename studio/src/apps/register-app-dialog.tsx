import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { type App, queryKeys } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { AppSecretView } from './app-secret-view.tsx';
import {
  APP_ROLES,
  type AppRole,
  explainRefusal,
  parseRateLimit,
  type RateLimits,
} from './app-words.ts';
import { registerApp } from './apps-queries.ts';
import { RateLimitField } from './rate-limit-field.tsx';

/** The longest name the API takes (apps.schemas.ts), counted in characters. */
const NAME_MAX_CHARS = 100;

/** An app just registered: its secret lives here, in this dialog's state, until Done. */
interface Registered {
  readonly app: App;
  readonly secret: string;
}

/**
 * Registers an app and shows its credentials once. While they are shown, Escape does nothing:
 * the dialog ends only through Done, which drops the secret from the page. Nothing else keeps
 * it: not the query cache (the list is fetched again instead), not storage.
 */
export function RegisterAppDialog(props: {
  open: boolean;
  rates: RateLimits;
  onClose: (registered?: App) => void;
}) {
  const studio = useStudio();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [role, setRole] = useState<AppRole>('member');
  const [rateLimit, setRateLimit] = useState('');
  const [problems, setProblems] = useState<{ name?: string; rateLimit?: string }>({});
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  const [registered, setRegistered] = useState<Registered>();

  function finish() {
    const app = registered?.app;
    setRegistered(undefined);
    setName('');
    setRole('member');
    setRateLimit('');
    setProblems({});
    setFailure(undefined);
    props.onClose(app);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (pending) return;
    const trimmed = name.trim();
    const limit = parseRateLimit(rateLimit);
    const found = {
      ...(trimmed === ''
        ? { name: 'Give the app a name, such as the service that will use it.' }
        : {}),
      ...('problem' in limit ? { rateLimit: limit.problem } : {}),
    };
    setProblems(found);
    if (Object.keys(found).length > 0 || 'problem' in limit) return;
    setPending(true);
    setFailure(undefined);
    try {
      const answer = await registerApp(studio, {
        name: trimmed,
        role,
        ...(limit.value === null ? {} : { rateLimitPerMinute: limit.value }),
      });
      setRegistered(answer);
      void queryClient.invalidateQueries({ queryKey: queryKeys.apps(studio.org.id) });
    } catch (error) {
      setFailure(error);
    } finally {
      setPending(false);
    }
  }

  return (
    <Dialog
      open={props.open}
      title={registered ? `Save the credentials of “${registered.app.name}”` : 'Register app'}
      onClose={finish}
      dismissible={!registered && !pending}
      className={registered ? 'apps-wide-dialog' : ''}
    >
      {registered ? (
        <AppSecretView app={registered.app} secret={registered.secret} onDone={finish} />
      ) : (
        <form onSubmit={submit} noValidate>
          <ErrorNotice error={failure} explain={explainRefusal} />
          <NameField value={name} onChange={setName} problem={problems.name} />
          <RoleChoice value={role} onChange={setRole} />
          <RateLimitField
            label="Rate limit (optional)"
            value={rateLimit}
            onChange={setRateLimit}
            rates={props.rates}
            problem={problems.rateLimit ?? explainRefusal(failure) !== undefined}
          />
          <div className="dialog-actions">
            <button type="button" className="button" onClick={finish} disabled={pending}>
              Cancel
            </button>
            <button type="submit" className="button primary" disabled={pending}>
              {pending ? 'Registering…' : 'Register'}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

function NameField(props: {
  value: string;
  onChange: (value: string) => void;
  problem: string | undefined;
}) {
  const ids = { field: useId(), hint: useId(), error: useId() };
  return (
    <div className="field">
      <label htmlFor={ids.field}>Name</label>
      <input
        id={ids.field}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        maxLength={NAME_MAX_CHARS}
        autoComplete="off"
        required
        aria-invalid={props.problem ? true : undefined}
        aria-describedby={props.problem ? `${ids.error} ${ids.hint}` : ids.hint}
      />
      {props.problem ? (
        <span id={ids.error} className="field-error">
          {props.problem}
        </span>
      ) : null}
      <span id={ids.hint} className="field-hint">
        The service it is, to tell it apart later: “Support bot”, “Billing backend”.
      </span>
    </div>
  );
}

function RoleChoice(props: { value: AppRole; onChange: (role: AppRole) => void }) {
  const name = useId();
  return (
    <fieldset className="field apps-choice-group">
      <legend className="field-label">Role</legend>
      {APP_ROLES.map((role) => (
        // Named by the role alone, described by what it allows: the whole card selects it.
        <label key={role.value} className="apps-choice">
          <input
            type="radio"
            name={name}
            value={role.value}
            checked={props.value === role.value}
            onChange={() => props.onChange(role.value)}
            aria-labelledby={`${name}-${role.value}`}
            aria-describedby={`${name}-${role.value}-means`}
          />
          <span>
            <span id={`${name}-${role.value}`} className="apps-choice-label">
              {role.label}
            </span>
            <span id={`${name}-${role.value}-means`} className="apps-choice-means">
              {role.allows}
            </span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
