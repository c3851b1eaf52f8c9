import type { FastifySchemaValidationError } from 'fastify';
import { TEXT_KEYWORD } from './storable-text.ts';
import { ERROR_MESSAGE_KEYWORD } from './validator.ts';

/** What the parts of a request are called in messages: the whole, and one of its members. */
const PARTS: Record<string, { where: string; member: string }> = {
  body: { where: 'request body', member: 'field' },
  querystring: { where: 'query', member: 'query parameter' },
  params: { where: 'path', member: 'path parameter' },
  headers: { where: 'headers', member: 'header' },
  /** A tool's arguments (the MCP server's tools/call). */
  arguments: { where: 'arguments', member: 'argument' },
};

/**
 * Turns the first schema violation into a message naming the field, e.g.
 * `content is required`, `user must be a UUID`, `unknown field: categry`,
 * `unknown query parameter: limit`, `content must not contain NUL characters (U+0000)`.
 */
export function describeValidationError(
  errors: readonly FastifySchemaValidationError[],
  context: string | undefined,
): string {
  // Additional-property errors carry the clearest message; TypeBox reports them second.
  const error = errors.find((e) => e.keyword === 'additionalProperties') ?? errors[0];
  if (!error) return 'invalid request';
  const params = error.params as Record<string, unknown>;
  const field = error.instancePath.split('/').filter(Boolean).join('.');
  const { where, member } = PARTS[context ?? ''] ?? { where: 'request', member: 'field' };
  switch (error.keyword) {
    case 'required': {
      const missing =
        (params.requiredProperties as string[] | undefined)?.[0] ??
        (params.missingProperty as string | undefined);
      return missing ? `${missing} is required` : `${where} is missing a ${member}`;
    }
    case 'additionalProperties': {
      const extra =
        (params.additionalProperties as string[] | undefined)?.[0] ??
        (params.additionalProperty as string | undefined);
      return extra ? `unknown ${member}: ${extra}` : `${where} has an unknown ${member}`;
    }
    case 'type':
      return field
        ? `${field} must be ${article(String(params.type))}`
        : `${where} must be a JSON ${params.type}`;
    case 'format':
      return `${field || where} must be ${params.format === 'uuid' ? 'a UUID' : `a valid ${params.format}`}`;
    case 'minLength':
      return `${field || where} must not be empty`;
    case 'maxLength':
      return `${field || where} must be at most ${String(params.limit)} characters`;
    case 'minItems':
      return `${field || where} must hold at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `${field || where} must hold at most ${String(params.limit)} items`;
    case TEXT_KEYWORD:
      return `${field || where} ${String(params.problem)}`;
    // The schema's own words for its rule (validator.ts).
    case ERROR_MESSAGE_KEYWORD:
      return String(params.message);
    case 'minimum':
      return `${field || where} must be at least ${String(params.limit)}`;
    case 'maximum':
      return `${field || where} must be at most ${String(params.limit)}`;
    case 'enum':
      return `${field || where} must be one of: ${(params.allowedValues as unknown[] | undefined)?.join(', ') ?? 'its listed values'}`;
    default:
      return `${field || where} is invalid`;
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
