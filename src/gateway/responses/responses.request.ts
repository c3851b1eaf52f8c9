import type {
  FunctionTool as ChatFunctionTool,
  ChatMessage,
  ChatRequest,
  ToolChoice as ChatToolChoice,
  ImagePart,
  ReasoningDetail,
  ResponseFormat,
  TextPart,
} from '../chat.schemas.ts';
import { GatewayError, invalidRequest } from '../openai-errors.ts';
import type { Sealer } from '../sealing.ts';
import {
  type ContentPart,
  type FunctionCallItem,
  type FunctionCallOutputItem,
  type InputImagePart,
  isFunctionTool,
  isFunctionToolChoice,
  isSupportedItem,
  isSupportedPart,
  type MessageItem,
  type ReasoningItem,
  type ResponsesRequest,
  type SupportedPart,
  type TextFormat,
} from './responses.schemas.ts';

/**
 * A Responses request as the chat request every provider is served through: `instructions`
 * becomes a leading system message, `function_call` items an assistant message's tool calls,
 * `function_call_output` items tool messages, `reasoning` items the reasoning of the assistant
 * turn they belong to (their `encrypted_content` opened with `sealer`), `text.format` the
 * `response_format`, `reasoning.effort` the `reasoning_effort`. What needs stored state, files
 * or built-in tools is a 400 that says so, as is an `encrypted_content` this server did not seal.
 *
 * @example
 * const chat = await toChatRequest({ model: 'openai/gpt-4.1', input: 'Hello', instructions: 'Be brief.' }, sealer);
 * // { model: 'openai/gpt-4.1', messages: [{ role: 'system', content: 'Be brief.' },
 * //                                       { role: 'user', content: 'Hello' }] }
 */
export async function toChatRequest(
  body: ResponsesRequest,
  sealer: Sealer,
): Promise<ChatRequest | GatewayError> {
  const refused = refuseStatefulFeatures(body);
  if (refused) return refused;
  const reasoning = await openReasoning(body, sealer);
  if (reasoning instanceof GatewayError) return reasoning;
  const messages = toMessages(body, reasoning);
  if (messages instanceof GatewayError) return messages;
  const tools = toTools(body.tools ?? []);
  if (tools instanceof GatewayError) return tools;
  const toolChoice = body.tool_choice == null ? undefined : toToolChoice(body.tool_choice);
  if (toolChoice instanceof GatewayError) return toolChoice;
  return {
    model: body.model,
    messages,
    ...given({
      stream: body.stream,
      tools: tools.length > 0 ? tools : undefined,
      tool_choice: toolChoice,
      parallel_tool_calls: body.parallel_tool_calls,
      response_format: body.text?.format ? toResponseFormat(body.text.format) : undefined,
      max_completion_tokens: body.max_output_tokens,
      temperature: body.temperature,
      top_p: body.top_p,
      user: body.user,
      reasoning_effort: body.reasoning?.effort,
      // OpenAI's chat parameters of the same names: OpenAI-compatible providers get them.
      presence_penalty: body.presence_penalty,
      frequency_penalty: body.frequency_penalty,
      safety_identifier: body.safety_identifier,
      prompt_cache_key: body.prompt_cache_key,
      prompt_cache_retention: body.prompt_cache_retention,
    }),
  };
}

/** A reasoning item's text and, opened, its sealed pieces. */
interface OpenedReasoning {
  readonly text: string;
  readonly details: readonly ReasoningDetail[];
}

/**
 * The reasoning items of `input`, by their index, opened. A token this server did not seal
 * for reasoning (edited, from OpenAI itself, from another mnemo) is refused as OpenAI refuses
 * one it cannot verify: sending the conversation on without it would lose the provider's
 * signatures silently.
 */
async function openReasoning(
  body: ResponsesRequest,
  sealer: Sealer,
): Promise<Map<number, OpenedReasoning> | GatewayError> {
  const opened = new Map<number, OpenedReasoning>();
  if (typeof body.input === 'string') return opened;
  for (const [index, item] of body.input.entries()) {
    if (item.type !== 'reasoning') continue;
    const { id, content, encrypted_content: token } = item as ReasoningItem;
    const details = token == null ? [] : await sealer.open('reasoning', token);
    if (!Array.isArray(details)) {
      return invalidRequest(
        `The encrypted content for item ${id ?? `input[${index}]`} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`,
        'invalid_encrypted_content',
        `input[${index}].encrypted_content`,
      );
    }
    const text = (content ?? []).map((part) => part.text).join('');
    opened.set(index, { text, details: details as ReasoningDetail[] });
  }
  return opened;
}

/** What needs state kept between calls, which this server does not keep. */
const STATEFUL: readonly [keyof ResponsesRequest, string][] = [
  [
    'previous_response_id',
    'this server keeps no responses. Send the whole conversation in `input`, including the output items of earlier responses.',
  ],
  ['conversation', 'this server keeps no conversations. Send the whole conversation in `input`.'],
  ['background', 'this server keeps no responses to poll. Leave it out, or set it to false.'],
  ['prompt', 'this server keeps no prompt templates. Send `instructions` and `input` instead.'],
];

function refuseStatefulFeatures(body: ResponsesRequest): GatewayError | undefined {
  for (const [field, why] of STATEFUL) {
    const value = body[field];
    // `background: false` is the default, and asks for nothing.
    if (value != null && value !== false) {
      return invalidRequest(`${field} is not supported: ${why}`, 'unsupported_parameter', field);
    }
  }
  return undefined;
}

function toMessages(
  body: ResponsesRequest,
  reasoning: ReadonlyMap<number, OpenedReasoning>,
): ChatMessage[] | GatewayError {
  const messages: ChatMessage[] = [];
  if (body.instructions) messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') {
    messages.push({ role: 'user', content: body.input });
    return messages;
  }
  const fromInstructions = messages.length;
  const called = new Set<string>();
  /** Reasoning read but not yet given to an assistant turn. */
  let pending: OpenedReasoning[] = [];
  for (const [index, item] of body.input.entries()) {
    const param = `input[${index}]`;
    if (!isSupportedItem(item)) {
      return invalidRequest(
        `Input items of type '${item.type}' are not supported by this server; send messages, function_call, function_call_output and reasoning items.`,
        'unsupported_value',
        `${param}.type`,
      );
    }
    if (item.type === 'reasoning') {
      const opened = reasoning.get(index);
      if (opened) pending.push(opened);
      // Reasoning that came after the turn's message or calls (pieces the provider gave last)
      // belongs to that turn, which is still the last message.
      if (messages.at(-1)?.role === 'assistant') pending = attachReasoning(messages, pending);
      continue;
    }
    const problem =
      item.type === 'function_call'
        ? addToolCall(messages, item, called)
        : item.type === 'function_call_output'
          ? addToolOutput(messages, item, param, called)
          : addMessage(messages, item, param);
    if (problem) return problem;
    if (messages.at(-1)?.role === 'assistant') pending = attachReasoning(messages, pending);
  }
  if (messages.length === fromInstructions) {
    return invalidRequest(
      "Invalid value for 'input': it holds no message, function call or function call output.",
      'invalid_value',
      'input',
    );
  }
  return messages;
}

/**
 * Gives `pending` reasoning to the last message, an assistant turn: its text as `reasoning`
 * and its pieces as `reasoning_details`, after any it has. Returns what is left pending: none.
 */
function attachReasoning(messages: ChatMessage[], pending: OpenedReasoning[]): OpenedReasoning[] {
  const turn = messages.at(-1);
  if (pending.length === 0 || turn?.role !== 'assistant') return pending;
  const text = [turn.reasoning, ...pending.map((opened) => opened.text)].filter(Boolean);
  const details = [
    ...(turn.reasoning_details ?? []),
    ...pending.flatMap((opened) => opened.details),
  ];
  if (text.length > 0) turn.reasoning = text.join('\n\n');
  if (details.length > 0) turn.reasoning_details = details;
  return [];
}

/** A call joins the assistant turn just before it, so parallel calls stay one turn. */
function addToolCall(
  messages: ChatMessage[],
  item: FunctionCallItem,
  called: Set<string>,
): undefined {
  const call = {
    id: item.call_id,
    type: 'function' as const,
    function: { name: item.name, arguments: item.arguments },
  };
  const previous = messages.at(-1);
  if (previous?.role === 'assistant') previous.tool_calls = [...(previous.tool_calls ?? []), call];
  else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
  called.add(item.call_id);
  return undefined;
}

function addToolOutput(
  messages: ChatMessage[],
  item: FunctionCallOutputItem,
  param: string,
  called: ReadonlySet<string>,
): GatewayError | undefined {
  if (!called.has(item.call_id)) {
    return invalidRequest(
      `No tool call found for function call output with call_id ${item.call_id}.`,
      null,
      `${param}.call_id`,
    );
  }
  const content =
    typeof item.output === 'string'
      ? item.output
      : toParts(item.output, `${param}.output`, (part, at) =>
          asText(part, 'function call outputs', at),
        );
  if (content instanceof GatewayError) return content;
  messages.push({ role: 'tool', tool_call_id: item.call_id, content });
  return undefined;
}

function addMessage(
  messages: ChatMessage[],
  item: MessageItem,
  param: string,
): GatewayError | undefined {
  const { role, content } = item;
  const at = `${param}.content`;
  if (typeof content === 'string') {
    messages.push({ role, content });
    return undefined;
  }
  if (role === 'user') {
    const parts = toParts(content, at, asUserPart);
    if (parts instanceof GatewayError) return parts;
    messages.push({ role, content: parts });
  } else if (role === 'assistant') {
    const parts = toParts(content, at, asAssistantPart);
    if (parts instanceof GatewayError) return parts;
    messages.push({ role, content: parts });
  } else {
    const parts = toParts(content, at, (part, where) => asText(part, `${role} messages`, where));
    if (parts instanceof GatewayError) return parts;
    messages.push({ role, content: parts });
  }
  return undefined;
}

function toParts<P>(
  parts: readonly ContentPart[],
  param: string,
  convert: (part: SupportedPart, param: string) => P | GatewayError,
): P[] | GatewayError {
  const converted: P[] = [];
  for (const [index, part] of parts.entries()) {
    const at = `${param}[${index}]`;
    if (!isSupportedPart(part)) {
      return invalidRequest(
        `Content of type '${part.type}' is not supported by this server; send input_text or input_image.`,
        'unsupported_value',
        `${at}.type`,
      );
    }
    const result = convert(part, at);
    if (result instanceof GatewayError) return result;
    converted.push(result);
  }
  return converted;
}

function asText(part: SupportedPart, where: string, param: string): TextPart | GatewayError {
  if (part.type === 'input_text' || part.type === 'output_text') {
    return { type: 'text', text: part.text };
  }
  return invalidRequest(
    `Content of type '${part.type}' is not supported in ${where}.`,
    'invalid_value',
    `${param}.type`,
  );
}

function asUserPart(part: SupportedPart, param: string): TextPart | ImagePart | GatewayError {
  return part.type === 'input_image'
    ? toImagePart(part, param)
    : asText(part, 'user messages', param);
}

function asAssistantPart(
  part: SupportedPart,
  param: string,
): TextPart | { type: 'refusal'; refusal: string } | GatewayError {
  return part.type === 'refusal'
    ? { type: 'refusal', refusal: part.refusal }
    : asText(part, 'assistant messages', param);
}

function toImagePart(part: InputImagePart, param: string): ImagePart | GatewayError {
  if (part.file_id != null) {
    return invalidRequest(
      'input_image.file_id is not supported: this server keeps no files. Send the image as image_url, an https URL or a data: URL.',
      'unsupported_value',
      `${param}.file_id`,
    );
  }
  if (part.image_url == null) {
    return invalidRequest(
      `Missing required parameter: '${param}.image_url'.`,
      'missing_required_parameter',
      `${param}.image_url`,
    );
  }
  return {
    type: 'image_url',
    image_url: { url: part.image_url, ...given({ detail: part.detail }) },
  };
}

function toTools(tools: NonNullable<ResponsesRequest['tools']>): ChatFunctionTool[] | GatewayError {
  const converted: ChatFunctionTool[] = [];
  for (const [index, tool] of tools.entries()) {
    if (!isFunctionTool(tool)) {
      return invalidRequest(
        `Tools of type '${tool.type}' are not supported by this server; only function tools are.`,
        'unsupported_value',
        `tools[${index}].type`,
      );
    }
    converted.push({
      type: 'function',
      function: {
        name: tool.name,
        ...given({
          description: tool.description,
          parameters: tool.parameters,
          strict: tool.strict,
        }),
      },
    });
  }
  return converted;
}

function toToolChoice(
  choice: NonNullable<ResponsesRequest['tool_choice']>,
): ChatToolChoice | GatewayError {
  if (typeof choice === 'string') return choice;
  if (isFunctionToolChoice(choice)) return { type: 'function', function: { name: choice.name } };
  return invalidRequest(
    `tool_choice of type '${choice.type}' is not supported by this server; use 'none', 'auto', 'required' or {"type": "function", "name": …}.`,
    'unsupported_value',
    'tool_choice.type',
  );
}

function toResponseFormat(format: TextFormat): ResponseFormat {
  if (format.type !== 'json_schema') return { type: format.type };
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name,
      schema: format.schema,
      ...given({ description: format.description, strict: format.strict }),
    },
  };
}

/** The fields that were set: OpenAI's bodies use `null` and absence alike for "not set". */
function given<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]?: NonNullable<T[K]> } {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined && value !== null),
  ) as { [K in keyof T]?: NonNullable<T[K]> };
}
