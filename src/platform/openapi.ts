import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { documentedRouteSchema } from './openapi-text-rule.ts';

/** The OpenAPI document, generated from the routes' schemas and served at /openapi.json. */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    // Each route's text rule stated where the document shows its strings (openapi-text-rule.ts).
    transform: ({ schema, url }) => ({
      schema: documentedRouteSchema(schema as Record<string, unknown>) as typeof schema,
      url,
    }),
    // Shared schemas appear under their $id (MemoryItem), not as def-0.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'mnemo',
        version: '1',
        description:
          'Memory service for AI applications: short text memories about a user in an organization. The chat interface under /v1 (models, chat completions, responses) imitates OpenAI’s API, authenticated by API keys, and is described by OpenAI’s own API reference with mnemo’s differences in docs/gateway.md; it is not repeated here. Text: no string of a request body or query may contain NUL (U+0000) or an unpaired UTF-16 surrogate (U+D800 to U+DFFF): 400 naming the field, e.g. `content must not contain NUL characters (U+0000)`.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          // OpenID Connect rather than bare bearer: OpenAPI names scopes only for OAuth
          // schemes, and each operation says which one it needs.
          platformCredential: {
            type: 'openIdConnect',
            openIdConnectUrl: `${publicUrl}/oauth/.well-known/openid-configuration`,
            description:
              'The platform credential: an RS256 JWT access token (`typ` at+jwt) from the built-in authorization server at /oauth (or the outside issuer configured), sent as `Authorization: Bearer`. A token with a `scope` claim may do what its scopes allow (memory:read for GET, memory:write for POST, PATCH and DELETE; 403 otherwise); one without the claim (`mnemo token`, an outside issuer that sends none) may do everything.',
          },
        },
      },
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
