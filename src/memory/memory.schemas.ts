import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../platform/api-schemas.ts';
import { NOT_BLANK_TEXT_PATTERN } from '../platform/openapi-text-rule.ts';

export const CATEGORIES = [
  'identity',
  'preference',
  'goal',
  'project',
  'relationship',
  'constraint',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** The most memories one search answers (`limit`). */
export const MAX_SEARCH_LIMIT = 100;

export const MemoryItem = Type.Object(
  {
    id: Uuid('Unique identifier of the memory'),
    content: Type.String({ minLength: 1, description: 'The memory text; non-empty' }),
    category: Type.Optional(
      Type.Enum(CATEGORIES, {
        description: 'One of the six categories; absent when the memory has none',
      }),
    ),
    createdAt: Timestamp('When the memory was first recorded (UTC, milliseconds)'),
    updatedAt: Timestamp('When the memory was last changed; strictly increases with each change'),
  },
  { $id: 'MemoryItem', additionalProperties: false },
);
export type MemoryItem = Static<typeof MemoryItem>;

const categoryInput = Type.Unknown({
  description: `One of ${CATEGORIES.join(', ')}; any other value (or null) leaves the memory without a category, without an error`,
});

export const MemoryIdParams = Type.Object({
  id: Type.String({ description: 'Memory id (UUID)' }),
});

export const UserQuery = Type.Object(
  { user: Type.Optional(Uuid('Organization member to act for; default: the credential owner')) },
  { additionalProperties: false },
);

export const ListQuery = Type.Object(
  {
    since: Type.Optional(
      Type.String({
        minLength: 1,
        errorMessage: 'invalid cursor',
        description: 'A cursor from an earlier list response: return only changes since it',
      }),
    ),
    user: Type.Optional(Uuid('Organization member to act for; default: the credential owner')),
    project: Type.Optional(Uuid("Read this project's shared pool; not combinable with user")),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuery>;

/** An add takes no query parameters: `user` and `project` go in its body. */
export const AddQuery = Type.Object({}, { additionalProperties: false });

export const AddBody = Type.Object(
  {
    content: Type.String({
      pattern: NOT_BLANK_TEXT_PATTERN,
      errorMessage: { pattern: 'content is required' },
      description:
        'The memory text; at least one non-white-space character; no NUL (U+0000) or unpaired surrogate',
    }),
    category: Type.Optional(categoryInput),
    user: Type.Optional(Uuid('Organization member to act for')),
    project: Type.Optional(
      Uuid("Contribute to this project's pool (editor access); not combinable with user"),
    ),
  },
  { additionalProperties: false },
);
export type AddBody = Static<typeof AddBody>;

export const EraseQuery = Type.Object(
  {
    user: Type.Optional(Uuid("Erase this member's store; default: the credential owner's")),
    project: Type.Optional(
      Uuid("Erase this project's pool (owner access); not combinable with user"),
    ),
    category: Type.Optional(
      Type.Enum(CATEGORIES, {
        errorMessage: `category must be one of ${CATEGORIES.join(', ')}`,
        description: `Only the memories of this category: one of ${CATEGORIES.join(', ')}`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type EraseQuery = Static<typeof EraseQuery>;

export const ErasedResponse = Type.Object(
  {
    ok: Type.Literal(true),
    deleted: Type.Integer({ minimum: 0, description: 'How many memories were deleted' }),
  },
  { description: 'Every active memory of the store (of the category) deleted' },
);

/** The most memories one import takes. */
export const MAX_IMPORT_ITEMS = 1000;
/**
 * The largest import body: 1,000 memories of 8,000 characters (the default longest) as plain
 * text fit with room to spare; the rest of the API keeps its 64 KiB.
 */
export const MAX_IMPORT_BYTES = 16 * 1024 * 1024;

export const ImportBody = Type.Object(
  {
    user: Type.Optional(Uuid('Organization member to import for')),
    project: Type.Optional(
      Uuid("Import into this project's pool (editor access); not combinable with user"),
    ),
    memories: Type.Array(
      Type.Unknown({
        description:
          'A memory to add, checked alone: {"content": string (as an add\'s), "category"?: as an add\'s, "createdAt"?: an RFC 3339 date-time with its offset, from 1970 and not in the future}; no other field. An item that breaks a rule is answered "invalid" with its error, and the others are still added',
      }),
      { minItems: 1, maxItems: MAX_IMPORT_ITEMS, description: `1 to ${MAX_IMPORT_ITEMS} memories` },
    ),
  },
  { additionalProperties: false },
);
export type ImportBody = Static<typeof ImportBody>;

export const ImportResult = Type.Object(
  {
    status: Type.Union([Type.Literal('created'), Type.Literal('folded'), Type.Literal('invalid')], {
      description:
        'created: a new memory; folded: saved into the active memory of the same content (of the store, or an earlier item); invalid: not added',
    }),
    memory: Type.Optional(MemoryItem),
    error: Type.Optional(Type.String({ description: 'Why an invalid item was not added' })),
  },
  { additionalProperties: false },
);

export const ImportResponse = Type.Object(
  {
    results: Type.Array(ImportResult, { description: "One per item, in the items' order" }),
    created: Type.Integer({ minimum: 0 }),
    folded: Type.Integer({ minimum: 0 }),
    invalid: Type.Integer({ minimum: 0 }),
  },
  { description: 'Every item added in one write, each as an add, or refused alone' },
);
export type ImportResponse = Static<typeof ImportResponse>;

export const ExportQuery = Type.Object(
  {
    user: Type.Optional(Uuid("Export this member's store; default: the credential owner's")),
    project: Type.Optional(Uuid("Export this project's pool; not combinable with user")),
  },
  { additionalProperties: false },
);
export type ExportQuery = Static<typeof ExportQuery>;

/** The response header of an export: the cursor of the snapshot it was read from. */
export const EXPORT_CURSOR_HEADER = 'mnemo-cursor';

export const ExportStore = Type.Union(
  [
    Type.Object(
      {
        user: Uuid("The member's or end user's id"),
        endUser: Type.Optional(Type.String({ description: "An end user's id in the app's terms" })),
      },
      { additionalProperties: false },
    ),
    Type.Object({ project: Uuid("The project's id") }, { additionalProperties: false }),
  ],
  { description: 'Whose store: a member, an end user (with the app’s id) or a project pool' },
);
export type ExportStore = Static<typeof ExportStore>;

export const OrgExportLine = Type.Object(
  { store: ExportStore, memory: MemoryItem },
  {
    additionalProperties: false,
    description:
      'JSON Lines (application/x-ndjson): one line per active memory of every store of the organization, store by store, all read from one snapshot',
  },
);
export type OrgExportLine = Static<typeof OrgExportLine>;

export const UpdateBody = Type.Object(
  {
    content: Type.Optional(
      Type.String({
        pattern: NOT_BLANK_TEXT_PATTERN,
        errorMessage: { pattern: 'content is required' },
        description: 'New text; non-empty; no NUL (U+0000) or unpaired surrogate',
      }),
    ),
    category: Type.Optional(categoryInput),
    baseUpdatedAt: Type.Optional(
      Type.String({
        description:
          'The updatedAt the client last read. Ignored unless the server runs with optimistic concurrency, then a different stored updatedAt answers 409',
      }),
    ),
  },
  {
    additionalProperties: false,
    anyOf: [{ required: ['content'] }, { required: ['category'] }],
    errorMessage: 'at least one of content or category is required',
  },
);
export type UpdateBody = Static<typeof UpdateBody>;

export const MemoryResponse = Type.Object({ memory: MemoryItem }, { description: 'The memory' });

export const CreatedResponse = Type.Object(
  { memory: MemoryItem },
  {
    description: 'A new memory',
    headers: {
      location: { type: 'string', description: 'The new memory: /api/v1/memory/{id}' },
    },
  },
);

export const FoldedResponse = Type.Object(
  {
    memory: Type.Object(
      { id: Uuid('The existing memory the save was folded into'), content: Type.String() },
      { additionalProperties: false },
    ),
  },
  { description: 'Saved, nothing new to store: the add was folded into an existing memory' },
);

export const ListResponse = Type.Object(
  {
    memories: Type.Array(MemoryItem),
    deleted: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), {
        description: 'Ids removed since the cursor; present only with since',
      }),
    ),
    cursor: Type.String({ description: 'Opaque high-watermark; pass back as since' }),
  },
  { description: 'Active memories (all, or changed since the cursor) and the new cursor' },
);
export type ListResponse = Static<typeof ListResponse>;

export const OkResponse = Type.Object(
  { ok: Type.Literal(true) },
  { description: 'Deleted (or already deleted)' },
);

export const SearchQuery = Type.Object(
  {
    q: Type.String({
      pattern: NOT_BLANK_TEXT_PATTERN,
      errorMessage: { pattern: 'q is required' },
      description:
        'What to look for: keywords or a question, as a person types it. Memories holding more of what it asks rank first, each word weighed by how few memories hold it; function words are left out and words match their other forms; the last word, while the text does not end after it, is also a prefix. Punctuation and operators are searched as text, never parsed',
      examples: ['TICKET-4521'],
    }),
    category: Type.Optional(
      Type.Enum(CATEGORIES, { description: 'Only memories of this category' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_SEARCH_LIMIT,
        errorMessage: `limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}`,
        description: `Most memories to return, 1 to ${MAX_SEARCH_LIMIT} (default 20)`,
        examples: [20],
      }),
    ),
    user: Type.Optional(Uuid('Organization member to act for; default: the credential owner')),
    project: Type.Optional(Uuid("Search this project's shared pool; not combinable with user")),
  },
  { additionalProperties: false },
);
export type SearchQuery = Static<typeof SearchQuery>;

/** A MemoryItem and how well it matched. */
export const SearchHit = Type.Object(
  {
    ...MemoryItem.properties,
    score: Type.Number({
      description:
        "How well the memory matches; higher is better. Lexical: the engine's text rank; hybrid: the reciprocal rank fusion of both rankings, the sum of 1/(60 + rank)",
    }),
  },
  { additionalProperties: false },
);
export type SearchHit = Static<typeof SearchHit>;

export const SearchResponse = Type.Object(
  {
    memories: Type.Array(SearchHit),
    mode: Type.Union([Type.Literal('lexical'), Type.Literal('hybrid')], {
      description:
        'How the memories were found: lexical, by their words; hybrid, by their words and their meaning (an embedding model is configured and answered in time)',
    }),
  },
  { description: 'The active memories of the store that match, best first' },
);
export type SearchResponse = Static<typeof SearchResponse>;
