import type { ModelConfig } from '../../catalog.ts';
import type {
  AssistantMessage,
  ChatMessage,
  ChatRequest,
  FunctionTool,
  ToolChoice as OpenAiToolChoice,
  ResponseFormat,
  SystemMessage,
  TextPart,
  ToolCall,
  ToolMessage,
  UserMessage,
} from '../../chat.schemas.ts';
import type { OpenAiError } from '../../openai-errors.ts';
import type { Outcome } from '../../provider.ts';
import {
  continuesUnsignedToolUse,
  thinkingBlocksOf,
  thinkingBudgetOf,
  thinkingConflictOf,
} from './anthropic.thinking.ts';
import type {
  AssistantBlock,
  ImageBlockParam,
  ImageMediaType,
  MessageParam,
  MessagesRequest,
  TextBlockParam,
  Tool,
  ToolChoice,
  ToolResultBlockParam,
  UserBlock,
} from './anthropic.types.ts';

/**
 * Anthropic requires `max_tokens`, where OpenAI's default is "as many as fit". 4096 is within
 * every Claude model's output limit and long enough for most chat answers; a client that wants
 * more says so with `max_completion_tokens`.
 */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * `response_format` becomes a tool the model is made to call, whose input is the answer.
 * Anthropic's own structured outputs (`output_config.format`) serve only some models (not
 * Claude Opus 4.1, say) and a subset of JSON Schema (`additionalProperties: false` on every
 * object, no recursion), and `json_object` has no schema to give them; a forced tool works on
 * every model and takes the schema as it is. The tool's input goes back to the client as the
 * message's content text.
 */
export const JSON_TOOL_NAME = 'json_response';
const JSON_TOOL_DESCRIPTION =
  'Give your whole answer as the input of this tool: a JSON object, and nothing else.';

/** What a chat request becomes: the Messages body, and the tool standing in for JSON mode. */
export interface MessagesCall {
  readonly body: MessagesRequest;
  /** The tool whose input is the answer's text, when `response_format` asked for JSON. */
  readonly jsonTool: string | undefined;
}

/**
 * A chat completions request as Anthropic Messages. What Anthropic cannot express is a 400 in
 * OpenAI's shape, as a value: `n` above 1, tool-call arguments that are not a JSON object,
 * images that are neither http(s) URLs nor base64 data URLs of a type Anthropic reads, and
 * settings that thinking does not allow (anthropic.thinking.ts).
 *
 * @example
 * const mapped = toMessagesCall(call.request, call.model);
 * if (!mapped.ok) return mapped;
 * await transport.post(url, headers, JSON.stringify(mapped.value.body), call.signal);
 */
export function toMessagesCall(request: ChatRequest, model: ModelConfig): Outcome<MessagesCall> {
  try {
    return { ok: true, value: messagesCallOf(request, model) };
  } catch (error) {
    if (!(error instanceof Untranslatable)) throw error;
    return { ok: false, failure: { kind: 'status', status: 400, error: error.error } };
  }
}

/** Thrown inside this module only, and returned as a value by toMessagesCall. */
class Untranslatable extends Error {
  readonly error: OpenAiError;
  constructor(message: string, param: string, code = 'invalid_value') {
    super(message);
    this.error = { message, type: 'invalid_request_error', param, code };
  }
}

function messagesCallOf(request: ChatRequest, model: ModelConfig): MessagesCall {
  if (request.n != null && request.n > 1) {
    throw new Untranslatable(
      'Anthropic models give one choice per request: `n` must be 1.',
      'n',
      'unsupported_value',
    );
  }
  let budget = thinkingBudgetOf(request, model);
  let turns = turnsOf(request.messages, budget !== undefined);
  // A tool loop whose last thinking the client did not keep goes on without thinking, as
  // Anthropic's own refusal advises: the answer is what the client needs, its reasoning is not.
  if (budget !== undefined && continuesUnsignedToolUse(turns)) {
    budget = undefined;
    turns = turnsOf(request.messages, false);
  }
  const answerBudget = request.max_completion_tokens ?? request.max_tokens ?? DEFAULT_MAX_TOKENS;
  const system = systemOf(request.messages);
  const body: MessagesRequest = {
    model: model.upstream,
    // The thinking counts toward Anthropic's max_tokens; the client's limit is the answer's.
    max_tokens: answerBudget + (budget ?? 0),
    messages: turns,
  };
  // Anthropic refuses a conversation without turns, where OpenAI answers a lone system prompt:
  // its text becomes the one user turn, so the model reads the same words and nothing more.
  if (turns.length === 0 && system !== '')
    turns.push({ role: 'user', content: textBlocks(system) });
  else if (system !== '') body.system = system;
  // Anthropic refuses a conversation whose first turn is the assistant's (an app's greeting),
  // which OpenAI takes. A user turn of one character goes first: the least the model can be
  // shown, and the greeting stays the assistant's, word for word.
  if (turns[0]?.role === 'assistant')
    turns.unshift({ role: 'user', content: textBlocks(OPENING_TURN) });

  const formatTool = formatToolOf(request.response_format);
  const tools = (request.tools ?? []).map(toolOf);
  if (formatTool !== undefined) {
    if (tools.some((tool) => tool.name === formatTool.name)) {
      throw new Untranslatable(
        `The tool name \`${formatTool.name}\` is taken by the JSON answer format on Anthropic models.`,
        'tools',
      );
    }
    tools.push(formatTool);
  }
  if (tools.length > 0) {
    body.tools = tools;
    const choice = toolChoiceOf(request, formatTool?.name);
    if (choice !== undefined) body.tool_choice = choice;
  }

  if (request.stop != null) {
    body.stop_sequences = typeof request.stop === 'string' ? [request.stop] : [...request.stop];
  }
  // OpenAI's temperature runs from 0 to 2, Anthropic's from 0 to 1, and it refuses more. Clamped
  // rather than halved: the values clients use, 0 to 1, keep their meaning (0.2 stays nearly
  // deterministic, 1 stays the default), and only the rare hotter ones lose their excess.
  if (request.temperature != null) body.temperature = Math.min(request.temperature, 1);
  // Anthropic asks for one of the two, and its newer models refuse both: temperature wins.
  else if (request.top_p != null) body.top_p = request.top_p;
  if (request.user !== undefined) body.metadata = { user_id: request.user };
  // `seed` has no counterpart: OpenAI documents it as best effort, so it is dropped.
  if (budget !== undefined) {
    const conflict = thinkingConflictOf(body, formatTool?.name);
    if (conflict !== undefined) {
      throw new Untranslatable(conflict.message, conflict.param, 'unsupported_value');
    }
    body.thinking = { type: 'enabled', budget_tokens: budget };
  }
  return { body, jsonTool: formatTool?.name };
}

/** Anthropic takes the system prompt only at the top level: every system message, joined. */
function systemOf(messages: readonly ChatMessage[]): string {
  return messages
    .filter(
      (message): message is SystemMessage =>
        message.role === 'system' || message.role === 'developer',
    )
    .map((message) => textOf(message.content))
    .filter((text) => text.trim() !== '')
    .join('\n\n');
}

/** The user turn put before a conversation that opens with the assistant's (docs/gateway.md). */
export const OPENING_TURN = '.';

/** Text parts of a system or tool message are lines of one text. */
const textOf = (content: string | TextPart[]) =>
  typeof content === 'string' ? content : content.map((part) => part.text).join('\n');

/**
 * The conversation as Anthropic's alternating turns: tool results are user content, and
 * consecutive messages of one role (an assistant's text then its tool calls, several tool
 * results, results then the user's next words, user words around a system message lifted out)
 * merge into one turn, as Anthropic itself would combine them. With `thinking`, each assistant
 * turn begins with the thinking it came with.
 */
function turnsOf(messages: readonly ChatMessage[], thinking: boolean): MessageParam[] {
  const turns: MessageParam[] = [];
  for (const [index, message] of messages.entries()) {
    const turn = turnOf(message, index, thinking);
    // Anthropic refuses empty turns; a message with nothing to say adds nothing.
    if (turn === undefined || turn.content.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role === 'user' && turn.role === 'user') last.content.push(...turn.content);
    else if (last?.role === 'assistant' && turn.role === 'assistant') {
      last.content.push(...turn.content);
    } else turns.push(turn);
  }
  return turns;
}

function turnOf(message: ChatMessage, index: number, thinking: boolean): MessageParam | undefined {
  switch (message.role) {
    case 'system':
    case 'developer':
      return undefined;
    case 'user':
      return { role: 'user', content: userBlocksOf(message, `messages[${index}]`) };
    case 'tool':
      return { role: 'user', content: [toolResultOf(message)] };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(thinking ? thinkingBlocksOf(message.reasoning_details) : []),
          ...assistantBlocksOf(message, `messages[${index}]`),
        ],
      };
  }
}

/** Anthropic refuses empty and whitespace-only text blocks. */
const textBlocks = (text: string): TextBlockParam[] =>
  text.trim() === '' ? [] : [{ type: 'text', text }];

function userBlocksOf(message: UserMessage, at: string): UserBlock[] {
  if (typeof message.content === 'string') return textBlocks(message.content);
  return message.content.flatMap((part, index): UserBlock[] =>
    part.type === 'text'
      ? textBlocks(part.text)
      : [imageOf(part.image_url.url, `${at}.content[${index}].image_url.url`)],
  );
}

const DATA_URL = /^data:([^;,]+);base64,(.+)$/s;
const IMAGE_TYPES: readonly ImageMediaType[] = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
];
const isImageType = (type: string): type is ImageMediaType =>
  (IMAGE_TYPES as readonly string[]).includes(type);

/**
 * A base64 data URL becomes a base64 source; an http(s) URL a URL source, which Anthropic
 * fetches itself. `detail` has no counterpart: Anthropic sizes images on its own.
 */
function imageOf(url: string, param: string): ImageBlockParam {
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  const [, declared, data] = DATA_URL.exec(url) ?? [];
  if (declared === undefined || data === undefined) {
    throw new Untranslatable(
      'An image must be an http(s) URL or a base64 data URL (data:image/png;base64,…).',
      param,
    );
  }
  // `image/jpg` is not a registered type, but clients write it often enough.
  const mediaType = declared.toLowerCase() === 'image/jpg' ? 'image/jpeg' : declared.toLowerCase();
  if (!isImageType(mediaType)) {
    throw new Untranslatable(
      `Anthropic models read images of type ${IMAGE_TYPES.join(', ')}; this one is ${declared}.`,
      param,
    );
  }
  return {
    type: 'image',
    source: { type: 'base64', media_type: mediaType, data },
  };
}

function toolResultOf(message: ToolMessage): ToolResultBlockParam {
  return {
    type: 'tool_result',
    tool_use_id: message.tool_call_id,
    content:
      typeof message.content === 'string'
        ? message.content
        : message.content.flatMap((part) => textBlocks(part.text)),
  };
}

function assistantBlocksOf(message: AssistantMessage, at: string): AssistantBlock[] {
  const { content } = message;
  const blocks: AssistantBlock[] =
    content == null
      ? []
      : typeof content === 'string'
        ? textBlocks(content)
        : content.flatMap((part) => textBlocks(part.type === 'text' ? part.text : part.refusal));
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: inputOf(call, `${at}.tool_calls[${index}].function.arguments`),
    });
  }
  return blocks;
}

/** A tool call's input is an object for Anthropic; empty arguments mean no arguments. */
function inputOf(call: ToolCall, param: string): Record<string, unknown> {
  if (call.function.arguments.trim() === '') return {};
  let input: unknown;
  try {
    input = JSON.parse(call.function.arguments);
  } catch {
    input = undefined;
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new Untranslatable(
      `The arguments of tool call ${call.id} are not a JSON object, which Anthropic models require.`,
      param,
    );
  }
  return input as Record<string, unknown>;
}

function toolOf(tool: FunctionTool): Tool {
  const { name, description, parameters } = tool.function;
  return {
    name,
    ...(description === undefined ? {} : { description }),
    // `strict` is dropped: Anthropic's strict tool use serves only some models.
    input_schema: parameters ?? { type: 'object', properties: {} },
  };
}

function formatToolOf(format: ResponseFormat | undefined): Tool | undefined {
  if (format === undefined || format.type === 'text') return undefined;
  if (format.type === 'json_object') {
    return {
      name: JSON_TOOL_NAME,
      description: JSON_TOOL_DESCRIPTION,
      input_schema: { type: 'object' },
    };
  }
  const { description, schema } = format.json_schema;
  return {
    name: JSON_TOOL_NAME,
    description: description ?? JSON_TOOL_DESCRIPTION,
    input_schema: schema ?? { type: 'object' },
  };
}

/**
 * OpenAI's `none`, `auto`, `required` and named function are Anthropic's `none`, `auto`, `any`
 * and `tool`; `parallel_tool_calls: false` is `disable_parallel_tool_use`. With JSON mode the
 * model must end in a tool call: the JSON tool itself, or with tools it may call, any tool.
 */
function toolChoiceOf(request: ChatRequest, jsonTool: string | undefined): ToolChoice | undefined {
  const single = request.parallel_tool_calls === false;
  let choice: ToolChoice;
  if (jsonTool !== undefined) choice = jsonChoiceOf(request, jsonTool);
  else if (request.tool_choice !== undefined) choice = plainChoiceOf(request.tool_choice);
  // Anthropic's default, sent only to carry disable_parallel_tool_use.
  else if (single) choice = { type: 'auto' };
  else return undefined;
  return single && choice.type !== 'none' ? { ...choice, disable_parallel_tool_use: true } : choice;
}

function plainChoiceOf(choice: OpenAiToolChoice): ToolChoice {
  switch (choice) {
    case 'none':
      return { type: 'none' };
    case 'auto':
      return { type: 'auto' };
    case 'required':
      return { type: 'any' };
    default:
      return { type: 'tool', name: choice.function.name };
  }
}

function jsonChoiceOf(request: ChatRequest, jsonTool: string): ToolChoice {
  const choice = request.tool_choice;
  if (typeof choice === 'object') return { type: 'tool', name: choice.function.name };
  const mayCallTools = (request.tools ?? []).length > 0 && choice !== 'none';
  return mayCallTools ? { type: 'any' } : { type: 'tool', name: jsonTool };
}
