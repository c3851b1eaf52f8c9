import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../platform/api-schemas.ts';
import { BLANK_NAME } from '../platform/errors.ts';
import { NOT_BLANK_TEXT_PATTERN } from '../platform/openapi-text-rule.ts';

/** A name as people type it: trimmed before it is stored, never empty. */
export const Name = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: NOT_BLANK_TEXT_PATTERN,
    errorMessage: { minLength: BLANK_NAME, pattern: BLANK_NAME },
    description,
  });

/** Operations that change or read an organization's management: the `admin` scope. */
export const adminSecurity = [{ platformCredential: ['admin'] }];

export const OkResponse = Type.Object({ ok: Type.Literal(true) }, { description: 'Done' });

export const MemberRole = Type.Enum(['owner', 'admin', 'member'], {
  description: 'owner, admin or member',
});
export const UserOverride = Type.Enum(['members', 'admins'], {
  description: 'Who may act for another member: any member, or owners and admins only',
});

export const UserKind = Type.Enum(['person', 'end_user', 'app'], {
  description:
    'person: someone who signs in; end_user: a person an app remembers under its own id; app: the service identity of an app (an OAuth client of the organization)',
});

export const OrgIdParams = Type.Object({ orgId: Type.String({ description: 'Organization id' }) });
export const MemberParams = Type.Object({
  orgId: Type.String({ description: 'Organization id' }),
  userId: Type.String({ description: "The member's user id" }),
});

export const MeResponse = Type.Object(
  {
    user: Type.Object(
      {
        id: Uuid('User id'),
        email: Type.Optional(Type.String({ description: 'Absent for an app, which has none' })),
        name: Type.Optional(Type.String({ description: 'Absent when the user has none' })),
      },
      { additionalProperties: false },
    ),
    organizations: Type.Array(
      Type.Object(
        { id: Uuid('Organization id'), name: Type.String(), role: MemberRole },
        { additionalProperties: false },
      ),
      { description: "The caller's organizations, sorted by name" },
    ),
  },
  { description: 'The account the credential belongs to and its organizations' },
);
export type MeResponse = Static<typeof MeResponse>;

export const Organization = Type.Object(
  {
    id: Uuid('Organization id'),
    name: Type.String(),
    userOverride: UserOverride,
    memoryEnabled: Type.Boolean({
      description:
        'Whether the memory API serves this organization (read-only here: operators switch it with mnemo admin org set)',
    }),
    createdAt: Timestamp('When the organization was created'),
  },
  { $id: 'Organization', additionalProperties: false },
);
export type Organization = Static<typeof Organization>;

export const OrganizationResponse = Type.Object(
  { organization: Organization },
  { description: 'The organization' },
);

export const OrganizationPatchBody = Type.Object(
  {
    name: Type.Optional(Name('A new name')),
    userOverride: Type.Optional(UserOverride),
  },
  {
    additionalProperties: false,
    anyOf: [{ required: ['name'] }, { required: ['userOverride'] }],
    errorMessage: 'nothing to change: give name, userOverride or both',
    description: 'At least one field; memoryEnabled is read-only (400)',
  },
);
export type OrganizationPatchBody = Static<typeof OrganizationPatchBody>;

export const Member = Type.Object(
  {
    userId: Uuid('User id'),
    email: Type.String(),
    name: Type.Optional(Type.String({ description: 'Absent when the user has none' })),
    role: MemberRole,
    status: Type.Enum(['active', 'suspended', 'banned'], { description: "The account's status" }),
    joinedAt: Timestamp('When the user became a member'),
  },
  { $id: 'Member', additionalProperties: false },
);
export type Member = Static<typeof Member>;

export const MembersResponse = Type.Object(
  { members: Type.Array(Member) },
  { description: 'The members, in the order they joined' },
);
export const MemberResponse = Type.Object({ member: Member }, { description: 'The member' });

export const MemberAddBody = Type.Object(
  {
    email: Type.String({ minLength: 1, description: 'The email of an existing user' }),
    role: Type.Optional(MemberRole),
  },
  { additionalProperties: false },
);
export type MemberAddBody = Static<typeof MemberAddBody>;

export const MemberRoleBody = Type.Object({ role: MemberRole }, { additionalProperties: false });
export type MemberRoleBody = Static<typeof MemberRoleBody>;
