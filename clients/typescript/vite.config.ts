import { defineConfig } from 'vite';

/**
 * The package's JavaScript: its two entries bundled as ES modules, with the one library it uses
 * (eventsource-parser, to read the change stream) inside, so that installing the package
 * installs nothing else; `ai` stays outside, the AI SDK entry's peer. The declarations are tsc's
 * (tsconfig.build.json).
 */
export default defineConfig({
  root: import.meta.dirname,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    minify: false,
    sourcemap: true,
    lib: {
      entry: { index: 'src/index.ts', 'ai-sdk/index': 'src/ai-sdk/index.ts' },
      formats: ['es'],
    },
    rolldownOptions: { external: ['ai'] },
  },
});
