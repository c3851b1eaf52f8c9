import { type Client, errors, type KoaContextWithOIDC } from 'oidc-provider';
import { MCP_SCOPE_NAMES, PLATFORM_SCOPE_NAMES } from '../credentials/index.ts';
import type { MnemoClientMetadata } from './client-metadata.ts';

/**
 * The default scope of a client that registered none (an operator's, or one that describes itself
 * without `scope`): the memory scopes, what the MCP server takes and its protected resource
 * metadata advertises, and what the memory API's everyday calls need.
 */
const DEFAULT_SCOPE = MCP_SCOPE_NAMES.join(' ');

/**
 * The scopes that make a request an OpenID one and shape only its ID token (OpenID Connect Core
 * §3.1.2.1: "If the openid scope value is not present, the behavior is entirely unspecified";
 * §5.4 for `email` and `profile`). A client asks for them; a default never adds them, so a
 * request that named no scope stays a plain OAuth request, with no ID token.
 */
const OPENID_SCOPES = new Set(['openid', 'email', 'profile']);

/**
 * The scope a client gets when its authorization request names none, before what OpenID's rule
 * and the request take out of it: the `scope` it registered (RFC 7591 §2, or its client ID
 * metadata document), which is also all it may ask for; for mnemo's own applications, every
 * platform scope (they are trusted with what they ask); else `DEFAULT_SCOPE`.
 *
 * @example
 * const studio = await provider.Client.find('mnemo-studio');
 * if (studio) defaultScopeOf(studio); // 'memory:read memory:write keys usage admin'
 */
export function defaultScopeOf(client: Client): string {
  if (client.scope) return client.scope;
  const { mnemo_first_party: firstParty } = client.metadata() as Partial<MnemoClientMetadata>;
  return firstParty ? PLATFORM_SCOPE_NAMES.join(' ') : DEFAULT_SCOPE;
}

/**
 * The `scope` of an authorization request (at the authorization, pushed authorization and device
 * authorization endpoints), once the provider has checked the rest of it — the client, its
 * redirect URI, PKCE, the resource — and before anyone is asked to sign in. RFC 6749 §3.3: "If
 * the client omits the scope parameter when requesting authorization, the authorization server
 * MUST either process the request using a pre-defined default value or fail the request
 * indicating an invalid scope." The provider would do neither: it would ask the person to sign in
 * and consent to nothing, then answer `access_denied`. So:
 *
 * 1. A scope asked for that names nothing this server knows is refused as `invalid_scope`
 *    (RFC 6749 §4.1.2.1: "The requested scope is invalid, unknown, or malformed").
 * 2. Without one, the client's default (`defaultScopeOf`) is the request's scope, less OpenID's
 *    scopes, and less `offline_access` where the provider would drop it from a scope asked for.
 * 3. A default that leaves nothing any resource of the request takes is refused as
 *    `invalid_scope`.
 *
 * An error here goes back to the redirect URI with `state` (the provider checked it already), or
 * to mnemo's error page when the redirect URI is not one the client registered.
 *
 * Given to the provider as the `extraParams` validator of `scope`, which it runs after its own
 * checks (a scope set here is not checked again: what is set is within the client's registered
 * scope by construction).
 */
export function createScopeResolver(knownScopes: readonly string[]) {
  const known = new Set(knownScopes);
  return async (ctx: KoaContextWithOIDC, scope: string | undefined, client: Client) => {
    if (scope !== undefined) {
      refuseUnknownScope(scope, known);
      return;
    }
    const params = ctx.oidc.params as { scope?: string };
    const registered = defaultScopeOf(client);
    const scopes = withoutOpenIdScopes(registered.split(' ')).filter(
      (name) => name !== 'offline_access' || keepsOfflineAccess(ctx, client),
    );
    refuseUnusableDefault(ctx, scopes, registered);
    params.scope = scopes.join(' ');
  };
}

function refuseUnknownScope(scope: string, known: ReadonlySet<string>) {
  if (scope.split(' ').some((name) => known.has(name))) return;
  throw new errors.InvalidScope(
    'none of the scopes asked for is one this server knows (discovery lists them in scopes_supported)',
    scope,
  );
}

const withoutOpenIdScopes = (scopes: readonly string[]) =>
  scopes.filter((name) => name !== '' && !OPENID_SCOPES.has(name));

/**
 * The provider's own rule for `offline_access` in a scope asked for (OpenID Connect Core §11):
 * kept only for a client that may refresh, and, where the request may carry `prompt`, only with
 * `prompt=consent`.
 */
function keepsOfflineAccess(ctx: KoaContextWithOIDC, client: Client): boolean {
  const params = ctx.oidc.params ?? {};
  return (
    client.grantTypeAllowed('refresh_token') &&
    (!('prompt' in params) || ctx.oidc.prompts.has('consent'))
  );
}

/** A default is usable when a resource of the request (RFC 8707) takes one of its scopes. */
function refuseUnusableDefault(
  ctx: KoaContextWithOIDC,
  scopes: readonly string[],
  registered: string,
) {
  const resources = Object.values(ctx.oidc.resourceServers ?? {});
  if (resources.some((resource) => scopes.some((name) => resource.scopes.has(name)))) return;
  const where = resources.map((resource) => resource.identifier()).join(', ');
  throw new errors.InvalidScope(
    `scope is missing, and the client's default scope (${registered}) grants nothing at ${where}: ask for a scope`,
    registered,
  );
}
