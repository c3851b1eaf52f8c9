/**
 * `memoryTools` with the AI SDK, against the real server and an OpenAI simulator on loopback
 * that answers with scripted calls of the tools: what each tool gives the model, what the
 * server's store holds after, the store each binding reaches (the caller's own, an end user by
 * the app's id registered once, a member, a pool), and refusals as the AI SDK's tool errors.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, type ToolExecutionOptions } from 'ai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type OAuthServer, startOAuthServer } from '../../../../src/testing/oauth-server.ts';
import {
  type OpenAiSimulator,
  type ScriptedToolCall,
  startOpenAiSimulator,
} from '../../../../src/testing/simulators/openai-simulator.ts';
import { Mnemo, MnemoError } from '../index.ts';
import { type MemoryTools, memoryMiddleware, memoryTools } from './index.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SIM_KEY = 'sk-sim-tools';

let server: OAuthServer;
let sim: OpenAiSimulator;
let orgId: string;
let admin: { id: string; token: string };
/** Every memory API request the clients made: method and path. */
const requests: string[] = [];

beforeAll(async () => {
  server = await startOAuthServer();
  sim = await startOpenAiSimulator({ apiKey: SIM_KEY, chunkDelayMs: 0 });
  orgId = await server.t.fixtures.org();
  admin = await server.t.fixtures.user(orgId, 'admin');
});
afterAll(async () => {
  await server?.close();
  await sim?.close();
});

function client(token = admin.token): Mnemo {
  return new Mnemo({
    baseUrl: server.url,
    organizationId: orgId,
    auth: token,
    fetch: (input, init) => {
      requests.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    },
  });
}

const model = () =>
  createOpenAICompatible({ name: 'sim', baseURL: sim.baseUrl, apiKey: SIM_KEY }).chatModel(
    'gpt-test',
  );

let calls = 0;
/** The model's next answer: a call of `name` with `args`; its id. */
function scriptCall(name: string, args: object): string {
  calls += 1;
  const call: ScriptedToolCall = { id: `call_${calls}`, name, arguments: JSON.stringify(args) };
  sim.script({ kind: 'tool_calls', calls: [call] });
  return call.id;
}

/** The tools' results and errors of a run, in order, as the AI SDK recorded them. */
type Outcome = { tool: string; output: unknown } | { tool: string; error: unknown };
function outcomes(result: Awaited<ReturnType<typeof run>>): Outcome[] {
  return result.steps.flatMap((step) =>
    step.content.flatMap((part): Outcome[] => {
      if (part.type === 'tool-result') return [{ tool: part.toolName, output: part.output }];
      if (part.type === 'tool-error') return [{ tool: part.toolName, error: part.error }];
      return [];
    }),
  );
}

/** The tool message the model was sent for `callId`, on the OpenAI wire. */
function toolMessage(callId: string) {
  for (const request of sim.requests) {
    const found = request.body.messages?.find(
      (message) =>
        message.role === 'tool' && (message as { tool_call_id?: string }).tool_call_id === callId,
    );
    if (found) return found.content;
  }
  return undefined;
}

const run = (tools: MemoryTools, prompt: string) =>
  generateText({ model: model(), tools, prompt, stopWhen: stepCountIs(5), maxRetries: 0 });

const executeOptions = (toolCallId: string): ToolExecutionOptions<unknown> => ({
  toolCallId,
  messages: [],
  context: undefined,
});

describe('memoryTools', () => {
  test('the model adds a memory, then finds it; an equal add is folded', async () => {
    const me = await server.t.fixtures.user(orgId);
    const mnemo = client(me.token);
    const added = scriptCall('add_memory', {
      content: 'Prefers tea over coffee',
      category: 'preference',
    });
    const searched = scriptCall('search_memories', { query: 'tea' });
    const folded = scriptCall('add_memory', { content: 'prefers TEA over coffee!' });
    sim.script({ kind: 'text', text: 'Noted: tea.' });

    const result = await run(memoryTools({ mnemo }), 'I prefer tea over coffee.');
    expect(result.text).toBe('Noted: tea.');
    const [memory] = (await mnemo.memories.list()).memories;
    expect(memory).toMatchObject({ content: 'Prefers tea over coffee', category: 'preference' });
    const id = memory?.id;
    expect(id).toMatch(UUID);
    expect(outcomes(result)).toEqual([
      { tool: 'add_memory', output: { status: 'created', id, content: 'Prefers tea over coffee' } },
      {
        tool: 'search_memories',
        output: {
          memories: [
            {
              id,
              content: 'Prefers tea over coffee',
              category: 'preference',
              score: expect.any(Number),
            },
          ],
        },
      },
      { tool: 'add_memory', output: { status: 'folded', id, content: 'Prefers tea over coffee' } },
    ]);
    // What the model read back: the outputs as JSON text.
    expect(JSON.parse(toolMessage(added) as string)).toEqual({
      status: 'created',
      id,
      content: 'Prefers tea over coffee',
    });
    expect(JSON.parse(toolMessage(searched) as string)).toEqual({
      memories: [
        {
          id,
          content: 'Prefers tea over coffee',
          category: 'preference',
          score: expect.any(Number),
        },
      ],
    });
    expect(JSON.parse(toolMessage(folded) as string)).toMatchObject({ status: 'folded', id });
    expect((await mnemo.memories.list()).memories).toHaveLength(1);
  });

  test('the tools as the model is told them: names, descriptions, the six categories', async () => {
    scriptCall('search_memories', { query: 'anything' });
    sim.script({ kind: 'text', text: 'Nothing.' });
    await run(memoryTools({ mnemo: client() }), 'Do you know anything?');
    const tools = sim.requests.at(-2)?.body.tools as {
      function: { name: string; description: string; parameters: object };
    }[];
    expect(tools.map((one) => one.function.name)).toEqual(['search_memories', 'add_memory']);
    expect(tools.map((one) => one.function.description)).toEqual([
      "Search the user's long-term memories (facts saved from earlier conversations) by words, best matches first. Use it before answering whenever what you know about the user may matter: their preferences, goals, projects, people, constraints; and before add_memory when unsure whether something is remembered already. Answers { memories: [{ id, content, category, score }] }, best match first (a higher score is a better match); an empty list when nothing matches.",
      'Remember one lasting fact about the user for future conversations: who they are, a preference, a goal, project context, a relationship, or a constraint they stated. Save self-contained statements, one per call; not small talk, not secrets. Adding what is already remembered is safe: status "folded" means an equal memory was already stored and nothing was added; "created" means it was stored as a new memory.',
    ]);
    expect(tools[1]?.function.parameters).toMatchObject({
      required: ['content'],
      properties: {
        category: {
          type: 'string',
          enum: ['identity', 'preference', 'goal', 'project', 'relationship', 'constraint'],
        },
      },
    });
  });

  test('an end user by the app’s id: registered once, even by calls that start together', async () => {
    const mnemo = client();
    const tools = memoryTools({ mnemo, endUser: 'customer/42' });
    const before = requests.length;

    const [first, second] = await Promise.all([
      tools.add_memory.execute?.(
        { content: 'Is allergic to peanuts.', category: 'constraint' },
        executeOptions('a'),
      ),
      tools.add_memory.execute?.(
        { content: 'Has two children.', category: 'relationship' },
        executeOptions('b'),
      ),
    ]);
    expect(first).toMatchObject({ status: 'created', content: 'Is allergic to peanuts.' });
    expect(second).toMatchObject({ status: 'created', content: 'Has two children.' });

    // Through the model, with tools made again (as per request): the id is still known.
    scriptCall('search_memories', { query: 'peanuts' });
    sim.script({ kind: 'text', text: 'No peanuts, then.' });
    const result = await run(memoryTools({ mnemo, endUser: 'customer/42' }), 'Any allergies?');
    expect(outcomes(result)).toEqual([
      {
        tool: 'search_memories',
        output: {
          memories: [
            {
              id: (first as { id: string }).id,
              content: 'Is allergic to peanuts.',
              category: 'constraint',
              score: expect.any(Number),
            },
          ],
        },
      },
    ]);
    // The middleware made with the same client shares the registration.
    await memoryMiddleware({ mnemo, endUser: 'customer/42' }).transformParams?.({
      type: 'generate',
      params: { prompt: [{ role: 'user', content: [{ type: 'text', text: 'peanuts' }] }] },
      model: model(),
    });

    const registration = `PUT /api/v1/orgs/${orgId}/end-users/customer%2F42`;
    const made = requests.slice(before);
    expect(made.filter((request) => request.startsWith('PUT'))).toEqual([registration]);
    expect(made.filter((request) => request === 'POST /api/v1/memory')).toHaveLength(2);

    const endUser = await mnemo.endUsers.get('customer/42');
    const stored = await mnemo.memories.list({ user: endUser.id });
    expect(stored.memories.map(({ content, category }) => ({ content, category }))).toEqual(
      expect.arrayContaining([
        { content: 'Is allergic to peanuts.', category: 'constraint' },
        { content: 'Has two children.', category: 'relationship' },
      ]),
    );
    expect(stored.memories).toHaveLength(2);
    expect(await mnemo.memories.list()).toMatchObject({ memories: [] });
  });

  test('a refused registration fails the call; a failed one is not kept, the next use registers again', async () => {
    const member = await server.t.fixtures.user(orgId);
    // A member may not register end users (owners, admins and admin apps may).
    const refused = memoryTools({ mnemo: client(member.token), endUser: 'customer/9' });
    const error = await Promise.resolve(
      refused.search_memories.execute?.({ query: 'x' }, executeOptions('c')),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MnemoError);
    expect(error).toMatchObject({ status: 403 });

    const puts: number[] = [];
    const flaky = new Mnemo({
      baseUrl: server.url,
      organizationId: orgId,
      auth: admin.token,
      fetch: async (input, init) => {
        if (init?.method !== 'PUT') return fetch(input, init);
        puts.push(puts.length);
        if (puts.length === 1) return new Response('{"error":"unavailable"}', { status: 503 });
        return fetch(input, init);
      },
    });
    const tools = memoryTools({ mnemo: flaky, endUser: 'customer/9' });
    const search = () =>
      Promise.resolve(tools.search_memories.execute?.({ query: 'x' }, executeOptions('d')));
    await expect(search()).rejects.toMatchObject({ status: 503, message: 'unavailable' });
    await expect(search()).resolves.toEqual({ memories: [] });
    await expect(search()).resolves.toEqual({ memories: [] });
    expect(puts).toEqual([0, 1]);
  });

  test('a member named by user: the memory goes to their store, not the caller’s', async () => {
    const member = await server.t.fixtures.user(orgId);
    const mnemo = client();
    scriptCall('add_memory', { content: 'Works from Oslo on Mondays.', category: 'identity' });
    sim.script({ kind: 'text', text: 'Saved.' });
    const result = await run(
      memoryTools({ mnemo, user: member.id }),
      'I work from Oslo on Mondays.',
    );
    expect(outcomes(result)).toEqual([
      {
        tool: 'add_memory',
        output: {
          status: 'created',
          id: expect.stringMatching(UUID),
          content: 'Works from Oslo on Mondays.',
        },
      },
    ]);
    expect((await mnemo.memories.list({ user: member.id })).memories).toEqual([
      expect.objectContaining({ content: 'Works from Oslo on Mondays.', category: 'identity' }),
    ]);
    expect((await mnemo.memories.list()).memories).not.toContainEqual(
      expect.objectContaining({ content: 'Works from Oslo on Mondays.' }),
    );
  });

  test('a project’s pool: added to and found in the pool, described as shared', async () => {
    const editor = await server.t.fixtures.user(orgId);
    const project = await server.t.fixtures.project(orgId, { [editor.id]: 'editor' });
    const mnemo = client(editor.token);
    const tools = memoryTools({ mnemo, project });
    expect(tools.search_memories.description).toMatch(
      /^Search the shared memory of the project the user works in/,
    );
    scriptCall('add_memory', { content: 'Releases are cut on Thursdays.', category: 'project' });
    scriptCall('search_memories', { query: 'releases', limit: 3 });
    sim.script({ kind: 'text', text: 'Thursdays.' });
    const result = await run(tools, 'When do we cut releases?');
    const [stored] = (await mnemo.memories.list({ project })).memories;
    expect(stored).toMatchObject({
      content: 'Releases are cut on Thursdays.',
      category: 'project',
    });
    expect(outcomes(result)).toEqual([
      {
        tool: 'add_memory',
        output: { status: 'created', id: stored?.id, content: 'Releases are cut on Thursdays.' },
      },
      {
        tool: 'search_memories',
        output: {
          memories: [
            {
              id: stored?.id,
              content: 'Releases are cut on Thursdays.',
              category: 'project',
              score: expect.any(Number),
            },
          ],
        },
      },
    ]);
    expect((await mnemo.memories.list()).memories).toEqual([]);
  });

  test('a refused search is a tool error: the model reads the API’s sentence, the call goes on', async () => {
    const outsider = await server.t.fixtures.user(orgId);
    const project = await server.t.fixtures.project(orgId);
    const callId = scriptCall('search_memories', { query: 'roadmap' });
    sim.script({ kind: 'text', text: 'I cannot read that project’s memory.' });
    const result = await run(memoryTools({ mnemo: client(outsider.token), project }), 'Roadmap?');

    expect(result.text).toBe('I cannot read that project’s memory.');
    const [outcome] = outcomes(result);
    expect(outcome).toEqual({ tool: 'search_memories', error: expect.any(MnemoError) });
    expect(outcome && 'error' in outcome && outcome.error).toMatchObject({
      status: 403,
      message: 'no access to this project',
    });
    expect(toolMessage(callId)).toBe('MnemoError: no access to this project');
  });

  test('arguments out of the schema are refused before any request, in words for the model', async () => {
    const mnemo = client();
    const before = requests.length;
    const blank = scriptCall('search_memories', { query: '  ' });
    const category = scriptCall('add_memory', { content: 'Likes jazz.', category: 'mood' });
    const limit = scriptCall('search_memories', { query: 'jazz', limit: 500 });
    sim.script({ kind: 'text', text: 'Done.' });
    const result = await run(memoryTools({ mnemo }), 'I like jazz.');

    expect(outcomes(result).map((one) => one.tool)).toEqual([
      'search_memories',
      'add_memory',
      'search_memories',
    ]);
    expect(outcomes(result).every((one) => 'error' in one)).toBe(true);
    expect(toolMessage(blank)).toContain('query is required');
    expect(toolMessage(category)).toContain(
      'category must be one of identity, preference, goal, project, relationship, constraint',
    );
    expect(toolMessage(limit)).toContain('limit must be an integer from 1 to 50');
    expect(requests.slice(before)).toEqual([]);
  });

  test('more than one store named is refused when the tools are made', () => {
    const mnemo = client();
    expect(() => memoryTools({ mnemo, user: 'a', endUser: 'b' })).toThrow(
      new TypeError('memoryTools: give at most one of user, endUser and project'),
    );
    expect(() => memoryTools({ mnemo, project: '' })).toThrow(
      new TypeError('memoryTools: project must be a non-empty string'),
    );
  });
});
