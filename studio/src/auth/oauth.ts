import * as oauth from 'oauth4webapi';
import { asSentence } from '../api/errors.ts';
import { appUrl } from '../routing/base.ts';

/**
 * The studio as an OAuth client of mnemo's authorization server: the built-in public client
 * `mnemo-studio`, authorization code with PKCE (S256), refresh tokens rotated on every use.
 * The protocol is oauth4webapi's; this file only says which requests the studio makes.
 */
const CLIENT: oauth.Client = { client_id: 'mnemo-studio' };
const NO_CLIENT_AUTH = oauth.None();

/** What the studio's pages need: memories, keys, usage and organization management. */
export const SCOPES = 'openid offline_access memory:read memory:write keys usage admin';

/** The browser state of a sign-in in progress: it must outlive the redirect, and nothing more. */
const PENDING_KEY = 'mnemo.studio.sign-in';

export interface Tokens {
  readonly accessToken: string;
  readonly refreshToken: string | undefined;
  readonly idToken: string | undefined;
  /** Epoch milliseconds at which the access token stops working. */
  readonly expiresAt: number;
}

export const callbackUrl = () => appUrl('/callback');

const issuer = () => new URL('/oauth', location.origin);

// Over plain http on a developer's loopback, as `npm start` serves; oauth4webapi asks for https
// unless told otherwise.
const requestOptions = () => ({ [oauth.allowInsecureRequests]: location.protocol === 'http:' });

let discovered: Promise<oauth.AuthorizationServer> | undefined;

function authorizationServer(): Promise<oauth.AuthorizationServer> {
  discovered ??= oauth
    .discoveryRequest(issuer(), { algorithm: 'oidc', ...requestOptions() })
    .then((response) => oauth.processDiscoveryResponse(issuer(), response))
    .catch((error: unknown) => {
      discovered = undefined;
      throw error;
    });
  return discovered;
}

function toTokens(response: oauth.TokenEndpointResponse): Tokens {
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    idToken: response.id_token,
    expiresAt: Date.now() + (response.expires_in ?? 300) * 1000,
  };
}

let leaving: Promise<never> | undefined;

/**
 * Leaves for the authorization endpoint; the person comes back to /studio/callback. `returnTo`
 * is the studio page to land on afterwards. Once per page: a second call (React runs effects
 * twice in development) would start a second authorization and spend the first's state.
 */
export function beginSignIn(returnTo: string): Promise<never> {
  leaving ??= leave(returnTo);
  return leaving;
}

async function leave(returnTo: string): Promise<never> {
  const as = await authorizationServer();
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state, returnTo }));
  const url = new URL(as.authorization_endpoint ?? `${issuer().href}/auth`);
  url.search = new URLSearchParams({
    client_id: CLIENT.client_id,
    redirect_uri: callbackUrl(),
    response_type: 'code',
    scope: SCOPES,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.href);
  // The page is being replaced: nothing after this runs.
  return new Promise<never>(() => {});
}

/** An authorization the person refused or that failed at the server, in its own words. */
export class SignInFailed extends Error {
  override readonly name = 'SignInFailed';
}

const NOT_STARTED_HERE = 'This sign-in was not started here, or was already used.';

type Completed = { tokens: Tokens; returnTo: string };
let completing: { url: string; result: Promise<Completed> } | undefined;

/**
 * Redeems the code the authorization server sent back; returns the tokens and where to go. A
 * code is redeemed once: asked again for the same callback (React runs effects twice in
 * development), it answers with the same result.
 */
export function completeSignIn(current: URL): Promise<Completed> {
  if (completing?.url !== current.href) {
    completing = { url: current.href, result: redeem(current) };
  }
  return completing.result;
}

async function redeem(current: URL): Promise<Completed> {
  const saved = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!saved) throw new SignInFailed(NOT_STARTED_HERE);
  const pending = JSON.parse(saved) as { verifier: string; state: string; returnTo: string };
  const as = await authorizationServer();
  let parameters: URLSearchParams;
  try {
    parameters = oauth.validateAuthResponse(as, CLIENT, current, pending.state);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      throw new SignInFailed(
        error.error === 'access_denied'
          ? 'The sign-in was cancelled.'
          : asSentence(error.error_description ?? error.error),
      );
    }
    // Another state, no code, another issuer: not the answer to what this browser asked.
    throw new SignInFailed(NOT_STARTED_HERE);
  }
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    CLIENT,
    NO_CLIENT_AUTH,
    parameters,
    callbackUrl(),
    pending.verifier,
    requestOptions(),
  );
  try {
    const tokens = toTokens(await oauth.processAuthorizationCodeResponse(as, CLIENT, response));
    return { tokens, returnTo: pending.returnTo };
  } catch (error) {
    // The server refused the code (expired, already used): said in its own words.
    if (error instanceof oauth.ResponseBodyError) {
      throw new SignInFailed(asSentence(error.error_description ?? error.error));
    }
    throw error;
  }
}

/** A new access token for the refresh token, which is spent: the answer carries its successor. */
export async function refresh(refreshToken: string): Promise<Tokens> {
  const as = await authorizationServer();
  const response = await oauth.refreshTokenGrantRequest(
    as,
    CLIENT,
    NO_CLIENT_AUTH,
    refreshToken,
    requestOptions(),
  );
  return toTokens(await oauth.processRefreshTokenResponse(as, CLIENT, response));
}

/** Whether a failed refresh means the grant is gone (sign in again) rather than a passing fault. */
export const isGrantGone = (error: unknown) =>
  error instanceof oauth.ResponseBodyError &&
  (error.error === 'invalid_grant' || error.error === 'invalid_client');

/** RFC 7009: the refresh token stops working, and with it the grant it belongs to. */
export async function revoke(refreshToken: string): Promise<void> {
  const as = await authorizationServer();
  const response = await oauth.revocationRequest(as, CLIENT, NO_CLIENT_AUTH, refreshToken, {
    additionalParameters: { token_type_hint: 'refresh_token' },
    ...requestOptions(),
  });
  await oauth.processRevocationResponse(response);
}

/**
 * Ends the authorization server's session (RP-initiated logout) and comes back to the studio's
 * signed-out page. With the ID token as a hint, mnemo ends it without asking again.
 */
export async function endSession(idToken: string | undefined): Promise<never> {
  const as = await authorizationServer();
  const url = new URL(as.end_session_endpoint ?? `${issuer().href}/session/end`);
  url.search = new URLSearchParams({
    client_id: CLIENT.client_id,
    post_logout_redirect_uri: appUrl('/'),
    state: 'signed-out',
    ...(idToken ? { id_token_hint: idToken } : {}),
  }).toString();
  location.assign(url.href);
  return new Promise<never>(() => {});
}
