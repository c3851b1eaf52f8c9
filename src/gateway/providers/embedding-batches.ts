/**
 * What the embeddings APIs of every provider kind share: texts cut into the batches one call
 * takes, and a vector read from JSON (an array of numbers) or from base64 (little-endian
 * float32, OpenAI's `encoding_format: "base64"`).
 */

/** `texts` in runs of at most `size`, in order. */
export function inBatches<T>(texts: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let at = 0; at < texts.length; at += size) batches.push(texts.slice(at, at + size));
  return batches;
}

/** A vector as an API sent it, or undefined when it is none: empty, or not all numbers. */
export function vectorOf(value: unknown): Float32Array | undefined {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.byteLength === 0 || bytes.byteLength % 4 !== 0) return undefined;
    const vector = new Float32Array(bytes.byteLength / 4);
    for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
    return vector;
  }
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (!value.every((x) => typeof x === 'number' && Number.isFinite(x))) return undefined;
  return Float32Array.from(value as number[]);
}
