import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { findTextProblem, TEXT_KEYWORD } from './storable-text.ts';

/**
 * The annotation a schema carries to give its own message for a rule of its own it breaks (a
 * pattern, a range, an `anyOf` of required fields): one message for all of them, or one per
 * keyword (`{"pattern": "…"}`, as ajv-errors writes it). What a client reads is the route's own
 * sentence, while the schema states the rule for the document.
 */
export const ERROR_MESSAGE_KEYWORD = 'errorMessage';

/**
 * Checks every part of a request (body, query, path, headers) against its compiled schema as
 * it came, converting nothing but the integers of a query: every query value is a string, and
 * a schema says `integer` where the interface takes one (`?limit=20`). The plugin's compiler
 * converts every value with TypeBox's interpreted `Value.Convert`, on every request: costly for
 * nothing, and it would turn `?x=1&x=2` into something a schema might accept.
 *
 * A body or query must also hold only text both stores keep as sent (storable-text.ts): one
 * check here, so no route's free string can miss it. Path parameters
 * are ids, and one that is no UUID is an unknown id (404), whatever it holds; header values
 * cannot carry either character (HTTP refuses NUL, and they are read as Latin-1).
 */
export const strictValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const validator = Compile(schema);
  const checksText = httpPart === 'body' || httpPart === 'querystring';
  const integers = httpPart === 'querystring' ? integerProperties(schema) : [];
  return (received) => {
    // The text rule first: a string that breaks it is answered so, whatever pattern of its
    // schema it would fail too (a pattern states the rule for the document, openapi-text-rule.ts).
    const bad = checksText ? findTextProblem(received) : undefined;
    if (bad) {
      const error: FastifySchemaValidationError = {
        keyword: TEXT_KEYWORD,
        instancePath: bad.path,
        schemaPath: '#',
        params: { problem: bad.problem },
        message: bad.problem,
      };
      return { error: [error] };
    }
    const value = integers.length > 0 ? withIntegers(received, integers) : received;
    if (validator.Check(value)) return { value };
    const errors = validator.Errors(value) as unknown as FastifySchemaValidationError[];
    return { error: errors.map((error) => withOwnMessage(schema, error)) };
  };
};

/** The names of an object schema's properties typed `integer`. */
function integerProperties(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties;
  return Object.entries(properties ?? {})
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
}

/** Digits, as a query carries an integer: anything else stays a string, and fails its schema. */
const INTEGER = /^-?\d{1,15}$/;

function withIntegers(value: unknown, names: readonly string[]): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const query = value as Record<string, unknown>;
  const converted = { ...query };
  for (const name of names) {
    const text = query[name];
    if (typeof text === 'string' && INTEGER.test(text)) converted[name] = Number(text);
  }
  return converted;
}

/**
 * `error` with the message of the schema that owns the rule it breaks, when that schema gives
 * one (ERROR_MESSAGE_KEYWORD): the schema at the error's path or one of its parents, no further
 * up than the property the error is in (a property's own problem is not its object's).
 * An unknown field is never the object's rule, nor a value that is no string where a string
 * belongs: their own messages say what is wrong.
 */
function withOwnMessage(
  root: TSchema,
  error: FastifySchemaValidationError,
): FastifySchemaValidationError {
  if (error.keyword === 'additionalProperties') return error;
  // No string where one belongs (a field sent twice, an object): "must be a string" says it best.
  if (error.keyword === 'type' && (error.params as { type?: unknown }).type === 'string') {
    return error;
  }
  const segments = error.schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean);
  for (let depth = segments.length; depth >= 0; depth--) {
    const node = segments
      .slice(0, depth)
      .reduce<unknown>(
        (at, segment) => (at as Record<string, unknown> | undefined)?.[segment],
        root,
      ) as Record<string, unknown> | undefined;
    const own = node?.[ERROR_MESSAGE_KEYWORD];
    const message =
      typeof own === 'object' && own !== null
        ? (own as Record<string, unknown>)[error.keyword]
        : own;
    if (typeof message === 'string') {
      return { ...error, keyword: ERROR_MESSAGE_KEYWORD, params: { message }, message };
    }
    if (depth >= 2 && segments[depth - 2] === 'properties') break;
  }
  return error;
}
