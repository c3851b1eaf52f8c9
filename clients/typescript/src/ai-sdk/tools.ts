import { jsonSchema, type Tool, tool } from 'ai';
import type { Category } from '../types.ts';
import { type BoundStore, bindStore, type MemoryStoreOptions } from './store.ts';

/** The six categories, with what each holds: the model picks one from these words. */
const CATEGORIES: Readonly<Record<Category, string>> = {
  identity: 'who they are, where they live, their work',
  preference: 'likes, dislikes, ways of working',
  goal: 'what they aim at',
  project: 'what they are working on',
  relationship: 'people in their life',
  constraint: 'what must or must not be: allergies, limits, rules',
};
const CATEGORY_NAMES = Object.keys(CATEGORIES) as Category[];

/** The most memories one search gives a model, and how many when it does not say. */
const MAX_SEARCH_LIMIT = 50;
const DEFAULT_SEARCH_LIMIT = 10;

export interface SearchMemoriesInput {
  readonly query: string;
  readonly limit?: number;
}

/** A match, as compact as a model needs it: what it says, its category, its id, its score. */
export interface FoundMemory {
  readonly id: string;
  readonly content: string;
  /** Absent when the memory has none. */
  readonly category?: Category;
  /** How well it matched; higher is better (best first). */
  readonly score: number;
}

export interface SearchMemoriesOutput {
  readonly memories: FoundMemory[];
}

export interface AddMemoryInput {
  readonly content: string;
  readonly category?: Category;
}

/**
 * `created`: stored as a new memory. `folded`: an equal memory (the same words, whatever the
 * case, spacing or final punctuation) was already stored; nothing new was, `id` is that memory's.
 */
export interface AddMemoryOutput {
  readonly status: 'created' | 'folded';
  /** The memory's id: the new one's, or the one it was folded into. */
  readonly id: string;
  /** The memory's content as stored: the one folded into keeps its own words. */
  readonly content: string;
}

/** The two tools; a type, not an interface, so that it is a `ToolSet` (and can be spread into one). */
export type MemoryTools = {
  readonly search_memories: Tool<SearchMemoriesInput, SearchMemoriesOutput>;
  readonly add_memory: Tool<AddMemoryInput, AddMemoryOutput>;
};

export type MemoryToolsOptions = MemoryStoreOptions;

/**
 * Two AI SDK tools over one store: `search_memories` and `add_memory` (the names of mnemo's MCP
 * tools). The store is the caller's own, another member's (`user`), an end user's by your app's
 * id (`endUser`, registered on first use) or a project's pool (`project`); the model cannot
 * choose another.
 *
 * A refusal of the API (a pool the credential may not read, memory switched off) or a network
 * failure is thrown, as a MnemoError or the platform's fetch error. That is what the AI SDK
 * expects of a tool that failed: `generateText` and `streamText` catch it, record a
 * `tool-error` part (with the error itself, so the app can see its status), and send the model
 * the error's text as the tool's result (`MnemoError: no access to this project`), so the model
 * can say so or go on; the call itself does not fail. A result that looked like a success would
 * hide the failure from the app, and from `onStepFinish`, the UI's tool states and telemetry.
 * Arguments out of their schema (a blank query, an unknown category) are refused the same way
 * before any request, with a sentence for the model.
 *
 * @example
 * const result = await generateText({
 *   model,
 *   tools: memoryTools({ mnemo, endUser: customer.id }),
 *   stopWhen: stepCountIs(5),
 *   prompt,
 * });
 */
export function memoryTools(options: MemoryToolsOptions): MemoryTools {
  const store = bindStore(options, 'memoryTools');
  const { memories } = options.mnemo;
  const described = descriptions(store);

  return {
    search_memories: tool({
      description: described.search,
      inputSchema: jsonSchema<SearchMemoriesInput>(
        {
          type: 'object',
          properties: {
            query: {
              type: 'string',
              description:
                'What to look for, in plain words: a name, a topic, an identifier such as TICKET-4521, or a question',
            },
            limit: {
              type: 'integer',
              minimum: 1,
              maximum: MAX_SEARCH_LIMIT,
              description: `Most memories to return, 1 to ${MAX_SEARCH_LIMIT} (default ${DEFAULT_SEARCH_LIMIT})`,
            },
          },
          required: ['query'],
          additionalProperties: false,
        },
        { validate: validateSearch },
      ),
      async execute({ query, limit }, { abortSignal }) {
        const found = await memories.search(
          { q: query, limit: limit ?? DEFAULT_SEARCH_LIMIT, ...(await store.target()) },
          abortSignal === undefined ? {} : { signal: abortSignal },
        );
        return {
          memories: found.memories.map(({ id, content, category, score }) => ({
            id,
            content,
            ...(category === undefined ? {} : { category }),
            score,
          })),
        };
      },
    }),
    add_memory: tool({
      description: described.add,
      inputSchema: jsonSchema<AddMemoryInput>(
        {
          type: 'object',
          properties: {
            content: {
              type: 'string',
              description:
                'The memory: one self-contained statement in plain language, understandable without the conversation (for example "Prefers TypeScript over JavaScript for new projects")',
            },
            category: {
              type: 'string',
              enum: CATEGORY_NAMES,
              description: `What kind of fact it is: ${CATEGORY_NAMES.map((name) => `${name} (${CATEGORIES[name]})`).join(', ')}`,
            },
          },
          required: ['content'],
          additionalProperties: false,
        },
        { validate: validateAdd },
      ),
      async execute({ content, category }, { abortSignal }) {
        const added = await memories.add(
          { content, ...(category === undefined ? {} : { category }), ...(await store.target()) },
          abortSignal === undefined ? {} : { signal: abortSignal },
        );
        const { id, content: stored } = added.memory;
        return { status: added.created ? 'created' : 'folded', id, content: stored };
      },
    }),
  };
}

const ANSWERS =
  'Answers { memories: [{ id, content, category, score }] }, best match first (a higher score is a better match); an empty list when nothing matches.';
const FOLDING =
  'Save self-contained statements, one per call; not small talk, not secrets. Adding what is already remembered is safe: status "folded" means an equal memory was already stored and nothing was added; "created" means it was stored as a new memory.';

/** What the tools tell the model, for the store they work on: a person's memories or a pool. */
function descriptions(store: BoundStore): { search: string; add: string } {
  if (store.kind === 'project') {
    return {
      search: `Search the shared memory of the project the user works in (facts saved from earlier conversations, seen by every collaborator of the project) by words, best matches first. Use it before answering whenever the project's decisions, conventions, context or constraints may matter, and before add_memory when unsure whether something is remembered already. ${ANSWERS}`,
      add: `Remember one lasting fact about the project in its shared memory, seen by every collaborator of the project: a decision, a convention, context or a constraint. Not personal facts about the user. ${FOLDING}`,
    };
  }
  return {
    search: `Search the user's long-term memories (facts saved from earlier conversations) by words, best matches first. Use it before answering whenever what you know about the user may matter: their preferences, goals, projects, people, constraints; and before add_memory when unsure whether something is remembered already. ${ANSWERS}`,
    add: `Remember one lasting fact about the user for future conversations: who they are, a preference, a goal, project context, a relationship, or a constraint they stated. ${FOLDING}`,
  };
}

type Validation<T> = { success: true; value: T } | { success: false; error: Error };

const refuse = (message: string): Validation<never> => ({
  success: false,
  error: new TypeError(message),
});

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function validateSearch(value: unknown): Validation<SearchMemoriesInput> {
  if (!isRecord(value)) return refuse('the arguments must be an object with query');
  const { query, limit } = value;
  if (typeof query !== 'string' || !/\S/u.test(query)) return refuse('query is required');
  if (
    limit !== undefined &&
    (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT)
  ) {
    return refuse(`limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}`);
  }
  return { success: true, value: limit === undefined ? { query } : { query, limit } };
}

function validateAdd(value: unknown): Validation<AddMemoryInput> {
  if (!isRecord(value)) return refuse('the arguments must be an object with content');
  const { content, category } = value;
  if (typeof content !== 'string' || !/\S/u.test(content)) return refuse('content is required');
  if (category === undefined || category === null) return { success: true, value: { content } };
  if (typeof category !== 'string' || !Object.hasOwn(CATEGORIES, category)) {
    return refuse(`category must be one of ${CATEGORY_NAMES.join(', ')}`);
  }
  return { success: true, value: { content, category: category as Category } };
}
