/**
 * The one rule for text a request may bring: it must be stored, and read back, exactly as sent
 * on both engines.
 *
 * - NUL (U+0000): PostgreSQL refuses it in `text` ("invalid byte sequence for encoding UTF8:
 *   0x00"), where SQLite keeps it; refused here, the answer is a 400 on both, not a 500 on one.
 * - A lone UTF-16 surrogate (U+D800 to U+DFFF without its pair, as JSON's `"\ud800"` allows): it
 *   has no UTF-8 form, so either store keeps U+FFFD in its place and the client's copy and the
 *   server's would disagree from the first write on.
 */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain NUL characters (U+0000)';
  if (!value.isWellFormed()) return 'must not contain unpaired surrogates (U+D800 to U+DFFF)';
  return undefined;
}

/** The keyword of the schema error the validator reports a broken rule as (validator.ts). */
export const TEXT_KEYWORD = 'storableText';

export interface TextProblemAt {
  /** JSON Pointer to the string (`/content`, `/messages/0`), as schema errors name places. */
  readonly path: string;
  readonly problem: string;
}

/**
 * The first string inside a request part (a parsed JSON body, a query) that breaks the rule,
 * with where it is; undefined when every string keeps.
 *
 * @example
 * findTextProblem({ content: 'a\u0000b' });
 * // { path: '/content', problem: 'must not contain NUL characters (U+0000)' }
 */
export function findTextProblem(value: unknown, path = ''): TextProblemAt | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem === undefined ? undefined : { path, problem };
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findTextProblem(item, `${path}/${index}`);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const found = findTextProblem(item, `${path}/${key}`);
    if (found) return found;
  }
  return undefined;
}
