import { expect, test } from 'vitest';
import { type AuditEntry, describeEntry } from './audit-words.ts';

const PROJECT = '0190a0b4-0000-7000-8000-000000000001';
const INVITER = '0190a0b4-0000-7000-8000-000000000002';
const names = {
  project: (id: string) => (id === PROJECT ? 'Apollo' : undefined),
  person: (id: string) => (id === INVITER ? 'Grace Hopper' : undefined),
};
const entry = (
  action: string,
  details?: Record<string, unknown>,
  memoryId?: string,
): AuditEntry => ({
  id: 'e',
  at: '2026-03-02T10:00:00.000Z',
  actorId: 'actor',
  targetId: action.startsWith('project.') ? PROJECT : 'target',
  action,
  ...(details ? { details } : {}),
  ...(memoryId ? { memoryId } : {}),
});
const words = (e: AuditEntry) => {
  const { action, details, target } = describeEntry(e, names);
  return [action, target.kind, details];
};

test('every action the API records reads as words', () => {
  expect(
    [
      entry('org.update', {
        name: { from: 'Acme', to: 'Acme Inc' },
        userOverride: { from: 'members', to: 'admins' },
      }),
      entry('member.add', { role: 'admin' }),
      entry('member.role', { from: 'member', to: 'owner' }),
      entry('member.remove', { role: 'member', revokedGrants: 2 }),
      entry('member.remove', { role: 'member', revokedGrants: 0 }),
      entry('project.create', { name: 'Apollo' }),
      entry('project.update', { name: { from: 'Apolo', to: 'Apollo' } }),
      entry('project.delete', { name: 'Gemini' }),
      entry('collaborator.set', { projectId: PROJECT, access: 'editor', previous: null }),
      entry('collaborator.set', { projectId: PROJECT, access: 'owner', previous: 'viewer' }),
      entry('collaborator.remove', { projectId: 'gone', access: 'viewer' }),
      entry('api_key.create', { keyId: 'k', name: 'CI' }),
      entry('api_key.revoke', { keyId: 'k', name: 'CI' }),
      entry('api_key.update', { keyId: 'k', name: 'CI', memory: 'read', memoryAccess: 'read' }),
      entry('list'),
      entry('get', undefined, 'm'),
      entry('add', undefined, 'm'),
      entry('update', undefined, 'm'),
      entry('delete', undefined, 'm'),
      entry('something.new', { count: 3, who: 'x' }),
    ].map(words),
  ).toEqual([
    [
      'Changed the organization’s settings',
      'organization',
      'Name “Acme” → “Acme Inc”; Who may act for other members: any member → owners and admins only',
    ],
    ['Added a member', 'person', 'As admin'],
    ['Changed a member’s role', 'person', 'member → owner'],
    ['Removed a member', 'person', 'Was member; 2 app authorizations revoked'],
    ['Removed a member', 'person', 'Was member'],
    ['Created a project', 'project', undefined],
    ['Renamed a project', 'project', '“Apolo” → “Apollo”'],
    ['Deleted a project', 'project', undefined],
    ['Gave project access', 'person', 'editor on “Apollo”'],
    ['Changed project access', 'person', 'owner on “Apollo” (was viewer)'],
    ['Removed project access', 'person', 'Was viewer on a deleted project'],
    ['Created an API key', 'person', '“CI”'],
    ['Revoked an API key', 'person', '“CI”'],
    [
      'Changed an API key’s memory',
      'person',
      '“CI”; memory in chat calls: Recall; rights: Read only',
    ],
    ['Listed memories', 'person', undefined],
    ['Read a memory', 'person', undefined],
    ['Added a memory', 'person', undefined],
    ['Updated a memory', 'person', undefined],
    ['Deleted a memory', 'person', undefined],
    ['something.new', 'other', 'count: 3; who: x'],
  ]);
});

test('a project deleted since is named from the entry', () => {
  expect(
    describeEntry(entry('project.delete', { name: 'Gemini' }), {
      project: () => undefined,
      person: () => undefined,
    }).target,
  ).toEqual({
    kind: 'project',
    id: PROJECT,
    recordedName: 'Gemini',
  });
});

const ERASED = { memories: 12, poolMemories: 3, proposals: 1, projectGrants: 2, apiKeys: 1 };
const NOTHING = { memories: 0, poolMemories: 0, proposals: 0, projectGrants: 0, apiKeys: 0 };

test('end users, apps and invitations read as words, erasures with what went', () => {
  expect(
    [
      entry('end_user.register'),
      entry('end_user.update'),
      entry('end_user.erase', ERASED),
      entry('end_user.erase', NOTHING),
      entry('end_user.erase', { ...NOTHING, memories: 1, apiKeys: 2 }),
      entry('app.create', {
        appId: 'mnemo_client_a',
        name: 'Support bot',
        role: 'member',
        rateLimitPerMinute: 120,
      }),
      entry('app.create', {
        appId: 'mnemo_client_a',
        name: 'Support bot',
        role: 'admin',
        rateLimitPerMinute: null,
      }),
      entry('app.update', {
        appId: 'mnemo_client_a',
        name: { from: 'Support bot', to: 'Helpdesk' },
        role: { from: 'member', to: 'admin' },
        rate_limit_per_minute: { from: null, to: 300 },
      }),
      entry('app.update', {
        appId: 'mnemo_client_a',
        rate_limit_per_minute: { from: 300, to: null },
      }),
      entry('app.secret', { appId: 'mnemo_client_a' }),
      entry('app.revoke', { appId: 'mnemo_client_a', ...ERASED }),
      entry('invitation.create', { email: 'lin@acme.test', role: 'admin', replaced: 0 }),
      entry('invitation.create', { email: 'lin@acme.test', role: 'member', replaced: 2 }),
      entry('invitation.revoke', { email: 'lin@acme.test', role: 'member' }),
      entry('invitation.accept', { email: 'lin@acme.test', role: 'member', invitedBy: INVITER }),
      entry('invitation.accept', { email: 'lin@acme.test', role: 'owner', invitedBy: 'gone' }),
      entry('member.add', { role: 'member', invitationId: 'i' }),
      entry('member.add', { role: 'owner', via: 'sign-up' }),
      entry('search'),
      entry('export'),
      entry('erase', { deleted: 12 }),
      entry('erase', { deleted: 1, category: 'preference' }),
      entry('org.export'),
      entry('user.erase', { ...ERASED, invitations: 1 }),
      entry('user.erase', { ...NOTHING, invitations: 0 }),
    ].map(words),
  ).toEqual([
    ['Registered an end user', 'end_user', undefined],
    ['Renamed an end user', 'end_user', undefined],
    [
      'Erased an end user',
      'end_user',
      'Deleted 12 memories, 3 memories in project pools, 1 proposed memory, 2 project accesses, 1 API key',
    ],
    ['Erased an end user', 'end_user', 'Nothing else was held'],
    ['Erased an end user', 'end_user', 'Deleted 1 memory, 2 API keys'],
    ['Registered an app', 'app', 'As member; Rate limit: 120 requests a minute'],
    ['Registered an app', 'app', 'As admin; Rate limit: the default'],
    [
      'Changed an app',
      'app',
      'Name “Support bot” → “Helpdesk”; Role member → admin; Rate limit: the default → 300 requests a minute',
    ],
    ['Changed an app', 'app', 'Rate limit: 300 requests a minute → the default'],
    ['Replaced an app’s secret', 'app', 'The previous secret stopped working'],
    [
      'Revoked an app',
      'app',
      'Deleted 12 memories, 3 memories in project pools, 1 proposed memory, 2 project accesses, 1 API key',
    ],
    ['Invited someone', 'invitation', 'As admin'],
    ['Invited someone', 'invitation', 'As member; Replaces 2 earlier invitations'],
    ['Revoked an invitation', 'invitation', 'As member'],
    ['Accepted an invitation', 'invitation', 'As member; Invited by Grace Hopper'],
    ['Accepted an invitation', 'invitation', 'As owner; Invited by a former member'],
    ['Joined by invitation', 'person', 'As member'],
    ['Signed up', 'person', 'As owner'],
    ['Searched memories', 'person', undefined],
    ['Exported memories', 'person', undefined],
    ['Deleted all memories', 'person', '12 memories'],
    ['Deleted all preference memories', 'person', '1 memory'],
    ['Exported the organization’s memories', 'organization', undefined],
    [
      'Erased a person everywhere',
      'person',
      'Deleted 12 memories, 3 memories in project pools, 1 proposed memory, 2 project accesses, 1 API key, 1 invitation',
    ],
    ['Erased a person everywhere', 'person', 'Nothing else was held'],
  ]);
});

test('the targets carry what the page names them by', () => {
  const target = (e: AuditEntry) => describeEntry(e, names).target;
  expect(target(entry('end_user.erase', ERASED))).toEqual({
    kind: 'end_user',
    id: 'target',
    erased: true,
  });
  expect(target(entry('end_user.register'))).toEqual({
    kind: 'end_user',
    id: 'target',
    erased: false,
  });
  expect(
    target(entry('app.create', { appId: 'mnemo_client_a', name: 'Support bot', role: 'member' })),
  ).toEqual({ kind: 'app', id: 'target', appId: 'mnemo_client_a', recordedName: 'Support bot' });
  expect(target(entry('app.secret', { appId: 'mnemo_client_a' }))).toEqual({
    kind: 'app',
    id: 'target',
    appId: 'mnemo_client_a',
    recordedName: undefined,
  });
  expect(target(entry('invitation.revoke', { email: 'lin@acme.test', role: 'member' }))).toEqual({
    kind: 'invitation',
    id: 'target',
    email: 'lin@acme.test',
  });
});
