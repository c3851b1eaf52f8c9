import { CompactEncrypt, compactDecrypt, errors as joseErrors } from 'jose';

/**
 * What mnemo keeps or hands out sealed: a value only mnemo can read, change or make. Sealed as a
 * JWE (jose) with AES-256-GCM under a key from the store (db/instance-secrets.ts), one key per
 * use, so any process opens what another sealed. Each purpose seals apart (the JWE's `typ`,
 * which the cipher authenticates): a token of one purpose cannot be passed off as another's.
 *
 * @example
 * const sealer = createSealer<'reasoning'>(await instanceSecret(db, 'gateway-sealing'));
 * const token = await sealer.seal('reasoning', details);
 * await sealer.open('reasoning', token); // details; undefined for anything mnemo did not seal
 */
export interface Sealer<Purpose extends string = string> {
  seal(purpose: Purpose, value: unknown): Promise<string>;
  /** The value sealed for `purpose`; undefined when `token` is not one (edited, foreign, other purpose). */
  open(purpose: Purpose, token: string): Promise<unknown>;
}

/** JWE's direct encryption with the key itself: no key wrapping, one authenticated cipher. */
const ALG = 'dir';
const ENC = 'A256GCM';
const TYPE_PREFIX = 'mnemo-';

export function createSealer<Purpose extends string>(key: Uint8Array): Sealer<Purpose> {
  if (key.byteLength !== 32) throw new Error('the sealing key must be 32 bytes (AES-256)');
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return {
    seal: (purpose, value) =>
      new CompactEncrypt(encoder.encode(JSON.stringify(value)))
        .setProtectedHeader({ alg: ALG, enc: ENC, typ: `${TYPE_PREFIX}${purpose}` })
        .encrypt(key),
    async open(purpose, token) {
      try {
        const { plaintext, protectedHeader } = await compactDecrypt(token, key, {
          keyManagementAlgorithms: [ALG],
          contentEncryptionAlgorithms: [ENC],
        });
        if (protectedHeader.typ !== `${TYPE_PREFIX}${purpose}`) return undefined;
        return JSON.parse(decoder.decode(plaintext)) as unknown;
      } catch (error) {
        if (error instanceof joseErrors.JOSEError || error instanceof SyntaxError) return undefined;
        throw error;
      }
    },
  };
}
