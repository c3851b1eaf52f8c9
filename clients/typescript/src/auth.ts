import { errorOf } from './errors.ts';

/** An app's OAuth client credentials (docs/oauth.md, "Apps"): its id and its secret. */
export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  /**
   * The scopes to ask for, space-separated. A client gets the scopes it asks for and none when
   * it asks for none, so the default asks for the memory API's two.
   */
  readonly scope?: string;
}

/**
 * How requests are authorized: a platform credential (an OAuth access token), a function that
 * gives one each time it is needed, or an app's client credentials, exchanged for tokens here.
 */
export type Auth = string | (() => string | Promise<string>) | ClientCredentials;

/** Gives the access token for the next request. */
export type TokenSource = () => Promise<string>;

export const DEFAULT_SCOPE = 'memory:read memory:write';
/** How long before its expiry a token is replaced: a minute, or half its life when shorter. */
const REFRESH_BEFORE_MS = 60_000;

export function createTokenSource(auth: Auth, baseUrl: string, fetcher: typeof fetch): TokenSource {
  if (typeof auth === 'string') return async () => auth;
  if (typeof auth === 'function') return async () => auth();
  return createClientCredentialsSource(auth, baseUrl, fetcher);
}

interface Held {
  readonly token: string;
  /** When to fetch the next one (ms since the epoch). */
  readonly renewAt: number;
}

/**
 * Client credentials (RFC 6749 §4.4) at `{baseUrl}/oauth/token`. The token is kept and replaced
 * a little before it expires; callers that need one while it is being fetched share that fetch,
 * so twenty calls at once cost one token request.
 */
function createClientCredentialsSource(
  credentials: ClientCredentials,
  baseUrl: string,
  fetcher: typeof fetch,
): TokenSource {
  let held: Held | undefined;
  let pending: Promise<Held> | undefined;

  async function fetchToken(): Promise<Held> {
    // §2.3.1: the id and the secret are form-encoded before they are joined for Basic.
    const basic = btoa(
      `${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`,
    );
    const response = await fetcher(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: credentials.scope ?? DEFAULT_SCOPE,
      }).toString(),
    });
    if (!response.ok) throw await errorOf(response);
    const body = (await response.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string') {
      throw new TypeError('the token endpoint answered without an access_token');
    }
    const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 0;
    const ahead = Math.min(REFRESH_BEFORE_MS, lifetimeMs / 2);
    return { token: body.access_token, renewAt: Date.now() + lifetimeMs - ahead };
  }

  return async () => {
    if (held && Date.now() < held.renewAt) return held.token;
    pending ??= fetchToken()
      .then((fetched) => {
        held = fetched;
        return fetched;
      })
      .finally(() => {
        pending = undefined;
      });
    return (await pending).token;
  };
}
