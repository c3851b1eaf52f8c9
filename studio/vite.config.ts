import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';

/**
 * The studio is served by mnemo at /studio/. `npm run studio:dev` serves it from Vite instead and
 * sends the API's paths to a running mnemo (MNEMO_URL, default http://127.0.0.1:8080), so the
 * app stays same-origin as in production; docs/studio.md says how to start the pair.
 */
const api = process.env.MNEMO_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: import.meta.dirname,
  base: '/studio/',
  plugins: [
    react(),
    // Served as is by mnemo (Accept-Encoding picks the file): no compression work per request.
    compression({ algorithms: ['gzip', 'brotliCompress'], include: /\.(js|css|html|svg)$/ }),
  ],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2023',
    sourcemap: false,
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
    // `/mcp` and its discovery documents too: the Connected apps page gives this origin's /mcp.
    proxy: Object.fromEntries(
      ['/oauth', '/api', '/v1', '/mcp', '/.well-known'].map((path) => [path, { target: api }]),
    ),
  },
});
