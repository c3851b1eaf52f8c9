import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

/**
 * Checks every part of a request (body, query, path, headers) against its compiled schema as
 * it came, converting nothing. The plugin's compiler first converts query, path and header
 * values with TypeBox's interpreted `Value.Convert`, on every request: our values there are
 * all strings, so conversion has nothing to do but cost time, and it would turn `?x=1&x=2`
 * into something a schema might accept.
 */
export const strictValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema }) => {
  const validator = Compile(schema);
  return (value) =>
    validator.Check(value)
      ? { value }
      : { error: validator.Errors(value) as unknown as FastifySchemaValidationError[] };
};
