import { type Static, Type } from 'typebox';
import { nullable, ReasoningEffort } from '../chat.schemas.ts';

/**
 * The Responses API's shapes (`POST /v1/responses`): the request as OpenAI's API reference gives
 * it, limited to what can be served through chat completions, and the Response object.
 *
 * Where the reference allows something this server does not offer (built-in tools, files,
 * stored responses), the request schema still accepts it, beside the supported shapes, so that
 * the mapping can answer with a 400 naming what is not supported instead of "matches none of
 * the shapes".
 */

/** Any `type` but these: the catch-all beside a union's supported members. */
const typeOtherThan = (...types: readonly string[]) =>
  Type.String({ pattern: `^(?!(?:${types.join('|')})$)` });

export const InputTextPart = Type.Object({ type: Type.Literal('input_text'), text: Type.String() });
/** Text the model wrote earlier, sent back as conversation history. */
export const OutputTextPart = Type.Object({
  type: Type.Literal('output_text'),
  text: Type.String(),
});
export const RefusalPart = Type.Object({ type: Type.Literal('refusal'), refusal: Type.String() });
export const InputImagePart = Type.Object({
  type: Type.Literal('input_image'),
  /** An http(s) URL or a `data:image/…;base64,…` URL. */
  image_url: nullable(Type.String({ minLength: 1 })),
  /** An uploaded file: this server keeps none, so the mapping refuses it. */
  file_id: nullable(Type.String()),
  detail: nullable(Type.Union([Type.Literal('auto'), Type.Literal('low'), Type.Literal('high')])),
});
export type InputImagePart = Static<typeof InputImagePart>;

const SUPPORTED_PARTS = ['input_text', 'output_text', 'refusal', 'input_image'] as const;
/** `input_file`, `input_audio`, …: refused by the mapping. */
export const UnsupportedPart = Type.Object({ type: typeOtherThan(...SUPPORTED_PARTS) });

export const SupportedPart = Type.Union([
  InputTextPart,
  OutputTextPart,
  RefusalPart,
  InputImagePart,
]);
export type SupportedPart = Static<typeof SupportedPart>;
export const ContentPart = Type.Union([...SupportedPart.anyOf, UnsupportedPart]);
export type ContentPart = Static<typeof ContentPart>;

/** Whether a part is one the mapping translates; the catch-all excludes exactly these types. */
export const isSupportedPart = (part: ContentPart): part is SupportedPart =>
  (SUPPORTED_PARTS as readonly string[]).includes(part.type);

/**
 * A message, in the short form (`{role, content}`) or the long one (`type: "message"`, as
 * earlier output items are sent back, with their `id` and `status`).
 */
export const MessageItem = Type.Object({
  type: Type.Optional(Type.Literal('message')),
  role: Type.Union([
    Type.Literal('user'),
    Type.Literal('assistant'),
    Type.Literal('system'),
    Type.Literal('developer'),
  ]),
  content: Type.Union([Type.String(), Type.Array(ContentPart)]),
});
export type MessageItem = Static<typeof MessageItem>;

/** A call the model made earlier, sent back so that its output can follow. */
export const FunctionCallItem = Type.Object({
  type: Type.Literal('function_call'),
  call_id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  /** JSON text, as the model wrote it. */
  arguments: Type.String(),
  id: nullable(Type.String()),
});
export type FunctionCallItem = Static<typeof FunctionCallItem>;

export const FunctionCallOutputItem = Type.Object({
  type: Type.Literal('function_call_output'),
  call_id: Type.String({ minLength: 1 }),
  output: Type.Union([Type.String(), Type.Array(ContentPart)]),
  id: nullable(Type.String()),
});
export type FunctionCallOutputItem = Static<typeof FunctionCallOutputItem>;

export const SummaryText = Type.Object({ type: Type.Literal('summary_text'), text: Type.String() });
export type SummaryText = Static<typeof SummaryText>;
export const ReasoningText = Type.Object({
  type: Type.Literal('reasoning_text'),
  text: Type.String(),
});
export type ReasoningText = Static<typeof ReasoningText>;

/**
 * A reasoning item of an earlier response, sent back: `encrypted_content` is what this server
 * sealed (the provider's reasoning pieces, signatures included); the texts are for reading.
 */
export const ReasoningItem = Type.Object({
  type: Type.Literal('reasoning'),
  id: nullable(Type.String()),
  summary: Type.Array(SummaryText),
  content: nullable(Type.Array(ReasoningText)),
  encrypted_content: nullable(Type.String()),
  status: nullable(
    Type.Union([
      Type.Literal('in_progress'),
      Type.Literal('completed'),
      Type.Literal('incomplete'),
    ]),
  ),
});
export type ReasoningItem = Static<typeof ReasoningItem>;

const SUPPORTED_ITEMS = ['message', 'function_call', 'function_call_output', 'reasoning'] as const;
/** `item_reference`, built-in tool calls, …: refused by the mapping. */
export const UnsupportedItem = Type.Object({ type: typeOtherThan(...SUPPORTED_ITEMS) });
export type UnsupportedItem = Static<typeof UnsupportedItem>;

export const SupportedItem = Type.Union([
  MessageItem,
  FunctionCallItem,
  FunctionCallOutputItem,
  ReasoningItem,
]);
export type SupportedItem = Static<typeof SupportedItem>;
export const InputItem = Type.Union([...SupportedItem.anyOf, UnsupportedItem]);
export type InputItem = Static<typeof InputItem>;

/** A message has no `type` in the short form; every other item has one of the supported ones. */
export const isSupportedItem = (item: InputItem): item is SupportedItem =>
  item.type === undefined || (SUPPORTED_ITEMS as readonly string[]).includes(item.type);

/** A function the model may call; in this API its fields sit beside `type`. */
export const FunctionTool = Type.Object({
  type: Type.Literal('function'),
  name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9_-]+$' }),
  description: nullable(Type.String()),
  /** A JSON Schema object; absent means no arguments. */
  parameters: nullable(Type.Record(Type.String(), Type.Unknown())),
  strict: nullable(Type.Boolean()),
});
export type FunctionTool = Static<typeof FunctionTool>;

/** `web_search`, `file_search`, `mcp`, …: refused by the mapping. */
export const UnsupportedTool = Type.Object({ type: typeOtherThan('function') });
export const Tool = Type.Union([FunctionTool, UnsupportedTool]);
export type Tool = Static<typeof Tool>;

export const isFunctionTool = (tool: Tool): tool is FunctionTool => tool.type === 'function';

export const FunctionToolChoice = Type.Object({
  type: Type.Literal('function'),
  name: Type.String({ minLength: 1 }),
});
export type FunctionToolChoice = Static<typeof FunctionToolChoice>;

/** `allowed_tools`, a built-in tool's type, …: refused by the mapping. */
export const UnsupportedToolChoice = Type.Object({ type: typeOtherThan('function') });
export type UnsupportedToolChoice = Static<typeof UnsupportedToolChoice>;

export const isFunctionToolChoice = (
  choice: FunctionToolChoice | UnsupportedToolChoice,
): choice is FunctionToolChoice => choice.type === 'function';

export const ToolChoice = Type.Union([
  Type.Literal('none'),
  Type.Literal('auto'),
  Type.Literal('required'),
  FunctionToolChoice,
  UnsupportedToolChoice,
]);
export type ToolChoice = Static<typeof ToolChoice>;

export const TextFormat = Type.Union([
  Type.Object({ type: Type.Literal('text') }),
  Type.Object({ type: Type.Literal('json_object') }),
  Type.Object({
    type: Type.Literal('json_schema'),
    name: Type.String({ minLength: 1, maxLength: 64 }),
    schema: Type.Record(Type.String(), Type.Unknown()),
    description: nullable(Type.String()),
    strict: nullable(Type.Boolean()),
  }),
]);
export type TextFormat = Static<typeof TextFormat>;

export const Verbosity = Type.Union([
  Type.Literal('low'),
  Type.Literal('medium'),
  Type.Literal('high'),
]);
export const ReasoningSummary = Type.Union([
  Type.Literal('auto'),
  Type.Literal('concise'),
  Type.Literal('detailed'),
]);
export type ReasoningSummary = Static<typeof ReasoningSummary>;
export const PromptCacheRetention = Type.Union([Type.Literal('in_memory'), Type.Literal('24h')]);

/**
 * The body of `POST /v1/responses`; fields not named here are accepted and ignored.
 *
 * @example
 * const check = Compile(ResponsesRequest);
 * if (!check.Check(request.body)) throw invalidRequest(…);
 */
export const ResponsesRequest = Type.Object({
  model: Type.String({ minLength: 1 }),
  /** A user message's text, or the whole conversation: this server keeps none between calls. */
  input: Type.Union([Type.String(), Type.Array(InputItem, { minItems: 1 })]),
  /** Sent to the model as a leading system message. */
  instructions: nullable(Type.String()),
  tools: nullable(Type.Array(Tool)),
  tool_choice: nullable(ToolChoice),
  parallel_tool_calls: nullable(Type.Boolean()),
  max_output_tokens: nullable(Type.Integer({ minimum: 1 })),
  temperature: nullable(Type.Number({ minimum: 0, maximum: 2 })),
  top_p: nullable(Type.Number({ minimum: 0, maximum: 1 })),
  presence_penalty: nullable(Type.Number({ minimum: -2, maximum: 2 })),
  frequency_penalty: nullable(Type.Number({ minimum: -2, maximum: 2 })),
  /** Echoed; no log probabilities are returned (`logprobs` is always empty). */
  top_logprobs: nullable(Type.Integer({ minimum: 0, maximum: 20 })),
  /** `effort` is the chat request's `reasoning_effort`; `summary` fills the reasoning item's. */
  reasoning: nullable(
    Type.Object({
      effort: nullable(ReasoningEffort),
      summary: nullable(ReasoningSummary),
      /** The older name of `summary`. */
      generate_summary: nullable(ReasoningSummary),
    }),
  ),
  text: nullable(
    Type.Object({
      format: nullable(TextFormat),
      verbosity: nullable(Verbosity),
    }),
  ),
  stream: nullable(Type.Boolean()),
  metadata: nullable(Type.Record(Type.String(), Type.String())),
  user: nullable(Type.String()),
  safety_identifier: nullable(Type.String()),
  prompt_cache_key: nullable(Type.String()),
  prompt_cache_retention: nullable(PromptCacheRetention),
  /** Accepted and answered as `default`: the tier is the operator's choice, not the caller's. */
  service_tier: nullable(Type.String()),
  /** Limits built-in tool calls, which this server has none of: echoed. */
  max_tool_calls: nullable(Type.Integer({ minimum: 1 })),
  /** This server never truncates the input: the response says `disabled` either way. */
  truncation: nullable(Type.Union([Type.Literal('auto'), Type.Literal('disabled')])),
  /** Accepted; `encrypted_content` is in every reasoning item whether or not it is asked for. */
  include: nullable(Type.Array(Type.String())),
  /** Accepted, as clients send it by habit; nothing is stored, and the response says so. */
  store: nullable(Type.Boolean()),
  /** The features below need stored state: the mapping refuses them. */
  previous_response_id: nullable(Type.String()),
  conversation: Type.Optional(Type.Unknown()),
  background: nullable(Type.Boolean()),
  prompt: Type.Optional(Type.Unknown()),
});
export type ResponsesRequest = Static<typeof ResponsesRequest>;

/** Always empty: an array with no items (a tuple of none, as JSON Schema 2020-12 says it). */
const NoItems = Type.Array(Type.Never(), { maxItems: 0 });

/** The `output_text` part of a message item; annotations and logprobs are never produced. */
export const OutputText = Type.Object({
  type: Type.Literal('output_text'),
  text: Type.String(),
  annotations: NoItems,
  logprobs: NoItems,
});
export type OutputText = Static<typeof OutputText>;

export const OutputRefusal = Type.Object({ type: Type.Literal('refusal'), refusal: Type.String() });
export const OutputContent = Type.Union([OutputText, OutputRefusal]);
export type OutputContent = Static<typeof OutputContent>;

export const ItemStatus = Type.Union([
  Type.Literal('in_progress'),
  Type.Literal('completed'),
  Type.Literal('incomplete'),
]);
export type ItemStatus = Static<typeof ItemStatus>;

export const OutputMessage = Type.Object({
  id: Type.String(),
  type: Type.Literal('message'),
  status: ItemStatus,
  role: Type.Literal('assistant'),
  content: Type.Array(OutputContent),
});
export type OutputMessage = Static<typeof OutputMessage>;

export const OutputFunctionCall = Type.Object({
  id: Type.String(),
  type: Type.Literal('function_call'),
  status: ItemStatus,
  /** What a later `function_call_output` answers: the chat tool call's id. */
  call_id: Type.String(),
  name: Type.String(),
  arguments: Type.String(),
});
export type OutputFunctionCall = Static<typeof OutputFunctionCall>;

/**
 * The model's reasoning, before the message it led to: its text as the provider gave it in
 * `content`, the same text in `summary` when the request asked for one, and in
 * `encrypted_content` the provider's reasoning pieces (signatures, redacted thinking) sealed by
 * this server, for the client to send back with the next request.
 */
export const OutputReasoning = Type.Object({
  id: Type.String(),
  type: Type.Literal('reasoning'),
  status: ItemStatus,
  summary: Type.Array(SummaryText),
  content: Type.Array(ReasoningText),
  encrypted_content: Type.Union([Type.String(), Type.Null()]),
});
export type OutputReasoning = Static<typeof OutputReasoning>;

export const OutputItem = Type.Union([OutputReasoning, OutputMessage, OutputFunctionCall]);
export type OutputItem = Static<typeof OutputItem>;

export const ResponseUsage = Type.Object({
  input_tokens: Type.Integer(),
  input_tokens_details: Type.Object({
    cached_tokens: Type.Integer(),
    /** Chat usage reports no cache writes: always 0. */
    cache_write_tokens: Type.Integer(),
  }),
  output_tokens: Type.Integer(),
  output_tokens_details: Type.Object({ reasoning_tokens: Type.Integer() }),
  total_tokens: Type.Integer(),
});
export type ResponseUsage = Static<typeof ResponseUsage>;

/** The Response object (`object: "response"`): what was asked, echoed, and what came of it. */
export const ResponseObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('response'),
  created_at: Type.Integer(),
  status: Type.Union([
    Type.Literal('in_progress'),
    Type.Literal('completed'),
    Type.Literal('incomplete'),
    Type.Literal('failed'),
  ]),
  background: Type.Literal(false),
  /** Who pays for the call: the key holder's account, through the operator's provider keys. */
  billing: Type.Object({ payer: Type.Literal('developer') }),
  /** Set when the status is `completed`, null otherwise. */
  completed_at: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  frequency_penalty: Type.Number(),
  incomplete_details: Type.Union([
    Type.Object({
      reason: Type.Union([Type.Literal('max_output_tokens'), Type.Literal('content_filter')]),
    }),
    Type.Null(),
  ]),
  instructions: Type.Union([Type.String(), Type.Null()]),
  max_output_tokens: Type.Union([Type.Integer(), Type.Null()]),
  max_tool_calls: Type.Union([Type.Integer(), Type.Null()]),
  /** The id of the model that answered, as the catalog names it. */
  model: Type.String(),
  output: Type.Array(OutputItem),
  parallel_tool_calls: Type.Boolean(),
  presence_penalty: Type.Number(),
  previous_response_id: Type.Null(),
  prompt_cache_key: Type.Union([Type.String(), Type.Null()]),
  prompt_cache_retention: Type.Union([PromptCacheRetention, Type.Null()]),
  reasoning: Type.Object({
    effort: Type.Union([ReasoningEffort, Type.Null()]),
    summary: Type.Union([ReasoningSummary, Type.Null()]),
  }),
  safety_identifier: Type.Union([Type.String(), Type.Null()]),
  service_tier: Type.Literal('default'),
  /** Always false: this server keeps no responses, whatever the request asked. */
  store: Type.Literal(false),
  temperature: Type.Number(),
  text: Type.Object({ format: TextFormat, verbosity: Verbosity }),
  tool_choice: ToolChoice,
  tools: Type.Array(
    Type.Object({
      type: Type.Literal('function'),
      name: Type.String(),
      description: Type.Union([Type.String(), Type.Null()]),
      parameters: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
      strict: Type.Boolean(),
    }),
  ),
  top_logprobs: Type.Integer(),
  top_p: Type.Number(),
  truncation: Type.Literal('disabled'),
  usage: Type.Union([ResponseUsage, Type.Null()]),
  user: Type.Union([Type.String(), Type.Null()]),
  metadata: Type.Record(Type.String(), Type.String()),
});
export type ResponseObject = Static<typeof ResponseObject>;
