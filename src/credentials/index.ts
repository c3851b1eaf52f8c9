/**
 * The platform credential: the built-in issuer, its signing keys and their rotation, the scopes,
 * the verifier of tokens and the API key's secret form. Authentication (tenancy/) and the
 * authorization server (oauth/) both build on it. This file is the part's front door: what other
 * parts may use of it. The rest of the folder is private to it.
 */
export { API_KEY_PREFIX, generateApiKey, hashApiKey, parseApiKey } from './api-key-secret.ts';
export { CREDENTIAL_MESSAGES, invalidCredential } from './credential-refusals.ts';
export type { CredentialVerifier } from './credentials.ts';
export { createCredentialVerifier } from './credentials.ts';
export { CLI_CLIENT_ID, STUDIO_CLIENT_ID } from './first-party-clients.ts';
export {
  builtInIssuer,
  issuePlatformCredential,
  mcpResource,
  mcpResourceMetadataUrl,
  RATE_LIMIT_CLAIM,
} from './platform-credential.ts';
export type { PlatformScope } from './scopes.ts';
export {
  allows,
  insufficientScope,
  MCP_SCOPE_NAMES,
  PLATFORM_SCOPE_NAMES,
  PLATFORM_SCOPES,
  requireScope,
} from './scopes.ts';
export type { SigningKey } from './signing-keys.ts';
export {
  currentSigningKid,
  ensureSigningKey,
  extendKeyLease,
  loadSigningKeys,
  loadTrustedKeys,
  rotateSigningKey,
} from './signing-keys.ts';
