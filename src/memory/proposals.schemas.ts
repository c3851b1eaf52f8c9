import { type Static, Type } from 'typebox';
import { Uuid } from '../platform/api-schemas.ts';
import { CATEGORIES, MemoryItem } from './memory.schemas.ts';

export const Proposal = Type.Object(
  {
    id: Uuid('Unique identifier of the proposal'),
    action: Type.Enum(['add', 'update'], {
      description: 'add: a new memory; update: new content for the memory memoryId',
    }),
    memoryId: Type.Optional(Uuid('The memory an update would change')),
    content: Type.String({ description: 'The memory text proposed' }),
    category: Type.Optional(Type.Enum(CATEGORIES)),
    projectId: Type.Optional(
      Uuid("The project whose shared pool it would go to; absent: the member's own memories"),
    ),
    current: Type.Optional(
      Type.Union([MemoryItem, Type.Null()], {
        description:
          'For an update: the memory as it is now, or null when it is gone (accepting then fails)',
      }),
    ),
    keyId: Uuid('The API key of the chat call it was learned from'),
    createdAt: Type.String({ format: 'date-time', description: 'When extraction proposed it' }),
  },
  { $id: 'MemoryProposal', additionalProperties: false },
);
export type Proposal = Static<typeof Proposal>;

export const ProposalListResponse = Type.Object(
  { proposals: Type.Array(Proposal) },
  {
    description:
      'What extraction proposed from your chat calls and waits for you to accept or drop, oldest first',
  },
);

export const ProposalIdParams = Type.Object({
  id: Type.String({ description: 'Proposal id (UUID)' }),
});

export const AcceptedResponse = Type.Object(
  {
    memory: Type.Union([
      MemoryItem,
      Type.Object(
        { id: Type.String({ format: 'uuid' }), content: Type.String() },
        { additionalProperties: false },
      ),
    ]),
    folded: Type.Boolean({
      description:
        'true when an add was folded into an existing memory (then memory is its id and content)',
    }),
  },
  { description: 'Accepted: saved through the same path as POST or PATCH /api/v1/memory' },
);

export const DroppedResponse = Type.Object({ ok: Type.Literal(true) }, { description: 'Dropped' });
