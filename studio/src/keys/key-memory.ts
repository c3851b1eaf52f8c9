import type { ApiKey } from './key-lifetime.ts';

/** What a chat call does with memory: nothing, recall, or recall and learn (keys.schemas.ts). */
export type MemoryMode = ApiKey['memory'];

/** A key's memory settings as the API names them. */
export interface KeyMemory {
  readonly memory: MemoryMode;
  readonly memoryAccess: MemoryMode;
}

/** What a new key gets when it does not say: the API's own defaults. */
export const DEFAULT_KEY_MEMORY: KeyMemory = { memory: 'off', memoryAccess: 'read-write' };

/** `memory`: what a call does when it does not ask, in the studio's words. */
export const MEMORY_CHOICES: readonly { value: MemoryMode; label: string }[] = [
  { value: 'off', label: 'Off' },
  { value: 'read', label: 'Recall' },
  { value: 'read-write', label: 'Recall and learn' },
];

/** `memoryAccess`: the most any call may do, whatever it asks. */
export const RIGHTS_CHOICES: readonly { value: MemoryMode; label: string }[] = [
  { value: 'off', label: 'None' },
  { value: 'read', label: 'Read only' },
  { value: 'read-write', label: 'Read and write' },
];

const labelOf = (choices: typeof MEMORY_CHOICES, value: unknown) =>
  choices.find((choice) => choice.value === value)?.label;

export const memoryLabel = (mode: unknown) => labelOf(MEMORY_CHOICES, mode);
export const rightsLabel = (mode: unknown) => labelOf(RIGHTS_CHOICES, mode);

export const isMemoryMode = (value: string): value is MemoryMode =>
  MEMORY_CHOICES.some((choice) => choice.value === value);
