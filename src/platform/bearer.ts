/**
 * Bearer tokens as RFC 6750 defines them: how a request sends one (§2.1) and how a refusal
 * challenges it (§3). Both the platform credential (`/api`) and the API key (`/v1`) travel this
 * way; what a token means is for their own checks.
 */

/** The protection space named in every challenge: one for the whole service. */
export const REALM = 'mnemo';

export type BearerToken =
  | { readonly ok: true; readonly token: string }
  /** No `Authorization` header, or a blank one: the request lacks authentication. */
  | { readonly ok: false; readonly problem: 'missing' }
  /** Another scheme, no token, or a token outside RFC 6750's `b64token` characters. */
  | { readonly ok: false; readonly problem: 'malformed' };

/** RFC 6750 §2.1: `Bearer 1*SP b64token`, the scheme in any case; spaces after it are let pass. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The token of `Authorization: Bearer <token>`.
 *
 * @example
 * bearerToken('Bearer abc.def'); // { ok: true, token: 'abc.def' }
 * bearerToken(undefined); // { ok: false, problem: 'missing' }
 * bearerToken('Basic dXNlcg=='); // { ok: false, problem: 'malformed' }
 */
export function bearerToken(authorization: string | undefined): BearerToken {
  if (authorization === undefined || authorization.trim() === '') {
    return { ok: false, problem: 'missing' };
  }
  const token = BEARER.exec(authorization)?.[1];
  return token === undefined ? { ok: false, problem: 'malformed' } : { ok: true, token };
}

export interface BearerError {
  /** RFC 6750 §3.1's codes that mnemo sends. */
  readonly error: 'invalid_token' | 'insufficient_scope';
  /** For people: why. */
  readonly description: string;
  /** With `insufficient_scope`: the scope the request needs. */
  readonly scope?: string;
}

/** What a resource tells every client it challenges, whatever the refusal. */
export interface ChallengeContext {
  /**
   * RFC 9728 §5.1: the URL of the resource's protected resource metadata, where a client
   * learns which authorization server issues its tokens.
   */
  readonly resourceMetadata?: string;
  /** RFC 6750 §3: the scopes to ask for; an `insufficient_scope` refusal names its own. */
  readonly scope?: string;
}

/**
 * The `WWW-Authenticate` value of a refusal (RFC 6750 §3): the realm alone when the request
 * sent no credential (§3.1: "the resource server SHOULD NOT include an error code or other
 * error information"), else the error and its description; with a context, also where the
 * resource's metadata is and the scopes to ask for.
 *
 * @example
 * bearerChallenge(); // 'Bearer realm="mnemo"'
 * bearerChallenge({ error: 'invalid_token', description: 'credential has expired' });
 * // 'Bearer realm="mnemo", error="invalid_token", error_description="credential has expired"'
 * bearerChallenge(undefined, { resourceMetadata: 'https://m.example/.well-known/oauth-protected-resource/mcp' });
 * // 'Bearer realm="mnemo", resource_metadata="https://m.example/.well-known/oauth-protected-resource/mcp"'
 */
export function bearerChallenge(refusal?: BearerError, context: ChallengeContext = {}): string {
  const params = [`realm="${REALM}"`];
  if (context.resourceMetadata !== undefined) {
    params.push(`resource_metadata="${quotable(context.resourceMetadata)}"`);
  }
  if (refusal) {
    params.push(`error="${refusal.error}"`);
    params.push(`error_description="${quotable(refusal.description)}"`);
  }
  const scope = refusal?.scope ?? context.scope;
  if (scope !== undefined) params.push(`scope="${quotable(scope)}"`);
  return `Bearer ${params.join(', ')}`;
}

/**
 * RFC 6750 §3: `error_description` and `scope` values "MUST NOT include characters outside the
 * set %x20-21 / %x23-5B / %x5D-7E" — no `"`, no `\`, nothing beyond ASCII. mnemo's own messages
 * keep to it; a configured value (an issuer, an audience) named in one may not, and is made to.
 */
function quotable(text: string): string {
  return text
    .replaceAll('"', "'")
    .replaceAll('\\', '/')
    .replace(/[^\x20-\x7e]/g, '?');
}
