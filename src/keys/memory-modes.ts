import { Type } from 'typebox';
import type { MemoryMode } from '../db/tables.ts';

export type { MemoryMode };

/**
 * What a chat call may do with its caller's memories (docs/memory-chat.md): nothing, recall them
 * into the prompt, or recall them and learn new ones from the conversation. In that order: each
 * does all the one before it does.
 */
export const MEMORY_MODES = ['off', 'read', 'read-write'] as const satisfies readonly MemoryMode[];

const rank = (mode: MemoryMode) => MEMORY_MODES.indexOf(mode);

/** Whether `access` (a key's rights) covers what `mode` does. */
export const covers = (access: MemoryMode, mode: MemoryMode) => rank(mode) <= rank(access);

export const isMemoryMode = (value: unknown): value is MemoryMode =>
  (MEMORY_MODES as readonly unknown[]).includes(value);

export const MemoryModeSchema = (description: string) => Type.Enum(MEMORY_MODES, { description });
