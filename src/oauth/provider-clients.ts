import type Provider from 'oidc-provider';
import { type Configuration, errors } from 'oidc-provider';
import {
  EXTRA_CLIENT_METADATA,
  type MnemoClientMetadata,
  selfDescribedClientProblem,
} from './client-metadata.ts';
import { createClientId, createClientSecret, verifyClientSecret } from './client-secrets.ts';

type Features = NonNullable<Configuration['features']>;

export interface ClientRulesOptions {
  /** Open dynamic client registration (RFC 7591). */
  readonly clientRegistration: boolean;
  /**
   * Whether the documents the provider fetches (client ID metadata documents) may be on
   * special-use addresses (loopback, private, link-local…); off, its own guard refuses them.
   */
  readonly fetchPrivateAddresses: boolean;
}

/**
 * The version of the Client ID Metadata Document draft the provider implements: its feature is
 * experimental, and enabled only with this acknowledged (a newer provider with another draft
 * refuses to start until this is checked against it).
 */
const CLIENT_ID_METADATA_DOCUMENT_DRAFT = 'draft-02';

/** The largest client ID metadata document fetched (the draft: "SHOULD" limit it; 5 KiB). */
const CLIENT_METADATA_DOCUMENT_BYTES = 5 * 1024;

/**
 * How long a document that could not be fetched (no answer within the provider's 2.5 s, a
 * refused connection, a status other than 200) is not asked for again. The provider looks a
 * client up twice when the first lookup fails (its error handler tries again): without this, a
 * person would wait twice the time limit, and every failing request would fetch twice.
 */
const FAILED_FETCH_MEMORY_MS = 10_000;

/**
 * Who may be a client, and how: clients that register (RFC 7591) or describe themselves by the
 * URL of their metadata (Client ID Metadata Documents), held to mnemo's rules of what such a
 * client may ask for; how clients authenticate; which browser origins may call the token
 * endpoints; and how the documents a client names are fetched.
 */
export function clientRules(options: ClientRulesOptions): Pick<
  Configuration,
  | 'extraClientMetadata'
  | 'clientBasedCORS'
  | 'clientAuthMethods'
  | 'fetch'
  | 'fetchResponseBodyLimits'
> & {
  readonly registration: NonNullable<Features['registration']>;
  readonly clientIdMetadataDocument: NonNullable<Features['clientIdMetadataDocument']>;
} {
  const failedFetches = createFailureMemory(FAILED_FETCH_MEMORY_MS);
  const fetchUnguarded: typeof globalThis.fetch = (url, init) => {
    const { dispatcher: _guard, ...unguarded } = (init ?? {}) as RequestInit & {
      dispatcher?: unknown;
    };
    return globalThis.fetch(url, unguarded);
  };
  // The provider's own guard against special-use addresses rides on `init.dispatcher`;
  // leaving it out lets an operator's own network serve metadata documents.
  const fetchDocument = options.fetchPrivateAddresses ? fetchUnguarded : globalThis.fetch;

  return {
    extraClientMetadata: {
      properties: [...EXTRA_CLIENT_METADATA],
      // Called for each of the properties: the client's whole metadata is checked at the first.
      validator(ctx, key, _value, metadata) {
        if (key !== EXTRA_CLIENT_METADATA[0]) return;
        const describesItself =
          ctx?.oidc?.route === 'registration' || URL.canParse(String(metadata.client_id));
        if (!describesItself) return;
        const problem = selfDescribedClientProblem(metadata as Partial<MnemoClientMetadata>);
        if (problem) throw new errors.InvalidClientMetadata(problem);
      },
    },
    // A browser app may call the token and revocation endpoints from the origins of its own
    // redirect URIs, and only a public client (a confidential one has a server to call from).
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' &&
      client.clientAuthMethod === 'none' &&
      client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) === true,
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    async fetch(url, init) {
      const at = String(url instanceof Request ? url.url : url);
      try {
        const response = await fetchDocument(url, init);
        if (response.status !== 200) failedFetches.add(at);
        return response;
      } catch (error) {
        failedFetches.add(at);
        throw error;
      }
    },
    // Nothing fetched is unbounded: a client that describes itself names these URLs.
    fetchResponseBodyLimits: {
      'client_id metadata document': CLIENT_METADATA_DOCUMENT_BYTES,
      jwks_uri: CLIENT_METADATA_DOCUMENT_BYTES * 10,
      sector_identifier_uri: CLIENT_METADATA_DOCUMENT_BYTES * 10,
    },
    // RFC 7591, open: any client may register (as MCP clients do), held to
    // selfDescribedClientProblem and counted per address (oauth.routes.ts). No registration
    // access token: a registered client cannot be read back or changed (RFC 7592 is off).
    registration: {
      enabled: options.clientRegistration,
      initialAccessToken: false,
      issueRegistrationAccessToken: false,
      idFactory: () => createClientId(),
      secretFactory: () => createClientSecret(),
    },
    // The client's id is the https URL of its metadata, fetched when first seen (https only,
    // 2.5 s, CLIENT_METADATA_DOCUMENT_BYTES, cached by its Cache-Control).
    clientIdMetadataDocument: {
      enabled: true,
      ack: CLIENT_ID_METADATA_DOCUMENT_DRAFT,
      allowFetch: async (_ctx, clientId) => !failedFetches.has(clientId),
    },
  };
}

/** Only the SHA-256 of a client secret is stored: the provider would compare plain secrets. */
export function compareHashedClientSecrets(provider: Provider): void {
  provider.Client.prototype.compareClientSecret = function compare(
    this: {
      clientSecret?: string;
    },
    actual: string,
  ) {
    return this.clientSecret !== undefined && verifyClientSecret(actual, this.clientSecret);
  } as never;
}

/** URLs remembered for `ttlMs` each, at most a thousand: the oldest are forgotten first. */
function createFailureMemory(ttlMs: number) {
  const until = new Map<string, number>();
  return {
    add(url: string) {
      until.delete(url);
      until.set(url, Date.now() + ttlMs);
      if (until.size > 1000) until.delete(until.keys().next().value as string);
    },
    has(url: string) {
      const expiry = until.get(url);
      if (expiry === undefined) return false;
      if (expiry > Date.now()) return true;
      until.delete(url);
      return false;
    },
  };
}
