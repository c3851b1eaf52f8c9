import type { OrgRole } from '../auth/userinfo.ts';

export type { Member, Organization } from '../api/queries.ts';

/** What each role may do, as the API enforces it (src/tenancy/roles.ts, members.service.ts). */
export const ROLES: readonly { value: OrgRole; label: string; allows: string }[] = [
  {
    value: 'owner',
    label: 'Owner',
    allows: 'Everything an admin does, and makes, changes and removes owners.',
  },
  {
    value: 'admin',
    label: 'Admin',
    allows:
      'Manages members, projects and settings; sees every API key, the usage and the audit log.',
  },
  {
    value: 'member',
    label: 'Member',
    allows: 'Keeps their own memories and works in the projects shared with them.',
  },
];

export const roleLabel = (role: OrgRole) => ROLES.find((r) => r.value === role)?.label ?? role;

/**
 * Someone as lists show them: the name, or the email when there is none (an end user or an
 * app may have neither: then its id).
 */
export const displayName = (person: { name?: string; email?: string; userId?: string }) =>
  person.name ?? person.email ?? person.userId ?? 'someone';
