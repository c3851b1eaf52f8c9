import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * What the reference page may do in a browser: load only its own files from this origin and
 * read the document beside it. Swagger UI sets element styles from script, and the `data:`
 * images are its icons; nothing may come from another origin.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

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
