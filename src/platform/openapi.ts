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
          'Memory service for AI applications: short text memories about a user in an organization, under /api, authenticated by a platform credential. The chat interface under /v1 (tag “Chat gateway (/v1)”: models, chat completions, responses and their WebSocket, compaction) imitates OpenAI’s API, so that OpenAI’s SDKs work with only the base URL and the key changed: it is authenticated by API keys (`Authorization: Bearer mnemo_sk_…`), routes each call to a model of its catalog or to the router `auto`, and answers, errors included, in OpenAI’s shapes. Its operations here state what mnemo checks and answers; fields a body holds beyond them go through to OpenAI-compatible providers, and docs/gateway.md tells how each provider is translated. Text under /api: no string of a request body or query may contain NUL (U+0000) or an unpaired UTF-16 surrogate (U+D800 to U+DFFF): 400 naming the field, e.g. `content must not contain NUL characters (U+0000)`.',
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
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'mnemo_sk_ and 49 letters and digits',
            description:
              'An API key, for the chat interface under /v1 (and /mcp): `Authorization: Bearer mnemo_sk_…`, created in the studio under Settings > API Keys or with POST /api/v1/api-keys (its secret is shown once). It acts as the user who made it, in its organization; /v1 refuses a platform credential, and /api refuses a key.',
          },
        },
      },
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
