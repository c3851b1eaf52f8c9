import { randomUUID } from 'node:crypto';
import * as client from 'openid-client';
import type { MemberRole } from '../db/tables.ts';
import type { ClientGrant } from '../oauth/client-grants.ts';
import { createClientId, createClientSecret, hashClientSecret } from '../oauth/client-secrets.ts';
import { insertClient } from '../oauth/clients.repository.ts';
import { upsertMembership } from '../tenancy/orgs.repository.ts';
import { hashPassword } from '../tenancy/passwords.ts';
import { insertUser } from '../tenancy/users.repository.ts';
import { buildTestApp, type TestApp } from './build-test-app.ts';
import { freePort } from './server-process.ts';

export interface OAuthServer {
  readonly t: TestApp;
  /** The public URL the app serves on (a real port on loopback). */
  readonly url: string;
  readonly issuer: string;
  /** openid-client's configuration for a client of this server, from discovery. */
  discover(clientId: string, auth?: client.ClientAuth): Promise<client.Configuration>;
  /** A user who can sign in with `password`, a member of `orgId` when given. */
  person(options?: {
    orgId?: string;
    role?: MemberRole;
    password?: string;
    name?: string;
  }): Promise<{
    id: string;
    email: string;
    password: string;
  }>;
  /** A request to the memory API with `token`, in `orgId`, with a JSON body when given. */
  memory(token: string, orgId: string, method?: string, body?: unknown): Promise<Response>;
  /** Registers a client as `mnemo admin client create` does; the secret for confidential ones. */
  client(options: {
    type: 'public' | 'confidential';
    grants: ClientGrant[];
    redirectUris?: string[];
    serviceUserId?: string;
  }): Promise<{ id: string; secret: string | undefined }>;
  close(): Promise<void>;
}

/**
 * The real app listening on a loopback port, with its public URL set to that port, so the
 * authorization server's issuer, redirects and cookies are what a client really meets.
 */
export async function startOAuthServer(
  env: Record<string, string> = {},
  options: Parameters<typeof buildTestApp>[1] = {},
): Promise<OAuthServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await buildTestApp({ MNEMO_PUBLIC_URL: url, ...env }, options);
  await t.app.listen({ port, host: '127.0.0.1' });
  return serve(t, url);
}

/**
 * A second process of `server`'s service, as behind a load balancer: the same store and public
 * URL, its own port (`localUrl`), its own memory.
 */
export async function startSecondProcess(
  server: OAuthServer,
): Promise<{ t: TestApp; localUrl: string; close: () => Promise<void> }> {
  const port = await freePort();
  const t = await buildTestApp({ MNEMO_PUBLIC_URL: server.url }, { sharedStore: server.t.store });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, localUrl: `http://127.0.0.1:${port}`, close: () => t.close() };
}

function serve(t: TestApp, url: string): OAuthServer {
  const issuer = `${url}/oauth`;
  // Sign-in pages hash passwords with scrypt: one hash serves every person of a file.
  const hashes = new Map<string, Promise<string>>();
  return {
    t,
    url,
    issuer,
    discover: (clientId, auth) =>
      client.discovery(new URL(issuer), clientId, undefined, auth ?? client.None(), {
        execute: [client.allowInsecureRequests],
      }),
    async person(options = {}) {
      const id = randomUUID();
      const email = `${id.slice(0, 8)}@example.test`;
      const password = options.password ?? 'correct horse battery staple';
      let hash = hashes.get(password);
      if (!hash) {
        hash = hashPassword(password);
        hashes.set(password, hash);
      }
      await insertUser(t.database.db, {
        id,
        email,
        name: options.name ?? 'Ada Lovelace',
        passwordHash: await hash,
      });
      if (options.orgId)
        await upsertMembership(t.database.db, options.orgId, id, options.role ?? 'member');
      return { id, email, password };
    },
    memory: (token, orgId, method = 'GET', body = undefined) =>
      fetch(`${url}/api/v1/memory`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'x-organization-id': orgId,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    async client(options) {
      const id = createClientId();
      const secret = options.type === 'confidential' ? createClientSecret() : undefined;
      await insertClient(t.database.db, {
        id,
        name: 'Third Party App',
        type: options.type,
        secretHash: secret === undefined ? null : hashClientSecret(secret),
        redirectUris: options.redirectUris ?? [],
        grants: options.grants,
        serviceUserId: options.serviceUserId ?? null,
      });
      return { id, secret };
    },
    close: () => t.close(),
  };
}
