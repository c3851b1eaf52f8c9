/**
 * The MCP server's tools as a client meets them through either door (`/mcp` over HTTP, `mnemo
 * mcp` over stdio): one world of organizations, people and projects on a listening app, and one
 * set of scenarios with exact answers, run against each door and each protocol era. The same
 * expectations for both doors are the proof that they are one service, not two.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { MemberRole } from '../db/tables.ts';
import { buildTestApp, type TestApp } from './build-test-app.ts';
import { freePort } from './server-process.ts';

/** The protocol eras a client may speak, and the revision each negotiates with mnemo. */
export const ERAS = [
  { era: 'legacy', mode: 'legacy', revision: '2025-11-25' },
  { era: 'modern', mode: 'auto', revision: '2026-07-28' },
] as const;
export type Era = (typeof ERAS)[number]['era'];

export interface Person {
  readonly id: string;
  readonly email: string;
  /** A platform credential (no scope claim: everything). */
  readonly token: string;
}

export interface McpWorld {
  readonly t: TestApp;
  /** The app's public URL, a loopback port. */
  readonly url: string;
  /** Acme, where memory is on. */
  readonly orgId: string;
  /** Dormant, where memory is switched off. */
  readonly offOrgId: string;
  /** A member of Acme (and of Dormant) with a fresh store of memories. */
  person(options?: { role?: MemberRole; alsoIn?: string }): Promise<Person>;
  project(grants: Record<string, 'viewer' | 'editor' | 'owner'>): Promise<string>;
  /** A request to the API as `who` in `orgId`: the REST door, beside the MCP one. */
  api(
    who: Person,
    path: string,
    init?: { method?: string; body?: unknown; orgId?: string },
  ): Promise<Response>;
  close(): Promise<void>;
}

/** The real app on a loopback port, as a client reaches it. */
export async function startMcpWorld(env: Record<string, string> = {}): Promise<McpWorld> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await buildTestApp({ MNEMO_PUBLIC_URL: url, ...env });
  await t.app.listen({ port, host: '127.0.0.1' });
  const orgId = await t.fixtures.org({ name: 'Acme' });
  const offOrgId = await t.fixtures.org({ name: 'Dormant', memoryEnabled: false });
  return {
    t,
    url,
    orgId,
    offOrgId,
    async person(options = {}) {
      const user = await t.fixtures.user(orgId, options.role ?? 'member');
      if (options.alsoIn) await t.fixtures.member(options.alsoIn, user.id);
      return { ...user, email: `${user.id}@example.test` };
    },
    async project(grants) {
      return t.fixtures.project(orgId, grants);
    },
    api: (who, path, init = {}) =>
      fetch(`${url}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${who.token}`,
          'x-organization-id': init.orgId ?? orgId,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      }),
    close: () => t.close(),
  };
}

/**
 * What a tool answered, without the protocol's `_meta` (the 2026 revision stamps the server),
 * and with a text block that holds JSON as the value it holds (`json`): the two doors write the
 * same values, their members in different orders (the API's serializer puts required ones first).
 */
export interface ToolAnswer {
  readonly content: unknown;
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer> {
  const { content, structuredContent, isError } = await client.callTool({ name, arguments: args });
  return {
    content: content.map((block) =>
      block.type === 'text' && block.text.startsWith('{')
        ? { type: 'text', json: JSON.parse(block.text) as unknown }
        : block,
    ),
    ...(structuredContent === undefined ? {} : { structuredContent }),
    ...(isError === undefined ? {} : { isError }),
  };
}

/** A tool's refusal: the sentence, as the only content. */
export const refusal = (text: string): ToolAnswer => ({
  content: [{ type: 'text', text }],
  isError: true,
});

/** A tool's success: the sentence, the result as JSON text, and the result. */
export const success = (summary: string, result: Record<string, unknown>): ToolAnswer => ({
  content: [
    { type: 'text', text: summary },
    { type: 'text', json: result },
  ],
  structuredContent: result,
});

/** `Input validation error: …`: the SDK's words around the argument's own sentence. */
export const badArguments = (tool: string, sentence: string) =>
  refusal(`Input validation error: Invalid arguments for tool ${tool}: ${sentence}`);

const read = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

/** `tools/list`, as every client sees it: names in order, titles and annotations. */
export const EXPECTED_TOOLS = [
  ['search_memories', { title: 'Search memories', ...read }],
  [
    'add_memory',
    {
      title: 'Add a memory',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  ],
  ['list_memories', { title: 'List memories', ...read }],
  ['get_memory', { title: 'Get a memory', ...read }],
  [
    'update_memory',
    {
      title: 'Update a memory',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
  ],
  [
    'delete_memory',
    {
      title: 'Delete a memory',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
  ],
  ['list_projects', { title: 'List projects', ...read }],
  ['whoami', { title: 'Who am I', ...read }],
] as const;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Opens a client to the door under test, as `who` in `orgId`, speaking `era`. */
export type Connect = (who: Person, orgId: string, era: Era) => Promise<Client>;

/**
 * The scenarios every door must pass, with the same answers: success paths with exact structured
 * content, and each failure as a tool error carrying the API's sentence.
 */
export function describeMemoryTools(door: string, world: () => McpWorld, connect: Connect): void {
  for (const { era, revision } of ERAS) {
    describe(`${door}, ${era} era`, () => {
      /** Clients opened by a test of this era, closed after them. */
      const open: Client[] = [];
      const as = async (who: Person, orgId = world().orgId) => {
        const client = await connect(who, orgId, era);
        open.push(client);
        return client;
      };
      afterAll(async () => {
        await Promise.all(open.map((client) => client.close()));
      });

      test('the server, its instructions and tools/list: names, annotations, every output schema', async () => {
        const client = await as(await world().person());
        expect(client.getNegotiatedProtocolVersion()).toBe(revision);
        expect(client.getServerVersion()).toEqual({ name: 'mnemo', version: '0.1.0' });
        expect(client.getInstructions()).toMatch(/^mnemo keeps long-term memories about the user/);
        const { tools } = await client.listTools();
        expect(tools.map((tool) => [tool.name, tool.annotations])).toEqual(EXPECTED_TOOLS);
        for (const tool of tools) {
          expect(tool.description?.length, tool.name).toBeGreaterThan(20);
          expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
          expect(tool.outputSchema).toMatchObject({ type: 'object', additionalProperties: false });
        }
        const byName = new Map(tools.map((tool) => [tool.name, tool]));
        expect(byName.get('search_memories')?.inputSchema.required).toEqual(['query']);
        expect(byName.get('add_memory')?.inputSchema.required).toEqual(['content']);
        expect(Object.keys(byName.get('add_memory')?.inputSchema.properties ?? {})).toEqual([
          'content',
          'category',
          'project',
          'user',
        ]);
        expect(byName.get('list_memories')?.outputSchema?.required).toEqual(['memories', 'cursor']);
        expect(byName.get('whoami')?.inputSchema).toEqual({
          type: 'object',
          properties: {},
          additionalProperties: false,
        });
      });

      test('add, a folded add, get, search, update, delete, and a pull since a cursor', async () => {
        const client = await as(await world().person());
        const added = await callTool(client, 'add_memory', {
          content: 'Prefers tea',
          category: 'preference',
        });
        const first = (added.structuredContent as { memory: Record<string, string> }).memory;
        expect(first).toEqual({
          id: expect.stringMatching(UUID),
          content: 'Prefers tea',
          createdAt: expect.stringMatching(TIMESTAMP),
          updatedAt: first?.createdAt,
          category: 'preference',
        });
        expect(added).toEqual(
          success(`Saved as memory ${first?.id}.`, { memory: first, folded: false }),
        );
        const id = first?.id ?? '';

        const full = await callTool(client, 'list_memories');
        const { cursor } = full.structuredContent as { cursor: string };
        expect(full).toEqual(
          success('1 memory. Pass the cursor as since to get only later changes.', {
            memories: [first],
            cursor,
          }),
        );

        // The same words, another case and a final full stop: folded, nothing new stored.
        expect(await callTool(client, 'add_memory', { content: 'prefers TEA.' })).toEqual(
          success(`Already remembered: folded into memory ${id}, nothing new stored.`, {
            memory: { id, content: 'Prefers tea' },
            folded: true,
          }),
        );
        expect(await callTool(client, 'get_memory', { id })).toEqual(
          success(`Memory ${id}.`, { memory: first }),
        );
        const found = await callTool(client, 'search_memories', { query: 'tea' });
        const score = (found.structuredContent as { memories: { score: number }[] }).memories[0]
          ?.score;
        expect(score).toBeGreaterThan(0);
        expect(found).toEqual(
          success('1 memory matches "tea", best first.', {
            memories: [{ ...first, score }],
            mode: 'lexical',
          }),
        );
        expect(await callTool(client, 'search_memories', { query: 'coffee' })).toEqual(
          success('No memory matches "coffee".', { memories: [], mode: 'lexical' }),
        );

        const other = await callTool(client, 'add_memory', { content: 'Works on mnemo' });
        const otherId = (other.structuredContent as { memory: { id: string } }).memory.id;
        const updated = await callTool(client, 'update_memory', {
          id,
          content: 'Prefers green tea',
        });
        const changed = (updated.structuredContent as { memory: Record<string, string> }).memory;
        expect(changed).toEqual({
          ...first,
          content: 'Prefers green tea',
          updatedAt: expect.stringMatching(TIMESTAMP),
        });
        expect(Date.parse(changed?.updatedAt ?? '')).toBeGreaterThan(
          Date.parse(first?.updatedAt ?? ''),
        );
        expect(updated).toEqual(success(`Updated memory ${id}.`, { memory: changed }));
        expect(await callTool(client, 'delete_memory', { id: otherId })).toEqual(
          success(`Deleted memory ${otherId}.`, { ok: true, id: otherId }),
        );
        // Deleting it again is no error.
        expect(await callTool(client, 'delete_memory', { id: otherId })).toEqual(
          success(`Deleted memory ${otherId}.`, { ok: true, id: otherId }),
        );

        const since = await callTool(client, 'list_memories', { since: cursor });
        const next = (since.structuredContent as { cursor: string }).cursor;
        expect(next).not.toBe(cursor);
        expect(since).toEqual(
          success('1 memory changed and 1 deleted since the cursor.', {
            memories: [changed],
            deleted: [otherId],
            cursor: next,
          }),
        );
        expect(await callTool(client, 'list_memories', { since: next })).toEqual(
          success('0 memories changed and 0 deleted since the cursor.', {
            memories: [],
            deleted: [],
            cursor: next,
          }),
        );

        // A category of null removes it.
        const uncategorized = await callTool(client, 'update_memory', { id, category: null });
        expect(uncategorized.structuredContent).toEqual({
          memory: {
            id,
            content: 'Prefers green tea',
            createdAt: first?.createdAt,
            updatedAt: expect.stringMatching(TIMESTAMP),
          },
        });
        expect(await callTool(client, 'get_memory', { id: otherId })).toEqual(
          refusal('memory not found'),
        );
      });

      test('whoami names the user and the organization the connection acts in', async () => {
        const ada = await world().person({ role: 'admin' });
        expect(await callTool(await as(ada), 'whoami')).toEqual(
          success(
            `Acting as ${ada.email} (user ${ada.id}), admin of Acme (organization ${world().orgId}).`,
            {
              user: { id: ada.id, email: ada.email },
              organization: { id: world().orgId, name: 'Acme' },
              role: 'admin',
            },
          ),
        );
      });

      test('project pools: listing, adding as an editor, and each refusal', async () => {
        const [ada, carol, bob] = await Promise.all([
          world().person(),
          world().person(),
          world().person(),
        ]);
        const pool = await world().project({ [ada.id]: 'editor', [carol.id]: 'viewer' });
        const closed = await world().project({ [bob.id]: 'owner' });
        const [adaClient, carolClient] = await Promise.all([as(ada), as(carol)]);

        const projects = await callTool(adaClient, 'list_projects');
        const createdAt = (projects.structuredContent as { projects: { createdAt: string }[] })
          .projects[0]?.createdAt;
        expect(projects).toEqual(
          success('1 project.', {
            projects: [{ id: pool, name: 'Project', createdAt, access: 'editor' }],
          }),
        );

        const added = await callTool(adaClient, 'add_memory', {
          content: 'The launch is on Friday',
          category: 'project',
          project: pool,
        });
        const memory = (added.structuredContent as { memory: unknown }).memory;
        expect(added.structuredContent).toEqual({ memory, folded: false });
        const listed = await callTool(carolClient, 'list_memories', { project: pool });
        expect(listed.structuredContent).toEqual({
          memories: [memory],
          cursor: expect.any(String),
        });
        expect(
          (await callTool(carolClient, 'search_memories', { query: 'launch', project: pool }))
            .structuredContent,
        ).toMatchObject({ memories: [memory], mode: 'lexical' });

        expect(
          await callTool(carolClient, 'add_memory', { content: 'Viewers read', project: pool }),
        ).toEqual(refusal('editor access to this project is required'));
        for (const tool of ['list_memories', 'search_memories'])
          expect(
            await callTool(adaClient, tool, {
              project: closed,
              ...(tool === 'search_memories' ? { query: 'x' } : {}),
            }),
          ).toEqual(refusal('no access to this project'));
        expect(await callTool(adaClient, 'list_memories', { project: randomUUID() })).toEqual(
          refusal('project not found'),
        );
        expect(
          await callTool(adaClient, 'list_memories', { project: pool, user: carol.id }),
        ).toEqual(refusal('project cannot be combined with user'));
        expect(
          await callTool(adaClient, 'get_memory', {
            id: (memory as { id: string }).id,
            project: pool,
            user: carol.id,
          }),
        ).toEqual(refusal('project cannot be combined with user'));
        // The id alone finds a pool memory; naming its pool changes nothing.
        expect(
          await callTool(adaClient, 'get_memory', {
            id: (memory as { id: string }).id,
            project: pool,
          }),
        ).toEqual(success(`Memory ${(memory as { id: string }).id}.`, { memory }));
      });

      test('bad arguments and unknown ids: tool errors with the sentence, never a protocol error', async () => {
        const client = await as(await world().person());
        const unknown = randomUUID();
        for (const tool of ['get_memory', 'delete_memory'])
          expect(await callTool(client, tool, { id: unknown }), tool).toEqual(
            refusal('memory not found'),
          );
        expect(await callTool(client, 'update_memory', { id: unknown, content: 'x' })).toEqual(
          refusal('memory not found'),
        );
        expect(await callTool(client, 'get_memory', { id: 'not-a-uuid' })).toEqual(
          badArguments('get_memory', 'id must be a UUID'),
        );
        expect(await callTool(client, 'add_memory', { content: ' \n ' })).toEqual(
          refusal('content is required'),
        );
        expect(await callTool(client, 'add_memory', {})).toEqual(
          badArguments('add_memory', 'content is required'),
        );
        expect(await callTool(client, 'add_memory', { content: 'x', colour: 'red' })).toEqual(
          badArguments('add_memory', 'unknown argument: colour'),
        );
        expect(await callTool(client, 'add_memory', { content: 'a\u0000b' })).toEqual(
          badArguments('add_memory', 'content must not contain NUL characters (U+0000)'),
        );
        expect(await callTool(client, 'add_memory', { content: 'x', user: randomUUID() })).toEqual(
          refusal('user is not a member of this organization'),
        );
        expect(await callTool(client, 'add_memory', { content: 'x', user: 'bob' })).toEqual(
          badArguments('add_memory', 'user must be a UUID'),
        );
        expect(await callTool(client, 'search_memories', { query: 'x', limit: 0 })).toEqual(
          badArguments('search_memories', 'limit must be at least 1'),
        );
        expect(await callTool(client, 'search_memories', { query: 'x', limit: 101 })).toEqual(
          badArguments('search_memories', 'limit must be at most 100'),
        );
        expect(await callTool(client, 'search_memories', { query: 'x', limit: 2.5 })).toEqual(
          badArguments('search_memories', 'limit must be an integer'),
        );
        expect(
          await callTool(client, 'search_memories', { query: 'x', category: 'hobby' }),
        ).toEqual(
          badArguments(
            'search_memories',
            'category must be one of identity, preference, goal, project, relationship, constraint',
          ),
        );
        expect(await callTool(client, 'search_memories', { query: '  ' })).toEqual(
          refusal('query is required'),
        );
        expect(await callTool(client, 'list_memories', { since: 'garbage' })).toEqual(
          refusal('invalid cursor'),
        );
        const { structuredContent } = await callTool(client, 'add_memory', {
          content: 'Likes jazz',
        });
        const id = (structuredContent as { memory: { id: string } }).memory.id;
        expect(await callTool(client, 'update_memory', { id })).toEqual(
          refusal('at least one of content or category is required'),
        );
        // An unrecognized category is dropped, as the API drops it.
        expect(
          (await callTool(client, 'add_memory', { content: 'Likes blues', category: 'music' }))
            .structuredContent,
        ).toEqual({
          memory: {
            id: expect.stringMatching(UUID),
            content: 'Likes blues',
            createdAt: expect.stringMatching(TIMESTAMP),
            updatedAt: expect.stringMatching(TIMESTAMP),
          },
          folded: false,
        });
      });

      test('memory switched off: the memory tools refuse, whoami and list_projects answer', async () => {
        const dora = await world().person({ alsoIn: world().offOrgId });
        const client = await as(dora, world().offOrgId);
        const off = refusal('memory is not enabled for this organization');
        const id = randomUUID();
        const calls: [string, Record<string, unknown>][] = [
          ['search_memories', { query: 'x' }],
          ['add_memory', { content: 'x' }],
          ['list_memories', {}],
          ['get_memory', { id }],
          ['update_memory', { id, content: 'x' }],
          ['delete_memory', { id }],
        ];
        for (const [tool, args] of calls)
          expect(await callTool(client, tool, args), tool).toEqual(off);
        expect((await callTool(client, 'whoami')).structuredContent).toEqual({
          user: { id: dora.id, email: dora.email },
          organization: { id: world().offOrgId, name: 'Dormant' },
          role: 'member',
        });
        expect(await callTool(client, 'list_projects')).toEqual(
          success('0 projects.', { projects: [] }),
        );
      });

      test('acting for another member is allowed, and written to the audit log', async () => {
        const [ada, bob, owner] = await Promise.all([
          world().person(),
          world().person(),
          world().person({ role: 'owner' }),
        ]);
        const client = await as(ada);
        const added = await callTool(client, 'add_memory', {
          content: 'Bob is on call this week',
          user: bob.id,
        });
        const memory = (added.structuredContent as { memory: { id: string } }).memory;
        expect(
          (await callTool(client, 'list_memories', { user: bob.id })).structuredContent,
        ).toEqual({
          memories: [memory],
          cursor: expect.any(String),
        });
        const response = await world().api(owner, '/api/v1/audit?limit=100');
        expect(response.status).toBe(200);
        const { entries } = (await response.json()) as { entries: Record<string, unknown>[] };
        const forBob = entries.filter((entry) => entry.targetId === bob.id).reverse();
        expect(forBob).toEqual([
          {
            id: expect.any(String),
            at: expect.stringMatching(TIMESTAMP),
            actorId: ada.id,
            targetId: bob.id,
            action: 'add',
            memoryId: memory.id,
          },
          {
            id: expect.any(String),
            at: expect.stringMatching(TIMESTAMP),
            actorId: ada.id,
            targetId: bob.id,
            action: 'list',
          },
        ]);
      });
    });
  }
}

/** Runs `world` for the file: started before its tests, closed after. */
export function withMcpWorld(env: Record<string, string> = {}): () => McpWorld {
  let world: McpWorld | undefined;
  beforeAll(async () => {
    world = await startMcpWorld(env);
  });
  afterAll(async () => {
    await world?.close();
  });
  return () => {
    if (!world) throw new Error('the MCP world has not started');
    return world;
  };
}
