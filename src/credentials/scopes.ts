import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerChallenge } from '../platform/bearer.ts';
import { ApiError } from '../platform/errors.ts';
import type { Credential } from './credentials.ts';

/**
 * The platform API's scopes: what a token from the authorization server may do. A token
 * without a `scope` claim (`mnemo token`, an outside issuer that sends none) may do all of it.
 */
export const PLATFORM_SCOPES = {
  'memory:read': 'Read your memories and the project pools you can see',
  'memory:write': 'Add, change and delete your memories and pool contributions',
  keys: 'Create, list and revoke your API keys, and see and revoke your connected MCP clients',
  usage: 'Read usage of the chat interface',
  admin: "Manage your organizations' members, projects and settings",
} as const;

export type PlatformScope = keyof typeof PLATFORM_SCOPES;

export const PLATFORM_SCOPE_NAMES = Object.keys(PLATFORM_SCOPES) as PlatformScope[];

/** The scopes the MCP server (`/mcp`) takes: its tools read and write memories, nothing more. */
export const MCP_SCOPE_NAMES = ['memory:read', 'memory:write'] as const satisfies PlatformScope[];

/** Whether the credential allows `scope`. */
export function allows(credential: Pick<Credential, 'scopes'>, scope: PlatformScope): boolean {
  return credential.scopes === undefined || credential.scopes.has(scope);
}

/** RFC 6750 §3.1: 403 with `insufficient_scope`, naming the scope the request needs. */
export function insufficientScope(scope: PlatformScope): ApiError {
  const message = `the credential lacks the ${scope} scope`;
  return new ApiError(403, 'insufficient_scope', message, {
    headers: {
      'www-authenticate': bearerChallenge({
        error: 'insufficient_scope',
        description: message,
        scope,
      }),
    },
  });
}

/**
 * An onRequest hook, after authentication: 403 unless the credential allows `scope`. Checked
 * with account status and membership, before anything about the request itself.
 */
export function requireScope(scope: PlatformScope) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    done(allows(request.account, scope) ? undefined : insufficientScope(scope));
  };
}
