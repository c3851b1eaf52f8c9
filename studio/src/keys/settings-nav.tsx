import { KeyRound, Plug, Server, Webhook } from 'lucide-react';
import { NavLink } from 'react-router';
import './settings.css';

const SECTIONS = [
  { to: '/settings/api-keys', label: 'API Keys', icon: KeyRound },
  { to: '/settings/connected-apps', label: 'Connected apps', icon: Plug },
  { to: '/settings/apps', label: 'Apps', icon: Server },
  { to: '/settings/webhooks', label: 'Webhooks', icon: Webhook },
] as const;

/** The settings area's own navigation, above each of its pages. */
export function SettingsNav() {
  return (
    <nav className="settings-nav" aria-label="Settings">
      <span className="settings-nav-title" aria-hidden="true">
        Settings
      </span>
      <ul>
        {SECTIONS.map(({ to, label, icon: Icon }) => (
          <li key={to}>
            <NavLink to={to} className="settings-nav-link">
              <Icon size={16} aria-hidden="true" />
              <span>{label}</span>
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
