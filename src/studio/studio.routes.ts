import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sameOriginPolicy } from '../platform/content-security.ts';

/** Where `npm run studio:build` (run by `npm install`) writes the studio's bundle. */
export const STUDIO_BUILD_DIR = fileURLToPath(new URL('../../studio/dist', import.meta.url));

/**
 * What a studio page may do in a browser: this origin alone (platform/content-security.ts).
 * React's `style` props go through the CSSOM, which `style-src 'self'` does not govern.
 */
export const STUDIO_CSP = sameOriginPolicy();

const SECURITY_HEADERS = {
  'content-security-policy': STUDIO_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
} as const;

/** Bundled files carry a hash of their content in their name: a browser may keep them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mnemo studio is not built</title></head>
<body><main><h1>The studio is not built</h1>
<p>Run <code>npm run studio:build</code> (or <code>npm install</code>) and reload this page.</p>
</main></body></html>
`;

export interface StudioRoutesDeps {
  /** The built bundle: `index.html` and `assets/`. */
  readonly directory: string;
}

/**
 * `/studio`: the web studio, a single-page app. Its files are served as built; any other path
 * under `/studio/` is one of the app's pages and gets `index.html`, so deep links and reloads
 * work. The studio talks to the public API like any other client: nothing here is private.
 */
export function registerStudioRoutes(app: FastifyInstance, deps: StudioRoutesDeps): void {
  // The service's front door is the studio (not permanent: the root may serve more one day).
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/studio/', 302));
  app.get('/studio', { schema: { hide: true } }, (_request, reply) =>
    reply.redirect('/studio/', 301),
  );
  const built = existsSync(join(deps.directory, 'index.html'));

  app.register(
    async (scoped) => {
      scoped.addHook('onRequest', async (_request, reply) => {
        reply.headers(SECURITY_HEADERS);
      });
      const sendIndex = (reply: FastifyReply) =>
        built
          ? reply.type('text/html; charset=utf-8').sendFile('index.html')
          : reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
      if (built) {
        await scoped.register(fastifyStatic, {
          root: deps.directory,
          index: false,
          cacheControl: false,
          schemaHide: true,
          preCompressed: true,
          setHeaders: (reply, path) => {
            if (path.startsWith(join(deps.directory, 'assets'))) {
              reply.header('cache-control', IMMUTABLE);
            }
          },
        });
      }
      // The app's root, which the file server would take for a directory to list.
      scoped.get('/', { schema: { hide: true }, prefixTrailingSlash: 'slash' }, (_request, reply) =>
        sendIndex(reply),
      );
      // A path that is no file is a page of the app, except under assets/: a missing bundle
      // file is a 404, not a page that would fail to run it.
      scoped.setNotFoundHandler((request, reply) => {
        if (request.method !== 'GET' && request.method !== 'HEAD') {
          return reply.code(405).header('allow', 'GET, HEAD').type('text/plain').send('');
        }
        if (request.url.startsWith('/studio/assets/')) {
          return reply.code(404).type('text/plain; charset=utf-8').send('not found');
        }
        return sendIndex(reply);
      });
    },
    { prefix: '/studio' },
  );
}
