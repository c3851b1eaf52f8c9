/** Organization management in /openapi.json: every operation, its tag, scope and schemas. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface Operation {
  tags: string[];
  security: Record<string, string[]>[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}

const OPERATIONS: [string, string, string, number, boolean][] = [
  ['/api/v1/me', 'get', 'organizations', 200, false],
  ['/api/v1/orgs/{orgId}', 'get', 'organizations', 200, false],
  ['/api/v1/orgs/{orgId}', 'patch', 'organizations', 200, true],
  ['/api/v1/orgs/{orgId}/members', 'get', 'organizations', 200, false],
  ['/api/v1/orgs/{orgId}/members', 'post', 'organizations', 201, true],
  ['/api/v1/orgs/{orgId}/members/{userId}', 'patch', 'organizations', 200, true],
  ['/api/v1/orgs/{orgId}/members/{userId}', 'delete', 'organizations', 200, false],
  ['/api/v1/orgs/{orgId}/projects', 'get', 'projects', 200, false],
  ['/api/v1/orgs/{orgId}/projects', 'post', 'projects', 201, true],
  ['/api/v1/projects/{projectId}', 'patch', 'projects', 200, true],
  ['/api/v1/projects/{projectId}', 'delete', 'projects', 200, false],
  ['/api/v1/projects/{projectId}/collaborators', 'get', 'projects', 200, false],
  ['/api/v1/projects/{projectId}/collaborators/{userId}', 'put', 'projects', 200, true],
  ['/api/v1/projects/{projectId}/collaborators/{userId}', 'delete', 'projects', 200, false],
  ['/api/v1/audit', 'get', 'audit', 200, false],
];

test.each(OPERATIONS)('%s %s', async (path, method, tag, success, hasBody) => {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, Operation>>;
  };
  const operation = doc.paths[path]?.[method];
  expect(operation).toBeDefined();
  if (!operation) return;
  expect(operation.tags).toEqual([tag]);
  expect(operation.security).toEqual([
    { platformCredential: path === '/api/v1/me' ? [] : ['admin'] },
  ]);
  expect(Object.keys(operation.responses)).toEqual(
    expect.arrayContaining([String(success), '429', '4XX', '5XX']),
  );
  expect(operation.requestBody !== undefined).toBe(hasBody);
});
