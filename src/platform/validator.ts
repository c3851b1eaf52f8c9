import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { findTextProblem, TEXT_KEYWORD } from './storable-text.ts';

/**
 * Checks every part of a request (body, query, path, headers) against its compiled schema as
 * it came, converting nothing. The plugin's compiler first converts query, path and header
 * values with TypeBox's interpreted `Value.Convert`, on every request: our values there are
 * all strings, so conversion has nothing to do but cost time, and it would turn `?x=1&x=2`
 * into something a schema might accept.
 *
 * A body or query that fits its schema must also hold only text both stores keep as sent
 * (storable-text.ts): one check here, so no route's free string can miss it. Path parameters
 * are ids, and one that is no UUID is an unknown id (404), whatever it holds; header values
 * cannot carry either character (HTTP refuses NUL, and they are read as Latin-1).
 */
export const strictValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const validator = Compile(schema);
  const checksText = httpPart === 'body' || httpPart === 'querystring';
  return (value) => {
    if (!validator.Check(value)) {
      return { error: validator.Errors(value) as unknown as FastifySchemaValidationError[] };
    }
    const bad = checksText ? findTextProblem(value) : undefined;
    if (!bad) return { value };
    const error: FastifySchemaValidationError = {
      keyword: TEXT_KEYWORD,
      instancePath: bad.path,
      schemaPath: '#',
      params: { problem: bad.problem },
      message: bad.problem,
    };
    return { error: [error] };
  };
};
