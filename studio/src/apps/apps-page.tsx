import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Plus, Server, ShieldCheck, Trash2 } from 'lucide-react';
import { useId, useState } from 'react';
import { type App, type AppList, queryKeys } from '../api/queries.ts';
import { isManager, useStudio } from '../app/studio-context.tsx';
import { SettingsNav } from '../keys/settings-nav.tsx';
import { CopyButton } from '../ui/copy-button.tsx';
import { EmptyState } from '../ui/empty-state.tsx';
import { formatDate, formatDateTime, formatInteger } from '../ui/format.ts';
import { useHeadingFocusAfterClose } from '../ui/heading-focus.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { SavingSelect } from '../ui/saving-select.tsx';
import {
  APP_ROLES,
  type AppRole,
  apiCommand,
  aRole,
  type RateLimits,
  rateLimitWords,
  TOKEN_MINUTES,
  tokenCommand,
} from './app-words.ts';
import { updateApp, useApps } from './apps-queries.ts';
import { NewSecretDialog } from './new-secret-dialog.tsx';
import { RateLimitDialog } from './rate-limit-dialog.tsx';
import { RegisterAppDialog } from './register-app-dialog.tsx';
import { RevokeAppDialog, type Revoked } from './revoke-app-dialog.tsx';
import './apps.css';

/** Where mnemo's README tells how an app registers people and remembers for them. */
const README_SECTION = 'Apps and the people they remember';

/**
 * Settings › Apps: the organization's backend services, each an OAuth client (client
 * credentials) whose tokens act as a member of its own, with the role given here. Owners and
 * admins register them (the secret shown once), change their role and rate limit, give them a
 * new secret and revoke them. Members are told who to ask: the API answers them 403.
 */
export function AppsPage() {
  const { org } = useStudio();
  return (
    <>
      <SettingsNav />
      {isManager(org) ? <ManagedApps /> : <ForManagersOnly />}
    </>
  );
}

const SUBTITLE = 'Backend services that call mnemo with credentials of their own.';

function ForManagersOnly() {
  const { org } = useStudio();
  return (
    <Page title="Apps" subtitle={SUBTITLE}>
      <EmptyState title="For owners and admins" icon={<ShieldCheck size={32} />}>
        <p>
          Only the owners and admins of {org.name} register apps and manage their credentials: an
          app acts in the whole organization with the role they give it.
        </p>
        <p>Ask one of them if a service of yours needs to call mnemo.</p>
      </EmptyState>
    </Page>
  );
}

function ManagedApps() {
  const studio = useStudio();
  const { org } = studio;
  const queryClient = useQueryClient();
  const list = useApps();
  const [registering, setRegistering] = useState(false);
  const [limiting, setLimiting] = useState<App>();
  const [replacing, setReplacing] = useState<App>();
  const [revoking, setRevoking] = useState<App>();
  const [status, setStatus] = useState('');
  // A revoked app's card goes, and the button that opened the dialog with it.
  const focusHeadingAfterClose = useHeadingFocusAfterClose(revoking !== undefined);

  const change = useMutation({
    mutationFn: (next: { app: App; role: AppRole }) =>
      updateApp(studio, next.app.id, { role: next.role }),
    onMutate: () => setStatus(''),
    onSuccess: (saved) => {
      queryClient.setQueryData<AppList>(queryKeys.apps(org.id), (answer) =>
        answer
          ? { ...answer, apps: answer.apps.map((a) => (a.id === saved.id ? saved : a)) }
          : answer,
      );
      setStatus(`“${saved.name}” is now ${aRole(saved.role)}, from its next request.`);
    },
    // Also after a refusal: the select goes back to the role actually held.
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.apps(org.id) }),
  });

  const apps = list.data?.apps ?? [];
  const rates = list.data?.rateLimits;

  return (
    <Page
      title="Apps"
      subtitle={SUBTITLE}
      actions={
        <button
          type="button"
          className="button primary"
          disabled={!rates}
          onClick={() => {
            setStatus('');
            setRegistering(true);
          }}
        >
          <Plus size={16} aria-hidden="true" />
          Register app
        </button>
      }
    >
      <div role="status" className="status-line apps-status">
        {status ? <p className="notice info">{status}</p> : null}
      </div>
      {list.isPending ? <Loading what="apps" /> : null}
      <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      {list.data && apps.length === 0 ? (
        <EmptyState title="No apps yet" icon={<Server size={32} />}>
          <p>
            An app is a backend service of yours, such as a support bot or a CRM, with credentials
            of its own: a client ID and a secret, exchanged for short-lived tokens. With the admin
            role, it registers the people it serves as end users and remembers for each of them;
            they need no account.
          </p>
          <p>
            Register one to get its credentials; the secret is shown once. mnemo’s README tells the
            whole story in “{README_SECTION}”.
          </p>
        </EmptyState>
      ) : null}
      {rates && apps.length > 0 ? (
        <section aria-labelledby="registered-apps" className="apps-section">
          <h2 id="registered-apps" className="apps-heading">
            Registered apps <span className="badge">{apps.length}</span>
          </h2>
          <ErrorNotice error={change.error} />
          <ul className="apps-list">
            {apps.map((app) => (
              <AppCard
                key={app.id}
                app={app}
                rates={rates}
                savingRole={
                  change.isPending && change.variables.app.id === app.id
                    ? change.variables.role
                    : undefined
                }
                onRole={(role) => change.mutate({ app, role })}
                onRateLimit={() => {
                  setStatus('');
                  setLimiting(app);
                }}
                onNewSecret={() => {
                  setStatus('');
                  setReplacing(app);
                }}
                onRevoke={() => {
                  setStatus('');
                  setRevoking(app);
                }}
              />
            ))}
          </ul>
        </section>
      ) : null}
      {rates ? (
        <>
          <RolesAndRates rates={rates} />
          {/* With no app yet, the empty state names the README's section already. */}
          <UsingAnApp readme={apps.length > 0} />
        </>
      ) : null}
      {rates ? (
        <>
          <RegisterAppDialog
            open={registering}
            rates={rates}
            onClose={(app) => {
              setRegistering(false);
              if (app) setStatus(`“${app.name}” is registered, as ${aRole(app.role)}.`);
            }}
          />
          <RateLimitDialog
            target={limiting}
            rates={rates}
            onClose={(saved) => {
              setLimiting(undefined);
              if (!saved) return;
              setStatus(
                saved.rateLimitPerMinute === null
                  ? `“${saved.name}” is back to the default rate limit, for the tokens it gets from now on.`
                  : `“${saved.name}” may make ${formatInteger(saved.rateLimitPerMinute)} requests a minute, with the tokens it gets from now on.`,
              );
            }}
          />
        </>
      ) : null}
      <NewSecretDialog
        target={replacing}
        onClose={(app) => {
          setReplacing(undefined);
          if (app) setStatus(`“${app.name}” has a new secret; the old one no longer works.`);
        }}
      />
      <RevokeAppDialog
        target={revoking}
        onClose={(done?: Revoked) => {
          setRevoking(undefined);
          if (!done) return;
          setStatus(
            done.outcome === 'revoked'
              ? `“${done.app.name}” is revoked: its tokens no longer work.`
              : `“${done.app.name}” was revoked already.`,
          );
          focusHeadingAfterClose();
        }}
      />
    </Page>
  );
}

/** An app's facts and what can be done with it, as a card of the list. */
function AppCard(props: {
  app: App;
  rates: RateLimits;
  savingRole: AppRole | undefined;
  onRole: (role: AppRole) => void;
  onRateLimit: () => void;
  onNewSecret: () => void;
  onRevoke: () => void;
}) {
  const { app, rates } = props;
  const nameId = useId();
  return (
    <li>
      <article className="apps-card" aria-labelledby={nameId}>
        <div className="apps-card-head">
          <span className={`apps-tile tone-${toneOf(app.id)}`} aria-hidden="true">
            {initialOf(app.name)}
          </span>
          <div className="apps-card-title">
            <h3 id={nameId}>{app.name}</h3>
            <p className="muted">
              Registered{' '}
              <time dateTime={app.createdAt} title={formatDateTime(app.createdAt)}>
                {formatDate(app.createdAt)}
              </time>
            </p>
          </div>
          <div className="apps-card-actions">
            <button
              type="button"
              className="button small"
              aria-describedby={nameId}
              onClick={props.onNewSecret}
            >
              New secret
            </button>
            <button
              type="button"
              className="button small ghost danger-text"
              aria-describedby={nameId}
              onClick={props.onRevoke}
            >
              <Trash2 size={16} aria-hidden="true" />
              Revoke
            </button>
          </div>
        </div>
        <dl className="apps-facts">
          <div className="apps-fact apps-fact-id">
            <dt>Client ID</dt>
            <dd>
              <span className="mono apps-client-id">{app.id}</span>
              <CopyButton
                what="client ID"
                value={app.id}
                className="small ghost"
                describedBy={nameId}
              />
            </dd>
          </div>
          <div className="apps-fact">
            <dt>Role</dt>
            <dd>
              <SavingSelect
                label={`Role of ${app.name}`}
                value={app.role}
                saving={props.savingRole}
                options={APP_ROLES}
                onChange={props.onRole}
              />
            </dd>
          </div>
          <div className="apps-fact">
            <dt>Rate limit</dt>
            <dd>
              <span className={app.rateLimitPerMinute === null ? 'muted' : undefined}>
                {rateLimitWords(app.rateLimitPerMinute, rates)}
              </span>
              <button
                type="button"
                className="button small ghost"
                aria-describedby={nameId}
                onClick={props.onRateLimit}
              >
                Change<span className="visually-hidden"> rate limit</span>
              </button>
            </dd>
          </div>
        </dl>
      </article>
    </li>
  );
}

function RolesAndRates(props: { rates: RateLimits }) {
  const { rates } = props;
  return (
    <section className="card apps-legend" aria-labelledby="apps-roles">
      <h2 id="apps-roles">Roles and rate limits</h2>
      <dl className="legend">
        {APP_ROLES.map((role) => (
          <div key={role.value}>
            <dt>{role.label}</dt>
            <dd>{role.allows}</dd>
          </div>
        ))}
        <div>
          <dt>Rate limit</dt>
          <dd>
            {rates.defaultPerMinute === 0
              ? `Rate limits are off on this server: no credential is limited until the operator turns them on. An app may still be given its own limit, up to ${formatInteger(rates.maxPerMinute)}, which applies from then on.`
              : `Every credential may make ${formatInteger(rates.defaultPerMinute)} requests a minute. An app may be given its own limit, up to ${formatInteger(rates.maxPerMinute)}.`}
          </dd>
        </div>
      </dl>
      <p className="field-hint apps-legend-note">
        A new role applies from the app’s next request. A new rate limit applies to the tokens it
        gets from then on: a token lasts {TOKEN_MINUTES} minutes.
      </p>
    </section>
  );
}

function UsingAnApp(props: { readme: boolean }) {
  const { org } = useStudio();
  return (
    <section className="card apps-using" aria-labelledby="apps-using">
      <h2 id="apps-using">Using an app’s credentials</h2>
      <p>
        The app exchanges its client ID and secret for an access token (the OAuth client credentials
        grant), which lasts {TOKEN_MINUTES} minutes:
      </p>
      {/* A command keeps its lines whole: narrow, it scrolls sideways, by keyboard too. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus (WCAG 2.1.1). */}
      <pre className="code-block apps-code" tabIndex={0}>
        {tokenCommand(location.origin)}
      </pre>
      <p>Then it calls the API with the token, naming the organization on every request:</p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus (WCAG 2.1.1). */}
      <pre className="code-block apps-code" tabIndex={0}>
        {apiCommand(location.origin, org.id)}
      </pre>
      {props.readme ? (
        <p className="apps-using-more">
          How an app registers the people it serves and remembers for them: “{README_SECTION}”, in
          mnemo’s README.
        </p>
      ) : null}
    </section>
  );
}

/** The name's first letter, on the app's tile. */
const initialOf = (name: string) => (Array.from(name.trim())[0] ?? '?').toUpperCase();

/** One of six tile colours, the same for an app every time. */
function toneOf(id: string): number {
  let hash = 0;
  for (const char of id) hash = (hash * 31 + char.charCodeAt(0)) | 0;
  return Math.abs(hash) % 6;
}
