import { readFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { API_TYPES_FILE, generateApiTypes } from './api-types.ts';

test('the studio is typed from the OpenAPI document the routes produce now (npm run studio:api-types)', async () => {
  expect(await readFile(API_TYPES_FILE, 'utf8')).toBe(await generateApiTypes());
});
