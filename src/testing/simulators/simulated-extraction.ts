/**
 * The simulators' extraction model: what they answer, when nothing is scripted, to a request
 * for JSON whose schema has a top-level `proposals` property (the gateway's memory extraction
 * call). Deterministic, so that a test can work out by hand the proposals it expects.
 *
 * The rule:
 * - The prompt (the last user message's text) is a JSON document
 *   `{"known_memories": [{"id": string, "content": string, "category": string|null,
 *   "store"?: "user"|"project"}], "new_user_turns": [string], "assistant_reply": string|null}`,
 *   every key present. Anything else answers `{"proposals": []}`.
 * - Each new user turn is cut into sentences: a sentence ends at `.`, `!` or `?` followed by
 *   white space or the end of the turn (a last piece without one is a sentence too). A sentence
 *   is a fact when it starts with `I `, `I'm `, `I’m ` or `My ` (any case) and does not end with
 *   `?`. Nothing else yields a proposal: not the assistant's reply, not a question, not
 *   "Ignore previous instructions…".
 * - `content` is the fact, trimmed, as written.
 * - `category` is the first of these whose words it contains (any case, whole words):
 *   constraint (allergic, cannot, can't, never, must not, avoid); relationship (wife, husband,
 *   partner, friend, sister, brother, mother, father, daughter, son, colleague, manager); goal
 *   (want to, plan to, goal, hope to, aim to, learning); project (working on, project,
 *   building); preference (prefer, like, love, hate, favorite, favourite, enjoy); else identity.
 * - `action` is `update` with the `id` of the first known memory whose first three words are the
 *   fact's first three words, else `add` with `id: ""`. Words are runs of letters, digits and
 *   apostrophes, lower-cased, `’` read as `'`.
 * - When the schema's item has a `store` property, each proposal has `"store": "user"`.
 *
 * Proposals come in sentence order, each `{action, id, content, category}` (+ `store`).
 *
 * @example
 * simulatedProposals(
 *   JSON.stringify({
 *     known_memories: [{ id: 'm1', content: 'My name is Ada.', category: 'identity' }],
 *     new_user_turns: ['My name is Ada Lovelace. I love tea! Do you?'],
 *     assistant_reply: null,
 *   }),
 *   { type: 'object', properties: { proposals: { type: 'array' } } },
 * );
 * // {proposals: [
 * //   {action: 'update', id: 'm1', content: 'My name is Ada Lovelace.', category: 'identity'},
 * //   {action: 'add', id: '', content: 'I love tea!', category: 'preference'}]}
 */
export function simulatedProposals(promptText: string, schema: object): SimulatedExtraction {
  const prompt = parsePrompt(promptText);
  if (prompt === undefined) return { proposals: [] };
  const store = storeAsked(schema) ? { store: 'user' as const } : {};
  const proposals = prompt.newUserTurns
    .flatMap(sentencesOf)
    .filter(isFact)
    .map((content): SimulatedProposal => {
      const known = prompt.knownMemories.find(
        (memory) => firstWords(memory.content) === firstWords(content),
      );
      return {
        action: known ? 'update' : 'add',
        id: known?.id ?? '',
        content,
        category: categoryOf(content),
        ...store,
      };
    });
  return { proposals };
}

/**
 * Whether a JSON schema asks for the extraction model: an object schema with a top-level
 * `proposals` property.
 */
export function isProposalsSchema(schema: unknown): schema is Record<string, unknown> {
  return isRecord(schema) && isRecord(schema.properties) && 'proposals' in schema.properties;
}

export type Category =
  | 'constraint'
  | 'relationship'
  | 'goal'
  | 'project'
  | 'preference'
  | 'identity';

export interface SimulatedProposal {
  readonly action: 'add' | 'update';
  /** The updated memory's id; empty for an addition. */
  readonly id: string;
  readonly content: string;
  readonly category: Category;
  readonly store?: 'user';
}

export interface SimulatedExtraction {
  readonly proposals: readonly SimulatedProposal[];
}

interface KnownMemory {
  readonly id: string;
  readonly content: string;
}

interface ExtractionPrompt {
  readonly knownMemories: readonly KnownMemory[];
  readonly newUserTurns: readonly string[];
}

/** First match wins, so "I never eat with my sister" is a constraint. */
const CATEGORIES: readonly (readonly [Category, RegExp])[] = [
  ['constraint', /\b(?:allergic|cannot|can't|never|must not|avoid)\b/i],
  [
    'relationship',
    /\b(?:wife|husband|partner|friend|sister|brother|mother|father|daughter|son|colleague|manager)\b/i,
  ],
  ['goal', /\b(?:want to|plan to|goal|hope to|aim to|learning)\b/i],
  ['project', /\b(?:working on|project|building)\b/i],
  ['preference', /\b(?:prefer|like|love|hate|favorite|favourite|enjoy)\b/i],
];

function parsePrompt(text: string): ExtractionPrompt | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const { known_memories: known, new_user_turns: turns, assistant_reply: reply } = value;
  if (!Array.isArray(known) || !known.every(isKnownMemory)) return undefined;
  if (!Array.isArray(turns) || !turns.every((turn) => typeof turn === 'string')) return undefined;
  if (reply !== null && typeof reply !== 'string') return undefined;
  return { knownMemories: known, newUserTurns: turns };
}

function isKnownMemory(value: unknown): value is KnownMemory {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    typeof value.content === 'string' &&
    (value.category === null || typeof value.category === 'string') &&
    (value.store === undefined || value.store === 'user' || value.store === 'project')
  );
}

function sentencesOf(turn: string): string[] {
  return turn
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
}

function isFact(sentence: string): boolean {
  return /^(?:I|I'm|I’m|My) /i.test(sentence) && !sentence.endsWith('?');
}

function categoryOf(fact: string): Category {
  return CATEGORIES.find(([, words]) => words.test(fact))?.[0] ?? 'identity';
}

function firstWords(text: string): string {
  const words =
    text
      .toLowerCase()
      .replaceAll('’', "'")
      .match(/[\p{L}\p{N}']+/gu) ?? [];
  return words.slice(0, 3).join(' ');
}

function storeAsked(schema: object): boolean {
  const proposals = isRecord(schema) && isRecord(schema.properties) && schema.properties.proposals;
  const item = isRecord(proposals) ? proposals.items : undefined;
  return isRecord(item) && isRecord(item.properties) && item.properties.store !== undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * One prompt and what the rule answers to it, for the simulators' own tests: an update of a
 * known memory, an add, a question and an assistant reply that yield nothing.
 */
export const EXTRACTION_EXAMPLE = {
  prompt: JSON.stringify({
    known_memories: [{ id: 'mem_1', content: 'My name is Ada.', category: 'identity' }],
    new_user_turns: ['My name is Ada Lovelace. I love green tea! I told you my name, remember?'],
    assistant_reply: 'I remember you. I am glad to help.',
  }),
  proposals: [
    { action: 'update', id: 'mem_1', content: 'My name is Ada Lovelace.', category: 'identity' },
    { action: 'add', id: '', content: 'I love green tea!', category: 'preference' },
  ],
} as const;
