import { KeyRound, Plus } from 'lucide-react';
import { useId, useState } from 'react';
import { isManager, useStudio } from '../app/studio-context.tsx';
import { CodeBlock } from '../ui/code-block.tsx';
import { EmptyState } from '../ui/empty-state.tsx';
import { formatDate, formatDateTime, formatRelative } from '../ui/format.ts';
import { useHeadingFocusAfterClose } from '../ui/heading-focus.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { CreateKeyDialog } from './create-key-dialog.tsx';
import { EditKeyMemoryDialog } from './edit-key-memory-dialog.tsx';
import { type ApiKey, isPlaygroundKey, keyState } from './key-lifetime.ts';
import { memoryLabel, rightsLabel } from './key-memory.ts';
import { useKeys, useMemberNames, useProjects } from './keys-queries.ts';
import { RevokeKeyDialog } from './revoke-key-dialog.tsx';
import { SettingsNav } from './settings-nav.tsx';
import './api-keys.css';

/**
 * Settings › API Keys: the keys that open `/v1`, made here with their secret shown once, and
 * revoked here. Owners and admins see and revoke every key of the organization; members their own.
 */
export function ApiKeysPage() {
  const { org } = useStudio();
  const keys = useKeys();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey>();
  const [editing, setEditing] = useState<ApiKey>();
  const [announcement, setAnnouncement] = useState('');
  // A revoked key's row moves to the revoked group, and its button with it.
  const focusHeadingAfterClose = useHeadingFocusAfterClose(revoking !== undefined);
  const owners = useOwnerNames();

  const all = keys.data ?? [];
  const now = Date.now();
  const live = all.filter((key) => keyState(key, now) === 'active');
  const endedAll = all.filter((key) => keyState(key, now) !== 'active');
  // The playground makes a key for each tab it is used in: once ended, they are only clutter.
  const [showPlayground, setShowPlayground] = useState(false);
  const endedPlayground = endedAll.filter(isPlaygroundKey).length;
  const ended = showPlayground ? endedAll : endedAll.filter((key) => !isPlaygroundKey(key));
  const playgroundToggle = useId();

  return (
    <>
      <SettingsNav />
      <Page
        title="API Keys"
        subtitle={
          isManager(org)
            ? `Every key of ${org.name}: what apps use to call mnemo’s chat interface at /v1.`
            : `Your keys in ${org.name}: what your apps use to call mnemo’s chat interface at /v1.`
        }
        actions={
          <button type="button" className="button primary" onClick={() => setCreating(true)}>
            <Plus size={16} aria-hidden="true" />
            Create key
          </button>
        }
      >
        <p role="status" className="visually-hidden">
          {announcement}
        </p>
        {keys.isPending ? <Loading what="keys" /> : null}
        <ErrorNotice error={keys.error} onRetry={() => void keys.refetch()} />
        {keys.data && all.length === 0 ? (
          <EmptyState title="No API keys yet" icon={<KeyRound size={32} />}>
            <p>
              An API key lets an app or a script call mnemo’s chat interface at <code>/v1</code>:
              any OpenAI client works with it as its API key and <code>{location.origin}/v1</code>{' '}
              as its base URL. Create one to start; its secret is shown once.
            </p>
            <CodeBlock>{curlLine()}</CodeBlock>
          </EmptyState>
        ) : null}
        {all.length > 0 ? (
          <>
            <section aria-labelledby="active-keys" className="keys-section">
              <h2 id="active-keys" className="keys-heading">
                Active keys <span className="badge">{live.length}</span>
              </h2>
              {live.length > 0 ? (
                <KeyTable
                  label="Active keys"
                  keys={live}
                  owners={owners}
                  onRevoke={(key) => setRevoking(key)}
                  onEditMemory={(key) => setEditing(key)}
                />
              ) : (
                <p className="muted keys-none">
                  No key works at the moment. Create one for each app that calls <code>/v1</code>.
                </p>
              )}
            </section>
            {endedAll.length > 0 ? (
              <details className="keys-ended">
                <summary>
                  Revoked and expired
                  {ended.length > 0 ? (
                    <>
                      {' '}
                      <span className="badge">{ended.length}</span>
                    </>
                  ) : null}
                </summary>
                {endedPlayground > 0 ? (
                  <div className="keys-filter">
                    <input
                      id={playgroundToggle}
                      type="checkbox"
                      checked={showPlayground}
                      onChange={(event) => setShowPlayground(event.target.checked)}
                    />
                    <label htmlFor={playgroundToggle}>
                      Show the playground’s temporary keys ({endedPlayground})
                    </label>
                  </div>
                ) : null}
                {ended.length > 0 ? (
                  <KeyTable label="Revoked and expired keys" keys={ended} owners={owners} />
                ) : (
                  <p className="muted keys-none">
                    Only the playground’s temporary keys have ended, and they are hidden.
                  </p>
                )}
              </details>
            ) : null}
            <section className="card keys-usage" aria-labelledby="using-a-key">
              <h2 id="using-a-key">Using a key</h2>
              <p>
                Point any OpenAI client at the base URL <code>{location.origin}/v1</code> with the
                key as its API key, or call it directly:
              </p>
              <CodeBlock>{curlLine()}</CodeBlock>
            </section>
          </>
        ) : null}
      </Page>
      <CreateKeyDialog
        open={creating}
        onClose={(name) => {
          setCreating(false);
          if (name) setAnnouncement(`Key “${name}” created.`);
        }}
      />
      <EditKeyMemoryDialog
        target={editing}
        owner={editing && owners ? owners(editing) : undefined}
        onClose={(saved) => {
          setEditing(undefined);
          if (saved) setAnnouncement(`Memory settings of “${saved.name}” saved.`);
        }}
      />
      <RevokeKeyDialog
        target={revoking}
        owner={revoking && owners ? owners(revoking) : undefined}
        onClose={(revoked) => {
          setRevoking(undefined);
          if (revoked) {
            setAnnouncement(`Key “${revoked.name}” revoked.`);
            focusHeadingAfterClose();
          }
        }}
      />
    </>
  );
}

const curlLine = () =>
  `curl ${location.origin}/v1/models \\\n  -H "Authorization: Bearer mnemo_sk_…"`;

/** For owners and admins, whose key each is; undefined for members (all theirs). */
function useOwnerNames(): ((key: ApiKey) => string) | undefined {
  const { org, me } = useStudio();
  const members = useMemberNames();
  if (!isManager(org)) return undefined;
  return (key) =>
    key.userId === me.sub
      ? 'You'
      : (members.data?.get(key.userId) ?? (members.isPending ? '…' : 'A former member'));
}

function KeyTable(props: {
  label: string;
  keys: ApiKey[];
  owners: ((key: ApiKey) => string) | undefined;
  onRevoke?: (key: ApiKey) => void;
  onEditMemory?: (key: ApiKey) => void;
}) {
  const projects = useProjects();
  const projectName = (id: string) =>
    projects.data?.find((project) => project.id === id)?.name ?? 'A project you cannot see';
  const withProjects = props.keys.some((key) => key.projectId !== undefined);
  const ids = useId();
  const now = Date.now();

  return (
    // Scrolls sideways on narrow screens; focusable so that the keyboard can scroll it too.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus (WCAG 2.1.1).
    <section className="table-wrap keys-table" aria-label={props.label} tabIndex={0}>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            {props.owners ? <th scope="col">Owner</th> : null}
            {withProjects ? <th scope="col">Project</th> : null}
            <th scope="col">Memory</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">{props.onRevoke ? 'Expires' : 'Status'}</th>
            {props.onRevoke ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {props.keys.map((key) => (
            <tr key={key.id}>
              <td id={`${ids}-${key.id}`} className="key-name">
                {key.name}
              </td>
              <td className="mono key-prefix" data-label="Key">
                {key.prefix}…
              </td>
              {props.owners ? <td data-label="Owner">{props.owners(key)}</td> : null}
              {withProjects ? (
                <td data-label="Project">
                  {key.projectId ? projectName(key.projectId) : <Muted>None</Muted>}
                </td>
              ) : null}
              <td data-label="Memory">
                <KeyMemory apiKey={key} />
              </td>
              <td data-label="Created">
                <time dateTime={key.createdAt} title={formatDateTime(key.createdAt)}>
                  {formatDate(key.createdAt)}
                </time>
              </td>
              <td data-label="Last used">
                {key.lastUsedAt ? (
                  <time dateTime={key.lastUsedAt} title={formatDateTime(key.lastUsedAt)}>
                    {formatRelative(key.lastUsedAt, now)}
                  </time>
                ) : (
                  <Muted>Never</Muted>
                )}
              </td>
              <td data-label={props.onRevoke ? 'Expires' : 'Status'}>
                <Lifetime apiKey={key} now={now} />
              </td>
              {props.onRevoke ? (
                <td className="key-actions">
                  {props.onEditMemory ? (
                    <button
                      type="button"
                      className="button small"
                      aria-describedby={`${ids}-${key.id}`}
                      onClick={() => props.onEditMemory?.(key)}
                    >
                      Edit memory
                    </button>
                  ) : null}
                  <button
                    type="button"
                    className="button small"
                    aria-describedby={`${ids}-${key.id}`}
                    onClick={() => props.onRevoke?.(key)}
                  >
                    Revoke
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const Muted = (props: { children: string }) => <span className="muted">{props.children}</span>;

/** What calls with the key do with memory unless they say, over the most they may do. */
function KeyMemory({ apiKey: key }: { apiKey: ApiKey }) {
  return (
    <span className="key-memory">
      <span className={key.memory === 'off' ? 'muted' : undefined}>{memoryLabel(key.memory)}</span>
      <span className="key-memory-rights">Rights: {rightsLabel(key.memoryAccess)}</span>
    </span>
  );
}

/** When an active key expires, or how an ended one ended. */
function Lifetime({ apiKey: key, now }: { apiKey: ApiKey; now: number }) {
  if (key.revokedAt !== null) {
    return (
      <span className="badge danger" title={formatDateTime(key.revokedAt)}>
        Revoked {formatDate(key.revokedAt)}
      </span>
    );
  }
  if (key.expiresAt === null) return <Muted>Never</Muted>;
  if (keyState(key, now) === 'expired') {
    return (
      <span className="badge warning" title={formatDateTime(key.expiresAt)}>
        Expired {formatDate(key.expiresAt)}
      </span>
    );
  }
  // Within a week, how long is left matters more than the date.
  const soon = Date.parse(key.expiresAt) - now < 7 * 86_400_000;
  return (
    <time
      dateTime={key.expiresAt}
      title={formatDateTime(key.expiresAt)}
      className={soon ? 'expires-soon' : undefined}
    >
      {soon ? formatRelative(key.expiresAt, now) : formatDate(key.expiresAt)}
    </time>
  );
}
