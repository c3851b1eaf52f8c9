import { type Static, Type } from 'typebox';
import { Uuid } from '../platform/api-schemas.ts';

/** A connected MCP client, as the platform API shows it to the person who connected it. */
export const Connection = Type.Object(
  {
    id: Uuid('The connection'),
    clientId: Type.String({
      description:
        'The client: the URL of its metadata document, or the id it was registered under',
      examples: ['https://notes.example.com/oauth/client-metadata.json'],
    }),
    clientName: Type.String({ description: 'Its name, as the consent page showed it' }),
    organization: Type.Object(
      { id: Uuid('Organization id'), name: Type.String() },
      { description: 'The organization its tools act in', additionalProperties: false },
    ),
    createdAt: Type.String({
      format: 'date-time',
      description: 'When the person allowed it (UTC, milliseconds)',
      examples: ['2026-11-24T09:30:00.000Z'],
    }),
  },
  { $id: 'Connection', additionalProperties: false },
);
export type Connection = Static<typeof Connection>;

export const ConnectionListResponse = Type.Object(
  {
    connections: Type.Array(Connection, {
      description: 'Newest first; a connection whose grant expired is not listed',
    }),
  },
  { additionalProperties: false },
);

export const ConnectionIdParams = Type.Object({
  id: Type.String({ description: 'Connection id (UUID)' }),
});

export const RevokedConnectionResponse = Type.Object(
  { ok: Type.Literal(true) },
  {
    description:
      'Revoked: its tokens are refused by /mcp from the next request, and its refresh tokens are spent',
  },
);
