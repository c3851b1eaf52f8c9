// How the simulators count and cut the text they answer with. The counts are an estimate, not a
// tokenizer, so that a test can work out by hand the usage it expects.

/**
 * `ceil(characters / 4)`: the usual rule of thumb for English text.
 *
 * @example
 * estimateTokens('Hello there'); // 3
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Words with their trailing whitespace (leading whitespace goes with the first), so the pieces
 * join back to the text exactly. Never empty: a text without words, `''` included, is one piece.
 *
 * @example
 * splitWords('Hi, how are you?'); // ['Hi, ', 'how ', 'are ', 'you?']
 */
export function splitWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? [text];
}

/**
 * JSON text in pieces of `size` characters, cut anywhere, as providers stream tool arguments.
 *
 * @example
 * splitJson('{"city":"Paris"}'); // ['{"city":', '"Paris"}']
 */
export function splitJson(json: string, size = 8): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < json.length; at += size) pieces.push(json.slice(at, at + size));
  return pieces;
}
