import type { ModelConfig } from '../../catalog.ts';
import type {
  AssistantMessage,
  ChatRequest,
  FunctionTool,
  ImagePart,
  ResponseFormat,
  SystemMessage,
  TextPart,
  ToolChoice,
  ToolMessage,
  UserMessage,
} from '../../chat.schemas.ts';
import type { OpenAiError } from '../../openai-errors.ts';
import { thoughtSignatureOf } from './gemini.call-ids.ts';
import { signaturesOf } from './gemini.reasoning.ts';
import { thinkingConfigOf } from './gemini.thinking.ts';
import type {
  GeminiContent,
  GeminiGenerationConfig,
  GeminiPart,
  GeminiTool,
  GeminiToolConfig,
  GenerateContentRequest,
} from './gemini.types.ts';

/** A mapping's result: the value, or why the client's request cannot be sent (a 400). */
export type Mapped<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: OpenAiError };

/**
 * A chat completions request as Gemini's GenerateContentRequest:
 * - system and developer messages, wherever they stand, become `systemInstruction` (Gemini has
 *   one, before the conversation);
 * - user turns stay `user`, assistant turns become `model`, and tool results are
 *   `functionResponse` parts of a `user` turn; turns of one role in a row are merged, as
 *   Gemini wants the roles to alternate;
 * - an assistant turn's thought signatures (its `reasoning_details` of Gemini's format, or the
 *   signature a tool call id carries) go back on the parts they came with;
 * - tools, tool_choice, response_format and the sampling fields map to `tools`, `toolConfig`
 *   and `generationConfig`, `reasoning_effort` to its `thinkingConfig` (gemini.thinking.ts).
 *   `parallel_tool_calls`, `user` and fields mnemo does not translate have no Gemini
 *   counterpart and are left out.
 *
 * @example
 * const mapped = toGenerateContentRequest(call.request, call.model);
 * if (mapped.ok) await transport.post(url, headers, JSON.stringify(mapped.value), signal);
 */
export function toGenerateContentRequest(
  request: ChatRequest,
  model: Pick<ModelConfig, 'upstream' | 'reasoning'>,
): Mapped<GenerateContentRequest> {
  const contents = contentsOf(request);
  if (!contents.ok) return contents;
  const system = request.messages
    .filter((message): message is SystemMessage => isSystem(message.role))
    .flatMap((message) => textsOf(message.content))
    .filter((text) => text !== '')
    .map((text) => ({ text }));
  const tools = toolsOf(request.tools);
  const toolConfig = toolConfigOf(request.tool_choice);
  const generationConfig = generationConfigOf(request, model);
  return {
    ok: true,
    value: {
      contents: contents.value,
      ...(system.length > 0 && { systemInstruction: { parts: system } }),
      ...(tools && { tools }),
      ...(toolConfig && { toolConfig }),
      ...(generationConfig && { generationConfig }),
    },
  };
}

const isSystem = (role: string) => role === 'system' || role === 'developer';

function contentsOf(request: ChatRequest): Mapped<GeminiContent[]> {
  // Gemini answers a function by name, not by call id: the name comes from the call.
  const calledNames = new Map<string, string>();
  const turns: GeminiContent[] = [];
  for (const [index, message] of request.messages.entries()) {
    const at = `messages[${index}]`;
    let turn: Mapped<GeminiContent>;
    switch (message.role) {
      case 'system':
      case 'developer':
        continue;
      case 'user':
        turn = userTurn(message, at);
        break;
      case 'assistant':
        for (const call of message.tool_calls ?? []) calledNames.set(call.id, call.function.name);
        turn = modelTurn(message, at);
        break;
      case 'tool':
        turn = toolResultTurn(message, calledNames.get(message.tool_call_id), at);
        break;
    }
    if (!turn.ok) return turn;
    if (turn.value.parts.length > 0) turns.push(turn.value);
  }
  return { ok: true, value: mergeRoles(turns) };
}

/** Consecutive turns of one role as one: parallel tool results, a user's split message. */
function mergeRoles(turns: readonly GeminiContent[]): GeminiContent[] {
  const merged: GeminiContent[] = [];
  for (const turn of turns) {
    const previous = merged.at(-1);
    if (previous?.role === turn.role) previous.parts.push(...turn.parts);
    else merged.push({ role: turn.role, parts: [...turn.parts] });
  }
  return merged;
}

function userTurn(message: UserMessage, at: string): Mapped<GeminiContent> {
  if (typeof message.content === 'string') {
    return { ok: true, value: { role: 'user', parts: textParts([message.content]) } };
  }
  const parts: GeminiPart[] = [];
  for (const [index, part] of message.content.entries()) {
    if (part.type === 'text') {
      parts.push(...textParts([part.text]));
      continue;
    }
    const image = imagePartOf(part, `${at}.content[${index}].image_url.url`);
    if (!image.ok) return image;
    parts.push(image.value);
  }
  return { ok: true, value: { role: 'user', parts } };
}

/**
 * An assistant turn as a `model` turn: its text, then its calls. Gemini wants each signature
 * back on the part it came with: a call's on its functionCall part (its `reasoning_details`
 * piece of that id, else the one its id carries, for clients that drop `reasoning_details`),
 * and a text's on the first text part. The reasoning's text is not sent: Gemini reads its
 * reasoning from the signatures, and a signature of no text in a turn without text is left out
 * (Gemini asks for those only as a recommendation).
 */
function modelTurn(message: AssistantMessage, at: string): Mapped<GeminiContent> {
  const texts =
    typeof message.content === 'string'
      ? [message.content]
      : (message.content ?? []).map((part) => (part.type === 'text' ? part.text : part.refusal));
  if (typeof message.refusal === 'string') texts.push(message.refusal);
  const signatures = signaturesOf(message.reasoning_details);
  const textSignature = signatures.ofText[0];
  const parts = textParts(texts).map((part, index) =>
    index === 0 && textSignature !== undefined
      ? { ...part, thoughtSignature: textSignature }
      : part,
  );
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    const args = argumentsOf(
      call.function.arguments,
      `${at}.tool_calls[${index}].function.arguments`,
    );
    if (!args.ok) return args;
    const thoughtSignature = signatures.byCall.get(call.id) ?? thoughtSignatureOf(call.id);
    parts.push({
      functionCall: { name: call.function.name, args: args.value },
      ...(thoughtSignature !== undefined && { thoughtSignature }),
    });
  }
  return { ok: true, value: { role: 'model', parts } };
}

/**
 * A tool's result as Gemini's functionResponse, whose `response` must be an object: a result
 * that is a JSON object goes as it is, anything else as `{ "result": <the text> }`.
 */
function toolResultTurn(
  message: ToolMessage,
  name: string | undefined,
  at: string,
): Mapped<GeminiContent> {
  if (name === undefined) {
    return invalid(
      `${at}.tool_call_id`,
      `Invalid value for '${at}.tool_call_id': no earlier assistant message has a tool call with the id '${message.tool_call_id}'.`,
    );
  }
  const result = textsOf(message.content).join('');
  return {
    ok: true,
    value: { role: 'user', parts: [{ functionResponse: { name, response: responseOf(result) } }] },
  };
}

function responseOf(result: string): Record<string, unknown> {
  const parsed = parseJson(result);
  return isRecord(parsed) ? parsed : { result };
}

/**
 * Arguments as the object Gemini's `args` is. Clients send `""` for a call without
 * arguments; anything else must be a JSON object, as the model wrote it.
 */
function argumentsOf(text: string, param: string): Mapped<Record<string, unknown>> {
  if (text.trim() === '') return { ok: true, value: {} };
  const parsed = parseJson(text);
  return isRecord(parsed)
    ? { ok: true, value: parsed }
    : invalid(param, `Invalid value for '${param}': the arguments must be a JSON object.`);
}

/**
 * A data URL goes inline, as base64 bytes. An http(s) URL goes as `fileData`: the Gemini API
 * fetches public and signed URLs itself (and takes its own Files API URIs, which are https too),
 * so mnemo never downloads the client's images. fileData needs a MIME type, which a URL does not
 * state: it is read from the file's extension, and taken for JPEG when there is none it knows.
 */
function imagePartOf(part: ImagePart, param: string): Mapped<GeminiPart> {
  const url = part.image_url.url;
  if (url.startsWith('data:')) {
    const inline = parseDataUrl(url);
    return inline
      ? { ok: true, value: { inlineData: inline } }
      : invalid(
          param,
          `Invalid value for '${param}': a data URL must be data:<type>;base64,<data>.`,
        );
  }
  const parsed = URL.parse(url);
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
    return invalid(param, `Invalid value for '${param}': expected an http(s) URL or a data URL.`);
  }
  return {
    ok: true,
    value: { fileData: { mimeType: imageTypeOf(parsed.pathname), fileUri: url } },
  };
}

function parseDataUrl(url: string): { mimeType: string; data: string } | undefined {
  const comma = url.indexOf(',');
  if (comma < 0) return undefined;
  const [mimeType = '', ...parameters] = url.slice('data:'.length, comma).split(';');
  const data = url.slice(comma + 1);
  if (mimeType === '' || parameters.at(-1) !== 'base64' || data === '') return undefined;
  return { mimeType: mimeType.toLowerCase(), data };
}

const IMAGE_TYPES = new Map([
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['webp', 'image/webp'],
  ['heic', 'image/heic'],
  ['heif', 'image/heif'],
  ['gif', 'image/gif'],
]);

function imageTypeOf(pathname: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(pathname)?.[1]?.toLowerCase();
  return (extension && IMAGE_TYPES.get(extension)) ?? 'image/jpeg';
}

/**
 * Tools as function declarations, their JSON Schema sent as `parametersJsonSchema`: the API
 * takes JSON Schema there as it is, where `parameters` takes only its OpenAPI subset (no
 * `additionalProperties`, `$ref`, `const`, …) and would need the schema rewritten, losing
 * constraints the client set.
 */
function toolsOf(tools: readonly FunctionTool[] | undefined): GeminiTool[] | undefined {
  if (tools === undefined || tools.length === 0) return undefined;
  const functionDeclarations = tools.map(({ function: fn }) => ({
    name: fn.name,
    ...(fn.description !== undefined && { description: fn.description }),
    ...(fn.parameters !== undefined && { parametersJsonSchema: fn.parameters }),
  }));
  return [{ functionDeclarations }];
}

function toolConfigOf(choice: ToolChoice | undefined): GeminiToolConfig | undefined {
  switch (choice) {
    case undefined:
      return undefined;
    case 'none':
      return { functionCallingConfig: { mode: 'NONE' } };
    case 'auto':
      return { functionCallingConfig: { mode: 'AUTO' } };
    case 'required':
      return { functionCallingConfig: { mode: 'ANY' } };
    default:
      return {
        functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] },
      };
  }
}

function generationConfigOf(
  request: ChatRequest,
  model: Pick<ModelConfig, 'upstream' | 'reasoning'>,
): GeminiGenerationConfig | undefined {
  const maxOutputTokens = request.max_completion_tokens ?? request.max_tokens;
  const stop = request.stop;
  const thinkingConfig = thinkingConfigOf(request.reasoning_effort, model);
  const config: GeminiGenerationConfig = {
    ...(typeof stop === 'string' && { stopSequences: [stop] }),
    ...(Array.isArray(stop) && { stopSequences: stop }),
    ...(request.n != null && { candidateCount: request.n }),
    ...(maxOutputTokens != null && { maxOutputTokens }),
    ...(request.temperature != null && { temperature: request.temperature }),
    ...(request.top_p != null && { topP: request.top_p }),
    ...(request.seed != null && { seed: request.seed }),
    ...responseFormatOf(request.response_format),
    ...(thinkingConfig && { thinkingConfig }),
  };
  return Object.keys(config).length > 0 ? config : undefined;
}

function responseFormatOf(format: ResponseFormat | undefined): GeminiGenerationConfig {
  switch (format?.type) {
    case undefined:
    case 'text':
      return {};
    case 'json_object':
      return { responseMimeType: 'application/json' };
    case 'json_schema': {
      const schema = format.json_schema.schema;
      return {
        responseMimeType: 'application/json',
        ...(schema !== undefined && { responseJsonSchema: schema }),
      };
    }
  }
}

function textsOf(content: string | readonly TextPart[]): string[] {
  return typeof content === 'string' ? [content] : content.map((part) => part.text);
}

/** Gemini refuses empty text parts, and an empty text says nothing. */
function textParts(texts: readonly string[]): GeminiPart[] {
  return texts.filter((text) => text !== '').map((text) => ({ text }));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(param: string, message: string): Mapped<never> {
  return {
    ok: false,
    error: { message, type: 'invalid_request_error', param, code: 'invalid_value' },
  };
}
