import { useQuery } from '@tanstack/react-query';
import {
  BarChart3,
  Brain,
  Contact,
  FolderKanban,
  History,
  LogOut,
  MessagesSquare,
  Settings,
  Users,
} from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { organizationQuery } from '../api/queries.ts';
import { playgroundKey } from '../playground/temporary-key.ts';
import { Logo } from '../ui/logo.tsx';
import { StoppedWebhooksNotice } from '../webhooks/stopped-webhooks.tsx';
import { isManager, useStudio } from './studio-context.tsx';

const NAV = [
  { to: '/memories', label: 'Memories', icon: Brain },
  { to: '/projects', label: 'Projects', icon: FolderKanban },
  { to: '/members', label: 'Members', icon: Users },
  { to: '/end-users', label: 'End users', icon: Contact, managers: true },
  { to: '/usage', label: 'Usage', icon: BarChart3 },
  { to: '/audit', label: 'Audit', icon: History },
  { to: '/playground', label: 'Playground', icon: MessagesSquare },
  { to: '/settings', label: 'Settings', icon: Settings },
] as const;

/** The frame around every page: the top bar, the navigation landmark and the page itself. */
export function Layout() {
  const { api, me, org, setOrg, session } = useStudio();
  // The names come from sign-in (userinfo); the current one is read again, so a rename on the
  // Members page shows here at once.
  const currentName = useQuery(organizationQuery(api, org.id)).data?.name;
  const orgLabel = useId();
  const [signingOut, setSigningOut] = useState(false);
  useFocusOnNavigation();
  // The tab's playground key, kept across reloads, is revoked at sign-out even when the
  // Playground was not opened since the last reload (temporary-key.ts; this makes no request).
  useEffect(() => {
    playgroundKey({ api, me, org, session });
  }, [api, me, org, session]);
  // Pages for owners and admins only are not offered to members.
  const nav = NAV.filter((item) => !('managers' in item) || isManager(org));

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to="/memories" className="brand" aria-label="mnemo studio home">
          <Logo />
        </NavLink>
        <div className="org-switcher">
          <label htmlFor={orgLabel}>Organization</label>
          <select id={orgLabel} value={org.id} onChange={(event) => setOrg(event.target.value)}>
            {me.organizations.map((o) => (
              <option key={o.id} value={o.id}>
                {o.id === org.id ? (currentName ?? o.name) : o.name}
              </option>
            ))}
          </select>
        </div>
        <div className="account">
          <span className="account-email" title={me.email}>
            {me.name ?? me.email}
          </span>
          <button
            type="button"
            className="button ghost sign-out"
            disabled={signingOut}
            onClick={() => {
              setSigningOut(true);
              void session.signOut();
            }}
          >
            <LogOut size={16} aria-hidden="true" />
            <span>Sign out</span>
          </button>
        </div>
      </header>
      <nav className="sidebar" aria-label="Main">
        <ul>
          {nav.map(({ to, label, icon: Icon }) => (
            <li key={to}>
              <NavLink to={to} className="nav-link">
                <Icon size={18} aria-hidden="true" />
                <span>{label}</span>
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        <StoppedWebhooksNotice />
        <Outlet />
      </main>
    </div>
  );
}

/**
 * A single-page app changes pages without a load: a screen reader hears nothing unless focus
 * moves. After each navigation (not the first page), focus goes to the new page's heading.
 */
function useFocusOnNavigation() {
  const { pathname } = useLocation();
  const first = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the effect runs per navigation.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const heading = document.querySelector<HTMLElement>('#main h1');
    heading?.focus({ preventScroll: false });
  }, [pathname]);
}
