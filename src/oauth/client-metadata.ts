import type { Kysely } from 'kysely';
import type { ClientMetadata } from 'oidc-provider';
import { CLI_CLIENT_ID, STUDIO_CLIENT_ID } from '../credentials/index.ts';
import type { Tables } from '../db/tables.ts';
import type { ClientGrant } from './client-grants.ts';
import { findClient, type OAuthClient } from './clients.repository.ts';

/**
 * Client metadata as the provider is given it, with mnemo's own properties (they must be listed
 * in the provider's `extraClientMetadata.properties`, or it drops them).
 */
export interface MnemoClientMetadata extends ClientMetadata {
  /** The user a client_credentials client acts as: the `sub` of its tokens. */
  mnemo_service_user?: string;
  /** mnemo's own applications (the studio, the CLI) rather than an operator's. */
  mnemo_first_party: boolean;
  /** An app's own request rate a minute, carried by its tokens (`mnemo_rate_limit`). */
  mnemo_rate_limit?: number;
}

export const EXTRA_CLIENT_METADATA = [
  'mnemo_service_user',
  'mnemo_first_party',
  'mnemo_rate_limit',
] as const;

const OAUTH_GRANT_TYPE: Record<ClientGrant, string> = {
  authorization_code: 'authorization_code',
  refresh_token: 'refresh_token',
  client_credentials: 'client_credentials',
  // RFC 8628 §3.4
  device_code: 'urn:ietf:params:oauth:grant-type:device_code',
};

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** How an acceptable redirect URI reaches its client. */
type RedirectKind = 'web' | 'loopback' | 'private-use';

function redirectKind(uri: string): RedirectKind | undefined {
  const url = URL.parse(uri);
  if (!url) return undefined;
  if (url.protocol === 'https:') return 'web';
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname) ? 'loopback' : undefined;
  // RFC 8252 §7.1: "apps MUST use a URI scheme based on a domain name under their control,
  // expressed in reverse order" — so a private-use scheme has a dot, which no web scheme has.
  return url.protocol.slice(0, -1).includes('.') ? 'private-use' : undefined;
}

/**
 * What is wrong with a client's redirect URIs, or undefined when nothing is. Each must be
 * absolute without a fragment (RFC 6749 §3.1.2), and https, http on a loopback host (RFC 8252
 * §7.3) or a private-use scheme (RFC 8252 §7.1). They are kept as given and matched exactly.
 */
export function redirectUrisProblem(uris: readonly string[]): string | undefined {
  for (const uri of uris) {
    if (/\s/.test(uri)) return `must not contain white space: "${uri}"`;
    if (!URL.canParse(uri)) return `must be an absolute URI, not "${uri}"`;
    // RFC 6749 §3.1.2: "The endpoint URI MUST NOT include a fragment component."
    if (uri.includes('#')) return `must not contain a fragment (#…), not "${uri}"`;
    if (!redirectKind(uri)) {
      return `must be https, http on a loopback host (127.0.0.1, [::1], localhost) or a private-use scheme with a dot (com.example.app:/callback), not "${uri}"`;
    }
  }
  // The provider holds a native app's https redirect URIs to be claimed ones (RFC 8252 §7.2),
  // never on a loopback host, and would refuse to load the client.
  const loopbackHttps = uris.find((uri) => {
    const url = URL.parse(uri);
    return url?.protocol === 'https:' && LOOPBACK_HOSTS.has(url.hostname);
  });
  if (loopbackHttps !== undefined && applicationType(uris) === 'native') {
    return `"${loopbackHttps}" cannot be combined with http loopback or private-use redirect URIs: those make the client a native app, whose https redirect URIs must not be on a loopback host`;
  }
  return undefined;
}

/** The grants a client that describes itself may have: a person's, through the consent page. */
const SELF_DESCRIBED_GRANTS = new Set(['authorization_code', 'refresh_token']);

/**
 * What is wrong with the metadata of a client that describes itself — registered at the
 * registration endpoint (RFC 7591) or named by the URL of its metadata document — or undefined.
 * Such a client acts for the person who allows it on the consent page, and nothing more: the
 * authorization code grant (and refresh), redirect URIs under the rules of `redirectUrisProblem`,
 * and none of mnemo's own properties (`mnemo_first_party` would skip the consent). The message
 * names the property first, as RFC 7591 §3.2.2's `error_description`; one about `redirect_uris`
 * is answered as `invalid_redirect_uri`.
 */
export function selfDescribedClientProblem(metadata: Partial<ClientMetadata>): string | undefined {
  for (const property of EXTRA_CLIENT_METADATA) {
    if (metadata[property] !== undefined) return `${property} is not a property a client may set`;
  }
  const grants = metadata.grant_types ?? ['authorization_code'];
  if (!grants.every((grant) => SELF_DESCRIBED_GRANTS.has(grant))) {
    return 'grant_types can only contain authorization_code and refresh_token';
  }
  if (!grants.includes('authorization_code')) {
    return 'grant_types must contain authorization_code';
  }
  if (!(metadata.response_types ?? ['code']).every((type) => type === 'code')) {
    return 'response_types can only contain code';
  }
  const uris = metadata.redirect_uris ?? [];
  if (uris.length === 0) return 'redirect_uris must contain members';
  const problem = redirectUrisProblem(uris);
  return problem === undefined ? undefined : `redirect_uris ${problem}`;
}

/**
 * `native` when any redirect URI is an http loopback or a private-use one (RFC 8252): only
 * then does the provider take them, and a loopback one with any port (§7.3).
 */
function applicationType(uris: readonly string[]): 'web' | 'native' {
  return uris.some((uri) => redirectKind(uri) !== 'web') ? 'native' : 'web';
}

/**
 * The provider's metadata of a registered client. A confidential client's `client_secret` is
 * the stored hash: the provider insists on one, and its comparison is replaced by
 * `verifyClientSecret`, so the secret itself is never kept.
 *
 * @example
 * const metadata = clientMetadata(client);
 * // { client_id: 'mnemo_client_…', grant_types: ['client_credentials'], response_types: [], … }
 */
export function clientMetadata(client: OAuthClient): MnemoClientMetadata {
  const metadata: MnemoClientMetadata = {
    client_id: client.id,
    client_name: client.name,
    grant_types: client.grants.map((grant) => OAUTH_GRANT_TYPE[grant]),
    // Without the code grant, no response type: the provider demands redirect URIs of any
    // client that has one.
    response_types: client.grants.includes('authorization_code') ? ['code'] : [],
    redirect_uris: [...client.redirectUris],
    application_type: applicationType(client.redirectUris),
    token_endpoint_auth_method: client.type === 'public' ? 'none' : 'client_secret_basic',
    mnemo_first_party: false,
  };
  if (client.type === 'confidential') {
    if (client.secretHash === null) {
      throw new Error(`oauth client ${client.id} is confidential but has no secret`);
    }
    metadata.client_secret = client.secretHash;
  }
  if (client.serviceUserId !== null) metadata.mnemo_service_user = client.serviceUserId;
  if (client.rateLimitPerMinute !== null) metadata.mnemo_rate_limit = client.rateLimitPerMinute;
  return metadata;
}

/** The metadata of a registered client; undefined when there is no such client. */
export async function findClientMetadata(
  db: Kysely<Tables>,
  id: string,
): Promise<MnemoClientMetadata | undefined> {
  const client = await findClient(db, id);
  return client && clientMetadata(client);
}

/**
 * mnemo's own public clients: the studio (a browser app, authorization code + PKCE) and the CLI
 * (`mnemo login`, the device flow: no redirect at all).
 */
export function builtInClients(publicUrl: string): MnemoClientMetadata[] {
  return [
    {
      client_id: STUDIO_CLIENT_ID,
      client_name: 'mnemo studio',
      application_type: 'web',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [`${publicUrl}/studio/callback`],
      post_logout_redirect_uris: [`${publicUrl}/studio/`],
      token_endpoint_auth_method: 'none',
      mnemo_first_party: true,
    },
    {
      client_id: CLI_CLIENT_ID,
      client_name: 'mnemo CLI',
      application_type: 'native',
      grant_types: [OAUTH_GRANT_TYPE.device_code, 'refresh_token'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'none',
      mnemo_first_party: true,
    },
  ];
}
