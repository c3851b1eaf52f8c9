/**
 * An MCP client as a desktop application is one: the official SDK's Streamable HTTP transport
 * and its OAuth flow (discovery from the 401, registration or a client ID metadata document,
 * authorization code with PKCE, refresh), over an OAuthClientProvider that keeps what a real
 * one would persist, in memory. The person's part, in the browser, is the test's
 * (`authorizationUrl` is where the SDK sends them).
 */
import {
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';

/** Where the client's redirect URI points: a loopback port nothing listens on (RFC 8252 §7.3). */
export const CALLBACK = 'http://127.0.0.1:9/callback';

export class MemoryOAuthProvider implements OAuthClientProvider {
  readonly #metadata: OAuthClientMetadata;
  #client: StoredOAuthClientInformation | undefined;
  #tokens: StoredOAuthTokens | undefined;
  #verifier: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  /** The last authorization request the SDK sent the person to. */
  authorizationUrl: URL | undefined;
  readonly clientMetadataUrl?: string;

  constructor(options: { metadata?: Partial<OAuthClientMetadata>; clientMetadataUrl?: string }) {
    this.#metadata = {
      client_name: 'Test MCP client',
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'none',
      ...options.metadata,
    };
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return this.#metadata;
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(client: StoredOAuthClientInformation) {
    this.#client = client;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    if (this.#verifier === undefined) throw new Error('no code verifier saved');
    return this.#verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'client') this.#client = undefined;
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
    if (scope === 'all' || scope === 'verifier') this.#verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.#discovery = undefined;
  }
}

/** An MCP client of `serverUrl` (`…/mcp`) with `provider`'s credentials. */
export async function connectMcp(
  serverUrl: string,
  provider: MemoryOAuthProvider,
  options: { onInsufficientScope?: 'reauthorize' | 'throw' } = {},
) {
  const transport = new StreamableHTTPClientTransport(new URL(serverUrl), {
    authProvider: provider,
    ...(options.onInsufficientScope ? { onInsufficientScope: options.onInsufficientScope } : {}),
  });
  const client = new Client({ name: 'mnemo-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/**
 * Connects without a credential, as a client configured with only the server's URL does: the
 * 401 starts the SDK's authorization, which ends by sending the person to `authorizationUrl`.
 * Returns the transport, to finish the authorization with the code.
 */
export async function startAuthorization(serverUrl: string, provider: MemoryOAuthProvider) {
  const transport = new StreamableHTTPClientTransport(new URL(serverUrl), {
    authProvider: provider,
  });
  const client = new Client({ name: 'mnemo-test', version: '1.0.0' });
  const refused = await client.connect(transport).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(refused instanceof UnauthorizedError)) {
    throw new Error(`expected the SDK to send the person to authorize, got ${String(refused)}`);
  }
  if (!provider.authorizationUrl) throw new Error('the SDK did not redirect to authorize');
  return { transport, authorizationUrl: provider.authorizationUrl };
}
