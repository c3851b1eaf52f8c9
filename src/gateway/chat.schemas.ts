import { type Static, type TSchema, Type } from 'typebox';

/**
 * The body of `POST /v1/chat/completions`, as OpenAI's API reference gives it: the fields every
 * provider is translated from. Optional fields also take `null`, as OpenAI's SDKs send them;
 * fields not named here pass through to OpenAI-compatible providers untouched.
 */
/** Optional, and also `null`: OpenAI's SDKs send `null` and absence alike for "not set". */
export const nullable = <T extends TSchema>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));

export const TextPart = Type.Object({ type: Type.Literal('text'), text: Type.String() });
export type TextPart = Static<typeof TextPart>;

export const ImagePart = Type.Object({
  type: Type.Literal('image_url'),
  image_url: Type.Object({
    /** An http(s) URL or a `data:image/…;base64,…` URL. */
    url: Type.String({ minLength: 1 }),
    detail: Type.Optional(
      Type.Union([Type.Literal('auto'), Type.Literal('low'), Type.Literal('high')]),
    ),
  }),
});
export type ImagePart = Static<typeof ImagePart>;

const textContent = Type.Union([Type.String(), Type.Array(TextPart)]);

export const ToolCall = Type.Object({
  id: Type.String({ minLength: 1 }),
  type: Type.Literal('function'),
  function: Type.Object({
    name: Type.String({ minLength: 1 }),
    /** JSON text, as the model wrote it. */
    arguments: Type.String(),
  }),
});
export type ToolCall = Static<typeof ToolCall>;

const name = Type.Optional(Type.String());

/**
 * One piece of a model's reasoning as it travels through chat completions, in the shape
 * several gateways and SDKs share (`reasoning_details`): the reasoning's text (with the
 * provider's signature when it signs it), a summary of it, or data sealed by the provider that
 * only it can read (Anthropic's redacted thinking, Gemini's thought signatures). The client
 * sends the pieces back with the assistant turn they came with, so a provider that wants its
 * reasoning back across a tool loop gets it. `format` is the provider kind whose model wrote
 * the piece: pieces go back only to a provider of that kind, and are dropped for any other
 * (a router's fallback to another provider). `id`: the tool call a piece belongs to, when it
 * belongs to one (Gemini signs function calls).
 */
export const ReasoningDetail = Type.Union([
  Type.Object({
    type: Type.Literal('reasoning.text'),
    text: Type.String(),
    signature: nullable(Type.String()),
    format: Type.String({ minLength: 1 }),
    index: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
  Type.Object({
    type: Type.Literal('reasoning.summary'),
    summary: Type.String(),
    format: Type.String({ minLength: 1 }),
    index: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
  Type.Object({
    type: Type.Literal('reasoning.encrypted'),
    data: Type.String({ minLength: 1 }),
    id: nullable(Type.String()),
    format: Type.String({ minLength: 1 }),
    index: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
]);
export type ReasoningDetail = Static<typeof ReasoningDetail>;

/** OpenAI's `reasoning_effort` values (chat), and `reasoning.effort` (responses). */
export const ReasoningEffort = Type.Union([
  Type.Literal('none'),
  Type.Literal('minimal'),
  Type.Literal('low'),
  Type.Literal('medium'),
  Type.Literal('high'),
  Type.Literal('xhigh'),
]);
export type ReasoningEffort = Static<typeof ReasoningEffort>;

export const SystemMessage = Type.Object({
  role: Type.Union([Type.Literal('system'), Type.Literal('developer')]),
  content: textContent,
  name,
});
export const UserMessage = Type.Object({
  role: Type.Literal('user'),
  content: Type.Union([Type.String(), Type.Array(Type.Union([TextPart, ImagePart]))]),
  name,
});
export const AssistantMessage = Type.Object({
  role: Type.Literal('assistant'),
  content: nullable(
    Type.Union([
      Type.String(),
      Type.Array(
        Type.Union([
          TextPart,
          Type.Object({ type: Type.Literal('refusal'), refusal: Type.String() }),
        ]),
      ),
    ]),
  ),
  refusal: nullable(Type.String()),
  tool_calls: Type.Optional(Type.Array(ToolCall)),
  name,
  /** The reasoning this turn came with, as mnemo answered it: text, and the pieces to send back. */
  reasoning: nullable(Type.String()),
  reasoning_content: nullable(Type.String()),
  reasoning_details: Type.Optional(Type.Array(ReasoningDetail)),
});
export const ToolMessage = Type.Object({
  role: Type.Literal('tool'),
  content: textContent,
  tool_call_id: Type.String({ minLength: 1 }),
});

export type SystemMessage = Static<typeof SystemMessage>;
export type UserMessage = Static<typeof UserMessage>;
export type AssistantMessage = Static<typeof AssistantMessage>;
export type ToolMessage = Static<typeof ToolMessage>;
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** Each role's schema: a message is checked against its own role's, for precise errors. */
export const MESSAGE_SCHEMAS = {
  system: SystemMessage,
  developer: SystemMessage,
  user: UserMessage,
  assistant: AssistantMessage,
  tool: ToolMessage,
} as const;

export const FunctionTool = Type.Object({
  type: Type.Literal('function'),
  function: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9_-]+$' }),
    description: Type.Optional(Type.String()),
    /** A JSON Schema object; absent means no arguments. */
    parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    strict: nullable(Type.Boolean()),
  }),
});
export type FunctionTool = Static<typeof FunctionTool>;

export const ToolChoice = Type.Union([
  Type.Literal('none'),
  Type.Literal('auto'),
  Type.Literal('required'),
  Type.Object({
    type: Type.Literal('function'),
    function: Type.Object({ name: Type.String({ minLength: 1 }) }),
  }),
]);
export type ToolChoice = Static<typeof ToolChoice>;

export const ResponseFormat = Type.Union([
  Type.Object({ type: Type.Literal('text') }),
  Type.Object({ type: Type.Literal('json_object') }),
  Type.Object({
    type: Type.Literal('json_schema'),
    json_schema: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 64 }),
      description: Type.Optional(Type.String()),
      schema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      strict: nullable(Type.Boolean()),
    }),
  }),
]);
export type ResponseFormat = Static<typeof ResponseFormat>;

export const ChatRequest = Type.Object({
  model: Type.String({ minLength: 1 }),
  /** Checked role by role against MESSAGE_SCHEMAS (chat.validation.ts). */
  messages: Type.Array(
    Type.Object({
      role: Type.Union([
        Type.Literal('system'),
        Type.Literal('developer'),
        Type.Literal('user'),
        Type.Literal('assistant'),
        Type.Literal('tool'),
      ]),
    }),
    { minItems: 1 },
  ),
  stream: nullable(Type.Boolean()),
  stream_options: nullable(Type.Object({ include_usage: Type.Optional(Type.Boolean()) })),
  tools: Type.Optional(Type.Array(FunctionTool)),
  tool_choice: Type.Optional(ToolChoice),
  parallel_tool_calls: Type.Optional(Type.Boolean()),
  response_format: Type.Optional(ResponseFormat),
  max_tokens: nullable(Type.Integer({ minimum: 1 })),
  max_completion_tokens: nullable(Type.Integer({ minimum: 1 })),
  stop: nullable(
    Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1, maxItems: 4 })]),
  ),
  temperature: nullable(Type.Number({ minimum: 0, maximum: 2 })),
  top_p: nullable(Type.Number({ minimum: 0, maximum: 1 })),
  n: nullable(Type.Integer({ minimum: 1, maximum: 128 })),
  seed: nullable(Type.Integer()),
  user: Type.Optional(Type.String()),
  reasoning_effort: nullable(ReasoningEffort),
});

/**
 * The body as the document states it: ChatRequest with each message held to its own role's
 * schema, the two steps of checkChatRequest in one schema. Beyond it, a `tool` message must
 * answer a call of an earlier assistant message.
 */
export const ChatRequestBody = Type.Object({
  ...ChatRequest.properties,
  messages: Type.Array(Type.Union([SystemMessage, UserMessage, AssistantMessage, ToolMessage]), {
    minItems: 1,
  }),
});

/** A checked request: every message already checked against its role's schema. */
export type ChatRequest = Omit<Static<typeof ChatRequest>, 'messages'> & {
  readonly messages: ChatMessage[];
  /** Fields OpenAI defines that mnemo does not translate: passed to OpenAI-compatible providers. */
  readonly [passthrough: string]: unknown;
};

/**
 * The answer's shapes (provider.ts's ChatCompletion and ChatChunk), as the document states them:
 * what every provider's answer is translated to. An OpenAI-compatible provider's further fields
 * come along.
 */
const FinishReason = Type.Union([
  Type.Literal('stop'),
  Type.Literal('length'),
  Type.Literal('tool_calls'),
  Type.Literal('content_filter'),
]);

export const ChatUsage = Type.Object({
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer({ description: 'The reasoning tokens included' }),
  total_tokens: Type.Integer(),
  prompt_tokens_details: Type.Optional(Type.Object({ cached_tokens: Type.Integer() })),
  completion_tokens_details: Type.Optional(
    Type.Object({ reasoning_tokens: Type.Integer() }, { description: 'Absent when none' }),
  ),
});

export const ChatCompletionObject = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('chat.completion'),
    created: Type.Integer({ description: 'Unix seconds' }),
    model: Type.String({ description: 'The catalog id of the model that answered' }),
    choices: Type.Array(
      Type.Object({
        index: Type.Integer({ minimum: 0 }),
        message: Type.Object({
          role: Type.Literal('assistant'),
          content: Type.Union([Type.String(), Type.Null()]),
          refusal: nullable(Type.String()),
          tool_calls: Type.Optional(Type.Array(ToolCall)),
          reasoning: Type.Optional(
            Type.String({ description: "A reasoning model's reasoning, when it gave any" }),
          ),
          reasoning_content: Type.Optional(
            Type.String({
              description: 'The same text as `reasoning`, the spelling some SDKs read',
            }),
          ),
          reasoning_details: Type.Optional(
            Type.Array(ReasoningDetail, {
              description: 'The reasoning as pieces, to send back with this turn',
            }),
          ),
        }),
        logprobs: nullable(
          Type.Object(
            {},
            { description: 'An OpenAI-compatible provider’s, when asked for; null otherwise' },
          ),
        ),
        finish_reason: FinishReason,
      }),
    ),
    usage: ChatUsage,
    system_fingerprint: nullable(Type.String()),
  },
  { description: 'A whole answer' },
);
