/**
 * The port through which search gets vectors (docs/design.md §3.4.1). Memory owns it; the gateway
 * implements it over an embedding model of its catalog, and src/app.ts hands that implementation
 * in. Memory never sees a provider, a wire format or a key.
 *
 * @example
 * const [vector] = await embedder.embed(['Likes green tea'], AbortSignal.timeout(2000));
 */
export interface Embedder {
  /**
   * The vector space's name, under which vectors are kept: vectors of different names are never
   * compared. The catalog id of the model (with its `dimensions` when the catalog sets them).
   */
  readonly model: string;
  /**
   * One vector per text, in order, all of one length. Rejects on any failure: the provider
   * unreachable or failing, a timeout, `signal` aborted, an answer of the wrong shape; with
   * EmbeddingRefused when the provider refused the texts themselves.
   */
  embed(texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]>;
}

/**
 * The provider refused the texts themselves (a 4xx other than 408 or 429: too long, say), so
 * sending them again would fail again. Any other failure is an outage, worth a later retry.
 */
export class EmbeddingRefused extends Error {
  override readonly name = 'EmbeddingRefused';
}

/**
 * How much of a text is embedded: its first 2,000 characters. Providers refuse a text over their
 * token limit (OpenAI's 8,192 tokens, Gemini's 2,048) rather than shorten it, and a memory of
 * 8,000 characters in a script of one token per character would be refused every time; its
 * whole text is still searched lexically.
 */
export const EMBEDDED_CHARS = 2000;

/** The part of `text` that is embedded (whole characters, never half a surrogate pair). */
export function embeddedText(text: string): string {
  if (text.length <= EMBEDDED_CHARS) return text;
  return [...text].slice(0, EMBEDDED_CHARS).join('');
}
