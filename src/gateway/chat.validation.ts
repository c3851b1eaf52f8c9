import type { TProperties, TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { type ChatMessage, ChatRequest, MESSAGE_SCHEMAS } from './chat.schemas.ts';
import { GatewayError, invalidRequest } from './openai-errors.ts';

const checkRequest = Compile(ChatRequest);
const checkMessage = Object.fromEntries(
  Object.entries(MESSAGE_SCHEMAS).map(([role, schema]) => [role, Compile(schema)]),
) as Record<keyof typeof MESSAGE_SCHEMAS, ReturnType<typeof Compile<TSchema>>>;

/**
 * A chat completions body, checked as OpenAI checks it: the first problem found is a 400 naming
 * the parameter (`messages[1].tool_call_id`), in OpenAI's wording and codes. Each message is
 * checked against its own role's schema, so a bad message gets a precise error rather than
 * "matches none of five shapes".
 *
 * @example
 * const checked = checkChatRequest(request.body);
 * if (checked instanceof GatewayError) throw checked;
 */
export function checkChatRequest(body: unknown): ChatRequest | GatewayError {
  const checked = checkBody(checkRequest, body);
  if (checked instanceof GatewayError) return checked;
  const request = checked as ChatRequest;
  for (const [index, message] of request.messages.entries()) {
    const check = checkMessage[message.role];
    if (!check.Check(message)) {
      return firstProblem(check.Errors(message), message, `messages[${index}]`);
    }
  }
  return checkToolReferences(request.messages) ?? request;
}

/**
 * A `/v1` body checked against its compiled schema: the body, typed, or the first problem as
 * OpenAI's 400.
 *
 * @example
 * const body = checkBody(Compile(ResponsesRequest), request.body);
 * if (body instanceof GatewayError) throw body;
 */
export function checkBody<T>(
  check: Validator<TProperties, TSchema, T>,
  body: unknown,
): T | GatewayError {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return invalidRequest('The request body must be a JSON object.');
  }
  return check.Check(body) ? body : firstProblem(check.Errors(body), body);
}

/** Tool results must answer a call the conversation made, as OpenAI requires. */
function checkToolReferences(messages: readonly ChatMessage[]): GatewayError | undefined {
  const called = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) called.add(call.id);
    } else if (message.role === 'tool' && !called.has(message.tool_call_id)) {
      return invalidRequest(
        "Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'.",
        null,
        `messages[${index}].role`,
      );
    }
  }
  return undefined;
}

type SchemaError = ReturnType<typeof checkRequest.Errors>[number];

/**
 * The first problem of a body the schema refused, as OpenAI words it: a missing parameter by
 * name, a value outside a fixed set with the values allowed, else the deepest invalid one.
 * `value` is what was checked; `base` prefixes the parameter path (`messages[2]`).
 */
export function firstProblem(
  errors: readonly SchemaError[],
  value: unknown,
  base = '',
): GatewayError {
  const missing = errors.find((error) => error.keyword === 'required');
  if (missing) {
    const parameter = join(
      join(base, missing.instancePath),
      (missing.params as { requiredProperties?: string[] }).requiredProperties?.[0],
    );
    return invalidRequest(
      `Missing required parameter: '${parameter}'.`,
      'missing_required_parameter',
      parameter,
    );
  }
  // Of a union's errors, the deepest says most; `anyOf` itself only says "none matched".
  const specific =
    errors
      .filter((error) => error.keyword !== 'anyOf')
      .sort((a, b) => depth(b.instancePath) - depth(a.instancePath))[0] ?? errors[0];
  const parameter = join(base, specific?.instancePath ?? '') || 'body';
  if (specific?.keyword === 'const') {
    // A union of constants (`role`): every constant allowed at that place, as OpenAI lists them.
    const allowed = errors
      .filter((e) => e.keyword === 'const' && e.instancePath === specific.instancePath)
      .map((e) => `'${String((e.params as { allowedValue?: unknown }).allowedValue)}'`);
    const got = at(value, specific.instancePath);
    return invalidRequest(
      `Invalid value: ${typeof got === 'string' ? `'${got}'` : JSON.stringify(got)}. Supported values are: ${listed(allowed)}.`,
      'invalid_value',
      parameter,
    );
  }
  return invalidRequest(
    `Invalid value for '${parameter}': ${specific?.message ?? 'not valid'}.`,
    specific?.keyword === 'type' ? 'invalid_type' : 'invalid_value',
    parameter,
  );
}

/** `'a', 'b', and 'c'`; `'a' and 'b'`; `'a'`. */
function listed(items: readonly string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')}, and ${items.at(-1)}`;
}

/** The value at a JSON pointer inside `value`. */
function at(value: unknown, pointer: string): unknown {
  let here = value;
  for (const segment of pointer.split('/').slice(1)) {
    here =
      typeof here === 'object' && here !== null
        ? (here as Record<string, unknown>)[segment]
        : undefined;
  }
  return here;
}

const depth = (pointer: string) => pointer.split('/').length;

/** `messages[0]` + `/content/1/type` → `messages[0].content[1].type`. */
function join(base: string, pointer: string | undefined): string {
  if (pointer === undefined || pointer === '') return base;
  let path = base;
  for (const segment of pointer.replace(/^\//, '').split('/')) {
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  }
  return path;
}
