import { currentAppPath } from '../routing/base.ts';
import { beginSignIn, endSession, isGrantGone, refresh, revoke, type Tokens } from './oauth.ts';

/** Refresh this long before the access token expires, so no request carries a dying one. */
const REFRESH_AHEAD_MS = 60_000;
/** A token this close to its end is refreshed before use rather than sent. */
const MIN_VALIDITY_MS = 15_000;

/** Tabs of one browser tell each other that the person signed out. */
const CHANNEL = 'mnemo.studio.session';

export interface Session {
  /** An access token valid for a while yet, refreshed first when it is not. */
  accessToken(): Promise<string>;
  /** After a 401: a new access token, or sign-in again when the grant is gone. */
  renew(): Promise<string>;
  /** Runs before sign-out completes (revoking what the page made for itself). */
  onSignOut(cleanup: () => Promise<void>): () => void;
  /** Revokes the refresh token, ends the authorization server's session, and leaves. */
  signOut(): Promise<never>;
}

/**
 * The tokens of this tab, in memory only: never in storage a script or another tab could read.
 * A reload or a second tab signs in again through the authorization server's session, which
 * takes no input while it lasts. The refresh token is rotated at every refresh.
 *
 * A tab that goes away does not revoke its refresh token: revoking one revokes its whole grant,
 * which every tab of the session shares (and the code a reloading tab is about to redeem). The
 * token dies with the page's memory and expires at the server; sign-out revokes the grant.
 */
export function createSession(initial: Tokens, options: { onSignedOutElsewhere: () => void }) {
  let tokens = initial;
  let refreshing: Promise<string> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;
  const cleanups = new Set<() => Promise<void>>();
  const channel = 'BroadcastChannel' in window ? new BroadcastChannel(CHANNEL) : undefined;

  function schedule() {
    clearTimeout(timer);
    const delay = Math.max(0, tokens.expiresAt - REFRESH_AHEAD_MS - Date.now());
    // Background refresh failures surface on the next request, which retries it.
    timer = setTimeout(() => void renew().catch(() => {}), delay);
  }

  function renew(): Promise<string> {
    refreshing ??= (async () => {
      const refreshToken = tokens.refreshToken;
      if (!refreshToken || ended) return beginSignIn(currentAppPath());
      try {
        tokens = await refresh(refreshToken);
      } catch (error) {
        if (isGrantGone(error)) return beginSignIn(currentAppPath());
        throw error;
      }
      schedule();
      return tokens.accessToken;
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  }

  async function runCleanups() {
    await Promise.allSettled([...cleanups].map((cleanup) => cleanup()));
  }

  channel?.addEventListener('message', (event: MessageEvent) => {
    if (event.data !== 'signed-out' || ended) return;
    ended = true;
    clearTimeout(timer);
    const refreshToken = tokens.refreshToken;
    void runCleanups()
      .then(() => (refreshToken ? revoke(refreshToken) : undefined))
      .catch(() => {})
      .finally(options.onSignedOutElsewhere);
  });

  schedule();

  const session: Session = {
    accessToken() {
      if (refreshing) return refreshing;
      if (tokens.expiresAt - Date.now() < MIN_VALIDITY_MS) return renew();
      return Promise.resolve(tokens.accessToken);
    },
    renew,
    onSignOut(cleanup) {
      cleanups.add(cleanup);
      return () => cleanups.delete(cleanup);
    },
    async signOut() {
      await runCleanups();
      ended = true;
      clearTimeout(timer);
      channel?.postMessage('signed-out');
      // A failed revocation must not keep the person signed in: the session still ends.
      if (tokens.refreshToken) await revoke(tokens.refreshToken).catch(() => {});
      return endSession(tokens.idToken);
    },
  };
  return session;
}
