import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildStudio } from '../scripts/build-studio.ts';

/**
 * Builds the studio once per run into a directory of its own, so the browser tests see the
 * sources as they are (not an older `studio/dist`) and runs side by side cannot collide.
 */
export default async function setup(project: TestProject) {
  const directory = await mkdtemp(join(tmpdir(), 'mnemo-studio-'));
  await buildStudio(directory);
  project.provide('studioDirectory', directory);
  return () => rm(directory, { recursive: true, force: true });
}
