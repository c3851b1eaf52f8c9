/**
 * API keys: made (the secret shown once), listed, revoked, and checked on each request to /v1 and
 * /mcp. This file is the part's front door: what other parts may use of it. The rest of the folder
 * is private to it.
 */
export type { ApiKeyAuthenticator, ApiKeyRefusal, KeyHolder } from './api-key-auth.ts';
export { createApiKeyAuthenticator } from './api-key-auth.ts';
export { deleteKeysOfUser } from './keys.repository.ts';
export { registerKeyRoutes } from './keys.routes.ts';
export { createKeysService } from './keys.service.ts';
export { createLastUsedRecorder } from './last-used.ts';
export type { MemoryMode } from './memory-modes.ts';
export { covers, isMemoryMode, MEMORY_MODES } from './memory-modes.ts';
