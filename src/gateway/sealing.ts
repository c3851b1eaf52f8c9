import {
  createSealer as createPlatformSealer,
  type Sealer as PlatformSealer,
} from '../platform/sealing.ts';

/**
 * What the gateway hands a client to carry and give back unread: a Response's reasoning
 * (`encrypted_content`) and a compaction item, each sealed for its purpose
 * (platform/sealing.ts), so that no client reads, changes or forges them, and a reasoning blob
 * cannot be passed off as a compaction, or the reverse.
 */
export type SealPurpose = 'reasoning' | 'compaction';
export type Sealer = PlatformSealer<SealPurpose>;

export const createSealer = (key: Uint8Array): Sealer => createPlatformSealer<SealPurpose>(key);
