import { type TSchema, Type } from 'typebox';
import { Compile } from 'typebox/compile';

/**
 * The Response object and its streamed events as OpenAI documents them (the official `openai`
 * package's types, responses.d.ts, and the OpenResponses schema), written here apart from the
 * gateway's own schemas so that a test checks the gateway against the documentation, not
 * against itself. Every object is closed (no field that is not documented) and every field the
 * Response always carries is required.
 *
 * @example
 * expect(responseShapeErrors(await client.responses.create({ model, input }))).toEqual([]);
 */

const closed = <T extends Record<string, TSchema>>(fields: T) =>
  Type.Object(fields, { additionalProperties: false });
const orNull = (schema: TSchema) => Type.Union([schema, Type.Null()]);
const status = Type.Union([
  Type.Literal('in_progress'),
  Type.Literal('completed'),
  Type.Literal('incomplete'),
]);

const outputText = closed({
  type: Type.Literal('output_text'),
  text: Type.String(),
  annotations: Type.Array(Type.Unknown()),
  logprobs: Type.Array(Type.Unknown()),
});
const refusal = closed({ type: Type.Literal('refusal'), refusal: Type.String() });
const summaryText = closed({ type: Type.Literal('summary_text'), text: Type.String() });
const reasoningText = closed({ type: Type.Literal('reasoning_text'), text: Type.String() });

const item = Type.Union([
  closed({
    id: Type.String({ pattern: '^msg_' }),
    type: Type.Literal('message'),
    status,
    role: Type.Literal('assistant'),
    content: Type.Array(Type.Union([outputText, refusal])),
  }),
  closed({
    id: Type.String({ pattern: '^fc_' }),
    type: Type.Literal('function_call'),
    status,
    call_id: Type.String(),
    name: Type.String(),
    arguments: Type.String(),
  }),
  closed({
    id: Type.String({ pattern: '^rs_' }),
    type: Type.Literal('reasoning'),
    status,
    summary: Type.Array(summaryText),
    content: Type.Array(reasoningText),
    encrypted_content: orNull(Type.String()),
  }),
]);

const effort = Type.Union(
  ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'].map((value) => Type.Literal(value)),
);
const summary = Type.Union(['auto', 'concise', 'detailed'].map((value) => Type.Literal(value)));

const textFormat = Type.Union([
  closed({ type: Type.Literal('text') }),
  closed({ type: Type.Literal('json_object') }),
  closed({
    type: Type.Literal('json_schema'),
    name: Type.String(),
    schema: Type.Record(Type.String(), Type.Unknown()),
    description: Type.Optional(orNull(Type.String())),
    strict: Type.Optional(orNull(Type.Boolean())),
  }),
]);

export const ResponseShape = closed({
  id: Type.String({ pattern: '^resp_' }),
  object: Type.Literal('response'),
  created_at: Type.Integer(),
  status: Type.Union([status, Type.Literal('failed')]),
  background: Type.Boolean(),
  billing: closed({ payer: Type.String() }),
  completed_at: orNull(Type.Integer()),
  error: orNull(closed({ code: Type.String(), message: Type.String() })),
  frequency_penalty: Type.Number(),
  incomplete_details: orNull(
    closed({
      reason: Type.Union([Type.Literal('max_output_tokens'), Type.Literal('content_filter')]),
    }),
  ),
  instructions: orNull(Type.String()),
  max_output_tokens: orNull(Type.Integer()),
  max_tool_calls: orNull(Type.Integer()),
  model: Type.String(),
  output: Type.Array(item),
  parallel_tool_calls: Type.Boolean(),
  presence_penalty: Type.Number(),
  previous_response_id: orNull(Type.String()),
  prompt_cache_key: orNull(Type.String()),
  prompt_cache_retention: orNull(Type.Union([Type.Literal('in_memory'), Type.Literal('24h')])),
  reasoning: closed({ effort: orNull(effort), summary: orNull(summary) }),
  safety_identifier: orNull(Type.String()),
  service_tier: Type.String(),
  store: Type.Boolean(),
  temperature: Type.Number(),
  text: closed({
    format: textFormat,
    verbosity: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]),
  }),
  tool_choice: Type.Union([
    Type.Literal('none'),
    Type.Literal('auto'),
    Type.Literal('required'),
    closed({ type: Type.Literal('function'), name: Type.String() }),
  ]),
  tools: Type.Array(
    closed({
      type: Type.Literal('function'),
      name: Type.String(),
      description: orNull(Type.String()),
      parameters: orNull(Type.Record(Type.String(), Type.Unknown())),
      strict: Type.Boolean(),
    }),
  ),
  top_logprobs: Type.Integer(),
  top_p: Type.Number(),
  truncation: Type.Union([Type.Literal('auto'), Type.Literal('disabled')]),
  usage: orNull(
    closed({
      input_tokens: Type.Integer(),
      input_tokens_details: closed({
        cached_tokens: Type.Integer(),
        cache_write_tokens: Type.Integer(),
      }),
      output_tokens: Type.Integer(),
      output_tokens_details: closed({ reasoning_tokens: Type.Integer() }),
      total_tokens: Type.Integer(),
    }),
  ),
  user: orNull(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
});

const event = <T extends Record<string, TSchema>>(type: string, fields: T) =>
  closed({ type: Type.Literal(type), sequence_number: Type.Integer({ minimum: 0 }), ...fields });
const inItem = { item_id: Type.String(), output_index: Type.Integer({ minimum: 0 }) };
const inPart = { ...inItem, content_index: Type.Integer({ minimum: 0 }) };
const inSummary = { ...inItem, summary_index: Type.Integer({ minimum: 0 }) };
const carrying = (type: string) => event(type, { response: ResponseShape });

export const ResponseEventShape = Type.Union([
  carrying('response.created'),
  carrying('response.in_progress'),
  carrying('response.completed'),
  carrying('response.incomplete'),
  carrying('response.failed'),
  event('response.output_item.added', { output_index: Type.Integer(), item }),
  event('response.output_item.done', { output_index: Type.Integer(), item }),
  event('response.content_part.added', {
    ...inPart,
    part: Type.Union([outputText, refusal, reasoningText]),
  }),
  event('response.content_part.done', {
    ...inPart,
    part: Type.Union([outputText, refusal, reasoningText]),
  }),
  event('response.output_text.delta', {
    ...inPart,
    delta: Type.String(),
    logprobs: Type.Array(Type.Unknown()),
  }),
  event('response.output_text.done', {
    ...inPart,
    text: Type.String(),
    logprobs: Type.Array(Type.Unknown()),
  }),
  event('response.refusal.delta', { ...inPart, delta: Type.String() }),
  event('response.refusal.done', { ...inPart, refusal: Type.String() }),
  event('response.function_call_arguments.delta', { ...inItem, delta: Type.String() }),
  event('response.function_call_arguments.done', { ...inItem, arguments: Type.String() }),
  event('response.reasoning_summary_part.added', { ...inSummary, part: summaryText }),
  event('response.reasoning_summary_part.done', { ...inSummary, part: summaryText }),
  event('response.reasoning_summary_text.delta', { ...inSummary, delta: Type.String() }),
  event('response.reasoning_summary_text.done', { ...inSummary, text: Type.String() }),
  event('response.reasoning_text.delta', { ...inPart, delta: Type.String() }),
  event('response.reasoning_text.done', { ...inPart, text: Type.String() }),
]);

const checkResponse = Compile(ResponseShape);
const checkEvent = Compile(ResponseEventShape);

const errorsOf = (errors: Iterable<{ instancePath: string; message: string }>) =>
  [...errors].map((error) => `${error.instancePath || '/'}: ${error.message}`);

/** Where `value` departs from the documented Response object; empty when it does not. */
export function responseShapeErrors(value: unknown): string[] {
  return checkResponse.Check(value) ? [] : errorsOf(checkResponse.Errors(value));
}

/** Where `value` departs from the documented event of its type; empty when it does not. */
export function responseEventShapeErrors(value: unknown): string[] {
  return checkEvent.Check(value)
    ? []
    : [`${(value as { type?: string }).type}:`, ...errorsOf(checkEvent.Errors(value))];
}
