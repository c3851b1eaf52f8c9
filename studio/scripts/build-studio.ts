import { build } from 'vite';

/**
 * Builds the studio for production into `outDir`, as `npm run studio:build` does into
 * studio/dist. Callers inside Vitest (NODE_ENV=test) would otherwise get React's development
 * build: what is measured and tested is what people get.
 */
export async function buildStudio(outDir: string): Promise<void> {
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: new URL('../vite.config.ts', import.meta.url).pathname,
      mode: 'production',
      build: { outDir, emptyOutDir: true },
      logLevel: 'warn',
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}
