export type { Auth, ClientCredentials } from './auth.ts';
export { EndUsers } from './end-users.ts';
export { MnemoError } from './errors.ts';
export type { MemoryEvent } from './events.ts';
export { Memories, type MemoryExport } from './memories.ts';
export {
  type Awaitable,
  type FollowOptions,
  InMemoryMirrorStorage,
  MemoryMirror,
  type MirrorChange,
  type MirrorOptions,
  type MirrorScope,
  type MirrorSource,
  type MirrorStorage,
} from './mirror.ts';
export { Mnemo, type MnemoOptions } from './mnemo.ts';
export type { RequestOptions, RetryOptions } from './transport.ts';
export type * from './types.ts';
