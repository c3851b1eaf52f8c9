import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { sameOriginPolicy } from './content-security.ts';

/**
 * What the reference page may do in a browser: this origin alone, as the studio. Swagger UI sets
 * element styles from script and its fonts may be inline.
 */
const DOCS_CSP = sameOriginPolicy({
  'style-src': "'self' 'unsafe-inline'",
  'font-src': "'self' data:",
});

/**
 * `/docs`: an interactive reference of the OpenAPI document, rendered by Swagger UI from the
 * files of its package (nothing fetched from another origin; no outside validator). It reads the
 * same document as /openapi.json (`/docs/json`) and can send requests with a credential pasted
 * into "Authorize".
 */
export async function registerApiDocs(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: DOCS_CSP,
    theme: { title: 'mnemo API reference' },
    uiConfig: {
      // Without the top bar: its logo is the renderer's, and its box loads any document.
      layout: 'BaseLayout',
      deepLinking: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      tryItOutEnabled: false,
      displayRequestDuration: true,
    },
  });
}
