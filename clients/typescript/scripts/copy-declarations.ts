/**
 * tsc emits no declaration file of its own sources (src/openapi.d.ts), which the emitted
 * declarations import: it is copied beside them.
 */
import { copyFile } from 'node:fs/promises';

await copyFile(
  new URL('../src/openapi.d.ts', import.meta.url),
  new URL('../dist/openapi.d.ts', import.meta.url),
);
