import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../platform/api-schemas.ts';
import { Name, UserKind } from './orgs.schemas.ts';

export const ProjectAccess = Type.Enum(['viewer', 'editor', 'owner'], {
  description:
    "viewer reads the project's pool; editor also contributes; owner also manages its collaborators",
});

export const Project = Type.Object(
  {
    id: Uuid('Project id'),
    name: Type.String(),
    createdAt: Timestamp('When the project was created'),
    access: Type.Optional(
      Type.Enum(['viewer', 'editor', 'owner'], {
        description:
          "The caller's own access to the project; absent when the caller holds none (owners and admins of the organization manage every project without one)",
      }),
    ),
  },
  { $id: 'Project', additionalProperties: false },
);
export type Project = Static<typeof Project>;

export const ProjectResponse = Type.Object({ project: Project }, { description: 'The project' });
export const ProjectsResponse = Type.Object(
  { projects: Type.Array(Project) },
  {
    description:
      'The projects the caller has access to (owners and admins: all of them), sorted by name',
  },
);

export const ProjectIdParams = Type.Object({
  projectId: Type.String({ description: 'Project id' }),
});
export const CollaboratorParams = Type.Object({
  projectId: Type.String({ description: 'Project id' }),
  userId: Type.String({ description: "The collaborator's user id" }),
});

export const ProjectBody = Type.Object(
  { name: Name('The project name') },
  { additionalProperties: false },
);
export type ProjectBody = Static<typeof ProjectBody>;

export const Collaborator = Type.Object(
  {
    userId: Uuid('User id'),
    kind: UserKind,
    email: Type.Optional(
      Type.String({ description: 'Absent for end users and apps, who never sign in' }),
    ),
    name: Type.Optional(Type.String({ description: 'Absent when the user has none' })),
    access: ProjectAccess,
  },
  { $id: 'Collaborator', additionalProperties: false },
);
export type Collaborator = Static<typeof Collaborator>;

export const CollaboratorsResponse = Type.Object(
  { collaborators: Type.Array(Collaborator) },
  { description: 'The users with access to the project, in the order they were granted it' },
);
export const CollaboratorResponse = Type.Object(
  { collaborator: Collaborator },
  { description: 'The collaborator, with the access now held' },
);

export const CollaboratorBody = Type.Object(
  { access: ProjectAccess },
  { additionalProperties: false },
);
export type CollaboratorBody = Static<typeof CollaboratorBody>;
