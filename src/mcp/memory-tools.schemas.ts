/**
 * The arguments and answers of the MCP tools. Arguments are named as in the memory API (`query`
 * where the API's search says `q`); answers are the API's own shapes: memories are MemoryItems,
 * a list carries the sync cursor, a project its access.
 */
import { type Static, Type } from 'typebox';
import { CATEGORIES, MemoryItem } from '../memory/index.ts';
import { Uuid } from '../platform/api-schemas.ts';
import { MemberRole, MeResponse, Project } from '../tenancy/index.ts';

const user = Type.Optional(
  Uuid(
    'Act for this member of the organization (their user id) instead of yourself, when you do so on their behalf. Not combinable with project',
  ),
);
const project = (what: string) =>
  Type.Optional(Uuid(`${what} Ids come from list_projects. Not combinable with user`));
const memoryId = Uuid('The memory id, as search_memories or list_memories gave it');
const CATEGORY_LIST = CATEGORIES.join(', ');

export const SearchInput = Type.Object(
  {
    query: Type.String({
      description:
        'What to look for, in plain words (a name, a topic, an identifier such as TICKET-4521). A question works too: memories holding more of what it asks rank first',
    }),
    category: Type.Optional(
      Type.Enum(CATEGORIES, { description: 'Only memories of this category' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'Most memories to return (default 20)',
      }),
    ),
    project: project("Search this project's shared pool instead of your own memories."),
    user,
  },
  { additionalProperties: false },
);
export type SearchInput = Static<typeof SearchInput>;

export const ListInput = Type.Object(
  {
    since: Type.Optional(
      Type.String({
        description:
          'The cursor of an earlier list_memories answer: return only what changed since then (changed memories, and the ids of deleted ones in deleted)',
      }),
    ),
    project: project("List this project's shared pool instead of your own memories."),
    user,
  },
  { additionalProperties: false },
);
export type ListInput = Static<typeof ListInput>;

/**
 * The tools that take a memory id find it by the id alone; `project` is accepted so that a call
 * naming the pool a memory was listed from works, and is held to the rule that it does not go
 * with `user`.
 */
const poolOfId = project(
  'The pool the memory is in, if it is a pool memory; optional: the id alone finds the memory.',
);

export const GetInput = Type.Object(
  { id: memoryId, project: poolOfId, user },
  { additionalProperties: false },
);
export type GetInput = Static<typeof GetInput>;

export const AddInput = Type.Object(
  {
    content: Type.String({
      description:
        'The memory: one self-contained statement in plain language, understandable without the conversation (for example "Prefers TypeScript over JavaScript for new projects")',
    }),
    category: Type.Optional(
      Type.String({
        description: `One of ${CATEGORY_LIST}; any other value is ignored and the memory is saved without a category`,
      }),
    ),
    project: project(
      "Add to this project's shared pool, seen by every collaborator of the project (needs editor access), instead of your own memories.",
    ),
    user,
  },
  { additionalProperties: false },
);
export type AddInput = Static<typeof AddInput>;

export const UpdateInput = Type.Object(
  {
    id: memoryId,
    content: Type.Optional(Type.String({ description: 'The new text of the memory' })),
    category: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: `The new category: one of ${CATEGORY_LIST}; null (or any other value) removes it`,
      }),
    ),
    project: poolOfId,
    user,
  },
  { additionalProperties: false },
);
export type UpdateInput = Static<typeof UpdateInput>;

export const DeleteInput = Type.Object(
  { id: memoryId, project: poolOfId, user },
  { additionalProperties: false },
);
export type DeleteInput = Static<typeof DeleteInput>;

export const NoInput = Type.Object({}, { additionalProperties: false });

/** MemoryItem's shape without its `$id`: a schema may hold it more than once. */
const Memory = Type.Object(MemoryItem.properties, { additionalProperties: false });

export const MemoryOutput = Type.Object({ memory: Memory }, { additionalProperties: false });
export type MemoryOutput = Static<typeof MemoryOutput>;

export const SearchOutput = Type.Object(
  {
    memories: Type.Array(
      Type.Object(
        {
          ...MemoryItem.properties,
          score: Type.Number({ description: 'How well the memory matches; higher is better' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Best first' },
    ),
    mode: Type.Union([Type.Literal('lexical'), Type.Literal('hybrid')], {
      description: 'How they were found: by their words, or by words and meaning',
    }),
  },
  { additionalProperties: false },
);
export type SearchOutput = Static<typeof SearchOutput>;

export const ListOutput = Type.Object(
  {
    memories: Type.Array(Memory),
    deleted: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), {
        description: 'Ids of memories deleted since the cursor given as since (only then)',
      }),
    ),
    cursor: Type.String({
      description: 'Pass it as since to the next list_memories to get only what changes after',
    }),
  },
  { additionalProperties: false },
);
export type ListOutput = Static<typeof ListOutput>;

export const AddOutput = Type.Object(
  {
    memory: Type.Union([
      Memory,
      Type.Object(
        {
          id: Uuid('The existing memory the save was folded into'),
          content: Type.String({ description: 'Its content' }),
        },
        { additionalProperties: false },
      ),
    ]),
    folded: Type.Boolean({
      description:
        'true: an equal memory existed already, nothing new was stored, and memory is that one (id and content)',
    }),
  },
  { additionalProperties: false },
);
export type AddOutput = Static<typeof AddOutput>;

export const DeleteOutput = Type.Object(
  { ok: Type.Literal(true), id: Uuid('The deleted memory') },
  { additionalProperties: false },
);
export type DeleteOutput = Static<typeof DeleteOutput>;

export const ProjectsOutput = Type.Object(
  {
    projects: Type.Array(Type.Object(Project.properties, { additionalProperties: false }), {
      description:
        'Sorted by name; access is your own (viewer reads the pool, editor and owner also add to it), absent for an organization owner or admin who holds no grant and sees the project through the organization',
    }),
  },
  { additionalProperties: false },
);
export type ProjectsOutput = Static<typeof ProjectsOutput>;

export const WhoamiOutput = Type.Object(
  {
    user: MeResponse.properties.user,
    organization: Type.Object(
      { id: Uuid('Organization id'), name: Type.String() },
      { additionalProperties: false },
    ),
    role: MemberRole,
  },
  { additionalProperties: false },
);
export type WhoamiOutput = Static<typeof WhoamiOutput>;
