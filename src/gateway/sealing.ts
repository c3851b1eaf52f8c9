import { CompactEncrypt, compactDecrypt, errors as joseErrors } from 'jose';

/**
 * What mnemo hands a client to carry and give back unread: a Response's reasoning
 * (`encrypted_content`) and a compaction item. Sealed with AES-256-GCM under a key from the
 * store (db/instance-secrets.ts), so any process opens what another sealed, and no client can
 * read, change or forge it. Each purpose seals apart: a reasoning blob cannot be passed off as a
 * compaction, or the reverse.
 *
 * @example
 * const sealer = createSealer(await instanceSecret(db, 'gateway-sealing'));
 * const token = await sealer.seal('reasoning', details);
 * await sealer.open('reasoning', token); // details; undefined for anything mnemo did not seal
 */
export interface Sealer {
  seal(purpose: SealPurpose, value: unknown): Promise<string>;
  /** The value sealed for `purpose`; undefined when `token` is not one (edited, foreign, other purpose). */
  open(purpose: SealPurpose, token: string): Promise<unknown>;
}

export type SealPurpose = 'reasoning' | 'compaction';

/** JWE's direct encryption with the key itself: no key wrapping, one authenticated cipher. */
const ALG = 'dir';
const ENC = 'A256GCM';
const TYPE_PREFIX = 'mnemo-';

export function createSealer(key: Uint8Array): Sealer {
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
