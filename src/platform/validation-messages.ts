import type { FastifySchemaValidationError } from 'fastify';

/**
 * Turns the first schema violation into a message naming the field, e.g.
 * `content is required`, `user must be a UUID`, `unknown field: categry`.
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
  const where = context === 'body' ? 'request body' : (context ?? 'request');
  switch (error.keyword) {
    case 'required': {
      const missing =
        (params.requiredProperties as string[] | undefined)?.[0] ??
        (params.missingProperty as string | undefined);
      return missing ? `${missing} is required` : `${where} is missing a field`;
    }
    case 'additionalProperties': {
      const extra =
        (params.additionalProperties as string[] | undefined)?.[0] ??
        (params.additionalProperty as string | undefined);
      return extra ? `unknown field: ${extra}` : `${where} has an unknown field`;
    }
    case 'type':
      return field
        ? `${field} must be ${article(String(params.type))}`
        : `${where} must be a JSON ${params.type}`;
    case 'format':
      return `${field || where} must be ${params.format === 'uuid' ? 'a UUID' : `a valid ${params.format}`}`;
    case 'minLength':
      return `${field || where} must not be empty`;
    default:
      return `${field || where} is invalid`;
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
