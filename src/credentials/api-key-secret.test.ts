/** The secret's format (docs/design.md §3): prefix, 43 base62 characters, a 6-character CRC-32. */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  API_KEY_LENGTH,
  API_KEY_PREFIX,
  generateApiKey,
  hashApiKey,
  parseApiKey,
} from './api-key-secret.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });

/** Reads base62 back, to check the encoding against an independent decoder. */
const fromBase62 = (text: string) =>
  [...text].reduce((n, c) => n * 62n + BigInt(ALPHABET.indexOf(c)), 0n);

describe('generateApiKey', () => {
  test('mnemo_sk_ + 43 base62 characters + 6-character checksum, 58 in all', () => {
    const key = generateApiKey();
    expect(key.secret).toMatch(/^mnemo_sk_[0-9A-Za-z]{49}$/);
    expect(API_KEY_LENGTH).toBe(58);
    expect(key.prefix).toBe(key.secret.slice(0, 13));
    expect(key.hash).toBe(createHash('sha256').update(key.secret).digest('base64url'));
    expect(key.hash).toBe(hashApiKey(key.secret));
  });

  test('fixed width: all-zero and all-0xff bytes still give 43 characters', () => {
    const zero = generateApiKey(new Uint8Array(32));
    expect(zero.secret.slice(9, 52)).toBe('0'.repeat(43));
    const max = generateApiKey(new Uint8Array(32).fill(0xff));
    expect(fromBase62(max.secret.slice(9, 52))).toBe(2n ** 256n - 1n);
    expect(parseApiKey(zero.secret)).toBeDefined();
    expect(parseApiKey(max.secret)).toBeDefined();
  });

  test('the checksum is the CRC-32 of everything before it, in base62', () => {
    const { secret } = generateApiKey();
    expect(fromBase62(secret.slice(-6))).toBe(BigInt(crc32(secret.slice(0, -6))));
  });

  test('refuses anything but 32 bytes', () => {
    expect(() => generateApiKey(new Uint8Array(31))).toThrow(RangeError);
  });
});

describe('parseApiKey', () => {
  test.each([
    ['', 'empty'],
    ['mnemo_sk_', 'prefix only'],
    ['sk-proj-abc', 'another vendor'],
    [`MNEMO_SK_${'0'.repeat(49)}`, 'prefix in another case'],
    [`mnemo_sk_${'0'.repeat(48)}`, 'one short'],
    [`mnemo_sk_${'0'.repeat(50)}`, 'one long'],
    [`mnemo_sk_${'0'.repeat(48)}-`, 'outside the alphabet'],
  ])('%j is refused (%s)', (text) => {
    expect(parseApiKey(text)).toBeUndefined();
  });

  test('white space around a key is not trimmed away', () => {
    const { secret } = generateApiKey();
    expect(parseApiKey(` ${secret}`)).toBeUndefined();
    expect(parseApiKey(`${secret}\n`)).toBeUndefined();
  });

  test('property: every generated secret parses back, with its prefix', () => {
    fc.assert(
      fc.property(bytes32, (random) => {
        const key = generateApiKey(random);
        expect(key.secret).toHaveLength(API_KEY_LENGTH);
        expect(key.secret.startsWith(API_KEY_PREFIX)).toBe(true);
        expect(parseApiKey(key.secret)).toEqual({ secret: key.secret, prefix: key.prefix });
        // The random part is the bytes, exactly.
        expect(fromBase62(key.secret.slice(9, 52))).toBe(
          BigInt(`0x${Buffer.from(random).toString('hex')}`),
        );
      }),
    );
  });

  test('property: any single-character change is refused', () => {
    fc.assert(
      fc.property(
        bytes32,
        fc.nat({ max: API_KEY_LENGTH - 1 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
        (random, position, replacement) => {
          const { secret } = generateApiKey(random);
          fc.pre(secret[position] !== replacement);
          const changed = secret.slice(0, position) + replacement + secret.slice(position + 1);
          expect(parseApiKey(changed)).toBeUndefined();
        },
      ),
      { numRuns: 1000 },
    );
  });

  test('property: any change to one character within the alphabet fails the checksum', () => {
    fc.assert(
      fc.property(
        bytes32,
        fc.integer({ min: API_KEY_PREFIX.length, max: API_KEY_LENGTH - 1 }),
        fc.constantFrom(...ALPHABET),
        (random, position, replacement) => {
          const { secret } = generateApiKey(random);
          fc.pre(secret[position] !== replacement);
          const changed = secret.slice(0, position) + replacement + secret.slice(position + 1);
          expect(changed).toMatch(/^mnemo_sk_[0-9A-Za-z]{49}$/);
          expect(parseApiKey(changed)).toBeUndefined();
        },
      ),
      { numRuns: 1000 },
    );
  });
});
