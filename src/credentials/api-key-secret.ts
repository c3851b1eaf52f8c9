import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * The secret of an API key (docs/design.md §3): `mnemo_sk_`, then 32 random bytes in base62 (43
 * characters, left-padded with `0`), then a 6-character base62 CRC-32 of everything before it.
 * The checksum lets a mistyped or made-up key be refused without a database read; the prefix
 * lets secret scanners recognize a leaked key.
 *
 * @example
 * const key = generateApiKey();
 * // key.secret: 'mnemo_sk_3Vd0…kT2' (58 characters), shown once
 * // key.hash: stored; key.prefix: 'mnemo_sk_3Vd0', shown in lists
 * parseApiKey(key.secret); // { secret, prefix }
 * parseApiKey('mnemo_sk_nope'); // undefined
 */
export const API_KEY_PREFIX = 'mnemo_sk_';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE = BigInt(ALPHABET.length);
const RANDOM_BYTES = 32;
/** 62^43 > 2^256 > 62^42: the fewest base62 characters that hold any 32 bytes. */
const RANDOM_CHARS = 43;
/** 62^6 > 2^32: a CRC-32 always fits. */
const CHECKSUM_CHARS = 6;
/** Characters of the random part shown in lists after the prefix. */
const SHOWN_CHARS = 4;

export const API_KEY_LENGTH = API_KEY_PREFIX.length + RANDOM_CHARS + CHECKSUM_CHARS;

const SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECKSUM_CHARS}}$`);

export interface GeneratedApiKey {
  /** The whole secret: given to its owner once, never stored. */
  readonly secret: string;
  /** What lists show to tell keys apart. */
  readonly prefix: string;
  /** The only form of the secret that is stored (hashApiKey). */
  readonly hash: string;
}

export interface ParsedApiKey {
  readonly secret: string;
  readonly prefix: string;
}

/** A new secret from 32 random bytes (`random` is for tests). */
export function generateApiKey(random: Uint8Array = randomBytes(RANDOM_BYTES)): GeneratedApiKey {
  if (random.length !== RANDOM_BYTES)
    throw new RangeError(`an API key takes ${RANDOM_BYTES} bytes`);
  const body =
    API_KEY_PREFIX + base62(BigInt(`0x${Buffer.from(random).toString('hex')}`), RANDOM_CHARS);
  const secret = body + checksum(body);
  return { secret, prefix: prefixOf(secret), hash: hashApiKey(secret) };
}

/**
 * Whether `text` is a well-formed secret whose checksum matches: pure computation, no I/O.
 * Undefined for anything else (wrong prefix, length or alphabet, or a bad checksum).
 */
export function parseApiKey(text: string): ParsedApiKey | undefined {
  if (!SHAPE.test(text)) return undefined;
  const body = text.slice(0, -CHECKSUM_CHARS);
  if (text.slice(-CHECKSUM_CHARS) !== checksum(body)) return undefined;
  return { secret: text, prefix: prefixOf(text) };
}

/** SHA-256 of the secret, base64url: what is stored and looked up. */
export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

const prefixOf = (secret: string) => secret.slice(0, API_KEY_PREFIX.length + SHOWN_CHARS);

const checksum = (body: string) => base62(BigInt(crc32(body)), CHECKSUM_CHARS);

/** `value` in base62, left-padded with `0` to exactly `width` characters. */
function base62(value: bigint, width: number): string {
  let text = '';
  let rest = value;
  while (rest > 0n) {
    text = ALPHABET[Number(rest % BASE)] + text;
    rest /= BASE;
  }
  return text.padStart(width, '0');
}
