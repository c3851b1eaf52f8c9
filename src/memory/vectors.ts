import { endianness } from 'node:os';

/**
 * Vectors as search keeps them: unit length, so that cosine similarity is a dot product, and
 * stored as little-endian float32 (4 bytes a dimension) whatever the machine.
 */

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * `vector` scaled to unit length, as a new array; undefined when it has no direction (all zeros)
 * or holds a value that is not a finite number: such a vector can rank nothing.
 */
export function unitVector(vector: ArrayLike<number>): Float32Array | undefined {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) {
    const value = vector[i] as number;
    sum += value * value;
  }
  if (!Number.isFinite(sum) || sum === 0) return undefined;
  const scale = 1 / Math.sqrt(sum);
  const unit = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) unit[i] = (vector[i] as number) * scale;
  return unit;
}

/** The stored form: little-endian float32. */
export function encodeVector(vector: Float32Array): Buffer {
  if (LITTLE_ENDIAN)
    return Buffer.from(
      vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength),
    );
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i] as number, i * 4);
  return bytes;
}

/**
 * A stored vector read back. A view when the bytes allow one (little-endian machine, aligned),
 * else a copy; either way the bytes must not change while it is used.
 */
export function decodeVector(bytes: Uint8Array): Float32Array {
  const length = Math.floor(bytes.byteLength / 4);
  if (LITTLE_ENDIAN) {
    if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, length);
    return new Float32Array(bytes.slice(0, length * 4).buffer);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(length);
  for (let i = 0; i < length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}
