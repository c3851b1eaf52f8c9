import { readFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { CLIENT_API_TYPES_FILE, generateClientApiTypes } from './api-types.ts';

test('the client is typed from the OpenAPI document the routes produce now (npm run client:api-types)', async () => {
  expect(await readFile(CLIENT_API_TYPES_FILE, 'utf8')).toBe(await generateClientApiTypes());
});
