import { Globe, Plug } from 'lucide-react';
import { useId, useState } from 'react';
import type { Connection } from '../api/queries.ts';
import { SettingsNav } from '../keys/settings-nav.tsx';
import { CopyField } from '../ui/copy-field.tsx';
import { EmptyState } from '../ui/empty-state.tsx';
import { formatDate, formatDateTime } from '../ui/format.ts';
import { useHeadingFocusAfterClose } from '../ui/heading-focus.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { clientOrigin, initialOf, toneOf } from './client-origin.ts';
import { useConnections } from './connections-queries.ts';
import { DisconnectDialog, type Disconnected } from './disconnect-dialog.tsx';
import './connected-apps.css';

/**
 * Settings › Connected apps: the AI apps (MCP clients) the person allowed to act for them, each
 * in the organization chosen on the consent page, and the way to undo that choice. They belong
 * to the account, not to the organization the switcher shows.
 */
export function ConnectedAppsPage() {
  const connections = useConnections();
  const [disconnecting, setDisconnecting] = useState<Connection>();
  const [status, setStatus] = useState('');
  const all = connections.data ?? [];
  // The row of an app disconnected goes, and with it the button that opened the dialog.
  const focusHeadingAfterClose = useHeadingFocusAfterClose(disconnecting !== undefined);

  return (
    <>
      <SettingsNav />
      <Page
        title="Connected apps"
        subtitle="AI apps you allowed to use your memories through mnemo’s MCP server, in every organization you belong to."
      >
        <div role="status" className="status-line">
          {status ? <p className="notice info">{status}</p> : null}
        </div>
        {connections.isPending ? <Loading what="connected apps" /> : null}
        <ErrorNotice error={connections.error} onRetry={() => void connections.refetch()} />
        {connections.data && all.length === 0 ? (
          <EmptyState title="No connected apps" icon={<Plug size={32} />}>
            <p>
              A connected app is an AI application, such as Claude, Cursor, VS Code or Codex, that
              you allowed to read and write your memories. It works in the one organization you
              choose when you connect it, until you disconnect it here.
            </p>
            <p>
              To connect one, add mnemo’s MCP server to the app with this address. The app then
              opens mnemo in your browser, to sign in and choose the organization.
            </p>
            <div className="connect-address">
              <McpAddress />
            </div>
            <p className="connect-help">
              <a href={`${location.origin}/oauth`}>How apps sign in to mnemo</a>
            </p>
          </EmptyState>
        ) : null}
        {all.length > 0 ? (
          <>
            <ConnectionTable
              connections={all}
              onDisconnect={(connection) => {
                setStatus('');
                setDisconnecting(connection);
              }}
            />
            <section className="card connect-another" aria-labelledby="connect-another">
              <h2 id="connect-another">Connect another app</h2>
              <p>
                Add mnemo’s MCP server to the app with this address: it opens mnemo in your browser
                to sign in and choose the organization. To move an app to another organization,
                disconnect it, then connect it again.
              </p>
              <McpAddress />
            </section>
          </>
        ) : null}
      </Page>
      <DisconnectDialog
        target={disconnecting}
        onClose={(done?: Disconnected) => {
          setDisconnecting(undefined);
          if (!done) return;
          const name = done.connection.clientName;
          setStatus(
            done.outcome === 'disconnected'
              ? `“${name}” is disconnected: it no longer has access to your memories.`
              : `“${name}” was already disconnected.`,
          );
          focusHeadingAfterClose();
        }}
      />
    </>
  );
}

const McpAddress = () => <CopyField label="MCP server address" value={`${location.origin}/mcp`} />;

function ConnectionTable(props: {
  connections: readonly Connection[];
  onDisconnect: (connection: Connection) => void;
}) {
  const ids = useId();
  return (
    // Scrolls sideways on narrow screens; focusable so that the keyboard can scroll it too.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus (WCAG 2.1.1).
    <section className="table-wrap connections-table" aria-label="Connected apps" tabIndex={0}>
      <table>
        <thead>
          <tr>
            <th scope="col">App</th>
            <th scope="col">Acts in</th>
            <th scope="col">Connected</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.connections.map((connection) => (
            <tr key={connection.id}>
              <td className="connection-app">
                <AppIdentity connection={connection} nameId={`${ids}-${connection.id}`} />
              </td>
              <td data-label="Acts in" className="connection-org">
                {connection.organization.name}
              </td>
              <td data-label="Connected">
                <time dateTime={connection.createdAt} title={formatDateTime(connection.createdAt)}>
                  {formatDate(connection.createdAt)}
                </time>
              </td>
              <td className="connection-actions">
                <button
                  type="button"
                  className="button small"
                  aria-describedby={`${ids}-${connection.id}`}
                  onClick={() => props.onDisconnect(connection)}
                >
                  Disconnect
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The app's tile, its name, and where it comes from (what vouches for that name). */
function AppIdentity(props: { connection: Connection; nameId: string }) {
  const { connection } = props;
  const origin = clientOrigin(connection.clientId);
  return (
    <div className="app-identity">
      <span className={`app-tile tone-${toneOf(connection.clientId)}`} aria-hidden="true">
        {initialOf(connection.clientName)}
      </span>
      <div className="app-text">
        <span id={props.nameId} className="app-name">
          {connection.clientName}
        </span>
        {origin.kind === 'published' ? (
          <span className="app-origin" title={connection.clientId}>
            <Globe size={13} aria-hidden="true" />
            <span>
              From <strong>{origin.host}</strong>
            </span>
          </span>
        ) : (
          <span className="app-origin" title={connection.clientId}>
            Registered with mnemo
          </span>
        )}
      </div>
    </div>
  );
}
