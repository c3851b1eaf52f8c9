import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { Environment } from '../config.ts';
import { allows, insufficientScope } from '../credentials/index.ts';
import {
  OrganizationHeader,
  PLATFORM_ERROR_RESPONSES,
  rulesNoSchemaStates,
} from '../platform/api-schemas.ts';
import type { ConcurrentHolds } from '../platform/concurrent-holds.ts';
import { ApiError, badRequest } from '../platform/errors.ts';
import { requireJsonBody } from '../platform/json-body.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import { sendJsonText, sendStream } from '../platform/raw-replies.ts';
import {
  type Caller,
  memoryEnabled,
  type PlatformAuthentication,
  tooManyRequests,
} from '../tenancy/index.ts';
import { memoryFeatureOff } from './memory.errors.ts';
import {
  AddBody,
  AddQuery,
  CreatedResponse,
  ErasedResponse,
  EraseQuery,
  EXPORT_CURSOR_HEADER,
  ExportQuery,
  FoldedResponse,
  ImportBody,
  ImportResponse,
  ListQuery,
  ListResponse,
  MAX_IMPORT_BYTES,
  MemoryIdParams,
  MemoryItem,
  MemoryResponse,
  OkResponse,
  SearchQuery,
  SearchResponse,
  UpdateBody,
  UserQuery,
} from './memory.schemas.ts';
import type { MemoryService, ReachableMemory, ScopeState } from './memory.service.ts';
import type { MemoryEvents } from './memory-events.ts';

export interface MemoryRoutesDeps {
  readonly service: MemoryService;
  readonly environment: Environment;
  /** The longest a memory's text may be, in characters (an operation's description says it). */
  readonly maxContentChars: number;
  /** The platform's checks (credential, rate, organization, account); set `request.caller`. */
  readonly authentication: Pick<PlatformAuthentication, 'member' | 'memberReading' | 'readmit'>;
  /** Change streams (`/events`), and how many one account may hold open at once. */
  readonly events: MemoryEvents;
  readonly openStreams: ConcurrentHolds;
  /** Memories imported per account and minute, beside the request's own count; none: off. */
  readonly importItems?: RateLimiter | undefined;
}

const BASE = '/api/v1/memory';
/** JSON Lines, as exports are sent. */
export const NDJSON = 'application/x-ndjson';
/** Server-sent events, as change streams are sent. */
export const EVENT_STREAM = 'text/event-stream';

/** How long a refused stream is told to wait before opening another (Retry-After). */
const STREAMS_RETRY_SECONDS = 5;
const tooManyStreams = (limit: number) =>
  new ApiError(
    429,
    'too_many_streams',
    `too many open event streams: at most ${limit} per account; close one and retry in ${STREAMS_RETRY_SECONDS} s`,
    { headers: { 'retry-after': String(STREAMS_RETRY_SECONDS) } },
  );

/**
 * The spec takes an add's `user` and `project` in the body only: sent in the query instead, they
 * would be dropped and the memory land in the caller's own store. Says where they go, before
 * the schema's plain `unknown field`.
 */
function ownerInBody(request: FastifyRequest, _reply: FastifyReply, done: (e?: Error) => void) {
  const query = request.query as Record<string, unknown>;
  const misplaced = ['user', 'project'].find((name) => Object.hasOwn(query, name));
  done(
    misplaced === undefined
      ? undefined
      : badRequest(
          `query parameter ${misplaced} is not accepted on POST: send "${misplaced}" in the body`,
        ),
  );
}

const errors = PLATFORM_ERROR_RESPONSES;

/**
 * Whether the request reads the caller's own personal store, by its query as sent (not yet
 * validated: anything unusual reads nothing along, and is judged by the usual path).
 */
function readsOwnStore(request: FastifyRequest, userId: string): boolean {
  const query = request.query as { user?: unknown; project?: unknown };
  const user = query.user;
  return (
    query.project === undefined &&
    (user === undefined || (typeof user === 'string' && user.toLowerCase() === userId))
  );
}

export function registerMemoryRoutes(parent: FastifyInstance, deps: MemoryRoutesDeps): void {
  const { service, authentication } = deps;
  // Streams still open when the server closes are ended, or closing would wait for them.
  const streams = new Set<AbortController>();
  parent.addHook('preClose', async () => {
    for (const stream of streams) stream.abort();
  });

  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();

    // Scopes are checked with account status and membership (403), before anything else.
    const scopeAllowed: onRequestHookHandler = (request, _reply, done) => {
      const read = request.method === 'GET' || request.method === 'HEAD';
      const scope = read ? 'memory:read' : 'memory:write';
      done(allows(request.caller, scope) ? undefined : insufficientScope(scope));
    };
    // Callback hooks where there is nothing to await: they run on every request.
    const memoryOn: onRequestHookHandler = (request, _reply, done) => {
      const on = memoryEnabled(deps.environment, request.caller.memoryEnabled);
      done(on ? undefined : memoryFeatureOff());
    };
    /** A stream's caller, judged again (`readmit`), held to the hooks' rules as well. */
    const memoryStillOn = (caller: Caller): Caller => {
      if (!allows(caller, 'memory:read')) throw insufficientScope('memory:read');
      if (!memoryEnabled(deps.environment, caller.memoryEnabled)) throw memoryFeatureOff();
      return caller;
    };
    const checkedBy = (authenticate: onRequestHookHandler) => [
      authenticate,
      scopeAllowed,
      memoryOn,
    ];
    const checks = checkedBy(authentication.member);

    // GET one and the list of one's own store read what they need first in the caller's own
    // statement (one round trip for both), kept here for the handler.
    const ownMemory = new WeakMap<FastifyRequest, { memory: ReachableMemory | undefined }>();
    const ownScope = new WeakMap<FastifyRequest, { state: ScopeState | undefined }>();
    const readingOwnMemory = checkedBy(
      authentication.memberReading(
        (request, account, orgId) => {
          const { id } = request.params as { id: string };
          return readsOwnStore(request, account.userId)
            ? service.readOwnWithCaller(account.userId, orgId, id)
            : undefined;
        },
        (request, memory) => ownMemory.set(request, { memory }),
      ),
    );
    const readingOwnScope = checkedBy(
      authentication.memberReading(
        (request, account, orgId) =>
          readsOwnStore(request, account.userId)
            ? service.readOwnScopeWithCaller(account.userId, orgId)
            : undefined,
        (request, state) => ownScope.set(request, { state }),
      ),
    );
    app.addHook('preValidation', requireJsonBody);

    const common = {
      tags: ['memory'],
      headers: OrganizationHeader,
    };
    // What a store's rules refuse that no schema can state (docs/design.md §3.3).
    const actingFor = {
      'user is not a member of this organization': '`user` names no member of the organization',
    };
    const oneStore = {
      ...actingFor,
      'project cannot be combined with user': 'both `user` and `project` are given',
    };
    const tooLong = {
      [`content is too long: at most ${deps.maxContentChars} characters`]:
        'the text is longer than the server allows',
    };
    const reads = { security: [{ platformCredential: ['memory:read'] }] };
    const writes = { security: [{ platformCredential: ['memory:write'] }] };

    app.get(
      BASE,
      {
        onRequest: readingOwnScope,
        schema: {
          ...common,
          ...reads,
          summary: 'List memories, in full or changed since a cursor',
          description: rulesNoSchemaStates({
            ...oneStore,
            'invalid cursor': '`since` is not a cursor this server gave for this store',
          }),
          querystring: ListQuery,
          response: { 200: ListResponse, ...errors },
        },
      },
      async (request, reply) => {
        // Already the JSON of a ListResponse (full lists are kept serialized): sent as it is.
        const body = await service.list(request.caller, request.query, ownScope.get(request));
        return sendJsonText(reply, body);
      },
    );

    app.get(
      `${BASE}/search`,
      {
        onRequest: checks,
        schema: {
          ...common,
          ...reads,
          summary: 'Search memories by their words, best first',
          description: rulesNoSchemaStates(oneStore),
          querystring: SearchQuery,
          response: { 200: SearchResponse, ...errors },
        },
      },
      async (request) => service.search(request.caller, request.query, request.signal),
    );

    app.get(
      `${BASE}/export`,
      {
        onRequest: checks,
        schema: {
          ...common,
          ...reads,
          summary:
            'Every memory of the store as JSON lines, read from one snapshot, with its cursor',
          description: rulesNoSchemaStates(oneStore),
          querystring: ExportQuery,
          response: {
            200: {
              description:
                'One MemoryItem a line (JSON Lines), every active memory of the store as one snapshot held them, in the order they last changed. The Mnemo-Cursor header is the cursor of that snapshot: a list with since= it answers every change made after it',
              headers: {
                [EXPORT_CURSOR_HEADER]: Type.String({
                  description: "The snapshot's cursor, for since= of the list",
                }),
              },
              content: { [NDJSON]: { schema: MemoryItem } },
            },
            ...errors,
          },
        },
      },
      async (request, reply) => {
        const { cursor, lines } = await service.export(request.caller, request.query);
        // A stream is sent as it is, not serialized: the schema above documents each line.
        return sendStream(reply.header(EXPORT_CURSOR_HEADER, cursor), NDJSON, lines);
      },
    );

    app.get(
      `${BASE}/events`,
      {
        onRequest: checks,
        schema: {
          ...common,
          ...reads,
          summary: "Follow a store's changes as server-sent events",
          description: rulesNoSchemaStates({
            ...oneStore,
            'invalid cursor':
              '`since` (or the `Last-Event-ID` header) is not a cursor this server gave for this store',
          }),
          querystring: ListQuery,
          response: {
            200: {
              description: [
                'Server-sent events, each with `id:` a cursor to resume from (`since`, or the `Last-Event-ID` header on reconnection):',
                '`change` (data: a MemoryItem) for a memory added or changed, `delete` (data: `{"id"}`) for one deleted,',
                '`sync` (data: `{"cursor"}`) after each batch: everything up to that cursor has been sent,',
                'and `error` (data: `{"error", "status"}`) before the stream ends because the caller may no longer read the store.',
                'Without a cursor, every active memory comes first as `change`. A comment line (`: ping`) at least every 25 s.',
                'A client that applies the events in order holds what a list pulled at the last cursor holds.',
              ].join(' '),
              content: { [EVENT_STREAM]: { schema: Type.String() } },
            },
            ...errors,
          },
        },
      },
      async (request, reply) => {
        const release = await deps.openStreams.take(request.caller.userId);
        if (!release) throw tooManyStreams(deps.openStreams.limit);
        const stream = new AbortController();
        // Ended by the server closing: the connection closes with it, since closing has shut
        // the idle ones already and would wait for this one to go idle.
        stream.signal.addEventListener('abort', () => {
          reply.raw.shouldKeepAlive = false;
        });
        try {
          const lastEventId = request.headers['last-event-id'];
          const { events } = await deps.events.open(
            request.caller,
            request.query,
            typeof lastEventId === 'string' && lastEventId !== ''
              ? lastEventId
              : request.query.since,
            () => authentication.readmit(request).then(memoryStillOn),
            stream.signal,
          );
          streams.add(stream);
          const ended = () => {
            stream.abort();
            streams.delete(stream);
            release();
          };
          // The client went away, or the stream ended: either way its place is given back.
          reply.raw.once('close', ended);
          // Gone while its place was taken or its first page read: no close is to come.
          if (reply.raw.closed) ended();
          return sendStream(reply, EVENT_STREAM, Readable.from(events), {
            'x-accel-buffering': 'no',
          });
        } catch (error) {
          release();
          throw error;
        }
      },
    );

    app.get(
      `${BASE}/:id`,
      {
        onRequest: readingOwnMemory,
        schema: {
          ...common,
          ...reads,
          summary: 'Get one memory',
          description: rulesNoSchemaStates(actingFor),
          params: MemoryIdParams,
          querystring: UserQuery,
          response: { 200: MemoryResponse, ...errors },
        },
      },
      async (request) => ({
        memory: await service.get(
          request.caller,
          request.params.id,
          request.query.user,
          ownMemory.get(request),
        ),
      }),
    );

    app.post(
      BASE,
      {
        onRequest: checks,
        preValidation: ownerInBody,
        schema: {
          ...common,
          ...writes,
          summary: 'Add a memory (201), or fold it into an equal one (200)',
          description: rulesNoSchemaStates({ ...oneStore, ...tooLong }),
          querystring: AddQuery,
          body: AddBody,
          response: { 201: CreatedResponse, 200: FoldedResponse, ...errors },
        },
      },
      async (request, reply) => {
        const outcome = await service.add(request.caller, request.body);
        if (!outcome.created) return reply.code(200).send({ memory: outcome.memory });
        return reply
          .code(201)
          .header('location', `${BASE}/${outcome.memory.id}`)
          .send({ memory: outcome.memory });
      },
    );

    app.delete(
      BASE,
      {
        onRequest: checks,
        schema: {
          ...common,
          ...writes,
          summary: 'Delete every memory of a store, or of one category of it',
          description: rulesNoSchemaStates(oneStore),
          querystring: EraseQuery,
          response: { 200: ErasedResponse, ...errors },
        },
      },
      async (request) => ({
        ok: true as const,
        deleted: await service.erase(request.caller, request.query),
      }),
    );

    app.post(
      `${BASE}/import`,
      {
        onRequest: checks,
        bodyLimit: MAX_IMPORT_BYTES,
        preValidation: ownerInBody,
        schema: {
          ...common,
          ...writes,
          summary: 'Add up to 1,000 memories in one write, each as an add',
          description: rulesNoSchemaStates(oneStore),
          querystring: AddQuery,
          body: ImportBody,
          response: { 200: ImportResponse, ...errors },
        },
      },
      async (request) => {
        const { importItems } = deps;
        return service.import(request.caller, request.body, async (items) => {
          if (!importItems) return;
          const decision = await importItems.hit(
            `import ${request.caller.userId}`,
            undefined,
            items,
          );
          if (!decision.allowed) {
            throw tooManyRequests('import-items', decision, 'too many memories imported; ');
          }
        });
      },
    );

    app.patch(
      `${BASE}/:id`,
      {
        onRequest: checks,
        schema: {
          ...common,
          ...writes,
          summary: 'Update a memory',
          description: rulesNoSchemaStates({
            ...actingFor,
            ...tooLong,
            'baseUpdatedAt must be a timestamp like 2026-11-22T09:30:00.000Z':
              'optimistic concurrency is on and `baseUpdatedAt` is no timestamp',
          }),
          params: MemoryIdParams,
          querystring: UserQuery,
          body: UpdateBody,
          response: {
            200: MemoryResponse,
            409: Type.Object(
              { error: Type.String(), memory: MemoryItem },
              {
                description:
                  'Changed by another writer since baseUpdatedAt (optimistic concurrency on)',
              },
            ),
            ...errors,
          },
        },
      },
      async (request) => ({
        memory: await service.update(
          request.caller,
          request.params.id,
          request.query.user,
          request.body,
        ),
      }),
    );

    app.delete(
      `${BASE}/:id`,
      {
        onRequest: checks,
        schema: {
          ...common,
          ...writes,
          summary: 'Delete a memory (idempotent)',
          description: rulesNoSchemaStates(actingFor),
          params: MemoryIdParams,
          querystring: UserQuery,
          response: { 200: OkResponse, ...errors },
        },
      },
      async (request) => {
        await service.remove(request.caller, request.params.id, request.query.user);
        return { ok: true as const };
      },
    );
  });

  registerMethodNotAllowed(parent, BASE, ['GET', 'POST', 'DELETE']);
  registerMethodNotAllowed(parent, `${BASE}/search`, ['GET']);
  registerMethodNotAllowed(parent, `${BASE}/import`, ['POST']);
  registerMethodNotAllowed(parent, `${BASE}/export`, ['GET']);
  registerMethodNotAllowed(parent, `${BASE}/events`, ['GET']);
  registerMethodNotAllowed(parent, `${BASE}/:id`, ['GET', 'PATCH', 'DELETE']);
}
