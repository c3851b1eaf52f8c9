import { foldText } from '../../platform/search-analyzer.ts';

/** Runs of letters and digits: a model's words, with nothing of search's analysis but folding. */
const WORDS = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

/**
 * The simulators' embedding model: deterministic, and with a real signal, so that texts that
 * share words or pieces of words are near and others are not. A text's features are its words,
 * folded as mnemo's analyzer folds them (case, accents) but neither stemmed nor left out, and each
 * word's character trigrams with its edges (`^pr`, `pro`, …, `er$`), so that `programmer` is
 * near `programming` although neither word is the other's prefix. Each feature is hashed into
 * one dimension with a sign (feature hashing): texts without a feature in common are about
 * orthogonal (cosine near 0, within ±1/√dimensions), texts with many are near 1.
 *
 * @example
 * cosine(simulatedEmbedding('Is learning programming', 64), simulatedEmbedding('A programmer', 64));
 * // well above 0.3; an unrelated text: near 0
 */
export function simulatedEmbedding(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const word of foldText(text).match(WORDS) ?? []) {
    add(vector, `w:${word}`, 1);
    const edged = `^${word}$`;
    const chars = [...edged];
    for (let at = 0; at + 3 <= chars.length; at++) {
      add(vector, `t:${chars.slice(at, at + 3).join('')}`, 0.5);
    }
  }
  return unit(vector);
}

/** A text of token ids (OpenAI takes those too): each id a word. */
export function simulatedTokenEmbedding(
  tokens: readonly number[],
  dimensions: number,
): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const token of tokens) add(vector, `k:${token}`, 1);
  return unit(vector);
}

function add(vector: Float32Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  const index = hash % vector.length;
  vector[index] = (vector[index] as number) + (hash & 0x80000000 ? -weight : weight);
}

/** FNV-1a, 32 bits: a small, stable hash (the same vector on every machine and run). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Unit length; a text without features (only punctuation) gets the first axis. */
function unit(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (sum === 0) {
    vector[0] = 1;
    return vector;
  }
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) * scale;
  return vector;
}

/** The cosine of two vectors (of any length). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] as number) * (b[i] as number);
    aa += (a[i] as number) ** 2;
    bb += (b[i] as number) ** 2;
  }
  return dot / Math.sqrt(aa * bb);
}
