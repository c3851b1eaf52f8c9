/**
 * What the chat interface needs of the memory store (docs/memory-chat.md), and no more: the
 * gateway does not import the memory part; app.ts wires src/memory/chat-memory.ts in.
 */
import type { KeyHolder } from '../../keys/index.ts';

/** Which store a memory is in: the key owner's own, or the project pool the call named. */
export type MemoryStoreName = 'user' | 'project';

export interface RecalledMemory {
  readonly id: string;
  readonly content: string;
  readonly category: string | null;
  readonly store: MemoryStoreName;
}

/** A memory an extraction call proposes, checked against its schema. */
export interface LearnedMemory {
  readonly action: 'add' | 'update';
  /** For an update: the known memory it replaces. */
  readonly id: string | undefined;
  readonly content: string;
  readonly category: string;
  readonly store: MemoryStoreName;
}

export interface RecallOptions {
  /** A store with at most this many memories is recalled whole. */
  readonly wholeStoreUpTo: number;
  /** Otherwise, this many best matches of the query. */
  readonly limit: number;
}

/** One call's memory: the key owner's store in the key's organization, and perhaps a pool. */
export interface ChatMemorySession {
  /** The memories for the prompt, most relevant first, both stores interleaved. */
  recall(query: string, options: RecallOptions): Promise<RecalledMemory[]>;
  /** The stored memories an extraction should see to update rather than repeat them. */
  related(query: string, limit: number): Promise<RecalledMemory[]>;
  /**
   * Stores what extraction learned through the memory API's add and update (or, when
   * extraction is reviewed, keeps it for review); a proposal the store refuses is skipped.
   */
  learn(memories: readonly LearnedMemory[]): Promise<LearnOutcome>;
}

export interface LearnOutcome {
  readonly saved: number;
  readonly proposed: number;
  readonly skipped: number;
}

/**
 * Opens a call's memory, refusing as the memory API would: memory switched off for the
 * organization (404), a project that is not there (404) or the owner may not read — or, for
 * learning, edit (403).
 */
export interface ChatMemoryStore {
  /** The categories a memory may have: an extraction proposes one of them for each. */
  readonly categories: readonly string[];
  open(
    holder: KeyHolder,
    options: {
      readonly project: string | undefined;
      /** `x-mnemo-user` as sent: another member's or an end user's memories (memory-switch.ts). */
      readonly user: string | undefined;
      readonly learn: boolean;
    },
  ): Promise<ChatMemorySession>;
}
