/**
 * The document's statement of the rule every string of a request keeps (storable-text.ts): no
 * NUL and no unpaired surrogate. The validator checks it once for all of a request's strings;
 * the document states it on each string a body or query takes, as a pattern a client, a
 * generator or a fuzzer reads (a JSON Schema pattern is matched by code point: an emoji's pair
 * is one character, a lone half is not).
 */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\uD800-\\uDFFF]*$';

/**
 * A text with at least one character that is not white space, keeping the rule: for a schema
 * whose string must say something (a memory, a search). A schema has one pattern, so one with a
 * pattern of its own states the rule in it.
 */
export const NOT_BLANK_TEXT_PATTERN =
  '^[^\\u0000\\uD800-\\uDFFF]*[^\\s\\u0000\\uD800-\\uDFFF][^\\u0000\\uD800-\\uDFFF]*$';

type Schema = Record<string, unknown>;

/** `schema` as documented: a copy whose every free string states the rule. */
export function statingTextRule(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(statingTextRule);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    // Examples and defaults are values, not schemas.
    copy[key] =
      key === 'examples' || key === 'default' || key === 'const' ? value : statingTextRule(value);
  }
  if (copy.type !== 'string' || copy.format !== undefined || copy.enum !== undefined) return copy;
  if (copy.pattern === undefined) return { ...copy, pattern: STORABLE_TEXT_PATTERN };
  // One pattern a schema: the string's own, and the rule beside it.
  return {
    ...copy,
    allOf: [...((copy.allOf as unknown[]) ?? []), { pattern: STORABLE_TEXT_PATTERN }],
  };
}

/**
 * A route's schema as the document shows it: the parts a request's text comes in (its body and
 * its query) state the rule; the route keeps validating with its own schema, unchanged.
 */
export function documentedRouteSchema(schema: Schema | undefined): Schema | undefined {
  if (!schema) return schema;
  return {
    ...schema,
    ...(schema.body !== undefined && { body: statingTextRule(schema.body) }),
    ...(schema.querystring !== undefined && { querystring: statingTextRule(schema.querystring) }),
  };
}
