import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { FastifySchemaValidationError } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { findTextProblem } from '../platform/storable-text.ts';
import { describeValidationError } from '../platform/validation-messages.ts';

/**
 * A TypeBox schema as the MCP SDK takes one (Standard Schema with its JSON Schema): TypeBox
 * schemas are JSON Schema already, so `tools/list` shows them as written, and arguments are
 * checked by the same compiled validator and worded by the same rules as the API's requests
 * (`content is required`, `user must be a UUID`, `unknown argument: categry`), text included:
 * no NUL, no unpaired surrogate, which the stores cannot keep as sent.
 *
 * The validator is compiled on first use and kept: servers are made per request, schemas once.
 *
 * @example
 * const Input = toolSchema(Type.Object({ id: Type.String() }, { additionalProperties: false }));
 * server.registerTool('get', { inputSchema: Input }, ({ id }) => …);
 */
export function toolSchema<T extends TSchema>(
  schema: T,
): StandardSchemaWithJSON<Static<T>, Static<T>> {
  let compiled: { Check(value: unknown): boolean; Errors(value: unknown): unknown[] } | undefined;
  const json = () => schema as unknown as Record<string, unknown>;
  return {
    '~standard': {
      version: 1,
      vendor: 'mnemo',
      jsonSchema: { input: json, output: json },
      validate(value) {
        compiled ??= Compile(schema);
        const validator = compiled;
        if (!validator.Check(value)) {
          const errors = validator.Errors(value) as FastifySchemaValidationError[];
          return { issues: [{ message: describeArgumentError(errors) }] };
        }
        const bad = findTextProblem(value);
        if (bad) return { issues: [{ message: `${pathName(bad.path)} ${bad.problem}` }] };
        return { value: value as Static<T> };
      },
    },
  };
}

/**
 * The first violation as a sentence naming the argument. The API's rules (validation-messages.ts)
 * word most; the keywords its requests never meet (a range, a list of values) are worded here.
 */
function describeArgumentError(errors: readonly FastifySchemaValidationError[]): string {
  const error = errors.find((e) => e.keyword === 'additionalProperties') ?? errors[0];
  const params = (error?.params ?? {}) as Record<string, unknown>;
  const name = pathName(error?.instancePath ?? '');
  switch (error?.keyword) {
    case 'minimum':
      return `${name} must be at least ${String(params.limit)}`;
    case 'maximum':
      return `${name} must be at most ${String(params.limit)}`;
    case 'enum':
      return `${name} must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    default:
      return describeValidationError(errors, 'arguments');
  }
}

/** `/user` → `user`: an argument's name, from its JSON Pointer. */
const pathName = (pointer: string) => pointer.split('/').filter(Boolean).join('.') || 'arguments';
