import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * scrypt at N = 2^16, r = 8 (64 MiB, about 0.1–0.2 s per hash): above the 2^15 that fits
 * Node's default memory cap, below OWASP's 2^17 because sign-ins run on libuv's four threads
 * and each one holds N·r·128 bytes while it hashes. The parameters are stored with each hash,
 * so they can be raised later without invalidating existing ones.
 */
const PARAMS = { N: 2 ** 16, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const PREFIX = 'scrypt';

interface Params {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

function derive(password: string, salt: Buffer, length: number, params: Params): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  // NFC: the same password typed on systems that compose characters differently still matches.
  const secret = password.normalize('NFC');
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/**
 * A salted scrypt hash that names its own parameters: `scrypt$N$r$p$<salt>$<hash>` (base64url).
 *
 * @example
 * const stored = await hashPassword('correct horse'); // 'scrypt$65536$8$1$…$…'
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, KEY_BYTES, PARAMS);
  const { N, r, p } = PARAMS;
  return [PREFIX, N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` matches `stored`, compared in constant time; false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.key.length, parsed.params);
  return timingSafeEqual(key, parsed.key);
}

const INTEGER = /^[1-9][0-9]{0,7}$/;

function parseHash(stored: string) {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== PREFIX) return undefined;
  const [, n, r, p, salt, key] = parts;
  if (![n, r, p].every((v) => v !== undefined && INTEGER.test(v))) return undefined;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  // Bounds keep a damaged or planted row from making one sign-in allocate gigabytes.
  const powerOfTwo = (params.N & (params.N - 1)) === 0;
  if (!powerOfTwo || params.N < 2 ** 10 || params.N > 2 ** 20) return undefined;
  if (params.r > 32 || params.p > 16) return undefined;
  const saltBytes = Buffer.from(salt ?? '', 'base64url');
  const keyBytes = Buffer.from(key ?? '', 'base64url');
  if (saltBytes.length < 8 || keyBytes.length < 16) return undefined;
  return { params, salt: saltBytes, key: keyBytes };
}
