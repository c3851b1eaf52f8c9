import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { BrowserRouter } from 'react-router';
import { createApiClient } from '../api/client.ts';
import { ApiError, sentence } from '../api/errors.ts';
import { beginSignIn, completeSignIn, SignInFailed } from '../auth/oauth.ts';
import { createSession, type Session } from '../auth/session.ts';
import { fetchUserInfo, type UserInfo } from '../auth/userinfo.ts';
import { BASENAME, currentAppPath } from '../routing/base.ts';
import { Splash } from '../ui/splash.tsx';
import { App } from './app.tsx';
import { rememberedOrg, rememberOrg } from './org-choice.ts';
import { type Studio, StudioContext } from './studio-context.tsx';

type State =
  | { step: 'signing-in' }
  | { step: 'signed-out' }
  | { step: 'failed'; message: string }
  | { step: 'no-organization'; me: UserInfo; session: Session }
  | { step: 'ready'; me: UserInfo; session: Session };

const SIGNED_OUT = '?state=signed-out';

/**
 * From a page load to a signed-in studio: the callback redeems its code; the signed-out page
 * (where sign-out lands) waits for a click; any other page signs in first (at once while the
 * authorization server's session lasts) and comes back to itself.
 */
export function Boot() {
  const [state, setState] = useState<State>({ step: 'signing-in' });
  const [attempt, setAttempt] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` re-runs the sign-in on retry.
  useEffect(() => {
    let cancelled = false;
    (async () => {
      if (location.pathname === `${BASENAME}/` && location.search === SIGNED_OUT) {
        setState({ step: 'signed-out' });
        return;
      }
      if (location.pathname !== `${BASENAME}/callback`) {
        await beginSignIn(currentAppPath());
        return;
      }
      const { tokens, returnTo } = await completeSignIn(new URL(location.href));
      history.replaceState(null, '', `${BASENAME}${returnTo}`);
      const session = createSession(tokens, {
        onSignedOutElsewhere: () => location.assign(`${BASENAME}/${SIGNED_OUT}`),
      });
      const me = await fetchUserInfo(session);
      if (cancelled) return;
      setState(
        me.organizations.length === 0
          ? { step: 'no-organization', me, session }
          : { step: 'ready', me, session },
      );
    })().catch((error: unknown) => {
      if (cancelled) return;
      // The details, for whoever opens the console; the page says it in a sentence.
      console.error('sign-in failed', error);
      const message =
        error instanceof SignInFailed
          ? error.message
          : // Anything else here failed to reach the server (discovery, the token endpoint).
            sentence(error instanceof ApiError ? error : new ApiError(0, 'network error'));
      setState({ step: 'failed', message });
    });
    return () => {
      cancelled = true;
    };
  }, [attempt]);

  switch (state.step) {
    case 'signing-in':
      return <Splash title="Signing you in…" busy />;
    case 'signed-out':
      return (
        <Splash
          title="You are signed out"
          text="Your session has ended on this browser."
          action={{ label: 'Sign in', onClick: () => void beginSignIn('/memories') }}
        />
      );
    case 'failed':
      return (
        <Splash
          title="Sign-in did not complete"
          text={state.message}
          action={{
            label: 'Try again',
            onClick: () => {
              history.replaceState(null, '', `${BASENAME}/memories`);
              setState({ step: 'signing-in' });
              setAttempt((n) => n + 1);
            },
          }}
        />
      );
    case 'no-organization':
      return (
        <Splash
          title="No organization yet"
          text={`${state.me.email} is not a member of any organization. Ask an owner of one to add you, then sign in again.`}
          action={{ label: 'Sign out', onClick: () => void state.session.signOut() }}
        />
      );
    case 'ready':
      return <SignedIn me={state.me} session={state.session} />;
  }
}

function SignedIn({ me, session }: { me: UserInfo; session: Session }) {
  const [orgId, setOrgId] = useState(() => rememberedOrg(me.organizations) as string);
  const api = useMemo(() => createApiClient(session), [session]);
  const queryClient = useMemo(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            // The fetch already waited out 429s and renewed tokens: what fails here is shown.
            retry: (count, error) =>
              count < 2 && error instanceof ApiError && (error.status === 0 || error.status >= 500),
            staleTime: 10_000,
          },
        },
      }),
    [],
  );
  const org = me.organizations.find((o) => o.id === orgId) ?? me.organizations[0];
  if (!org) throw new Error('no organization');
  const studio: Studio = {
    session,
    api,
    me,
    org,
    setOrg: (id) => {
      rememberOrg(id);
      setOrgId(id);
    },
  };
  return (
    <QueryClientProvider client={queryClient}>
      <StudioContext value={studio}>
        <BrowserRouter basename={BASENAME}>
          <App />
        </BrowserRouter>
      </StudioContext>
    </QueryClientProvider>
  );
}
