/**
 * A real connection of an MCP client, made as a person makes one: the official SDK meets the 401
 * of `/mcp`, registers (or names its client ID metadata document) and sends the person to the
 * authorization server, where they sign in and allow it in the organization they choose, over
 * the real pages (HTTP, as src/oauth/mcp-authorization.e2e.test.ts does it).
 */
import { decodeJwt } from 'jose';
import { Browser } from '../../src/testing/browser.ts';
import {
  CALLBACK,
  MemoryOAuthProvider,
  startAuthorization,
} from '../../src/testing/mcp-oauth-client.ts';
import type { Person } from './studio-harness.ts';

export interface McpConnection {
  readonly clientId: string;
  readonly connectionId: string;
  /** The client's access token for `/mcp`. */
  readonly accessToken: string;
}

export async function connectMcpClient(
  serverUrl: string,
  who: Person,
  client: { name: string; clientMetadataUrl?: string; organization?: string },
): Promise<McpConnection> {
  const provider = new MemoryOAuthProvider({
    metadata: { client_name: client.name },
    ...(client.clientMetadataUrl ? { clientMetadataUrl: client.clientMetadataUrl } : {}),
  });
  const { transport, authorizationUrl } = await startAuthorization(`${serverUrl}/mcp`, provider);
  const atCallback = (url: string) => url.startsWith(CALLBACK);
  const browser = new Browser();
  const signIn = await browser.open(authorizationUrl.href, { stopAt: atCallback });
  const consent = await browser.submit(
    signIn,
    { email: who.email, password: who.password },
    { stopAt: atCallback },
  );
  if (!consent.html.includes(`<h1>${client.name} wants to access your mnemo account</h1>`)) {
    throw new Error(`expected the consent page of ${client.name}, got ${consent.status}`);
  }
  const done = await browser.submit(
    consent,
    client.organization ? { organization: client.organization } : {},
    { actionIncludes: '/consent', stopAt: atCallback },
  );
  if (!atCallback(done.url)) throw new Error(`the consent ended at ${done.url}, not the client`);
  await transport.finishAuth(new URL(done.url).searchParams);
  await transport.close();

  const accessToken = provider.tokens()?.access_token;
  const clientId = provider.clientInformation()?.client_id;
  if (!accessToken || !clientId) throw new Error('the client got no token');
  return { clientId, accessToken, connectionId: String(decodeJwt(accessToken).connection_id) };
}

/** A `tools/call` of `whoami` on `/mcp` with `token`, as a client sends one. */
export const callMcp = (serverUrl: string, token: string) =>
  fetch(`${serverUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {} },
    }),
  });
