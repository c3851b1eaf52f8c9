/**
 * The authorization server under /oauth: oidc-provider's setup, its store, the sign-in, consent
 * and account pages, connected MCP clients and /mcp's authentication. This file is the part's
 * front door: what other parts may use of it. The rest of the folder is private to it.
 */
export { createSignIn } from './accounts.ts';
export type { ClientGrant } from './client-grants.ts';
export { CLIENT_GRANTS } from './client-grants.ts';
export { redirectUrisProblem } from './client-metadata.ts';
export { createClientId, createClientSecret, hashClientSecret } from './client-secrets.ts';
export { deleteClientsOfServiceUser, insertClient } from './clients.repository.ts';
export { createClientsService } from './clients.service.ts';
export { registerConnectionRoutes } from './connections.routes.ts';
export { createConnectionsService } from './connections.service.ts';
export { createMcpAuthentication, insufficientMcpScope } from './mcp-authenticate.ts';
export { registerOAuthRoutes } from './oauth.routes.ts';
export { oauthErrorShape } from './oauth-errors.ts';
export { purgeExpiredOAuthRecords } from './oidc-adapter.ts';
export { registerProtectedResourceRoutes } from './protected-resource.routes.ts';
export { createProviderHolder } from './provider-holder.ts';
