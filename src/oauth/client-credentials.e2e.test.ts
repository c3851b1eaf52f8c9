/**
 * Client credentials: a registered service client acts as the service user it is bound to, an
 * ordinary member of its organization — with the scopes it asks for, while that user is active.
 */
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type OAuthServer, startOAuthServer } from '../testing/oauth-server.ts';

let server: OAuthServer;
let orgId: string;

beforeAll(async () => {
  server = await startOAuthServer();
  orgId = await server.t.fixtures.org({ name: 'Acme' });
});
afterAll(() => server.close());

async function serviceClient() {
  const service = await server.person({ orgId, name: 'Nightly sync' });
  const app = await server.client({
    type: 'confidential',
    grants: ['client_credentials'],
    serviceUserId: service.id,
  });
  const config = await server.discover(app.id, client.ClientSecretBasic(app.secret));
  return { service, app, config };
}

const memory = (token: string, method?: string, body?: unknown) =>
  server.memory(token, orgId, method, body);

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    const e = error as { error?: string; status?: number; error_description?: string };
    return { error: e.error, status: e.status, description: e.error_description };
  }
  throw new Error('expected the request to fail');
}

describe('client credentials', () => {
  test('the token speaks for the service user, with the scopes asked for', async () => {
    const { service, app, config } = await serviceClient();
    const tokens = await client.clientCredentialsGrant(config, {
      scope: 'memory:read memory:write',
    });
    expect(tokens.refresh_token).toBeUndefined();
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      iss: server.issuer,
      aud: `${server.url}/api`,
      sub: service.id,
      client_id: app.id,
      scope: 'memory:read memory:write',
      org_ids: [orgId],
    });
    const added = await memory(tokens.access_token, 'POST', { content: 'Runs at 02:00 UTC' });
    expect(added.status).toBe(201);
    // The memory is the service user's own, as with any member's credential.
    const own = (await (await memory(tokens.access_token)).json()) as {
      memories: Array<{ content: string }>;
    };
    expect(own.memories.map((m) => m.content)).toEqual(['Runs at 02:00 UTC']);
  });

  test('without scopes the token reaches nothing; read alone cannot write', async () => {
    const { config } = await serviceClient();
    const bare = await client.clientCredentialsGrant(config);
    expect(decodeJwt(bare.access_token).scope).toBe('');
    expect((await memory(bare.access_token)).status).toBe(403);
    const read = await client.clientCredentialsGrant(config, { scope: 'memory:read' });
    expect((await memory(read.access_token)).status).toBe(200);
    expect((await memory(read.access_token, 'POST', { content: 'x' })).status).toBe(403);
  });

  test('a suspended service user gets no token, and its live token gets 403', async () => {
    const { service, config } = await serviceClient();
    const live = await client.clientCredentialsGrant(config, { scope: 'memory:read' });
    await server.t.fixtures.status(service.id, 'suspended');
    expect(await failure(client.clientCredentialsGrant(config, { scope: 'memory:read' }))).toEqual({
      error: 'unauthorized_client',
      status: 400,
      description: 'the client’s service user is not active',
    });
    const refused = await memory(live.access_token);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: 'account is suspended' });
  });

  test('a client not allowed the grant is refused', async () => {
    const app = await server.client({
      type: 'confidential',
      grants: ['authorization_code'],
      redirectUris: ['https://app.example.test/cb'],
    });
    const config = await server.discover(app.id, client.ClientSecretBasic(app.secret));
    expect(await failure(client.clientCredentialsGrant(config, { scope: 'memory:read' }))).toEqual({
      error: 'invalid_request',
      status: 400,
      description: 'requested grant type is not allowed for this client',
    });
  });

  test('a resource other than the platform API is refused', async () => {
    const { config } = await serviceClient();
    expect(
      await failure(
        client.clientCredentialsGrant(config, {
          scope: 'memory:read',
          resource: 'https://elsewhere.example.test/api',
        }),
      ),
    ).toMatchObject({ error: 'invalid_target', status: 400 });
  });
});
