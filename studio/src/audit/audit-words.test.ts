import { expect, test } from 'vitest';
import { type AuditEntry, describeEntry } from './audit-words.ts';

const PROJECT = '0190a0b4-0000-7000-8000-000000000001';
const names = { project: (id: string) => (id === PROJECT ? 'Apollo' : undefined) };
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
    describeEntry(entry('project.delete', { name: 'Gemini' }), { project: () => undefined }).target,
  ).toEqual({
    kind: 'project',
    id: PROJECT,
    recordedName: 'Gemini',
  });
});
