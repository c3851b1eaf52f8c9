import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';

/** The OpenAPI document, generated from the routes' schemas and served at /openapi.json. */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
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
          'Memory service for AI applications: short text memories about a user in an organization.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          platformCredential: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'RS256 platform credential issued by the authorization server',
          },
        },
      },
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
