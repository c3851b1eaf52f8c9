import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../platform/api-schemas.ts';
import { BLANK_NAME } from '../platform/errors.ts';
import { NOT_BLANK_TEXT_PATTERN } from '../platform/openapi-text-rule.ts';
import { MemoryModeSchema } from './memory-modes.ts';

const NullableTimestamp = (description: string) =>
  Type.Union([Timestamp(description), Type.Null()], { description });

export const NAME_MAX_CHARS = 100;

const memoryField = (fallback: string) =>
  MemoryModeSchema(
    `What a chat call (/v1) made with the key does with its owner's memories when the call sends no x-mnemo-memory header: off, read (recall them into the prompt) or read-write (recall, and learn from the conversation)${fallback}`,
  );
const memoryAccessField = (fallback: string) =>
  MemoryModeSchema(
    `The most memory any chat call made with the key may use, whatever its header asks: off (the key can never read or write memories), read, or read-write; memory may not exceed it${fallback}`,
  );

/** An API key as the platform API shows it: never the secret, nor its hash. */
export const ApiKey = Type.Object(
  {
    id: Uuid('Unique identifier of the key'),
    name: Type.String({ description: 'What the key is for' }),
    prefix: Type.String({
      description: 'The first characters of the secret, to tell keys apart',
      examples: ['mnemo_sk_3Vd0'],
    }),
    projectId: Type.Optional(Uuid('The project the key is bound to; absent when none')),
    userId: Uuid('The member who made the key and whom it acts as'),
    memory: memoryField(''),
    memoryAccess: memoryAccessField(''),
    createdAt: Timestamp('When the key was made (UTC, milliseconds)'),
    lastUsedAt: NullableTimestamp(
      'When the key last authenticated a call, to within a few seconds; null when never',
    ),
    expiresAt: NullableTimestamp('When the key stops working; null when never'),
    revokedAt: NullableTimestamp('When the key was revoked; null when it was not'),
  },
  { $id: 'ApiKey', additionalProperties: false },
);
export type ApiKey = Static<typeof ApiKey>;

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: NAME_MAX_CHARS,
      pattern: NOT_BLANK_TEXT_PATTERN,
      errorMessage: { minLength: BLANK_NAME, pattern: BLANK_NAME },
      description: `What the key is for: 1 to ${NAME_MAX_CHARS} characters, not only white space; stored trimmed`,
    }),
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When the key stops working (RFC 3339, in the future); default: never',
      }),
    ),
    projectId: Type.Optional(
      Uuid('Bind the key to this project of the organization (one you can read)'),
    ),
    memory: Type.Optional(memoryField('; default off')),
    memoryAccess: Type.Optional(memoryAccessField('; default read-write')),
  },
  { additionalProperties: false },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const UpdateKeyBody = Type.Object(
  {
    memory: Type.Optional(memoryField('')),
    memoryAccess: Type.Optional(memoryAccessField('')),
  },
  {
    additionalProperties: false,
    anyOf: [{ required: ['memory'] }, { required: ['memoryAccess'] }],
    errorMessage: 'memory or memoryAccess is required',
    description: 'The memory settings to change (at least one); the others keep their values',
  },
);
export type UpdateKeyBody = Static<typeof UpdateKeyBody>;

export const KeyIdParams = Type.Object({
  id: Type.String({ description: 'API key id (UUID)' }),
});

export const CreatedKeyResponse = Type.Object(
  {
    key: ApiKey,
    secret: Type.String({
      description: 'The secret, shown in this response only: it cannot be read again',
      examples: ['mnemo_sk_3Vd0q8Ct1zQm6bBvX4eKcP2sLwN9fYhR7jTgUaDx5Ei1kT2Lm0'],
    }),
  },
  {
    description: 'A new key and its secret (shown once)',
    headers: {
      location: { type: 'string', description: 'The new key: /api/v1/api-keys/{id}' },
    },
  },
);

export const KeyListResponse = Type.Object(
  { keys: Type.Array(ApiKey) },
  {
    description:
      'The keys you can see, newest first: your own, or every key of the organization for owners and admins; revoked keys included',
  },
);

export const UpdatedKeyResponse = Type.Object(
  { key: ApiKey },
  { description: 'The key with its new settings' },
);

export const RevokedResponse = Type.Object(
  { ok: Type.Literal(true) },
  { description: 'Revoked (or already revoked)' },
);
