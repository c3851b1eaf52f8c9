/**
 * The MCP server's tools, defined once for both doors: `/mcp` (in the process, over the memory
 * service) and `mnemo mcp` (over stdio, through the HTTP API). What a tool does is its
 * backend's; here are its name, its description for the model, its schemas and annotations,
 * the shape of its answer, and the one rule for a refusal: a tool result with `isError: true`
 * and the API's own sentence, never a protocol error.
 */
import { type CallToolResult, McpServer, type ToolAnnotations } from '@modelcontextprotocol/server';
import type { Static, TSchema } from 'typebox';
import packageJson from '../../package.json' with { type: 'json' };
import type { MemoryItem } from '../memory/index.ts';
import { projectWithUser } from '../memory/index.ts';
import { ApiError, badRequest } from '../platform/errors.ts';
import {
  AddInput,
  AddOutput,
  DeleteInput,
  DeleteOutput,
  GetInput,
  ListInput,
  ListOutput,
  MemoryOutput,
  NoInput,
  ProjectsOutput,
  SearchInput,
  SearchOutput,
  UpdateInput,
  WhoamiOutput,
} from './memory-tools.schemas.ts';
import { toolSchema } from './tool-schema.ts';

/**
 * What the tools do, as the memory API does it for one caller in one organization. Each method
 * either answers or throws an `ApiError` whose message is the API's sentence for the refusal.
 */
export interface MemoryToolsBackend {
  search(input: SearchInput): Promise<SearchOutput>;
  list(input: ListInput): Promise<ListOutput>;
  get(input: GetInput): Promise<MemoryItem>;
  add(input: AddInput): Promise<AddOutput>;
  update(input: UpdateInput): Promise<MemoryItem>;
  remove(input: DeleteInput): Promise<void>;
  listProjects(): Promise<ProjectsOutput>;
  whoami(): Promise<WhoamiOutput>;
}

export interface MemoryToolsOptions {
  /** An error that is no refusal (a bug, a broken store): the tool answers "internal server error". */
  readonly onUnexpected: (error: unknown) => void;
}

/** Who the server is, as `initialize` and `server/discover` tell it. */
export const SERVER_INFO = { name: 'mnemo', version: packageJson.version } as const;

/** What a client may show the model about the server as a whole (`instructions`). */
export const SERVER_INSTRUCTIONS =
  "mnemo keeps long-term memories about the user across conversations. Search them (search_memories) whenever the user's preferences, goals, projects, people or constraints may matter to the answer. Save new lasting facts the user tells you with add_memory, one statement each; saving something already remembered is safe, it folds into the existing memory. Correct a memory with update_memory and forget one with delete_memory when the user asks. Projects have shared pools, seen by all their collaborators: list_projects gives their ids.";

interface ToolDefinition<I extends TSchema, O extends TSchema> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly annotations: ToolAnnotations;
  /** The answer: the structured content, and a sentence saying what it is. */
  readonly run: (
    backend: MemoryToolsBackend,
    args: Static<I>,
  ) => Promise<{ result: Static<O>; summary: string }>;
}

/** A tool as the server registers it, whatever its schemas. */
export interface MemoryTool {
  readonly name: string;
  readonly annotations: ToolAnnotations;
  readonly registerOn: (
    server: McpServer,
    backend: MemoryToolsBackend,
    options: MemoryToolsOptions,
  ) => void;
}

function define<I extends TSchema, O extends TSchema>(tool: ToolDefinition<I, O>): MemoryTool {
  const inputSchema = toolSchema(tool.input);
  const outputSchema = toolSchema(tool.output);
  return {
    name: tool.name,
    annotations: tool.annotations,
    registerOn(server, backend, options) {
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: tool.description,
          inputSchema,
          outputSchema,
          annotations: tool.annotations,
        },
        async (args: Static<I>) => {
          try {
            const { result, summary } = await tool.run(backend, args);
            return answer(result as Record<string, unknown>, summary);
          } catch (error) {
            if (error instanceof ApiError) return refusal(error.message);
            options.onUnexpected(error);
            return refusal('internal server error');
          }
        },
      );
    },
  };
}

const refusal = (message: string): CallToolResult => ({
  content: [{ type: 'text', text: message }],
  isError: true,
});

/**
 * The answer for a client that reads `content` only (MCP: a tool that returns structured
 * content SHOULD also return it serialized in a text block): the sentence, then the JSON.
 */
const answer = (result: Record<string, unknown>, summary: string): CallToolResult => ({
  content: [
    { type: 'text', text: summary },
    { type: 'text', text: JSON.stringify(result) },
  ],
  structuredContent: result,
});

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/** get, update and delete find a memory by its id alone; `project` only names its pool. */
function checkPoolArguments(args: { project?: string; user?: string }): void {
  if (args.project !== undefined && args.user !== undefined) throw projectWithUser();
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** The tools, in the order `tools/list` gives them. */
export const MEMORY_TOOLS: readonly MemoryTool[] = [
  define({
    name: 'search_memories',
    title: 'Search memories',
    description:
      "Search the user's long-term memories by words, best matches first. Use it before answering whenever what you know about the user may matter (their preferences, goals, projects, people, constraints), and before add_memory when unsure whether something is remembered already. With project, searches that project's shared pool instead.",
    input: SearchInput,
    output: SearchOutput,
    annotations: { title: 'Search memories', ...READ, idempotentHint: true },
    async run(backend, args) {
      // Named for the tool's argument: the API says `q is required` of its own.
      if (!/\S/u.test(args.query)) throw badRequest('query is required');
      const result = await backend.search(args);
      const found = result.memories.length;
      return {
        result,
        summary:
          found === 0
            ? `No memory matches "${args.query}".`
            : `${plural(found, 'memory matches', 'memories match')} "${args.query}", best first.`,
      };
    },
  }),
  define({
    name: 'add_memory',
    title: 'Add a memory',
    description:
      "Remember one lasting fact about the user for future conversations: who they are, a preference, a goal, project context, a relationship, or a constraint they stated. Save self-contained statements, one per call; not small talk, not secrets. Adding what is already remembered (the same words, whatever the case, spacing or final punctuation) is safe: the save folds into the existing memory (folded: true) and nothing is duplicated. To change a memory, use update_memory. With project, adds to that project's shared pool (editor access needed).",
    input: AddInput,
    output: AddOutput,
    annotations: {
      title: 'Add a memory',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    async run(backend, args) {
      const result = await backend.add(args);
      return {
        result,
        summary: result.folded
          ? `Already remembered: folded into memory ${result.memory.id}, nothing new stored.`
          : `Saved as memory ${result.memory.id}.`,
      };
    },
  }),
  define({
    name: 'list_memories',
    title: 'List memories',
    description:
      "List all of the user's memories, or with project a project's shared pool, with a cursor. Pass that cursor back as since later to get only what changed in between: changed memories in memories, the ids of deleted ones in deleted. To find something specific, search_memories is better.",
    input: ListInput,
    output: ListOutput,
    annotations: { title: 'List memories', ...READ, idempotentHint: true },
    async run(backend, args) {
      const result = await backend.list(args);
      const changed = result.memories.length;
      return {
        result,
        summary:
          result.deleted === undefined
            ? `${plural(changed, 'memory', 'memories')}. Pass the cursor as since to get only later changes.`
            : `${plural(changed, 'memory', 'memories')} changed and ${plural(result.deleted.length, 'deleted', 'deleted')} since the cursor.`,
      };
    },
  }),
  define({
    name: 'get_memory',
    title: 'Get a memory',
    description: 'Get one memory by its id.',
    input: GetInput,
    output: MemoryOutput,
    annotations: { title: 'Get a memory', ...READ, idempotentHint: true },
    async run(backend, args) {
      checkPoolArguments(args);
      const memory = await backend.get(args);
      return { result: { memory }, summary: `Memory ${memory.id}.` };
    },
  }),
  define({
    name: 'update_memory',
    title: 'Update a memory',
    description:
      "Change a memory's content or category, by its id: to correct or refine what is remembered instead of adding a near-duplicate. Give content, category or both. Only memories the user contributed can be changed.",
    input: UpdateInput,
    output: MemoryOutput,
    annotations: {
      title: 'Update a memory',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
    async run(backend, args) {
      checkPoolArguments(args);
      const memory = await backend.update(args);
      return { result: { memory }, summary: `Updated memory ${memory.id}.` };
    },
  }),
  define({
    name: 'delete_memory',
    title: 'Delete a memory',
    description:
      'Delete a memory by its id: when the user asks to forget something, or it is wrong and cannot be corrected with update_memory. Deleting an already deleted memory succeeds.',
    input: DeleteInput,
    output: DeleteOutput,
    annotations: {
      title: 'Delete a memory',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    async run(backend, args) {
      checkPoolArguments(args);
      await backend.remove(args);
      return { result: { ok: true as const, id: args.id }, summary: `Deleted memory ${args.id}.` };
    },
  }),
  define({
    name: 'list_projects',
    title: 'List projects',
    description:
      "List the projects of the organization whose shared memory pools the user can see, with the user's access (viewer reads the pool; editor and owner also add to it). Pass a project id as project to the memory tools to work in its pool.",
    input: NoInput,
    output: ProjectsOutput,
    annotations: { title: 'List projects', ...READ, idempotentHint: true },
    async run(backend) {
      const result = await backend.listProjects();
      return { result, summary: `${plural(result.projects.length, 'project', 'projects')}.` };
    },
  }),
  define({
    name: 'whoami',
    title: 'Who am I',
    description:
      "Who the memory tools act as: the user, the organization this connection works in, and the user's role there.",
    input: NoInput,
    output: WhoamiOutput,
    annotations: { title: 'Who am I', ...READ, idempotentHint: true },
    async run(backend) {
      const result = await backend.whoami();
      const { user, organization, role } = result;
      return {
        result,
        summary: `Acting as ${user.email} (user ${user.id}), ${role} of ${organization.name} (organization ${organization.id}).`,
      };
    },
  }),
];

/** The tools that change memories: they need the `memory:write` scope. */
export const WRITE_TOOLS: ReadonlySet<string> = new Set(
  MEMORY_TOOLS.filter((tool) => tool.annotations.readOnlyHint === false).map((tool) => tool.name),
);

/**
 * A server with the memory tools over `backend`, for one serving unit (an HTTP request, a stdio
 * connection).
 *
 * @example
 * serveStdio(() => createMemoryToolsServer(backend, { onUnexpected: (e) => console.error(e) }));
 */
export function createMemoryToolsServer(
  backend: MemoryToolsBackend,
  options: MemoryToolsOptions,
): McpServer {
  const server = new McpServer(
    { ...SERVER_INFO },
    { capabilities: { tools: { listChanged: false } }, instructions: SERVER_INSTRUCTIONS },
  );
  for (const tool of MEMORY_TOOLS) tool.registerOn(server, backend, options);
  return server;
}
