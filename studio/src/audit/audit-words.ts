import type { components } from '../api/openapi.d.ts';
import { memoryLabel, rightsLabel } from '../keys/key-memory.ts';

export type AuditEntry = components['schemas']['AuditEntry'];

/**
 * The actor of what an operator did with the `mnemo` command line (`mnemo admin …`): the nil
 * UUID, which no user has (the API's AuditEntry.actorId).
 */
export const OPERATOR_ID = '00000000-0000-0000-0000-000000000000';

/** How the page names that operator: someone who is no member, and never was. */
export const OPERATOR_NAME = 'Operator (command line)';

/** What an entry was done to, as the page names it. */
export type AuditTarget =
  | { readonly kind: 'person'; readonly id: string }
  | { readonly kind: 'project'; readonly id: string; readonly recordedName: string | undefined }
  | { readonly kind: 'organization'; readonly id: string }
  /** A person an app remembers; the entry holds their mnemo id only, never the app's id. */
  | { readonly kind: 'end_user'; readonly id: string; readonly erased: boolean }
  /** An app's identity (`id`), with its client id and the name the entry recorded, if any. */
  | {
      readonly kind: 'app';
      readonly id: string;
      readonly appId: string | undefined;
      readonly recordedName: string | undefined;
    }
  | { readonly kind: 'invitation'; readonly id: string; readonly email: string | undefined }
  | { readonly kind: 'other'; readonly id: string };

export interface DescribedEntry {
  /** The act in words: "Changed a member's role". */
  readonly action: string;
  readonly target: AuditTarget;
  /** What changed, in words; undefined when the action says it all. */
  readonly details: string | undefined;
}

/** Names the words need that the entry only holds as ids. */
export interface AuditNames {
  project(id: string): string | undefined;
  /** A member's name (or email); undefined for someone the organization no longer lists. */
  person(id: string): string | undefined;
}

const ROLE: Record<string, string> = { owner: 'owner', admin: 'admin', member: 'member' };
const ACCESS: Record<string, string> = { viewer: 'viewer', editor: 'editor', owner: 'owner' };
const OVERRIDE: Record<string, string> = {
  members: 'any member',
  admins: 'owners and admins only',
};

/** Memory operations are recorded when someone acts for another member (the user override). */
const MEMORY_ACTS: Record<string, string> = {
  list: 'Listed memories',
  search: 'Searched memories',
  get: 'Read a memory',
  add: 'Added a memory',
  update: 'Updated a memory',
  delete: 'Deleted a memory',
  export: 'Exported memories',
};

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const quoted = (value: unknown) => (typeof value === 'string' ? `“${value}”` : undefined);
const word = (words: Record<string, string>, value: unknown) =>
  typeof value === 'string' ? (words[value] ?? value) : undefined;

interface Change {
  readonly from: unknown;
  readonly to: unknown;
}
const change = (value: unknown): Change | undefined =>
  typeof value === 'object' && value !== null && 'from' in value && 'to' in value
    ? (value as Change)
    : undefined;

/** Details of an action the page does not know, as "key: value" pairs. */
function plainDetails(details: Record<string, unknown> | undefined): string | undefined {
  if (!details || Object.keys(details).length === 0) return undefined;
  return Object.entries(details)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('; ');
}

const counted = (value: unknown, one: string, many: string) =>
  typeof value === 'number' && value > 0 ? `${value} ${value === 1 ? one : many}` : undefined;

/**
 * What an erasure deleted, from the counts it recorded (identity-erasure.ts); the content never
 * was recorded.
 */
function erasedCounts(d: Record<string, unknown>): string {
  const parts = [
    counted(d.memories, 'memory', 'memories'),
    counted(d.poolMemories, 'memory in project pools', 'memories in project pools'),
    counted(d.proposals, 'proposed memory', 'proposed memories'),
    counted(d.projectGrants, 'project access', 'project accesses'),
    counted(d.apiKeys, 'API key', 'API keys'),
    counted(d.invitations, 'invitation', 'invitations'),
  ].filter((part): part is string => part !== undefined);
  return parts.length === 0 ? 'Nothing else was held' : `Deleted ${parts.join(', ')}`;
}

/** An app's requests a minute: its own limit, or the server's default (null). */
const rateLimit = (value: unknown) =>
  typeof value === 'number' ? `${value} requests a minute` : 'the default';

const joined = (parts: readonly (string | undefined)[]) => {
  const present = parts.filter((part): part is string => part !== undefined && part !== '');
  return present.length === 0 ? undefined : present.join('; ');
};

/**
 * An audit entry in words. The actions are those the API records (`recordAudit` calls):
 * org.update, member.add|role|remove, project.create|update|delete, collaborator.set|remove,
 * api_key.create|update|revoke, end_user.register|update|erase, app.create|update|secret|revoke,
 * invitation.create|revoke|accept, org.export, user.erase (by an operator), and
 * list|search|get|add|update|delete|export|erase of memories done for another member. An action
 * not known here is shown as the API names it.
 */
export function describeEntry(entry: AuditEntry, names: AuditNames): DescribedEntry {
  const d = entry.details ?? {};
  const person: AuditTarget = { kind: 'person', id: entry.targetId };
  const project = (recordedName: string | undefined): AuditTarget => ({
    kind: 'project',
    id: entry.targetId,
    recordedName,
  });
  const endUser = (erased: boolean): AuditTarget => ({
    kind: 'end_user',
    id: entry.targetId,
    erased,
  });
  const app = (recordedName: string | undefined): AuditTarget => ({
    kind: 'app',
    id: entry.targetId,
    appId: text(d.appId),
    recordedName,
  });
  const invitation: AuditTarget = { kind: 'invitation', id: entry.targetId, email: text(d.email) };
  const projectName = (id: unknown) =>
    typeof id === 'string' ? (quoted(names.project(id)) ?? 'a deleted project') : 'a project';

  switch (entry.action) {
    case 'org.update': {
      const name = change(d.name);
      const override = change(d.userOverride);
      return {
        action: 'Changed the organization’s settings',
        target: { kind: 'organization', id: entry.targetId },
        details: joined([
          name ? `Name ${quoted(name.from)} → ${quoted(name.to)}` : undefined,
          override
            ? `Who may act for other members: ${word(OVERRIDE, override.from)} → ${word(OVERRIDE, override.to)}`
            : undefined,
        ]),
      };
    }
    case 'member.add':
      return {
        // Joining by invitation, or signing up, is recorded as the person adding themselves.
        action:
          typeof d.invitationId === 'string'
            ? 'Joined by invitation'
            : d.via === 'sign-up'
              ? 'Signed up'
              : 'Added a member',
        target: person,
        details: roleAs('As', d.role),
      };
    case 'member.role': {
      return {
        action: 'Changed a member’s role',
        target: person,
        details: `${word(ROLE, d.from) ?? '?'} → ${word(ROLE, d.to) ?? '?'}`,
      };
    }
    case 'member.remove': {
      const grants = typeof d.revokedGrants === 'number' ? d.revokedGrants : 0;
      return {
        action: 'Removed a member',
        target: person,
        details: joined([
          roleAs('Was', d.role),
          grants > 0 ? `${grants} app authorization${grants === 1 ? '' : 's'} revoked` : undefined,
        ]),
      };
    }
    case 'project.create':
      return { action: 'Created a project', target: project(text(d.name)), details: undefined };
    case 'project.update': {
      const name = change(d.name);
      return {
        action: 'Renamed a project',
        target: project(text(name?.to)),
        details: name ? `${quoted(name.from)} → ${quoted(name.to)}` : undefined,
      };
    }
    case 'project.delete':
      return { action: 'Deleted a project', target: project(text(d.name)), details: undefined };
    case 'collaborator.set': {
      const previous = word(ACCESS, d.previous);
      return {
        action: previous ? 'Changed project access' : 'Gave project access',
        target: person,
        details: `${word(ACCESS, d.access) ?? '?'} on ${projectName(d.projectId)}${previous ? ` (was ${previous})` : ''}`,
      };
    }
    case 'collaborator.remove':
      return {
        action: 'Removed project access',
        target: person,
        details: `Was ${word(ACCESS, d.access) ?? '?'} on ${projectName(d.projectId)}`,
      };
    case 'api_key.create':
      return { action: 'Created an API key', target: person, details: quoted(d.name) };
    case 'api_key.revoke':
      return { action: 'Revoked an API key', target: person, details: quoted(d.name) };
    case 'api_key.update':
      return {
        action: 'Changed an API key’s memory',
        target: person,
        details: joined([
          quoted(d.name),
          `memory in chat calls: ${memoryLabel(d.memory) ?? '?'}`,
          `rights: ${rightsLabel(d.memoryAccess) ?? '?'}`,
        ]),
      };
    case 'end_user.register':
      return { action: 'Registered an end user', target: endUser(false), details: undefined };
    case 'end_user.update':
      return { action: 'Renamed an end user', target: endUser(false), details: undefined };
    case 'end_user.erase':
      return { action: 'Erased an end user', target: endUser(true), details: erasedCounts(d) };
    case 'app.create':
      return {
        action: 'Registered an app',
        target: app(text(d.name)),
        details: joined([roleAs('As', d.role), `Rate limit: ${rateLimit(d.rateLimitPerMinute)}`]),
      };
    case 'app.update': {
      const name = change(d.name);
      const role = change(d.role);
      const limit = change(d.rate_limit_per_minute);
      return {
        action: 'Changed an app',
        target: app(text(name?.to)),
        details: joined([
          name ? `Name ${quoted(name.from)} → ${quoted(name.to)}` : undefined,
          role ? `Role ${word(ROLE, role.from) ?? '?'} → ${word(ROLE, role.to) ?? '?'}` : undefined,
          limit ? `Rate limit: ${rateLimit(limit.from)} → ${rateLimit(limit.to)}` : undefined,
        ]),
      };
    }
    case 'app.secret':
      return {
        action: 'Replaced an app’s secret',
        target: app(undefined),
        details: 'The previous secret stopped working',
      };
    case 'app.revoke':
      return { action: 'Revoked an app', target: app(undefined), details: erasedCounts(d) };
    case 'org.export':
      return {
        action: 'Exported the organization’s memories',
        target: { kind: 'organization', id: entry.targetId },
        details: undefined,
      };
    case 'erase': {
      const category = text(d.category);
      return {
        action: category ? `Deleted all ${category} memories` : 'Deleted all memories',
        target: person,
        details: counted(d.deleted, 'memory', 'memories'),
      };
    }
    case 'invitation.create': {
      const replaced = counted(d.replaced, 'earlier invitation', 'earlier invitations');
      return {
        action: 'Invited someone',
        target: invitation,
        details: joined([roleAs('As', d.role), replaced ? `Replaces ${replaced}` : undefined]),
      };
    }
    case 'invitation.revoke':
      return { action: 'Revoked an invitation', target: invitation, details: roleAs('As', d.role) };
    case 'invitation.accept': {
      const invitedBy =
        typeof d.invitedBy === 'string'
          ? `Invited by ${names.person(d.invitedBy) ?? 'a former member'}`
          : undefined;
      return {
        action: 'Accepted an invitation',
        target: invitation,
        details: joined([roleAs('As', d.role), invitedBy]),
      };
    }
    case 'user.erase':
      return { action: 'Erased a person everywhere', target: person, details: erasedCounts(d) };
    default: {
      const memoryAct = MEMORY_ACTS[entry.action];
      if (memoryAct) return { action: memoryAct, target: person, details: undefined };
      return {
        action: entry.action,
        target: { kind: 'other', id: entry.targetId },
        details: plainDetails(entry.details),
      };
    }
  }
}

function roleAs(lead: string, role: unknown): string | undefined {
  const said = word(ROLE, role);
  return said ? `${lead} ${said}` : undefined;
}
