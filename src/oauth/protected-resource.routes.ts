import type { FastifyInstance, FastifyReply } from 'fastify';
import { builtInIssuer, MCP_SCOPE_NAMES, mcpResource } from '../credentials/index.ts';

export interface ProtectedResourceRoutesDeps {
  readonly publicUrl: string;
}

/** How long clients and caches may keep the document, seconds: it changes only with the config. */
const MAX_AGE_SECONDS = 3600;

/**
 * The MCP server's protected resource metadata (RFC 9728): how a client that met a 401 on `/mcp`
 * finds the authorization server (the challenge's `resource_metadata` names this document).
 *
 * @example
 * protectedResourceMetadata('https://mnemo.example.com');
 * // { resource: 'https://mnemo.example.com/mcp',
 * //   authorization_servers: ['https://mnemo.example.com/oauth'], … }
 */
export function protectedResourceMetadata(publicUrl: string) {
  return {
    // RFC 9728 §3.3: "MUST be identical to the protected resource's resource identifier value
    // into which the well-known URI path suffix was inserted" — the URL clients connect to.
    resource: mcpResource(publicUrl),
    authorization_servers: [builtInIssuer(publicUrl).issuer],
    scopes_supported: [...MCP_SCOPE_NAMES],
    bearer_methods_supported: ['header'],
    resource_name: 'mnemo',
    resource_documentation: `${publicUrl}/oauth`,
  };
}

/**
 * `GET /.well-known/oauth-protected-resource/mcp`, where RFC 9728 §3.1 puts the document of a
 * resource with a path, and the same at `/.well-known/oauth-protected-resource` for clients that
 * look only there (the MCP server is this service's only protected resource that has one). A
 * public URL with a path of its own (`https://host/mnemo`) has its document at
 * `https://host/.well-known/oauth-protected-resource/mnemo/mcp` too, for a proxy that passes that
 * path on. Any origin may read them: browser-based MCP clients discover the server this way.
 */
export function registerProtectedResourceRoutes(
  app: FastifyInstance,
  deps: ProtectedResourceRoutesDeps,
): void {
  const document = JSON.stringify(protectedResourceMetadata(deps.publicUrl));
  const pathPrefix = new URL(deps.publicUrl).pathname.replace(/\/$/, '');
  const paths = new Set([
    '/.well-known/oauth-protected-resource/mcp',
    '/.well-known/oauth-protected-resource',
    `/.well-known/oauth-protected-resource${pathPrefix}/mcp`,
  ]);
  for (const url of paths) {
    app.get(url, { schema: { hide: true } }, (_request, reply) =>
      openToAnyOrigin(reply)
        .header('cache-control', `public, max-age=${MAX_AGE_SECONDS}`)
        .type('application/json; charset=utf-8')
        .send(document),
    );
    // A preflight: browsers send one for the MCP-Protocol-Version header MCP clients add.
    app.options(url, { schema: { hide: true } }, (request, reply) =>
      openToAnyOrigin(reply)
        .headers({
          'access-control-allow-methods': 'GET, HEAD',
          'access-control-allow-headers': String(
            request.headers['access-control-request-headers'] ?? '',
          ),
          'access-control-max-age': String(MAX_AGE_SECONDS),
        })
        .code(204)
        .send(),
    );
  }
}

/** No credential is involved, so `*` (which never carries cookies) is the right answer. */
const openToAnyOrigin = (reply: FastifyReply) => reply.header('access-control-allow-origin', '*');
